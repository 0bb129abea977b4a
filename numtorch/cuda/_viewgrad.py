"""CUDA backward of the slicing views (``x[a:b]``, ``x[i]``): zeros of the input's size with the
gradient copied into the viewed part, all on the device; and ``as_strided``, which reads the
device storage's real size (the view family's CPU stand-in has none: Note [CUDA storage])."""

from __future__ import annotations

from .. import _dtype as D
from .._tensor import Tensor, _make, _wrap_dim
from ..ops.shape.views import _slice_bounds
from . import _storage as S
from ._composed import _check


def _zeros(grad: Tensor, sizes) -> S.CudaArray:
    from ._install import fill

    out = S.empty(tuple(sizes), grad._dtype.np)
    fill(out, grad._dtype.np.type(0))
    return out


def slice_backward(grad_output, input_sizes, dim, start, end, step):
    _check(grad_output)
    out = _zeros(grad_output, input_sizes)
    d = _wrap_dim(dim, len(input_sizes))
    s, e = _slice_bounds(out.shape[d], start, end, step)
    shape, st = list(out.shape), list(out.estrides)
    shape[d] = max(0, -(-(e - s) // step))
    st[d] *= step
    view = S.CudaArray(out.block, out.root, out.offset + s * out.estrides[d], shape, st, out.dtype)
    _copy(view, grad_output)
    return _make(out, grad_output._dtype, Tensor, grad_output._device)


def select_backward(grad_output, input_sizes, dim, index):
    _check(grad_output)
    out = _zeros(grad_output, input_sizes)
    d = _wrap_dim(dim, len(input_sizes))
    i = index + out.shape[d] if index < 0 else index
    shape = out.shape[:d] + out.shape[d + 1 :]
    st = out.estrides[:d] + out.estrides[d + 1 :]
    view = S.CudaArray(out.block, out.root, out.offset + i * out.estrides[d], shape, st, out.dtype)
    _copy(view, grad_output)
    return _make(out, grad_output._dtype, Tensor, grad_output._device)


def _copy(view: S.CudaArray, grad: Tensor) -> None:
    from ._install import copy_into

    copy_into(view, grad._data)


def as_strided(self, size, stride, storage_offset=None):
    # bounds: the device block, which the caching allocator rounds up (PyTorch checks the storage)
    a = self._data
    off = a.offset if storage_offset is None else storage_offset
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    isz = a.itemsize
    need = 0 if 0 in size else (off + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))) * isz
    if need > a.root.size * isz:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and itemsize {isz} "
            f"requiring a storage size of {need} are out of bounds for storage of size {a.root.size * isz}"
        )
    t = _make(S.CudaArray(a.block, a.root, off, size, stride, a.dtype), self._dtype, Tensor, self._device, vc=self._vc)
    t._base = self if self._base is None else self._base
    return t


def as_strided_backward(grad, src_size, src_stride, src_offset, dst_size, dst_stride, dst_offset):
    # the CPU op's scatter-add over a flat storage, by index_put_(accumulate) on the device; the
    # (rarely large) position lists are made on the host
    from ..ops.shape.views import _geometry_index

    _check(grad)
    src = _geometry_index(src_size, src_stride, src_offset)
    dst = _geometry_index(dst_size, dst_stride, dst_offset)
    n = 1 + max(int(src.max(initial=0)), int(dst.max(initial=0)))
    buf = _make(_zeros(grad, (n,)), grad._dtype, Tensor, grad._device)
    pos = _make(S.from_host(src.reshape(-1)), D.int64, Tensor, grad._device)
    buf.index_put_((pos,), grad.reshape(-1), True)
    return as_strided(buf, list(dst_size), list(dst_stride), dst_offset).clone()


IMPLS = {
    "aten::_as_strided_backward": as_strided_backward,
    "aten::slice_backward": slice_backward,
    "aten::select_backward": select_backward,
    "aten::as_strided": as_strided,
}
