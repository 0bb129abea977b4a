"""The meta device's storage: shape, strides and offset, no data.

# Note [Meta storage]
# A meta tensor's ``_data`` is a MetaArray: the few ndarray attributes the rest of numtorch
# reads for metadata (shape, strides in bytes, dtype, ndim, size, itemsize, nbytes, flags) plus
# a byte offset into a storage that does not exist. It allocates nothing, so a 1e12-element
# meta tensor is instant, and anything that would read data (``np.asarray``, arithmetic,
# indexing the array) raises instead of reading memory. View kernels, which only compute
# metadata, run on ``standin(a)``: an ndarray with the same strides over a one-element
# read-only buffer; ``from_standin`` turns their result back into a MetaArray.
"""

from __future__ import annotations

import numpy as np

from ._device import device

META = device("meta")
NO_DATA = "Cannot copy out of meta tensor; no data!"


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous", "writeable")

    def __init__(self, c: bool, f: bool):
        self.c_contiguous, self.f_contiguous, self.writeable = c, f, True

    def __getitem__(self, key):
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous}[key]


class MetaArray:
    """Array metadata without a buffer (Note [Meta storage])."""

    __slots__ = ("shape", "strides", "dtype", "offset", "size", "ndim", "itemsize")
    base = None

    def __init__(self, shape, dtype, strides=None, offset: int = 0):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.itemsize = self.dtype.itemsize
        if strides is None:
            strides = contiguous_strides(self.shape)
        self.strides = tuple(int(s) * self.itemsize for s in strides)
        self.offset = int(offset)  # bytes
        self.ndim = len(self.shape)
        n = 1
        for s in self.shape:
            n *= s
        self.size = n

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def flags(self) -> _Flags:
        return _Flags(_is_c(self.shape, self.strides, self.itemsize),
                      _is_c(self.shape[::-1], self.strides[::-1], self.itemsize))  # fmt: skip

    @property
    def T(self) -> MetaArray:  # noqa: N802 - ndarray's name
        return MetaArray(self.shape[::-1], self.dtype, self.elem_strides()[::-1], self.offset)

    def elem_strides(self) -> tuple:
        return tuple(s // self.itemsize for s in self.strides)

    def copy(self) -> MetaArray:
        return MetaArray(self.shape, self.dtype)

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(NO_DATA)

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype}, strides={self.elem_strides()})"


def _is_c(shape, strides, isz) -> bool:
    expect = isz
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def contiguous_strides(shape) -> tuple:
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def empty_meta(shape, dt, strides=None, cls=None):
    """A new meta tensor of ``shape`` and numtorch dtype ``dt``."""
    from ._tensor import Tensor, _make

    return _make(MetaArray(shape, dt.np, strides), dt, cls or Tensor, META)


def is_meta(x) -> bool:
    from ._tensor import Tensor

    return isinstance(x, Tensor) and x._device.type == "meta"


def standin(a: MetaArray) -> np.ndarray:
    """An ndarray with ``a``'s shape and strides over a one-element read-only buffer, for
    kernels that compute metadata only (views). Its data must never be read."""
    buf = np.zeros(1, a.dtype)
    return np.lib.stride_tricks.as_strided(buf, a.shape, a.strides, writeable=False)


def _ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def from_standin(r: np.ndarray, s: np.ndarray, a: MetaArray) -> MetaArray:
    """The MetaArray of ``r``, a view computed from ``s = standin(a)``."""
    isz = r.dtype.itemsize
    m = MetaArray(r.shape, r.dtype, tuple(st // isz for st in r.strides), a.offset + _ptr(r) - _ptr(s))
    if not r.size and r.ndim and not any(r.strides):  # NumPy zeroes an empty array's strides
        m.strides = tuple(x * isz for x in contiguous_strides(r.shape))
    return m
