"""``torch.sparse.sum`` (``_sparse_sum``) and ``torch.sparse.softmax``/``log_softmax``
(``_sparse_softmax``/``_sparse_log_softmax``), with PyTorch's sparse gradients on the input's
pattern."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._sparse_tensor import register
from ..._tensor import _wrap_dim
from .._registry import defop
from ._coo import K, coalesced, linear, rows2d, sparse_sizes, wrap
from .math import masked_values, sum_dims


# ---- sum --------------------------------------------------------------------------------------
def _sum_backward(grad, self, dim):
    # PyTorch's _sparse_sum_backward: each entry of self gets the gradient at its kept indices
    c = coalesced(self)
    nd, sd = self._data.ndim, c._sp_idx._data.shape[0]
    dims = sorted({_wrap_dim(d, nd, "sum") for d in dim}) if dim else list(range(nd))
    keep = [d for d in range(sd) if d not in dims]
    g = grad.to_dense()._data if grad.is_sparse else grad._data
    nnz = c._sp_idx._data.shape[1]
    if keep:
        sizes = tuple(self.shape[d] for d in keep)
        rows = g.reshape((int(np.prod(sizes, dtype=np.int64)),) + g.shape[len(keep) :])
        vals = rows[linear(c._sp_idx._data[keep], sizes)]
    else:
        vals = np.broadcast_to(g, (nnz,) + g.shape)
    for d in dims:  # summed dense dims come back by broadcasting
        if d >= sd:
            vals = np.expand_dims(vals, d - sd + 1)
    vals = np.ascontiguousarray(np.broadcast_to(vals, (nnz,) + tuple(self.shape[sd:])), dtype=self._dtype.np)
    return wrap(c._sp_idx._data, vals, self.shape, True, self._dtype)


SPARSE_SUM = defop("_sparse_sum(Tensor self) -> Tensor",
                   backward={"self": lambda grad, self: _sum_backward(grad, self, None)}, node_name="SumBackward0")  # fmt: skip
SPARSE_SUM_DIM = defop("_sparse_sum.dim(Tensor self, int[1] dim) -> Tensor",
                       backward={"self": lambda grad, self, dim: _sum_backward(grad, self, dim)},
                       node_name="SparseSumBackward0")  # fmt: skip


@register("_sparse_sum")
def _sparse_sum(self):
    return self._sp_val.sum()


@register("_sparse_sum.dim")
def _sparse_sum_dim(self, dim):
    return sum_dims(self, list(dim))


# ---- softmax / log_softmax ----------------------------------------------------------------------
def _groups(c, dim: int):
    """Entry -> group id: entries sharing every sparse index but ``dim``'s."""
    sd = c._sp_idx._data.shape[0]
    others = [d for d in range(sd) if d != dim]
    sizes = tuple(c.shape[d] for d in others)
    key = linear(c._sp_idx._data[others], sizes) if others else np.zeros(c._sp_idx._data.shape[1], np.int64)
    uniq, gid = np.unique(key, return_inverse=True)
    return np.ascontiguousarray(gid.reshape(-1), dtype=np.int64), uniq.shape[0]


def _softmax_values(c, dim: int, log: bool) -> np.ndarray:
    sd = c._sp_idx._data.shape[0]
    vals = c._sp_val
    if dim >= sd:  # a dense dim: the values' own softmax along it
        f = vals.log_softmax if log else vals.softmax
        return f(dim - sd + 1)._data
    gid, ng = _groups(c, dim)
    rows = rows2d(vals._data)
    out = np.empty_like(rows)
    if rows.shape[0]:
        K.segment_softmax(gid, ng, rows, out, log)
    return out.reshape(vals._data.shape)


def _check_float(self, name: str) -> None:
    if self._dtype.category < D._FLOAT:
        raise RuntimeError(f"{name}: expected a floating point input, got {self._dtype}")


def _softmax_backward(grad, self, dim, log: bool):
    # from the input (a sparse result cannot be saved: Note [Sparse COO tensors are the
    # SparseCPU backend]): dx = y * (g - sum(g * y)), or g - exp(y) * sum(g) for log_softmax
    c = coalesced(self)
    d = _wrap_dim(dim, self._data.ndim, "softmax")
    sd = c._sp_idx._data.shape[0]
    y = _softmax_values(c, d, log)
    g = masked_values(grad, c._sp_idx._data, sparse_sizes(c)).astype(y.dtype, copy=False)
    if d >= sd:
        ax = d - sd + 1
        if log:
            gx = g - np.exp(y) * g.sum(axis=ax, keepdims=True)
        else:
            gx = y * (g - (g * y).sum(axis=ax, keepdims=True))
    else:
        gid, ng = _groups(c, d)
        w = rows2d(g if log else g * y)
        sums = np.zeros((ng, w.shape[1]), w.dtype)
        K.scatter_add_rows(gid, w, sums)
        s = sums[gid].reshape(y.shape)
        gx = g - np.exp(y) * s if log else y * (g - s)
    return wrap(c._sp_idx._data, np.ascontiguousarray(gx), self.shape, True, self._dtype)


def _softmax_kernel(log: bool):
    def kernel(self, dim, half_to_float):
        _check_float(self, "log_softmax" if log else "softmax")
        c = coalesced(self)
        d = _wrap_dim(dim, self._data.ndim, "softmax")
        return wrap(c._sp_idx._data, _softmax_values(c, d, log), self.shape, True, self._dtype)

    return kernel


SPARSE_SOFTMAX = defop("_sparse_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
                       backward={"self": lambda grad, self, dim: _softmax_backward(grad, self, dim, False)})  # fmt: skip
SPARSE_LOG_SOFTMAX = defop("_sparse_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
                           backward={"self": lambda grad, self, dim: _softmax_backward(grad, self, dim, True)})  # fmt: skip
register("_sparse_softmax")(_softmax_kernel(False))
register("_sparse_log_softmax")(_softmax_kernel(True))

__all__ = ["SPARSE_SUM", "SPARSE_SUM_DIM", "SPARSE_SOFTMAX", "SPARSE_LOG_SOFTMAX"]
