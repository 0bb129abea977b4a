"""The in-place samplers: Tensor.uniform_, normal_, random_, exponential_, geometric_, cauchy_,
log_normal_ and bernoulli_ (their checks and draws as in random.py's functional samplers)."""

from __future__ import annotations

import builtins

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._dispatch import dispatch
from ..._overlap import check_no_internal_overlap
from ..._random import generator_of
from ..._tensor import Tensor
from .._registry import defop, public
from . import sampler_fast as SF
from .random import (_CTYPE, _FMAX, _MANTISSA, _NO_CAST, _ZERO_GRAD, K, _bernoulli_probs, _check_float, _check_i64,
                     _check_p01, _check_std, _fmt, _integers, _not_impl, _zeros)  # fmt: skip


# ---- in-place samplers -------------------------------------------------------------------------------------
def _fill(self, values: np.ndarray):
    check_no_internal_overlap(self._data)  # an expanded destination: PyTorch's TensorIterator refuses
    with np.errstate(all="ignore") if values.dtype is not self._data.dtype else _NO_CAST:  # no cast, no flag (~1 us)
        np.copyto(self._data, values, casting="unsafe")
    self._vc[0] += 1
    return self


def _continuous(dt: D.dtype, name: str, cxx: bool = False) -> None:
    if dt.category != D._FLOAT:
        what = _CTYPE.get(dt.name, F.cname(dt)) if cxx else F.cname(dt)
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {what}")  # fmt: skip


def _uniform_(self, lo=0.0, hi=1.0, generator=None):
    dt = self._dtype
    _check_float(dt, "check_uniform_bounds")
    real = dt.to_real()
    if real.category == D._FLOAT:
        fmax = _FMAX.get(real) or _FMAX.setdefault(real, D.finfo(real).max)
        for what, v in (("from", lo), ("to", hi)):
            if not -fmax <= v <= fmax:
                raise RuntimeError(f"{what} is out of bounds for {_CTYPE[real.name]}")
        if lo > hi:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt(lo)} > to={_fmt(hi)}")  # fmt: skip
        if hi - lo > fmax:
            raise RuntimeError(
                f"uniform_ expects to-from <= std::numeric_limits<{F.cname(real)}>::max(), but found to={_fmt(hi)} and "
                f"from={_fmt(lo)} which result in to-from to exceed the limit"
            )
    return _fill(self, K.uniform(generator_of(generator), self._data.shape, dt.np, lo, hi))


def _normal_(self, mean=0.0, std=1.0, generator=None):
    _check_std(std)
    _check_float(self._dtype, "normal_kernel_cpu", shape=self._data.shape)
    return _fill(
        self, mean + std * K.normal(generator_of(generator), self._data.shape, self._dtype.np)
    )


def _random_(self, lo=0, hi=None, generator=None):
    dt = self._dtype
    if dt.category == D._COMPLEX and hi is None:  # with bounds, _integers refuses it
        raise _not_impl("random_kernel_cpu", dt)
    if hi is None:
        hi = (
            (1 if dt is D.bool else int(np.iinfo(dt.np).max))
            if dt.category <= D._INT
            else 2 ** _MANTISSA[dt.name]
        )
        hi += 1
    return _fill(self, _integers(generator_of(generator), self._data.shape, dt, lo, hi))


