"""SparseCPU kernels of shape and creation ops: permute, unsqueeze, cat, zeros_like/new_zeros,
copy_, item (``_local_scalar_dense``)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._sparse_tensor import layout_factory, make_sparse, register
from ..._tensor import Tensor, _make, _wrap_dim
from ._coo import to_dense_array


@register("permute")
def _permute(self, dims):
    nd, sd = self._data.ndim, self._sp_idx._data.shape[0]
    dims = [_wrap_dim(d, nd, "permute") for d in dims]
    if len(dims) != nd or sorted(dims) != list(range(nd)):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
                           f"to len(dims) = {len(dims)}")  # fmt: skip
    if sorted(dims[:sd]) != list(range(sd)):
        raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense dimensions are not allowed. "
                           "Only transpositions within sparse and within dense dimensions are allowed.")  # fmt: skip
    idx = _make(np.ascontiguousarray(self._sp_idx._data[dims[:sd]]), D.int64)
    vals = self._sp_val.permute([0] + [d - sd + 1 for d in dims[sd:]])
    coal = self._sp_coal and dims[:sd] == list(range(sd))
    return make_sparse(idx, vals, [self.shape[d] for d in dims], coal)


@register("unsqueeze")
def _unsqueeze(self, dim):
    nd, sd = self._data.ndim, self._sp_idx._data.shape[0]
    d = _wrap_dim(dim, nd + 1, "unsqueeze")
    shape = list(self.shape)
    shape.insert(d, 1)
    if d <= sd:
        idx = np.insert(self._sp_idx._data, d, 0, axis=0)
        return make_sparse(_make(idx, D.int64), self._sp_val, shape, self._sp_coal)
    return make_sparse(self._sp_idx, self._sp_val.unsqueeze(d - sd + 1), shape, self._sp_coal)


@register("cat")
def _cat(tensors, dim=0):
    first = tensors[0]
    if not all(isinstance(t, Tensor) and t.is_sparse for t in tensors):
        raise RuntimeError("Cannot concatenate a sparse tensor with a dense one: convert with to_dense() or to_sparse()")
    nd, sd = first._data.ndim, first._sp_idx._data.shape[0]
    d = _wrap_dim(dim, nd, "cat")
    if d >= sd or any(t._sp_idx._data.shape[0] != sd or t._data.ndim != nd for t in tensors):
        raise RuntimeError("cat(): numtorch concatenates sparse tensors along a sparse dimension, with equal "
                           "sparse and dense dimensions")  # fmt: skip
    for t in tensors:
        if any(t.shape[k] != first.shape[k] for k in range(nd) if k != d):
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}")
    idxs, offset = [], 0
    for t in tensors:
        i = t._sp_idx._data.copy()
        i[d] += offset
        idxs.append(i)
        offset += t.shape[d]
    dt = first._dtype
    for t in tensors[1:]:
        dt = D.promote_types(dt, t._dtype)
    vals = np.concatenate([t._sp_val._data.astype(dt.np, copy=False) for t in tensors])
    shape = list(first.shape)
    shape[d] = offset
    return make_sparse(_make(np.concatenate(idxs, axis=1), D.int64), _make(vals, dt), shape, False)


@register("zeros_like")
def _zeros_like(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return layout_factory("zeros_like", self.shape, dtype or self._dtype, layout or self.layout, False)


@register("new_zeros")
def _new_zeros(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return layout_factory("zeros", size, dtype or self._dtype, layout or self.layout, False)


@register("copy_")
def _copy_(self, src, non_blocking=False):
    if not (self.is_sparse and isinstance(src, Tensor) and src.is_sparse):
        raise RuntimeError("copy_() between a sparse and a dense tensor is not supported")
    if tuple(self.shape) != tuple(src.shape):
        raise RuntimeError(f"copy_(): sizes {list(self.shape)} and {list(src.shape)} differ")
    self._sp_idx, self._sp_val, self._sp_coal = src._sp_idx.clone(), src._sp_val.to(self._dtype, copy=True), src._sp_coal
    self._vc[0] += 1
    return self


@register("_local_scalar_dense")
def _item(self):
    return _make(to_dense_array(self), self._dtype).item()


def _without(shape, d: int) -> list:
    return [n for k, n in enumerate(shape) if k != d]


@register("select.int")
def _select(self, dim, index):
    nd, sd = self._data.ndim, self._sp_idx._data.shape[0]
    d = _wrap_dim(dim, nd, "select")
    n = self.shape[d]
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {n}")
    index %= n
    if d >= sd:
        return make_sparse(self._sp_idx, self._sp_val.select(d - sd + 1, index), _without(self.shape, d), self._sp_coal)
    keep = self._sp_idx._data[d] == index
    vals = self._sp_val._data[keep]
    if sd == 1:  # no sparse dim left: the (summed) dense slice
        return _make(vals.sum(0).astype(self._dtype.np, copy=False), self._dtype)
    idx = np.ascontiguousarray(np.delete(self._sp_idx._data[:, keep], d, axis=0))
    return make_sparse(_make(idx, D.int64), _make(vals, self._dtype), _without(self.shape, d), self._sp_coal)


@register("index_select")
def _index_select(self, dim, index):
    nd, sd = self._data.ndim, self._sp_idx._data.shape[0]
    d = _wrap_dim(dim, nd, "index_select")
    want = np.asarray(index._data, dtype=np.int64).reshape(-1)
    bad = want[(want < -self.shape[d]) | (want >= self.shape[d])]
    if bad.size:
        raise IndexError(f"index_select(): index contains {int(bad[0])} that is out of range for tensor of size "
                         f"{list(self.shape)} at dimension {d}")  # fmt: skip
    want = want % max(self.shape[d], 1)
    shape = list(self.shape)
    shape[d] = want.size
    if d >= sd:
        return make_sparse(self._sp_idx, self._sp_val.index_select(d - sd + 1, _make(want, D.int64)), shape,
                           self._sp_coal)  # fmt: skip
    # entries of each wanted position, in their stored order, one block per output position
    key = self._sp_idx._data[d]
    order = np.argsort(key, kind="stable")
    lo = np.searchsorted(key[order], want, "left")
    counts = np.searchsorted(key[order], want, "right") - lo
    starts = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
    sel = order[starts]
    idx = self._sp_idx._data[:, sel].copy()
    idx[d] = np.repeat(np.arange(want.size), counts)
    return make_sparse(_make(idx, D.int64), _make(self._sp_val._data[sel], self._dtype), shape, False)


@register("unbind.int")
def _unbind(self, dim=0):
    d = _wrap_dim(dim, self._data.ndim, "unbind")
    return tuple(_select(self, d, i) for i in range(self.shape[d]))
