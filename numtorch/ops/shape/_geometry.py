"""as_strided's backward on flat storage: the elements of a (size, stride, offset) geometry."""

from __future__ import annotations

import numpy as np

from ..._tensor import _make


def _geometry_index(size, stride, offset) -> np.ndarray:
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
    n = 1 + max(src_span[1] - 1 if src_span else int(src.max(initial=0)),
                dst_span[1] - 1 if dst_span else int(dst.max(initial=0)))  # fmt: skip
    buf = np.zeros(n, grad._dtype.np)
    if src_span:
        buf[src_span[0] : src_span[1]] += grad._data.reshape(-1)
    else:
        np.add.at(buf, src.reshape(-1), grad._data.reshape(-1))
    if dst_span is None:
        return _make(buf[dst], grad._dtype)
    out = buf[dst_span[0] : dst_span[1]]
    return _make((out if dst_span == (0, n) else out.copy()).reshape(tuple(dst_size)), grad._dtype)
