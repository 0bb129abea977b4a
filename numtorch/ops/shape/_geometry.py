"""as_strided's backward on flat storage: the elements of a (size, stride, offset) geometry."""

from __future__ import annotations

import numpy as np

from ..._tensor import _make


def _geometry_index(size, stride, offset) -> np.ndarray:
    """The storage position of every element of a (size, stride, offset) geometry (strides
    >= 0, as as_strided takes them): the geometry itself laid over an arange of the storage,
    one array where a broadcast sum per dim took ~6 us at a few elements."""
    size = tuple(size)
    if 0 in size:
        return np.full(size, offset, np.int64)
    end = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=False))
    return np.ndarray(size, _I64, np.arange(end, dtype=np.int64), offset * 8, tuple(s * 8 for s in stride))


_I64 = np.dtype(np.int64)


def _last(size, stride, offset) -> int:
    """The largest storage position of a geometry (0 when it has no element)."""
    if 0 in size:
        return 0
    return offset + sum((n - 1) * s for n, s in zip(size, stride, strict=False))


def _span(size, stride, offset):
    """(first, end) of a geometry laying its elements out C-contiguously (a plain slice of the
    flat storage), else None."""
    expected, numel = 1, 1
    for n, s in zip(reversed(size), reversed(stride)):
        if n != 1 and s != expected:
            return None
        expected *= n
        numel *= n
    return offset, offset + numel


def _as_strided_backward_cpu(
    grad, src_size, src_stride, src_offset, dst_size, dst_stride, dst_offset
):
    """Scatter-add ``grad`` (laid out as the src geometry over a flat storage) and read it back
    through the dst geometry: as_strided's backward, and (swapped) its own adjoint. A
    contiguous geometry is a slice: no index array, no add.at or gather (15x on a 131072-element
    input's view)."""
    src_span, dst_span = _span(src_size, src_stride, src_offset), _span(dst_size, dst_stride, dst_offset)
    n = 1 + max(src_span[1] - 1 if src_span else _last(src_size, src_stride, src_offset),
                dst_span[1] - 1 if dst_span else _last(dst_size, dst_stride, dst_offset))  # fmt: skip
    buf = np.zeros(n, grad._dtype.np)
    if src_span:
        buf[src_span[0] : src_span[1]] += grad._data.reshape(-1)
    else:
        np.add.at(buf, _geometry_index(src_size, src_stride, src_offset).reshape(-1), grad._data.reshape(-1))
    if dst_span is None:
        return _make(buf[_geometry_index(dst_size, dst_stride, dst_offset)], grad._dtype)
    out = buf[dst_span[0] : dst_span[1]]
    return _make((out if dst_span == (0, n) else out.copy()).reshape(tuple(dst_size)), grad._dtype)
