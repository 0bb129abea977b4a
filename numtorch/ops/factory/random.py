"""Random sampling: rand/randn/randint/randperm, their *_like forms, normal, multinomial,
bernoulli, poisson and the in-place samplers (uniform_, normal_, random_, ...).

Every op takes ``generator=`` (a ``numtorch.Generator``; the default generator when None).
Values come from NumPy's PCG64: reproducible under ``manual_seed`` but not PyTorch's streams
(Note [numtorch's random streams] in numtorch/_random.py). Outputs are leaves; as in PyTorch,
the samplers that take tensors record a zero gradient for them.
"""

from __future__ import annotations

import builtins
import contextlib
import warnings

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._device import CPU
from ..._dispatch import dispatch
from ..._random import generator_of
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._pointwise import broadcast_shapes
from .._registry import defop, public
from . import fast as FF
from . import sampler_fast as SF
from .core import zeros_like as _zeros_like_op

K = lazy("numtorch.kernels.cpu.factory")
_KW = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_LKW = f"{_KW}, MemoryFormat? memory_format=None"
_PUB = "out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False"
_GEN = "Generator? generator=None"
_CTYPE = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
          "int32": "int", "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}  # fmt: skip
_MANTISSA = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_NO_CAST, _FMAX = contextlib.nullcontext(), {}  # a reusable null context; finfo(dtype).max (finfo: ~2 us)


def _zeros(x):
    return dispatch(_zeros_like_op, [x, None, None, None, None, None])


_ZERO_GRAD = {"self": lambda grad: _zeros(grad)}  # derivatives.yaml: self: zeros_like(grad)


def _fmt(x) -> str:
    return f"{x:g}"  # C++ ostream's default for doubles


def _not_impl(kernel: str, dt: D.dtype):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{F.cname(dt)}'")


# ---- validation -----------------------------------------------------------------------------------
def _check_float(dt: D.dtype, kernel: str, complex_ok: bool = True, shape=()) -> None:
    if kernel == "normal_kernel_cpu" and 0 in tuple(shape):  # empty: no dtype dispatch (uniform_ has one)
        return
    if dt.category < D._FLOAT or (dt.category == D._COMPLEX and not complex_ok):
        raise _not_impl(kernel, dt)


def _int_bounds(dt: D.dtype, lo: int, hi_incl: int) -> None:
    """PyTorch's from/to checks for discrete uniform sampling into ``dt``."""
    if dt.category == D._INT or dt is D.bool:
        info = (0, 1) if dt is D.bool else (int(np.iinfo(dt.np).min), int(np.iinfo(dt.np).max))
        if not info[0] <= lo <= info[1]:
            raise RuntimeError(f"from is out of bounds for {_CTYPE[dt.name]}")
        if not info[0] <= hi_incl <= info[1]:
            raise RuntimeError(f"to - 1 is out of bounds for {_CTYPE[dt.name]}")
        return
    if dt is D.float16 and not -65504 <= hi_incl <= 65504:
        raise RuntimeError(f"to - 1 is out of bounds for {_CTYPE[dt.name]}")
    m = _MANTISSA[dt.name]
    for what, v in (("from", lo), ("to - 1", hi_incl)):
        if not -(2**m) <= v <= 2**m:
            warnings.warn(
                f"{what} is out of bounds [-(2^{m}), 2^{m}]. Due to precision limitations {_CTYPE[dt.name]} can "
                "support discrete uniform distribution only within this range. This warning will become an "
                "error in version 1.7 release, please fix the code in advance",
                UserWarning,
                stacklevel=6,
            )


def _integers(g, shape, dt: D.dtype, lo: int, hi: int) -> np.ndarray:
    """Uniform integers in [lo, hi) stored as ``dt``."""
    if dt.category == D._COMPLEX:  # torch checks the bounds' dtype before the kernel's
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if lo >= hi:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}"
        )
    _int_bounds(dt, lo, hi - 1)
    return K.integers(g, shape, dt.np, lo, hi - 1)


def _check_i64(*vals) -> None:
    for v in vals:
        if v is not None and not -(2**63) <= v < 2**63:
            raise ValueError("Overflow when unpacking long long")


