"""Composite functions PyTorch code reaches for: isin, quantile/nanquantile, unique_consecutive,
polar, trapezoid/trapz/cumulative_trapezoid, cov/corrcoef, diagflat, combinations, and the
``torch.exp_``-style in-place functions.

Each is built from existing numtorch ops (STYLE rule 2), so autograd and ``__torch_function__``
come from those ops; the bodies only check arguments with PyTorch's messages and compose.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import _C
from .. import _dtype as D
from .._ops import ops as _ops
from .._tensor import Tensor, _make, _wrap_dim
from ._pointwise import _cname
from ._registry import body_of
from ._registry import public as _public

aten = _ops.aten


def public(name, sig, body, *args, **kwargs):
    """These bindings have no aten op of their own: their bodies run below the Python API, as
    composites do (Note [Composite bodies are below the Python API]), so a mode or a
    __torch_function__ subclass sees the call the user made, never the ops it is made of."""

    def below_api(*vals):
        old = _C.TF_STATE[0]
        _C.TF_STATE[0] = _C.ALL_DISABLED
        try:
            return body(*vals)
        finally:
            _C.TF_STATE[0] = old

    below_api.__wrapped__ = body
    return _public(name, sig, below_api, *args, **kwargs)


def _tensor(data, dtype=None):
    return body_of("tensor")(data, dtype, None, False, False)


def _as_tensor(x, like=None):
    if isinstance(x, Tensor):
        return x
    return _tensor(x, None if like is None else like.dtype if isinstance(x, (int, float)) and like.dtype.is_floating_point else None)


# ---- isin ------------------------------------------------------------------------------------


def _isin(elements, test_elements, assume_unique, invert):
    """Whether each element of ``elements`` is in ``test_elements`` (either may be a scalar).

    >>> numtorch.isin(numtorch.tensor([1, 2, 3]), numtorch.tensor([2, 5]))
    tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: expected at least one Tensor")
    if isinstance(test_elements, Tensor):
        # ATen: nothing to do for empty elements; a short test_elements goes to isin_default_cpu,
        # which promotes both and is not built for wide unsigned dtypes (Note [Wide unsigned dtypes])
        ne = elements._data.size if isinstance(elements, Tensor) else 1
        if ne and test_elements._data.size < 10.0 * ne**0.145:
            common = D.promote_types(elements._dtype, test_elements._dtype) if isinstance(elements, Tensor) else test_elements._dtype
            if common._rank > 10:
                raise NotImplementedError(f"\"isin_default_cpu\" not implemented for '{D._CXX_NAMES[common.name]}'")
    a = elements._host() if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements._host() if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _make(np.asarray(np.isin(a, b, assume_unique=assume_unique, invert=invert)), D.bool)


public("isin", "elements, test_elements, *, assume_unique=False, invert=False", _isin,
       relevant=("elements", "test_elements"))  # fmt: skip


# ---- quantile ------------------------------------------------------------------------------

