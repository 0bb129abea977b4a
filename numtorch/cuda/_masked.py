"""CUDA masked_select, masked_scatter (and its backward), take, put and take_along_dim, composed
from the CUDA index ops (``x[mask]``, ``x[idx]``, ``index_put_``), so every value stays on the device.

The CPU ops' checks run first, with their messages; the ones that read index or mask *values*
(an out-of-range index, too small a source) read a host copy, as Note [CUDA index checks]. As
PyTorch's own CUDA kernels, masked_select and masked_scatter synchronise to count the mask.
"""

from __future__ import annotations

import math

from .. import _dtype as D
from .._tensor import Tensor, _make
from ..ops._pointwise import _broadcast, _cname
from ..ops.indexing import masked as M
from ._composed import _check


def _host(t: Tensor) -> Tensor:
    return _make(t._data.copy_to_host(), t._dtype)


def masked_select(self, mask):
    _check(self, mask)
    if mask._dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast([self._data.shape, mask._data.shape])
    return self.expand(shape)[mask.expand(shape)]


def _masked_scatter(inplace: bool):
    def impl(self, mask, source):
        _check(self, mask, source)
        if mask._dtype is not D.bool:
            raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                               f"{_cname(mask._dtype)}")  # fmt: skip
        if source._dtype is not self._dtype:
            raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                               f"{_cname(self._dtype)} and {_cname(source._dtype)}")  # fmt: skip
        if inplace:
            M._check_out_shape(self._data, mask._data.shape)
            shape = self._data.shape
        else:
            shape = _broadcast([mask._data.shape, self._data.shape])
        m = mask.expand(shape)
        k = int(m.sum().item())
        if source._data.size < k:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        res = self if inplace else self.expand(shape).clone()
        res.index_put_((m,), source.reshape(-1)[:k])
        return res

    return impl


def masked_scatter_backward(grad_output, mask, sizes):
    _check(grad_output, mask)
    sel = grad_output[mask.expand(grad_output.shape)]
    out = grad_output.new_zeros((math.prod(sizes),))
    out[: sel.numel()] = sel
    return out.reshape(list(sizes))


def _wrapped(index: Tensor, n: int, fname: str) -> Tensor:
    M._flat_index(_host(index), n, fname)  # the CPU's dtype and range checks and messages
    return index.reshape(-1)


def take(self, index):
    _check(self, index)
    i = _wrapped(index, self.numel(), "take")
    return self.reshape(-1)[i].reshape(index.shape)


def _put(inplace: bool):
    def impl(self, index, source, accumulate=False):
        _check(self, index, source)
        i = _wrapped(index, self.numel(), "put_")
        if source._dtype is not self._dtype:
            raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = "
                               f"{_cname(self._dtype)} and source.dtype = {_cname(source._dtype)}")  # fmt: skip
        if source.numel() != i.numel():
            raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                             f"source.numel() = {source.numel()}, index.numel() = {i.numel()}")  # fmt: skip
        work = self.contiguous() if inplace else self.clone()
        work.view(-1).index_put_((i,), source.reshape(-1), accumulate)
        if inplace and work is not self:
            self.copy_(work)
        return self if inplace else work

    return impl


def take_along_dim(self, indices, dim=None):
    _check(self, indices)
    if dim is None:
        if indices._dtype is not D.int64:
            raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                               f"{_cname(indices._dtype)}")  # fmt: skip
        return self.reshape(-1).gather(0, indices.reshape(-1))
    d, sshape, shape = M._tad_shapes(self, indices, dim)
    n = sshape[d] if sshape else 1
    h = indices._data.copy_to_host()
    bad = h[(h < -n) | (h >= n)]
    if bad.size:  # the CPU's message; negative indices wrap along ``dim``
        raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {n}")
    return self.expand(sshape).gather(d, indices.expand(shape) % n)


IMPLS = {
    "aten::take_along_dim": take_along_dim,
    "aten::masked_select": masked_select,
    "aten::masked_scatter": _masked_scatter(False),
    "aten::masked_scatter_": _masked_scatter(True),
    "aten::masked_scatter_backward": masked_scatter_backward,
    "aten::take": take,
    "aten::put": _put(False),
    "aten::put_": _put(True),
}