# ---- op families: functional, .generator and .out variants --------------------------------------------
def _family(name: str, head: str, impl, n: int, ov: str = "", kw: str = _KW, out: bool = True):
    """Register ``name[.ov]``, ``.{ov_}generator`` and their ``.out`` forms; ``impl(*head_values,
    generator, dtype, layout, device, pin_memory)``."""
    sep = f"{ov}_" if ov else ""
    ops = {
        "plain": defop(f"{name}{'.' + ov if ov else ''}({head}, *, {kw}) -> Tensor",
                       cpu=lambda *v: impl(*v[:n], None, *v[n:])),
        "gen": defop(f"{name}.{sep}generator({head}, *, Generator? generator, {kw}) -> Tensor", cpu=impl),
    }  # fmt: skip
    if out:
        ops["out"] = defop(f"{name}.{sep}out({head}, *, Tensor(a!) out) -> Tensor(a!)",
                           cpu=lambda *v: F.write_out(v[-1], impl(*v[:n], None, v[-1]._dtype)._data))  # fmt: skip
        ops["gen_out"] = defop(f"{name}.{sep}generator_out({head}, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
                               cpu=lambda *v: F.write_out(v[-1], impl(*v[:n], v[n], v[-1]._dtype)._data))  # fmt: skip
    return ops


def _run(ops, head, generator, out, dtype, device, requires_grad, fname, tail=()):
    generator_of(generator, fname)
    dtype = F.dtype_arg(dtype, fname)
    if out is not None:
        F.check_out_dtype(out, dtype)
        vals = [*head, out] if generator is None else [*head, generator, out]
        return F.finish(
            dispatch(ops["out" if generator is None else "gen_out"], vals), requires_grad
        )
    default = D.int64 if fname in ("randint", "randperm") else D.get_default_dtype()
    F.check_storage(head if fname == "randperm" else head[-1], (dtype or default).np)  # allocated first
    rest = [dtype, None, F.device_arg(device) or CPU, False, *tail]  # PyTorch's binding fills both
    vals = [*head, *rest] if generator is None else [*head, generator, *rest]
    return F.finish(dispatch(ops["plain" if generator is None else "gen"], vals), requires_grad)


def _rand_impl(size, generator, dtype=None, layout=None, device=None, pin_memory=None):
    dt = F.resolve_dtype(dtype)
    _check_float(dt, "check_uniform_bounds")
    return _make(K.uniform(generator_of(generator), tuple(size), dt.np), dt)


def _randn_impl(size, generator, dtype=None, layout=None, device=None, pin_memory=None):
    dt = F.resolve_dtype(dtype)
    _check_float(dt, "normal_kernel_cpu", shape=size)
    return _make(K.normal(generator_of(generator), tuple(size), dt.np).astype(dt.np), dt)


_RAND = _family("rand", "SymInt[] size", _rand_impl, 1)
_RANDN = _family("randn", "SymInt[] size", _randn_impl, 1)


def _sized(ops, name, what):
    def body(sizes, size, generator, out, dtype, layout, device, requires_grad, pin_memory):
        head = [list(F.size_arg(F.size_kwarg(sizes, size, name), name))]
        return _run(ops, head, generator, out, dtype, device, requires_grad, name)

    body.__doc__ = f"""A tensor of the given shape with {what} (default dtype).

    Reproducible under ``numtorch.manual_seed``; the stream differs from PyTorch's.

    >>> numtorch.{name}(2, 3).shape
    torch.Size([2, 3])
    """
    public(name, f"*sizes, size=None, generator=None, {_PUB}", body, relevant=(), ops=tuple(ops.values()),
           fast=(getattr(FF, name), ("sizes", "dtype"), FF.RANDOM_COND))  # Note [Factory binding fast call]


_sized(_RAND, "rand", "samples from the uniform distribution on [0, 1)")
_sized(_RANDN, "randn", "samples from the standard normal distribution")


def _randint_impl(low, high, size, generator, dtype=None, layout=None, device=None, pin_memory=None):  # fmt: skip
    dt = F.resolve_dtype(dtype, D.int64)
    return _make(_integers(generator_of(generator), tuple(size), dt, low, high), dt)


_RANDINT = _family("randint", "SymInt high, SymInt[] size", lambda h, s, *r: _randint_impl(0, h, s, *r), 2,
                   kw=_KW.replace("dtype=None", "dtype=4"))  # fmt: skip
_RANDINT_LOW = _family("randint", "SymInt low, SymInt high, SymInt[] size", _randint_impl, 3, ov="low",
                       kw=_KW.replace("dtype=None", "dtype=4"))  # fmt: skip


