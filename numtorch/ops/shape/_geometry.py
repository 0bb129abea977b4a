"""as_strided's backward on flat storage: the elements of a (size, stride, offset) geometry."""

from __future__ import annotations

import numpy as np

from ..._tensor import _make


_I8 = np.dtype(np.int64)
_VIEWED = 1 << 16  # a geometry spanning up to this many more elements than it has: one view


def _geometry_index(size, stride, offset) -> np.ndarray:
    """The storage index of each element of the geometry (int64, of shape ``size``)."""
    numel, end, bst = 1, offset + 1, []
    for n, s in zip(size, stride, strict=False):
        numel *= n
        end += (n - 1) * s
        bst.append(8 * s)
    if numel and end - numel <= _VIEWED and len(bst) == len(size) and (not bst or min(bst) >= 0):
        # arange's element k is k: viewed through the geometry's strides (in bytes) from the
        # offset, element (i, j, ...) is offset + i * s0 + j * s1 + ... (6 us -> 1 us at 2x2)
        return np.ndarray(tuple(size), _I8, np.arange(end, dtype=_I8), offset * 8, tuple(bst))
    idx = np.full(tuple(size), offset, np.int64)
    for d, (n, s) in enumerate(zip(size, stride, strict=False)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


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


def _last(idx, size, stride, offset) -> int:
    """``int(idx.max(initial=0))`` of the geometry's index array ``idx``: its last element's
    index where the strides are non-negative (the max's reduction cost ~1 us of a small call)."""
    last = offset
    for n, s in zip(size, stride, strict=False):
        if s < 0 or n <= 0:
            return int(idx.max(initial=0))
        last += (n - 1) * s
    return last


def _as_strided_backward_cpu(
    grad, src_size, src_stride, src_offset, dst_size, dst_stride, dst_offset
):
    """Scatter-add ``grad`` (laid out as the src geometry over a flat storage) and read it back
    through the dst geometry: as_strided's backward, and (swapped) its own adjoint. A
    contiguous geometry is a slice: no index array, no add.at or gather (15x on a 131072-element
    input's view)."""
    src_span, dst_span = _span(src_size, src_stride, src_offset), _span(dst_size, dst_stride, dst_offset)
    src = None if src_span else _geometry_index(src_size, src_stride, src_offset)
    dst = None if dst_span else _geometry_index(dst_size, dst_stride, dst_offset)
    n = 1 + max(src_span[1] - 1 if src_span else _last(src, src_size, src_stride, src_offset),
                dst_span[1] - 1 if dst_span else _last(dst, dst_size, dst_stride, dst_offset))  # fmt: skip
    buf = np.zeros(n, grad._dtype.np)
    if src_span:
        buf[src_span[0] : src_span[1]] += grad._data.reshape(-1)
    else:
        np.add.at(buf, src.reshape(-1), grad._data.reshape(-1))
    if dst_span is None:
        return _make(buf[dst], grad._dtype)
    out = buf[dst_span[0] : dst_span[1]]
    return _make((out if dst_span == (0, n) else out.copy()).reshape(tuple(dst_size)), grad._dtype)
