"""SparseCPU kernels of existing aten ops: add/sub (sparse + sparse, dense + sparse), mul/div by a
scalar or a tensor, neg, transpose, detach/clone/_to_copy, sum, zero_.

Each works on the values (and indices) Tensors below the Autograd key; derivative formulas are
the dense ops' own (Note [Sparse COO tensors are the SparseCPU backend]).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._ops import ops as _ops
from ..._sparse_tensor import make_sparse, register
from ..._tensor import Tensor, _make, _wrap_dim
from ._coo import K, coalesce_arrays, coalesced, gather_rows, gather_sparse, linear, rows2d, sparse_sizes, wrap


def _with_values(t, vals: Tensor, idx: Tensor | None = None, coal: bool | None = None):
    return make_sparse(t._sp_idx if idx is None else idx, vals, t.shape, t._sp_coal if coal is None else coal)


def _is_scalar(x) -> bool:
    return not isinstance(x, Tensor) or (not x.is_sparse and x._data.ndim == 0)


@register("detach")
def _detach(self):
    return _with_values(self, self._sp_val)


@register("clone")
def _clone(self, memory_format=None):
    return _with_values(self, self._sp_val.clone(), self._sp_idx.clone())


@register("_to_copy")
def _to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError("numtorch's sparse tensors live on the CPU only")
    vals = self._sp_val.clone() if dtype is None else self._sp_val.to(dtype, copy=True)
    return _with_values(self, vals, self._sp_idx.clone())


@register("neg")
def _neg(self):
    return _with_values(self, -self._sp_val)


# ---- add / sub ------------------------------------------------------------------------------
def _same_size(a, b, op: str) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{op}: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                           f"{list(b.shape)}")  # fmt: skip


def _sparse_plus_sparse(a, b, alpha):
    _same_size(a, b, "add")
    if a._sp_idx._data.shape[0] != b._sp_idx._data.shape[0]:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same sparse dimensions, but got "
                           f"{a._sp_idx._data.shape[0]} and {b._sp_idx._data.shape[0]}")  # fmt: skip
    dt = D.promote_types(a._dtype, b._dtype)
    bv = b._sp_val if alpha == 1 else b._sp_val * alpha
    ia, ib = a._sp_idx._data, b._sp_idx._data
    if ia is ib or (ia.shape == ib.shape and np.array_equal(ia, ib)):  # one pattern: add the values
        return make_sparse(a._sp_idx, (a._sp_val + bv).to(dt), a.shape, a._sp_coal)
    idx = np.concatenate([ia, ib], axis=1)
    vals = np.concatenate([a._sp_val._data.astype(dt.np), bv._data.astype(dt.np)])
    if a._sp_coal and b._sp_coal:  # PyTorch merges two coalesced operands into a coalesced result
        idx, vals = coalesce_arrays(idx, vals, sparse_sizes(a), dt)
        return wrap(idx, vals, a.shape, True, dt)
    return wrap(idx, vals, a.shape, False, dt)


def _dense_plus_sparse(d: Tensor, s, alpha, out=None) -> Tensor:
    if tuple(d.shape) != tuple(s.shape):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {list(d.shape)} "
                           f"while other has size {list(s.shape)} (FYI: dense-sparse addition does not currently "
                           "support broadcasting)")  # fmt: skip
    dt = D.promote_types(d._dtype, s._dtype)
    if out is not None and dt is not out._dtype and not D.can_cast(dt, out._dtype):
        raise RuntimeError(f"result type {dt._name if hasattr(dt, '_name') else dt} can't be cast to the desired "
                           f"output type {out._dtype}")  # fmt: skip
    sizes = sparse_sizes(s)
    nrows = int(np.prod(sizes, dtype=np.int64))
    vals = s._sp_val._data if alpha == 1 else s._sp_val._data * alpha
    rows = rows2d(vals.astype(dt.np, copy=False))
    acc = np.array(d._data, dtype=rows.dtype, order="C").reshape(nrows, -1)
    if rows.shape[0]:
        K.scatter_add_rows(linear(s._sp_idx._data, sizes), rows, acc)
    res = acc.reshape(d.shape).astype(dt.np, copy=False)
    if out is None:
        return _make(res, dt)
    out._data[...] = res
    out._vc[0] += 1
    return out


@register("add.Tensor")
def _add(self, other, alpha=1):
    if isinstance(self, Tensor) and self.is_sparse:
        if not (isinstance(other, Tensor) and other.is_sparse):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        return _sparse_plus_sparse(self, other, alpha)
    return _dense_plus_sparse(self, other, alpha)


@register("sub.Tensor")
def _sub(self, other, alpha=1):
    return _add(self, other, -alpha)


def _assign(self, r):
    # an in-place op on a sparse tensor: its entries become the out-of-place result's
    if not (isinstance(r, Tensor) and r.is_sparse):
        raise RuntimeError("an in-place op on a sparse tensor needs a sparse result")
    if r._dtype is not self._dtype and not D.can_cast(r._dtype, self._dtype):
        raise RuntimeError(f"result type {r._dtype} can't be cast to the desired output type {self._dtype}")
    self._sp_idx, self._sp_val, self._sp_coal = r._sp_idx, r._sp_val.to(self._dtype), r._sp_coal
    self._vc[0] += 1
    return self


@register("add_.Tensor")
def _add_(self, other, alpha=1):
    if not self.is_sparse:
        return _dense_plus_sparse(self, other, alpha, out=self)
    return _assign(self, _add(self, other, alpha))


@register("sub_.Tensor")
def _sub_(self, other, alpha=1):
    return _add_(self, other, -alpha)


def _inplace_of(fn):
    def kernel(self, *args):
        if not self.is_sparse:
            raise RuntimeError("an in-place op on a dense tensor with a sparse operand is not supported")
        return _assign(self, fn(self, *args))

    return kernel


@register("zero_")
def _zero_(self):
    self._sp_idx = _make(np.zeros((self._sp_idx._data.shape[0], 0), np.int64), D.int64)
    self._sp_val = _make(np.zeros((0,) + self._sp_val._data.shape[1:], self._dtype.np), self._dtype)
    self._sp_coal = True
    self._vc[0] += 1
    return self


# ---- mul / div ------------------------------------------------------------------------------
def _mul_sparse_sparse(a, b):
    _same_size(a, b, "mul")
    dt = D.promote_types(a._dtype, b._dtype)
    ca, cb = coalesced(a), coalesced(b)
    sizes = sparse_sizes(a)
    la, lb = linear(ca._sp_idx._data, sizes), linear(cb._sp_idx._data, sizes)
    _, ja, jb = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
    vals = ca._sp_val._data[ja].astype(dt.np) * cb._sp_val._data[jb].astype(dt.np)
    return wrap(np.ascontiguousarray(ca._sp_idx._data[:, ja]), vals, a.shape, True, dt)


def _mul_sparse_dense(s, d: Tensor):
    _same_size(s, d, "mul")
    sizes = sparse_sizes(s)
    picked = _make(np.ascontiguousarray(gather_rows(d._data, s._sp_idx._data, sizes)), d._dtype)
    return _with_values(s, s._sp_val * picked)


@register("mul.Tensor")
def _mul(self, other):
    if _is_scalar(other):
        return _with_values(self, self._sp_val * other)
    if _is_scalar(self):
        return _with_values(other, other._sp_val * self)
    if self.is_sparse and other.is_sparse:
        return _mul_sparse_sparse(self, other)
    return _mul_sparse_dense(self, other) if self.is_sparse else _mul_sparse_dense(other, self)


@register("div.Tensor")
def _div(self, other):
    if self.is_sparse and _is_scalar(other):
        return _with_values(self, self._sp_val / other)
    shape = list(other.shape) if isinstance(other, Tensor) else []
    raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape {shape} for "
                       "divisor)")  # fmt: skip


register("mul_.Tensor")(_inplace_of(_mul))
register("div_.Tensor")(_inplace_of(_div))
register("neg_")(_inplace_of(_neg))


# ---- transpose ------------------------------------------------------------------------------
@register("transpose.int")
def _transpose(self, dim0, dim1):
    nd = self._data.ndim
    d0, d1 = _wrap_dim(dim0, nd, "transpose"), _wrap_dim(dim1, nd, "transpose")
    sd = self._sp_idx._data.shape[0]
    shape = list(self.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    if d0 == d1:
        return make_sparse(self._sp_idx, self._sp_val, shape, self._sp_coal)
    if d0 < sd and d1 < sd:
        idx = self._sp_idx._data.copy()
        idx[[d0, d1]] = idx[[d1, d0]]
        return make_sparse(_make(idx, D.int64), self._sp_val, shape, False)
    if d0 >= sd and d1 >= sd:
        return make_sparse(self._sp_idx, self._sp_val.transpose(d0 - sd + 1, d1 - sd + 1), shape, self._sp_coal)
    raise RuntimeError(f"transpose(): can't transpose a sparse dimension with a dense dimension ({dim0}, {dim1})")


@register("t")
def _t(self):
    if self._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but self is "
                           f"{self._sp_idx._data.shape[0]} sparse and {self._sp_val._data.ndim - 1} dense dimensions")  # fmt: skip
    return _transpose(self, 0, 1) if self._data.ndim == 2 else _detach(self)


# ---- sum ------------------------------------------------------------------------------------
@register("sum")
def _sum(self, dtype=None):
    return self._sp_val.sum(dtype=dtype)


def sum_dims(self, dims: list):
    """The sum over ``dims``: sparse while some sparse dim remains, else dense."""
    nd, sd = self._data.ndim, self._sp_idx._data.shape[0]
    dims = sorted({_wrap_dim(d, nd, "sum") for d in dims})
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    vals = self._sp_val.sum(dense_dims) if dense_dims else self._sp_val
    keep = [d for d in range(sd) if d not in dims]
    if not keep:
        return vals.sum(0)
    idx = self._sp_idx._data[keep]
    shape = [self.shape[d] for d in keep] + list(vals.shape[1:])
    sizes = tuple(self.shape[d] for d in keep)
    cidx, cvals = coalesce_arrays(idx, vals._data, sizes, vals._dtype)
    return wrap(cidx, cvals, shape, True, vals._dtype)


@register("sum.dim_IntList")
def _sum_dim(self, dim, keepdim=False, dtype=None):
    if keepdim:
        raise RuntimeError("sum(): keepdim=True is not supported for sparse tensors")
    if not dim:
        return _sum(self, dtype)
    r = sum_dims(self, list(dim))
    return r if dtype is None else r.to(dtype)


def masked_values(grad, mask_idx: np.ndarray, sizes: tuple) -> np.ndarray:
    """``grad`` (dense or sparse) at each index of ``mask_idx``: (nnz, *dense dims)."""
    if isinstance(grad, Tensor) and grad.is_sparse:
        return gather_sparse(grad, mask_idx, sizes)
    return np.ascontiguousarray(gather_rows(grad._data, mask_idx, sizes))


# ---- zero-preserving elementwise ops: f(0) == 0, so f acts on the coalesced values alone --------
_ZERO_PRESERVING = ("abs", "sqrt", "sin", "tan", "tanh", "sinh", "asin", "asinh", "atan", "atanh", "erf", "erfinv",
                    "expm1", "log1p", "trunc", "floor", "ceil", "round", "sign", "sgn", "frac", "deg2rad",
                    "rad2deg", "relu", "isnan", "isinf", "isposinf", "isneginf", "signbit", "nan_to_num",
                    "_conj_physical")  # fmt: skip


def _on_values(name: str):
    def kernel(self, *args, **kwargs):
        c = coalesced(self)  # duplicates summed first: f(a) + f(b) is not f(a + b)
        vals = getattr(_ops.aten, name).default(c._sp_val, *args, **kwargs)
        return make_sparse(c._sp_idx, vals, self.shape, True)

    return kernel


for _name in _ZERO_PRESERVING:
    register(_name)(_on_values(_name))
    if not _name.startswith("is") and _name not in ("signbit", "_conj_physical"):
        register(f"{_name}_")(_inplace_of(_on_values(_name)))


@register("pow.Tensor_Scalar")
def _pow(self, exponent):
    if not self.is_sparse or not exponent > 0:
        raise RuntimeError(f"pow(): a sparse tensor to the power {exponent} is not sparse (0 ** {exponent} != 0)")
    c = coalesced(self)
    return make_sparse(c._sp_idx, c._sp_val**exponent, self.shape, True)


@register("threshold_backward")
def _threshold_backward(grad_output, self, threshold):
    # relu's derivative on a sparse input: the gradient where the input exceeds the threshold
    c = coalesced(self)
    g = masked_values(grad_output, c._sp_idx._data, sparse_sizes(c))
    vals = np.where(c._sp_val._data > threshold, g, 0).astype(g.dtype, copy=False)
    return wrap(c._sp_idx._data, vals, self.shape, True, grad_output._dtype)