def _randint(low, high, size, generator, out, dtype, layout, device, requires_grad, pin_memory):
    """Uniform integers in [low, high) (low defaults to 0), int64 unless ``dtype=`` is given.

    >>> numtorch.randint(10, (3,)).dtype
    torch.int64
    >>> bool((numtorch.randint(3, 5, (4,)) >= 3).all())
    True
    """
    if size is None:
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if low is None:
        low = 0
    for name, v in (("low", low), ("high", high)):
        if not isinstance(v, (builtins.int, np.integer)) or isinstance(v, builtins.bool):
            raise TypeError(f"randint(): argument '{name}' must be int, not {type(v).__name__}")
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"randint(): argument 'size' (position 2) must be tuple of ints, not {type(size).__name__}"
        )
    _check_i64(low, high)
    sz = list(F.size_arg((size,), "randint"))
    ops, head = (
        (_RANDINT, [int(high), sz]) if low == 0 else (_RANDINT_LOW, [int(low), int(high), sz])
    )
    return _run(ops, head, generator, out, dtype, device, requires_grad, "randint")


public("randint", f"low=None, high=None, size=None, *, generator=None, {_PUB}", _randint, relevant=(),
       ops=tuple(_RANDINT.values()) + tuple(_RANDINT_LOW.values()),
       fast=(FF.randint, ("low", "high", "size", "dtype"), "generator is None and " + FF.COND))  # fmt: skip


def _randperm_impl(n, generator, dtype=None, layout=None, device=None, pin_memory=None):
    dt = F.resolve_dtype(dtype, D.int64)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dt is D.bool or dt.category == D._COMPLEX:
        raise _not_impl("randperm", dt)
    if dt is D.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if dt is D.float32 and n > 2**24 + 1:
        raise RuntimeError("n cannot be greater than 2^24+1 for Float type.")
    if dt.category == D._INT and n > 0:
        F.scalar_to(n - 1, dt)
    return _make(generator_of(generator).permutation(n).astype(dt.np), dt)


_RANDPERM = _family(
    "randperm", "SymInt n", _randperm_impl, 1, kw=_KW.replace("dtype=None", "dtype=4")
)


