"""torch.linalg.cross / torch.cross and trace (moved out of ``core``, which is at the file-size cap)."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._dispatch import dispatch
from ..._tensor import _make, _wrap_dim
from ...kernels import lazy
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore
from .._registry import defop, public
from . import _fast_small as _fs
from ._contract import _not_impl, broadcast_error
from .core import _bind, _cj, _op

_empty, _mul, _sub = np.empty, np.multiply, np.subtract
_K = lazy("numtorch.kernels.cpu.linalg")
_KC = lazy("numtorch.kernels.cpu.linalg_cross")
_KERNEL_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int64, np.int32))
_ALL, _K0, _K1, _K2 = slice(None), slice(0, 1), slice(1, 2), slice(2, 3)


# ---- cross / trace ---------------------------------------------------------------------------------
def _linalg_cross_cpu(self, other, dim=-1):
    if self._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, self._data.ndim)
    if self._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {self._data.shape[d]} and {other._data.shape[d]}"
        )
    shape = broadcast_error(self._data.shape, other._data.shape)
    if self._dtype is not other._dtype:
        raise RuntimeError(
            f"expected scalar type {F.cname(self._dtype)} but found {F.cname(other._dtype)}"
        )
    if self._dtype is D.bool:
        raise _not_impl("cross", self._dtype)
    return _make(_cross3(self._data, other._data, d, tuple(shape)), self._dtype)


def _full(a: np.ndarray, shape: tuple) -> np.ndarray:
    """``a`` broadcast to ``shape`` (its rank) as a C-contiguous array."""
    if a.shape == shape and a.flags.c_contiguous:
        return a
    full = _empty(shape, a.dtype)
    np.copyto(full, a)
    return full


# Note [Cross offsets]
# A small cross product of broadcast operands copied each one to the full shape before the
# kernel (np.empty and np.copyto, ~0.6 us of linalg.cross's 3.2 us on (4, 1, 3) x (4, 2, 3))
# and reshaped all three arrays to (pre, 3, post) (~0.3 us). Up to _OFFSET_MAX elements,
# C-contiguous operands (each in its own shape) are read in place by kernels'
# cross3_offsets: per row of the result's leading dims, each operand's offset into its flat
# storage (repeated where it broadcasts), its components' distance and its step over the
# trailing dims (0 where it broadcasts over all of them; over only some: the copies). The
# offsets depend only on the two shapes and the dim, so they are planned once per such key
# (False: the copies). The same products and differences per element as cross3 (np.cross's
# bits: tests/ops/linalg/test_cross_offsets.py). Above the bound the copies are a small part
# of the time, and the plans' offset arrays would grow with the input.
_OFFSET_MAX = 4096
_OFFSET_PLANS: dict = {}


def _offset_plan(sx: tuple, sy: tuple, d: int, shape: tuple):
    """cross3_offsets' plan array for these shapes, or False (the copies)."""
    if not 0 < math.prod(shape) <= _OFFSET_MAX:
        return False
    tail_shape = shape[d + 1 :]
    steps, offsets = [], []
    for s in (sx, sy):
        tail = s[d + 1 :]
        if tail == tail_shape:
            steps += [math.prod(tail), 1]
        elif math.prod(tail) == 1:
            steps += [1, 0]
        else:
            return False
        rows = np.zeros(1, np.int64)
        for k in range(d):
            stride = 0 if s[k] == 1 else math.prod(s[k + 1 :])
            rows = (rows[:, None] + np.arange(shape[k], dtype=np.int64) * stride).reshape(-1)
        offsets.append(rows)
    head = np.array(steps + [math.prod(tail_shape)], np.int64)
    return np.concatenate([head, *offsets])