def _exponential_(self, lambd=1.0, generator=None):
    if self._data.size:  # an empty tensor returns before the dtype check
        _continuous(self._dtype, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    return _fill(self, generator_of(generator).standard_exponential(self._data.shape) / lambd)


def _geometric_(self, p, generator=None):
    if self._dtype is D.bool or self._dtype.category == D._COMPLEX:
        raise _not_impl("geometric_cpu", self._dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    return _fill(self, generator_of(generator).geometric(p, self._data.shape))


def _cauchy_(self, median=0.0, sigma=1.0, generator=None):
    _continuous(self._dtype, "Cauchy", cxx=True)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    return _fill(self, median + sigma * generator_of(generator).standard_cauchy(self._data.shape))


def _log_normal_(self, mean=1.0, std=2.0, generator=None):
    if self._dtype.category != D._FLOAT:
        raise _not_impl("log_normal_cpu", self._dtype)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    return _fill(self, generator_of(generator).lognormal(mean, std, self._data.shape))


def _bernoulli_f_(self, p=0.5, generator=None):
    _check_p01(p)
    if self._dtype.category == D._COMPLEX:
        raise _not_impl("bernoulli_scalar_cpu_", self._dtype)
    return _fill(self, generator_of(generator).random(self._data.shape) < p)


def _bernoulli_t_(self, p, generator=None):
    probs = _bernoulli_probs(p._data, p._dtype)
    shape = self._data.shape
    try:
        probs = np.broadcast_to(probs, shape)
    except ValueError:
        _expand_error(p._data.shape, shape)
    return _fill(self, generator_of(generator).random(shape) < probs)


def _expand_error(src, target):
    lead = len(target) - len(src)
    for i, s in reversed(list(enumerate(src))):  # PyTorch scans from the last dim
        t = target[lead + i] if lead + i >= 0 else None
        if s != 1 and s != t:
            raise RuntimeError(
                f"The expanded size of the tensor ({t}) must match the existing size ({s}) at non-singleton "
                f"dimension {lead + i}.  Target sizes: {list(target)}.  Tensor sizes: {list(src)}"
            )
    raise RuntimeError(f"expand: the number of sizes provided ({len(target)}) must be greater or equal to the "
                       f"number of dimensions in the tensor ({len(src)})")  # fmt: skip


_INPLACE = {
    "uniform_": ("uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None)", _uniform_),
    "normal_": ("normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None)", _normal_),
    "random_.from": ("random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None)", _random_),
    "random_.to": ("random_.to(Tensor(a!) self, int to, *, Generator? generator=None)",
                   lambda self, to, generator=None: _random_(self, 0, to, generator)),
    "random_": ("random_(Tensor(a!) self, *, Generator? generator=None)",
                lambda self, generator=None: _random_(self, 0, None, generator)),
    "exponential_": ("exponential_(Tensor(a!) self, float lambd=1., *, Generator? generator=None)", _exponential_),
    "geometric_": ("geometric_(Tensor(a!) self, float p, *, Generator? generator=None)", _geometric_),
    "cauchy_": ("cauchy_(Tensor(a!) self, float median=0., float sigma=1., *, Generator? generator=None)", _cauchy_),
    "log_normal_": ("log_normal_(Tensor(a!) self, float mean=1., float std=2., *, Generator? generator=None)",
                    _log_normal_),
    "bernoulli_.float": ("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None)", _bernoulli_f_),
    "bernoulli_.Tensor": ("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None)", _bernoulli_t_),
}  # fmt: skip
_IOPS = {
    k: defop(f"{schema} -> Tensor(a!)", cpu=fn, backward=dict(_ZERO_GRAD, **({"p": lambda p: _zeros(p)} if "Tensor p" in schema else {})))
    for k, (schema, fn) in _INPLACE.items()
}  # fmt: skip


def _inplace(name, sig, summary, example, shows, pick):
    def body(self, *args):
        *vals, generator = args
        generator_of(generator, name)
        op, vals = pick(*vals)
        return dispatch(_IOPS[op], [self, *vals, generator])

    body.__doc__ = f"{summary}\n\n    >>> {example}\n    {shows}\n    "
    params = tuple(p.partition("=")[0].strip() for p in sig.split(","))
    public(name, f"self, {sig}, *, generator=None", body, relevant=("self",), module="Tensor",
           ops=tuple(v for k, v in _IOPS.items() if k.split(".")[0] == name),
           fast=(SF.with_body(getattr(SF, name), body, len(params)), ("self", *params), "generator is None"))  # fmt: skip


def _f(x):
    return float(x)


for _args in (
    ("uniform_", "from_=0, to=1", "Fill with uniform samples on [from, to).",
     "bool((numtorch.empty(3).uniform_(2, 3) >= 2).all())", "True", lambda lo, hi: ("uniform_", [_f(lo), _f(hi)])),
    ("normal_", "mean=0, std=1", "Fill with normal samples.", "numtorch.empty(3).normal_(0, 1).shape",
     "torch.Size([3])", lambda m, s: ("normal_", [_f(m), _f(s)])),
    ("exponential_", "lambd=1", "Fill with exponential samples of rate ``lambd``.",
     "bool((numtorch.empty(3).exponential_() >= 0).all())", "True", lambda lam: ("exponential_", [_f(lam)])),
    ("geometric_", "p", "Fill with geometric samples (trials up to the first success, >= 1).",
     "bool((numtorch.empty(3).geometric_(0.5) >= 1).all())", "True", lambda p: ("geometric_", [_f(p)])),
    ("cauchy_", "median=0, sigma=1", "Fill with Cauchy samples.", "numtorch.empty(3).cauchy_().shape",
     "torch.Size([3])", lambda m, s: ("cauchy_", [_f(m), _f(s)])),
    ("log_normal_", "mean=1, std=2", "Fill with log-normal samples (exp of N(mean, std)).",
     "bool((numtorch.empty(3).log_normal_() > 0).all())", "True", lambda m, s: ("log_normal_", [_f(m), _f(s)])),
    ("bernoulli_", "p=0.5", "Fill with 0/1 samples of probability ``p`` (a float or a broadcastable tensor).",
     "numtorch.zeros(2).bernoulli_(1.0)", "tensor([1., 1.])",
     lambda p: ("bernoulli_.Tensor", [p]) if isinstance(p, Tensor) else ("bernoulli_.float", [_f(p)])),
):  # fmt: skip
    _inplace(*_args)


def _random_pick(*args, to=None):
    ok = [a is None and i == 1 or isinstance(a, (builtins.int, np.integer)) and not isinstance(a, builtins.bool)
          for i, a in enumerate(args)]  # fmt: skip
    if not all(ok) or len(args) > 2:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"random_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (*, torch.Generator generator = None)\n"
                        " * (int from, int to, *, torch.Generator generator = None)\n"
                        " * (int to, *, torch.Generator generator = None)\n")  # fmt: skip
    _check_i64(*args, to)
    if len(args) == 2:
        return "random_.from", [int(args[0]), None if args[1] is None else int(args[1])]
    if len(args) == 1:
        return (
            ("random_.to", [int(args[0])])
            if to is None
            else ("random_.from", [int(args[0]), int(to)])
        )
    return ("random_.to", [int(to)]) if to is not None else ("random_", [])


def _random_body(self, args, to, generator):
    """Fill with integers: [0, to) or [from, to); without bounds [0, 2**mantissa] for floats
    and the dtype's range for integers.

    >>> bool((numtorch.zeros(4, dtype=numtorch.int64).random_(3, 5) >= 3).all())
    True
    """
    generator_of(generator, "random_")
    op, vals = _random_pick(*args, to=to)
    return dispatch(_IOPS[op], [self, *vals, generator])


public("random_", "self, *args, to=None, generator=None", _random_body, relevant=("self",), module="Tensor",
       ops=(_IOPS["random_"], _IOPS["random_.to"], _IOPS["random_.from"]),
       fast=(SF.with_body(SF.random_, _random_body, 2), ("self", "args", "to"), "generator is None"))  # fmt: skip