def _randperm(n, generator, out, dtype, layout, device, requires_grad, pin_memory):
    """A random permutation of 0..n-1 (int64 unless ``dtype=`` is given).

    >>> sorted(numtorch.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    if not isinstance(n, (builtins.int, np.integer)) or isinstance(n, builtins.bool):
        raise TypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    return _run(_RANDPERM, [int(n)], generator, out, dtype, device, requires_grad, "randperm")


public("randperm", f"n, *, generator=None, {_PUB}", _randperm, relevant=(), ops=tuple(_RANDPERM.values()),
       fast=(FF.randperm, ("n", "dtype"), "generator is None and " + FF.COND))  # Note [Factory binding fast call]


# ---- *_like ------------------------------------------------------------------------------------------
def _like_impl(sample):
    def impl(self, *rest):
        *head, generator, dtype, layout, device, pin_memory, memory_format = rest
        dt = self._dtype if dtype is None else F.resolve_dtype(dtype)
        arr = F.like_array(self._data, dt.np, None, memory_format)
        arr[...] = sample(generator_of(generator), self._data.shape, dt, *head)
        return _make(arr, dt)

    return impl


def _like_family(name, head, n, impl, ov_plain, ov_gen):
    sep = ", " if head else ""
    plain = defop(f"{name}{'.' + ov_plain if ov_plain else ''}(Tensor self{sep}{head}, *, {_LKW}) -> Tensor",
                  cpu=lambda *v: impl(*v[: n + 1], None, *v[n + 1 :]))  # fmt: skip
    gen = defop(f"{name}.{ov_gen}(Tensor self{sep}{head}, *, Generator? generator, {_LKW}) -> Tensor", cpu=impl)  # fmt: skip
    return plain, gen


def _like_uniform(g, shape, dt):
    _check_float(dt, "check_uniform_bounds")
    return K.uniform(g, shape, dt.np)


def _like_normal(g, shape, dt):
    _check_float(dt, "normal_kernel_cpu", shape=shape)
    return K.normal(g, shape, dt.np)


_RAND_LIKE = _like_family("rand_like", "", 0, _like_impl(_like_uniform), "", "generator")
_RANDN_LIKE = _like_family("randn_like", "", 0, _like_impl(_like_normal), "", "generator")
_randint_like_impl = _like_impl(lambda g, shape, dt, low, high: _integers(g, shape, dt, low, high))
_RANDINT_LIKE = _like_family("randint_like", "SymInt high", 1,
                             lambda self, high, *r: _randint_like_impl(self, 0, high, *r), "", "generator")  # fmt: skip
_RANDINT_LIKE_LOW = _like_family("randint_like", "SymInt low, SymInt high", 2, _randint_like_impl, "low_dtype",
                                 "low_generator_dtype")  # fmt: skip


def _like(family, name, what, extra=""):
    def body(input, *rest):
        *head, generator, dtype, layout, device, requires_grad, memory_format = rest
        ops = family
        if extra:  # randint_like(input, high) or randint_like(input, low, high)
            low, high = head
            head = [0, low] if high is None else [low, high]
            _check_i64(*head)
            if head[0] == 0:
                head = head[1:]
            else:
                ops = _RANDINT_LIKE_LOW
        generator_of(generator, name)
        rest = [F.dtype_arg(dtype, name), None, F.device_arg(device), False, memory_format]
        vals = [input, *head, *rest] if generator is None else [input, *head, generator, *rest]
        return F.finish(dispatch(ops[0 if generator is None else 1], vals), requires_grad)

    body.__doc__ = f"""{what}, shaped like ``input`` (and with its dtype unless ``dtype=``).

    >>> numtorch.{name}(numtorch.zeros(2, 3){", 5" if extra else ""}).shape
    torch.Size([2, 3])
    """
    sig = f"input, {extra}*, generator=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None"
    public(name, sig, body, relevant=("input",), ops=tuple(family),
           fast=(FF.or_body(getattr(FF, name), body), FF.params(sig)))  # Note [Factory binding fast call]


_like(_RAND_LIKE, "rand_like", "Uniform samples on [0, 1)")
_like(_RANDN_LIKE, "randn_like", "Standard normal samples")
_like(_RANDINT_LIKE, "randint_like", "Uniform integers in [low, high)", "low=0, high=None, ")


# ---- normal --------------------------------------------------------------------------------------------
def _check_std(std) -> None:
    if isinstance(std, Tensor):
        if std._data.size and not (std._data >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")


def _normal_impl(mean, std, generator):
    _check_std(std)
    tensors = [x for x in (mean, std) if isinstance(x, Tensor)]
    dt = tensors[0]._dtype
    for t in tensors[1:]:
        dt = D.promote_types(dt, t._dtype)
    shape = broadcast_shapes(*(t._data.shape for t in tensors))
    _check_float(dt, "normal_kernel_cpu", shape=shape)
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    z = K.normal(generator_of(generator), shape, dt.np)
    with np.errstate(all="ignore"):
        return _make(np.asarray(m + s * z).astype(dt.np), dt)


def _normal_ff(mean, std, size, generator, dtype=None, layout=None, device=None, pin_memory=None):
    _check_std(std)
    dt = F.resolve_dtype(dtype)
    _check_float(dt, "normal_kernel_cpu", shape=size)
    z = K.normal(generator_of(generator), tuple(size), dt.np)
    return _make((mean + std * z).astype(dt.np), dt)


def _normal_out(impl):
    return lambda *v: F.write_out(v[-1], impl(*v[:-1])._data)


_NORMAL = {}
_ZG = lambda grad: _zeros(grad)  # noqa: E731
for _ov, _head, _bw in (
    ("Tensor_float", "Tensor mean, float std=1.", {"mean": _ZG}),
    ("float_Tensor", "float mean, Tensor std", {"std": _ZG}),
    ("Tensor_Tensor", "Tensor mean, Tensor std", {"mean": _ZG, "std": _ZG}),
):
    _NORMAL[_ov] = defop(
        f"normal.{_ov}({_head}, *, {_GEN}) -> Tensor", cpu=_normal_impl, backward=_bw
    )
    _NORMAL[_ov + "_out"] = defop(f"normal.{_ov}_out({_head}, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
                                  cpu=_normal_out(_normal_impl))  # fmt: skip
_NORMAL["float_float"] = defop(f"normal.float_float(float mean, float std, SymInt[] size, *, {_GEN}, {_KW}) -> Tensor",
                               cpu=_normal_ff)  # fmt: skip
_NORMAL["float_float_out"] = defop(
    f"normal.float_float_out(float mean, float std, SymInt[] size, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
    cpu=lambda m, s, size, g, out: F.write_out(out, _normal_ff(m, s, size, g, out._dtype)._data),
)


def _normal(mean, std, size, generator, out, dtype, layout, device, pin_memory, requires_grad):
    """Normal samples: elementwise from tensor ``mean``/``std`` (broadcast), or ``size`` samples
    from float ``mean`` and ``std``.

    >>> numtorch.normal(numtorch.zeros(3), 1.0).shape
    torch.Size([3])
    >>> numtorch.normal(2.0, 3.0, size=(2,)).shape
    torch.Size([2])
    """
    generator_of(generator, "normal")
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            got = ", ".join(type(v).__name__ for v in (mean, std))
            raise TypeError(f"normal() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                            " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n")  # fmt: skip
        head = [float(mean), float(std), list(F.size_arg((size,), "normal"))]
        if out is not None:
            F.check_out_dtype(out, F.dtype_arg(dtype, "normal"))
            return F.finish(
                dispatch(_NORMAL["float_float_out"], [*head, generator, out]), requires_grad
            )
        rest = [F.dtype_arg(dtype, "normal"), None, F.device_arg(device) or CPU, False]
        return F.finish(dispatch(_NORMAL["float_float"], [*head, generator, *rest]), requires_grad)
    if size is not None:
        raise TypeError("normal() received an invalid combination of arguments - got (Tensor, float, size=tuple), "
                        "but expected one of:\n")  # fmt: skip
    ov = "Tensor_Tensor" if mt and st else ("Tensor_float" if mt else "float_Tensor")
    args = [mean if mt else float(mean), std if st else float(std), generator]
    if out is not None:
        return dispatch(_NORMAL[ov + "_out"], [*args, out])
    return dispatch(_NORMAL[ov], args)


_NORMAL_SIG = ("mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None, "
               "pin_memory=False, requires_grad=False")  # fmt: skip
_MEAN_FLOAT = type("normal_mean_float", (), {"fast": staticmethod(FF.or_body(SF.normal, _normal))})
# the binding's fast calls: two plain tensors go to the body; a plain mean and a float std take
# the (Tensor, float) case of Note [Binding fast call] to SF.normal (Note [In-place sampler fast calls])
public("normal", _NORMAL_SIG, _normal, relevant=("mean", "std"), ops=tuple(_NORMAL.values()),
       fast=(_normal, FF.params(_NORMAL_SIG), "", False, (_MEAN_FLOAT, FF.params(_NORMAL_SIG))))  # fmt: skip


# ---- multinomial / bernoulli / poisson -----------------------------------------------------------------
def _multinomial_impl(self, num_samples, replacement=False, generator=None):
    p = self._data
    if not 1 <= p.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if self._dtype.category != D._FLOAT:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {F.cname(self._dtype)}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    ncat = p.shape[-1]
    if not replacement and num_samples > ncat:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if ncat > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = p.reshape(-1, ncat).astype(np.float64)
    out_shape = p.shape[:-1] + (num_samples,)
    if rows.shape[0] == 0:
        return _make(np.zeros(out_shape, np.int64), D.int64)
    if not replacement or num_samples == 1:
        if not ((rows >= 0).all() and (rows < np.inf).all()):  # (methods: ~0.5 us less than np.all's layers)
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (rows.sum(-1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    else:
        if (rows < 0).any():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0)"
            )
        if not np.isfinite(rows).all():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
            )
        if (rows.sum(-1) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    idx = K.multinomial(generator_of(generator), rows, num_samples, replacement)
    return _make(np.ascontiguousarray(idx.reshape(out_shape), dtype=np.int64), D.int64)


def _multinomial_out(self, num_samples, replacement, generator, out):
    if out._dtype is not D.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {F.cname(out._dtype)}")
    return F.write_out(out, _multinomial_impl(self, num_samples, replacement, generator)._data)


_MN = "Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None"
multinomial = defop(f"multinomial({_MN}) -> Tensor", cpu=_multinomial_impl)
multinomial_out = defop(
    f"multinomial.out({_MN}, Tensor(a!) out) -> Tensor(a!)", cpu=_multinomial_out
)


def _multinomial(input, num_samples, replacement, generator, out):
    """Indices sampled from each row's categorical distribution (weights need not sum to 1);
    without replacement every row's indices are distinct.

    >>> numtorch.multinomial(numtorch.tensor([0.0, 1.0, 0.0]), 1)
    tensor([1])
    """
    generator_of(generator, "multinomial")
    if out is not None:
        return dispatch(multinomial_out, [input, num_samples, replacement, generator, out])
    return dispatch(multinomial, [input, num_samples, replacement, generator])


public("multinomial", "input, num_samples, replacement=False, *, generator=None, out=None", _multinomial,
       ops=(multinomial, multinomial_out))  # fmt: skip
public("multinomial", "self, num_samples, replacement=False, *, generator=None",
       lambda self, n, r, g: _multinomial(self, n, r, g, None), relevant=("self",), module="Tensor",
       doc=_multinomial.__doc__)  # fmt: skip


def _bernoulli_probs(p: np.ndarray, dt: D.dtype) -> np.ndarray:
    _check_float(dt, "bernoulli_tensor_cpu_p_", complex_ok=False)
    if p.size and not (np.all(p >= 0) and np.all(p <= 1)):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)"
        )
    return p


def _bernoulli_impl(self, generator=None):
    p = _bernoulli_probs(self._data, self._dtype)
    g = generator_of(generator)
    return _make((g.random(p.shape) < p).astype(self._dtype.np), self._dtype)


def _bernoulli_p_impl(self, p, generator=None):
    _check_p01(p)
    if self._dtype.category == D._COMPLEX:
        raise _not_impl("bernoulli_scalar_cpu_", self._dtype)
    g = generator_of(generator)
    return _make((g.random(self._data.shape) < p).astype(self._dtype.np), self._dtype)


def _check_p01(p) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")


bernoulli = defop(
    f"bernoulli(Tensor self, *, {_GEN}) -> Tensor", cpu=_bernoulli_impl, backward=_ZERO_GRAD
)
bernoulli_out = defop(f"bernoulli.out(Tensor self, *, {_GEN}, Tensor(a!) out) -> Tensor(a!)",
                      cpu=lambda self, g, out: F.write_out(out, _bernoulli_impl(self, g)._data))  # fmt: skip
bernoulli_p = defop(f"bernoulli.p(Tensor self, float p, *, {_GEN}) -> Tensor", cpu=_bernoulli_p_impl,
                    backward=_ZERO_GRAD)  # fmt: skip


def _bernoulli(input, p, generator, out):
    """0/1 samples: probability ``input`` elementwise, or ``p`` for every element of ``input``'s shape.

    >>> numtorch.bernoulli(numtorch.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    generator_of(generator, "bernoulli")
    if p is not None:
        if out is not None:
            raise TypeError("bernoulli() received an invalid combination of arguments - got (Tensor, out=Tensor, "
                            "p=float), but expected one of:\n")  # fmt: skip
        return dispatch(bernoulli_p, [input, float(p), generator])
    if out is not None:
        return dispatch(bernoulli_out, [input, generator, out])
    return dispatch(bernoulli, [input, generator])


public("bernoulli", "input, p=None, *, generator=None, out=None", _bernoulli, ops=(bernoulli, bernoulli_out, bernoulli_p),
       fast=(FF.or_body(SF.bernoulli, _bernoulli), ("input", "p", "generator", "out")))  # fmt: skip
public("bernoulli", "self, p=None, *, generator=None", lambda self, p, g: _bernoulli(self, p, g, None),
       relevant=("self",), module="Tensor", doc=_bernoulli.__doc__)  # fmt: skip


def _poisson_impl(self, generator=None):
    _check_float(self._dtype, "poisson_cpu", complex_ok=False)
    lam = self._data.astype(np.float64)
    if lam.size and not np.all(lam >= 0):  # NaN is refused too (inf is not, as PyTorch)
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    vals = K.poisson(generator_of(generator), lam)
    return _make(vals.astype(self._dtype.np), self._dtype)


poisson = defop("poisson(Tensor self, Generator? generator=None) -> Tensor", cpu=_poisson_impl,
                backward={"self": lambda self: _zeros(self)})  # fmt: skip


def _poisson(input, generator):
    """Poisson samples with rates ``input`` (same dtype).

    >>> numtorch.poisson(numtorch.zeros(2))
    tensor([0., 0.])
    """
    generator_of(generator, "poisson")
    return dispatch(poisson, [input, generator])


public("poisson", "input, generator=None", _poisson, ops=(poisson,),
       fast=(FF.or_body(SF.poisson, _poisson), ("input", "generator")))