_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_impl(fname, input, q, dim, keepdim, interpolation, out, ignore_nan):
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{fname}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{fname}() input tensor must be non-empty")
    if interpolation not in _INTERP:
        raise RuntimeError(
            f"{fname}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    scalar_q = not isinstance(q, Tensor)
    qt = _tensor([float(q)], input.dtype) if scalar_q else q.to(input.dtype)
    if qt.ndim > 1:
        raise RuntimeError(f"{fname}() q must be a scalar or 1D tensor")
    qv = qt.reshape(-1)
    for v in qv.tolist():
        if not 0 <= v <= 1:
            raise RuntimeError(f"{fname}() q must be in the range [0, 1] but got {v}")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _wrap_dim(dim, input.ndim)
    s = x.movedim(d, -1) if x.ndim else x.reshape(1)
    srt = s.sort(dim=-1).values  # NaN sorts last
    n = srt.shape[-1]
    nan_mask = srt.isnan()
    valid = (~nan_mask).sum(dim=-1, keepdim=True).to(input.dtype) if ignore_nan else aten.full_like.default(srt[..., :1], n)
    rank = qv * (valid - 1).clamp(min=0)  # (..., Q)
    if interpolation == "nearest":
        rank = rank.round()
    lo = rank.floor().long().clamp(0, n - 1)
    hi = rank.ceil().long().clamp(0, n - 1)
    vlo, vhi = srt.gather(-1, lo), srt.gather(-1, hi)
    if interpolation in ("lower", "nearest"):
        res = vlo
    elif interpolation == "higher":
        res = vhi
    elif interpolation == "midpoint":
        res = (vlo + vhi) * 0.5
    else:
        res = vlo + (vhi - vlo) * (rank - rank.floor())
    bad = nan_mask.any(dim=-1, keepdim=True) if not ignore_nan else (valid == 0)
    res = aten.where.self(bad, aten.full_like.default(res, float("nan")), res)
    res = res.movedim(-1, 0)  # (Q, ...)
    if keepdim:
        res = res.reshape([res.shape[0]] + [1] * input.ndim) if dim is None else res.unsqueeze(d + 1)
    if scalar_q:
        res = res[0]
    if out is not None:
        return out.resize_(res.shape).copy_(res)
    return res


def _quantile(input, q, dim, keepdim, interpolation, out):
    """The ``q``-th quantiles of ``input`` (over ``dim``, or all elements), with NumPy's interpolation modes.

    >>> numtorch.quantile(numtorch.tensor([0.0, 1.0, 2.0, 3.0]), 0.5)
    tensor(1.5000)
    """
    return _quantile_impl("quantile", input, q, dim, keepdim, interpolation, out, False)


def _nanquantile(input, q, dim, keepdim, interpolation, out):
    """``quantile`` ignoring NaN values (NaN only where a slice holds nothing else).

    >>> numtorch.nanquantile(numtorch.tensor([0.0, float("nan"), 2.0]), 0.5)
    tensor(1.)
    """
    return _quantile_impl("nanquantile", input, q, dim, keepdim, interpolation, out, True)


_QSIG = "input, q, dim=None, keepdim=False, *, interpolation='linear', out=None"
public("quantile", _QSIG, _quantile)
public("nanquantile", _QSIG, _nanquantile)
public("quantile", _QSIG.replace("input", "self").replace(", *, interpolation='linear', out=None", ", *, interpolation='linear'"),
       lambda self, q, dim, keepdim, interpolation: _quantile(self, q, dim, keepdim, interpolation, None),
       relevant=("self",), module="Tensor", doc=_quantile.__doc__)  # fmt: skip
public("nanquantile", _QSIG.replace("input", "self").replace(", *, interpolation='linear', out=None", ", *, interpolation='linear'"),
       lambda self, q, dim, keepdim, interpolation: _nanquantile(self, q, dim, keepdim, interpolation, None),
       relevant=("self",), module="Tensor", doc=_nanquantile.__doc__)  # fmt: skip


# ---- unique_consecutive ------------------------------------------------------------------------


def _unique_consecutive(input, return_inverse, return_counts, dim):
    """Collapse runs of equal consecutive elements (or slices along ``dim``).

    >>> numtorch.unique_consecutive(numtorch.tensor([1, 1, 2, 2, 3, 1]))
    tensor([1, 2, 3, 1])
    """
    a = input.detach()._host()
    if dim is None:
        flat = a.reshape(-1)
        change = np.ones(flat.shape[0], bool)
        change[1:] = flat[1:] != flat[:-1]
        vals = flat[change]
        inv_shape = a.shape
    else:
        d = _wrap_dim(dim, a.ndim)
        moved = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
        change = np.ones(moved.shape[0], bool)
        change[1:] = np.any(moved[1:] != moved[:-1], axis=1)
        vals = np.compress(change, a, axis=d)
        inv_shape = (a.shape[d],)
    starts = np.flatnonzero(change)
    res = [_make(np.ascontiguousarray(vals), input.dtype)]
    if return_inverse:
        res.append(_make((np.cumsum(change) - 1).reshape(inv_shape).astype(np.int64), D.int64))
    if return_counts:
        res.append(_make(np.diff(np.append(starts, change.shape[0])).astype(np.int64), D.int64))
    return res[0] if len(res) == 1 else tuple(res)


public("unique_consecutive", "input, return_inverse=False, return_counts=False, dim=None", _unique_consecutive)
public("unique_consecutive", "self, return_inverse=False, return_counts=False, dim=None", _unique_consecutive,
       relevant=("self",), module="Tensor")  # fmt: skip


# ---- polar, diagflat, combinations --------------------------------------------------------------


def _polar(abs, angle, out):  # noqa: A002 - torch's parameter name
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``.

    >>> numtorch.polar(numtorch.tensor([2.0]), numtorch.tensor([0.0]))
    tensor([2.+0.j])
    """
    if not isinstance(angle, Tensor):
        raise TypeError(f"polar(): argument 'angle' (position 2) must be Tensor, not {type(angle).__name__}")
    floats = (D.float16, D.float32, D.float64)
    if abs.dtype not in floats or angle.dtype not in floats:
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got {_cname(abs.dtype)} and {_cname(angle.dtype)}"
        )
    if abs.dtype != angle.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {_cname(abs.dtype)} but got scalar type {_cname(angle.dtype)} for second argument"
        )
    if out is not None and out.dtype != abs.dtype.to_complex():  # polar_out: before computing
        raise RuntimeError(f"Expected object of scalar type {_cname(abs.dtype.to_complex())} but got scalar type "
                           f"{_cname(out.dtype)} for argument 'out'")  # fmt: skip
    res = aten.complex.default(abs * aten.cos.default(angle), abs * aten.sin.default(angle))
    return res if out is None else out.resize_(res.shape).copy_(res)


public("polar", "abs, angle, *, out=None", _polar, relevant=("abs", "angle"))


def _diagflat(input, offset):
    """A 2-d tensor with the flattened ``input`` on diagonal ``offset``.

    >>> numtorch.diagflat(numtorch.tensor([[1, 2]]))
    tensor([[1, 0],
            [0, 2]])
    """
    return aten.diag.default(input.reshape(-1), offset)


public("diagflat", "input, offset=0", _diagflat)
public("diagflat", "self, offset=0", _diagflat, relevant=("self",), module="Tensor")


def _combinations(input, r, with_replacement):
    """Length-``r`` combinations of the elements of a 1-d tensor, as rows, like ``itertools``.

    >>> numtorch.combinations(numtorch.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return aten.empty.memory_format([0], dtype=input.dtype)
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(gen(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return input[_make(idx, D.int64)]


public("combinations", "input, r=2, with_replacement=False", _combinations)


# ---- trapezoid -----------------------------------------------------------------------------------


def _trapezoid_checks(name, y, x, dx):
    if x is not None:
        if y.dtype == D.bool or (isinstance(x, Tensor) and x.dtype == D.bool):
            raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
        return
    if y.dtype == D.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if dx is not None and type(dx) in (bool, complex):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def _trapezoid(y, x, dx, dim):
    """Integral of ``y`` along ``dim`` by the trapezoid rule, with sample points ``x`` or spacing ``dx``.

    >>> numtorch.trapezoid(numtorch.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    """
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: x and dx cannot both be given")
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    if n == 0:
        # at::trapezoid answers zeros of y's own dtype (bool included) before any dtype check
        return y.new_zeros(y.shape[:d] + y.shape[d + 1 :])
    _trapezoid_checks("trapezoid", y, x, dx)
    if x is None:
        step = 1 if dx is None else dx
        return (y.sum(d) - (y.select(d, 0) + y.select(d, n - 1)) * 0.5) * step
    if isinstance(x, Tensor) and x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError(
                f"trapezoid: There must be one `x` value for each sample point, but got {x.shape[0]} and {n}"
            )
        shape = [1] * y.ndim
        shape[d] = n - 1
        dxs = x.diff().reshape(shape)
    else:
        dxs = x.diff(dim=d)
    return ((y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * dxs).sum(d) * 0.5


def _trapz(y, x, dx, dim):
    """The old name of ``trapezoid``.

    >>> numtorch.trapz(numtorch.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    """
    return _trapezoid(y, x, dx, dim)


def _cumulative_trapezoid(y, x, dx, dim):
    """Running trapezoid-rule integral of ``y`` along ``dim`` (one element shorter).

    >>> numtorch.cumulative_trapezoid(numtorch.tensor([1.0, 2.0, 3.0]))
    tensor([1.5000, 4.0000])
    """
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    _trapezoid_checks("cumulative_trapezoid", y, x, dx)
    mid = (y.narrow(d, min(n, 1), max(n - 1, 0)) + y.narrow(d, 0, max(n - 1, 0))) * 0.5
    if x is None:
        return mid.cumsum(d) * (1 if dx is None else dx)
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[d] = n - 1
        return (mid * x.diff().reshape(shape)).cumsum(d)
    return (mid * x.diff(dim=d)).cumsum(d)


public("trapezoid", "y, x=None, *, dx=None, dim=-1", _trapezoid, relevant=("y", "x"))
public("trapz", "y, x=None, *, dx=None, dim=-1", _trapz, relevant=("y", "x"))
public("cumulative_trapezoid", "y, x=None, *, dx=None, dim=-1", _cumulative_trapezoid, relevant=("y", "x"))


# ---- cov / corrcoef ------------------------------------------------------------------------------


def _cov(input, correction, fweights, aweights):
    """Covariance of the variables in the rows of ``input`` (observations in columns).

    >>> numtorch.cov(numtorch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if input.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions"
        )
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(D.get_default_dtype())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(dim=1)
        w_sum = _tensor(float(n_obs), x.dtype)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(dim=1) / w_sum
        norm = w_sum - correction if aweights is None else w_sum - correction * (w * aweights).sum() / w_sum
    norm = aten.clamp.default(norm, 0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = xw @ xm.t().conj()
    c = c / norm
    return c.squeeze() if input.ndim < 2 else c


def _corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of ``input``.

    >>> numtorch.corrcoef(numtorch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    c = _cov(input, 1, None, None)
    if c.ndim == 0:
        return c / c
    d = aten.diagonal.default(c)
    stddev = d.real.sqrt() if c.dtype.is_complex else d.sqrt()
    c = c / stddev.unsqueeze(1) / stddev.unsqueeze(0)
    return c.clamp(-1, 1) if not c.dtype.is_complex else c


public("cov", "input, *, correction=1, fweights=None, aweights=None", _cov,
       relevant=("input", "fweights", "aweights"))  # fmt: skip
public("cov", "self, *, correction=1, fweights=None, aweights=None", _cov,
       relevant=("self", "fweights", "aweights"), module="Tensor")  # fmt: skip
public("corrcoef", "input", _corrcoef)
public("corrcoef", "self", _corrcoef, relevant=("self",), module="Tensor")


# ---- torch.exp_(x) and friends: the in-place methods as functions -------------------------------

_INPLACE = {
    "input": ["abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
              "asin_", "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "deg2rad_", "erf_", "erfc_",
              "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_",
              "log_", "neg_", "negative_", "rad2deg_", "reciprocal_", "rsqrt_", "sigmoid_", "sin_", "sinc_",
              "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "detach_", "conj_physical_"],
    "input, other": ["gcd_", "lcm_", "ldexp_", "xlogy_"],
    "input, min=None, max=None": ["clamp_", "clip_"],
    "input, min": ["clamp_min_"],
    "input, max": ["clamp_max_"],
    "input, eps=None": ["logit_"],
    "input, nan=0.0, posinf=None, neginf=None": ["nan_to_num_"],
    "input, *, decimals=0": ["round_"],
    "input, size, stride, storage_offset=None": ["as_strided_"],
    # not in place, but the same "function = method" relation
    "input ": ["get_device", "is_conj", "is_signed"],
}  # fmt: skip


def _inplace_body(method: str):
    def body(input, *args):
        return getattr(input, method)(*args)

    body.__doc__ = (f"``input.{method}(...)`` as a function: modifies ``input`` in place and returns it." if method.endswith("_")
                    else f"``input.{method}()`` as a function.")  # fmt: skip
    return body


# every name here is a Tensor method by the time numtorch finishes importing (tests/ops/test_extra.py checks)
for _sig, _names in _INPLACE.items():
    for _name in _names:
        public(_name, _sig.strip(), _inplace_body(_name))


# ---- small tensor queries: is_neg/resolve_neg, is_same_size, typename, rms_norm, unravel_index ---
def _is_neg(input):
    """Always False: numtorch has no lazily negated tensors (PyTorch's neg bit), so
    ``resolve_neg`` returns its input.

    >>> numtorch.tensor([1.0]).is_neg()
    False
    """
    return False


def _resolve_neg(input):
    """``input`` itself: no numtorch tensor carries a pending negation.

    >>> numtorch.resolve_neg(numtorch.tensor([1.0]))
    tensor([1.])
    """
    return input


def _is_same_size(input, other):
    """Whether the two tensors have the same shape, as ``torch.is_same_size``.

    >>> numtorch.is_same_size(numtorch.ones(2, 3), numtorch.zeros(2, 3))
    True
    """
    return tuple(input.shape) == tuple(other.shape)


for _n, _b in (("is_neg", _is_neg), ("resolve_neg", _resolve_neg)):
    public(_n, "input", _b)
    public(_n, "self", _b, relevant=("self",), module="Tensor")
public("is_same_size", "input, other", _is_same_size, relevant=("input", "other"))
public("is_same_size", "self, other", _is_same_size, relevant=("self", "other"), module="Tensor")


def _rms_norm(input, normalized_shape, weight, eps):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dimensions, as
    ``torch.rms_norm`` (the same op as ``numtorch.nn.functional.rms_norm``).

    >>> numtorch.rms_norm(numtorch.tensor([[3.0, 4.0]]), [2])
    tensor([[0.8485, 1.1314]])
    """
    return aten.rms_norm(input, list(normalized_shape), weight, eps)


public("rms_norm", "input, normalized_shape, weight=None, eps=None", _rms_norm, relevant=("input", "weight"))


def _unravel_index(indices, shape):
    """The coordinates in a tensor of ``shape`` of flat ``indices``, one int64 tensor per
    dimension, as ``torch.unravel_index``.

    >>> numtorch.unravel_index(numtorch.tensor([4, 1]), (2, 3))
    (tensor([1, 0]), tensor([1, 1]))
    """
    if not isinstance(indices, Tensor):
        indices = _tensor(indices)
    if indices._dtype.category > D._INT or indices._dtype is D.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    # PyTorch takes each coordinate modulo its dimension (floor division), so out-of-range and
    # negative indices wrap instead of raising
    rest = indices._data.astype(np.int64)
    coords = []
    for s in reversed(shape):
        coords.append(np.mod(rest, s) if s else np.zeros_like(rest))
        rest = np.floor_divide(rest, s) if s else rest
    return tuple(_make(np.array(c, np.int64), D.int64) for c in reversed(coords))


public("unravel_index", "indices, shape", _unravel_index, relevant=("indices",))


# ---- unsafe_chunk / unsafe_split / unsafe_split_with_sizes -------------------------------------
def _unsafe(name):
    def body(input, *args):
        return body_of(name)(input, *args)

    body.__doc__ = (f"``{name}`` (PyTorch's unsafe_ form skips the view bookkeeping its in-place "
                    f"checks need; numtorch's views are the same either way), as ``torch.unsafe_{name}``.")  # fmt: skip
    return body


public("unsafe_chunk", "input, chunks, dim=0", _unsafe("chunk"))
public("unsafe_chunk", "self, chunks, dim=0", _unsafe("chunk"), relevant=("self",), module="Tensor")
public("unsafe_split", "tensor, split_size_or_sections, dim=0", _unsafe("split"), relevant=("tensor",))
public("unsafe_split", "self, split_size, dim=0", _unsafe("split"), relevant=("self",), module="Tensor")
public("unsafe_split_with_sizes", "input, split_sizes, dim=0", _unsafe("split_with_sizes"))
public("unsafe_split_with_sizes", "self, split_sizes, dim=0", _unsafe("split_with_sizes"), relevant=("self",), module="Tensor")


# ---- gradient: central differences (NumPy's formulas, uniform or coordinate spacing) ---------
def _gradient_dim(x, d, h, edge_order):
    n = x.shape[d]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")

    def sl(a, b):
        return x.narrow(d, a % n if a < 0 else a, b)

    if not isinstance(h, Tensor):
        mid = (sl(2, n - 2) - sl(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first, last = (sl(1, 1) - sl(0, 1)) / h, (sl(-1, 1) - sl(-2, 1)) / h
        else:
            first = (sl(0, 1) * -1.5 + sl(1, 1) * 2 - sl(2, 1) * 0.5) / h
            last = (sl(-3, 1) * 0.5 - sl(-2, 1) * 2 + sl(-1, 1) * 1.5) / h
        return body_of("cat")([first, mid, last], d, None)
    dx = h[1:] - h[:-1]
    shape = [-1] + [1] * (x.ndim - d - 1)

    def c(t):
        return t.reshape(shape)

    hl, hr = dx[:-1], dx[1:]
    mid = (sl(0, n - 2) * c(-hr / (hl * (hl + hr))) + sl(1, n - 2) * c((hr - hl) / (hl * hr))
           + sl(2, n - 2) * c(hl / (hr * (hl + hr))))  # fmt: skip
    if edge_order == 1:
        first, last = (sl(1, 1) - sl(0, 1)) / c(dx[:1]), (sl(-1, 1) - sl(-2, 1)) / c(dx[-1:])
    else:
        a1, a2 = dx[:1], dx[1:2]
        first = (sl(0, 1) * c(-(2 * a1 + a2) / (a1 * (a1 + a2))) + sl(1, 1) * c((a1 + a2) / (a1 * a2))
                 + sl(2, 1) * c(-a1 / (a2 * (a1 + a2))))  # fmt: skip
        b1, b2 = dx[-2:-1], dx[-1:]
        last = (sl(-3, 1) * c(b2 / (b1 * (b1 + b2))) + sl(-2, 1) * c(-(b2 + b1) / (b1 * b2))
                + sl(-1, 1) * c((2 * b2 + b1) / (b2 * (b1 + b2))))  # fmt: skip
    return body_of("cat")([first, mid, last], d, None)


def _gradient(input, spacing, dim, edge_order):
    """The derivative of ``input`` sampled on a grid, by central differences in the interior and
    one-sided differences of ``edge_order`` at the ends, one tensor per dimension, as
    ``torch.gradient`` (``spacing``: a number, one per dimension, or coordinate tensors).

    >>> numtorch.gradient(numtorch.tensor([1.0, 2.0, 4.0, 8.0]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2. Got {edge_order}")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap_dim(d, input.ndim) for d in dims]
    if spacing is None:
        hs = [1.0] * len(dims)
    elif isinstance(spacing, (int, float)):
        hs = [spacing] * len(dims)
    else:
        hs = list(spacing)
        if len(hs) != len(dims):
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length {len(hs)} "
                               f"and a dim argument of length {len(dims)}.")  # fmt: skip
    x = input if input._dtype.is_floating_point or input._dtype.is_complex else input.to(D.get_default_dtype())
    return tuple(_gradient_dim(x, d, h, edge_order) for d, h in zip(dims, hs))


public("gradient", "input, *, spacing=None, dim=None, edge_order=1", _gradient)
