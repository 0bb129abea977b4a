"""CUDA backward of the slicing views (``x[a:b]``, ``x[i]``): zeros of the input's size with the
gradient copied into the viewed part, all on the device."""

from __future__ import annotations

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


IMPLS = {"aten::slice_backward": slice_backward, "aten::select_backward": select_backward}
