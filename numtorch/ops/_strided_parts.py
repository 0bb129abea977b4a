"""Strided operand layouts for the elementwise kernels: (1-D storage, element offset, int64
strides broadcast to the output shape) of any array view, as the strided and row kernels read
them (Note [Broadcast rows])."""

from __future__ import annotations

import numpy as np

from .._tensor import _root_array


def flat_parts(a: np.ndarray, shape: tuple):
    """(1-D storage, element offset, int64 strides broadcast to ``shape``) of an array view."""
    nd = len(shape)
    isz = a.itemsize
    st = [0] * (nd - a.ndim)
    st += [0 if n == 1 else s // isz for s, n in zip(a.strides, a.shape, strict=True)]
    st = np.array(st, np.int64)
    if a.size == 0 or a.flags.c_contiguous:  # its own flat view: offset 0, strides as they are
        return a.reshape(-1), 0, st
    root = _root(a)
    if root is not None:
        base = root.reshape(-1) if root.flags.c_contiguous else root.ravel(order="K")
        if base.dtype != a.dtype:  # a dtype view (Tensor.imag, view(dtype)): read storage as a's dtype
            try:
                base = base.view(a.dtype)
            except ValueError:
                base = None
        if base is not None and all(s % isz == 0 for s in a.strides):
            off = (a.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // isz
            return base, off, st
    c = np.ascontiguousarray(a)
    return flat_parts(c, shape)


def _root(a: np.ndarray):
    a = _root_array(a)
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return a
    return None