def _cross3(x: np.ndarray, y: np.ndarray, d: int, shape: tuple) -> np.ndarray:
    """np.cross(x, y, axis=d) of one dtype as a C-contiguous array: the same products and
    differences per element (c0 = x1 y2 - x2 y1, ...), written into the result's slices instead
    of np.cross's moveaxis, temporaries and final copy (a small cross: 15 us -> ~4)."""
    out = _empty(shape, x.dtype)
    if x.dtype in _KERNEL_DTYPES:  # the same per element, in one Numba pass (kernels' cross3)
        key = (x.shape, y.shape, d)
        plan = _OFFSET_PLANS.get(key)
        if plan is None:
            if len(_OFFSET_PLANS) >= 1024:
                _OFFSET_PLANS.clear()
            plan = _OFFSET_PLANS[key] = _offset_plan(x.shape, y.shape, d, shape)
        if plan is not False and x.flags.c_contiguous and y.flags.c_contiguous:
            _KC.cross3_offsets(x.ravel(), y.ravel(), out.ravel(), plan)  # Note [Cross offsets]
            return out
        pre, post = math.prod(shape[:d]), math.prod(shape[d + 1 :])
        _K.cross3(_full(x, shape).reshape(pre, 3, post), _full(y, shape).reshape(pre, 3, post),
                  out.reshape(pre, 3, post))  # fmt: skip
        return out
    pre = (_ALL,) * d  # slices k:k+1 keep the axis: a 1-D result's components stay arrays
    x0, x1, x2 = x[(*pre, _K0)], x[(*pre, _K1)], x[(*pre, _K2)]
    y0, y1, y2 = y[(*pre, _K0)], y[(*pre, _K1)], y[(*pre, _K2)]
    c0, c1, c2 = out[(*pre, _K0)], out[(*pre, _K1)], out[(*pre, _K2)]
    tok = _quiet(_IGNORE)  # integers wrap, as in C++ (Note [Quiet floating-point flags])
    try:
        _mul(x1, y2, out=c0)
        _sub(c0, _mul(x2, y1), out=c0)
        _mul(x2, y0, out=c1)
        _sub(c1, _mul(x0, y2), out=c1)
        _mul(x0, y1, out=c2)
        _sub(c2, _mul(x1, y0), out=c2)
    finally:
        _restore(tok)
    return out


_LCROSS = _op("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor", _linalg_cross_cpu, backward={
    "self": lambda grad, other, dim: dispatch(_LCROSS[0], [_cj(other), grad, dim]),
    "other": lambda grad, self, dim: dispatch(_LCROSS[0], [grad, _cj(self), dim])})  # fmt: skip
_CROSS_FAST = _fs.cross(_LCROSS[0], _cross3)
_bind("cross", "input, other, *, dim=-1", _LCROSS, method=False, module="torch.linalg", fast=_CROSS_FAST, doc="""Cross product of
    3-vectors along ``dim`` (inputs broadcast and have the same number of dimensions).

    >>> numtorch.linalg.cross(numtorch.tensor([1.0, 0.0, 0.0]), numtorch.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """)  # fmt: skip


def _cross_composite(self, other, dim=None):
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
            "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with "
            "that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=5,
        )
        shape = broadcast_error(self._data.shape, other._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return dispatch(_LCROSS[0], [self, other, dim])


_CROSS = _op(
    "cross(Tensor self, Tensor other, int? dim=None) -> Tensor", _cross_composite, composite=True
)
_bind("cross", "input, other, dim=None", _CROSS, fast=_CROSS_FAST, fast_cond="dim is not None", doc="""Cross product along ``dim`` (default: the first
    dimension of size 3, with PyTorch's deprecation warning).

    >>> numtorch.cross(numtorch.tensor([1.0, 0.0, 0.0]), numtorch.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """)  # fmt: skip


def _trace_cpu(self):
    if self._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self._data.ndim}")
    dt = self._dtype
    if dt is D.bool:
        raise _not_impl("trace", dt)
    res = D.int64 if dt.category == D._INT else dt
    acc = np.float32 if dt is D.float16 else res.np
    return _make(np.asarray(np.trace(self._data, dtype=acc)).astype(res.np), res)


def _trace_backward(grad, self):
    from ..factory.core import eye_m

    n, m = self._data.shape
    return grad * dispatch(eye_m, [n, m, grad._dtype, None, None, None])


trace = defop("trace(Tensor self) -> Tensor", cpu=_trace_cpu, backward={"self": _trace_backward})


def _trace(input):
    """Sum of the main diagonal of a 2-D tensor (integers accumulate in int64).

    >>> numtorch.trace(numtorch.eye(3))
    tensor(3.)
    """
    return dispatch(trace, [input])


_TRACE_FAST = _fs.trace(trace)
public("trace", "input", _trace, ops=(trace,), fast=(_TRACE_FAST, ("input",)))
public("trace", "self", _trace, relevant=("self",), module="Tensor", ops=(trace,), fast=(_TRACE_FAST, ("self",)))
