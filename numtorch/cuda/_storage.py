"""A CUDA tensor's storage: a Numba device array plus the ndarray metadata numtorch reads.

# Note [CUDA storage]
# A CUDA tensor's ``_data`` is a CudaArray: a 1-D Numba device array over the whole storage
# (``root``, from the caching allocator: Note [Caching allocator]), an element offset, shape
# and element strides. It answers the ndarray attributes the rest of numtorch reads for
# metadata (shape, strides in bytes, dtype, ndim, size, itemsize, nbytes, flags), as the
# meta device's MetaArray does, so Tensor's metadata methods work unchanged. Views share
# ``root`` and differ in offset/strides: view ops run their CPU kernel on a stand-in ndarray
# (Note [Meta storage]) and read the result's strides and offset back. Kernels take
# ``(root, offset, strides)`` triples, the same flat-storage form the CPU strided kernels use.
# Nothing here reads device memory into host memory implicitly: ``np.asarray`` of a CudaArray
# raises, and only ``copy_to_host`` copies.
"""

from __future__ import annotations

import math

import numpy as np

from .._meta import _Flags, _is_c, contiguous_strides
from . import _devcheck
from . import _runtime as rt


class CudaArray:
    """Device storage with ndarray-like metadata (Note [CUDA storage])."""

    __slots__ = ("block", "root", "offset", "shape", "estrides", "dtype", "itemsize", "ndim", "size", "_c")
    base = None

    def __init__(self, block, root, offset: int, shape, estrides, dtype, contiguous=None):
        # every view op makes one: map(int, ...) and math.prod run in C (a generator costs more)
        self.block, self.root, self.offset = block, root, int(offset)
        self.shape = shape = tuple(map(int, shape))
        self.estrides = tuple(map(int, estrides))
        self.dtype = dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.itemsize = dtype.itemsize
        self.ndim = len(shape)
        self.size = math.prod(shape)
        self._c = contiguous  # metadata never changes after construction: computed once

    @property
    def strides(self) -> tuple:
        return tuple(s * self.itemsize for s in self.estrides)

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def flags(self) -> _Flags:
        st = self.strides
        return _Flags(_is_c(self.shape, st, self.itemsize), _is_c(self.shape[::-1], st[::-1], self.itemsize))

    @property
    def contiguous(self) -> bool:
        c = self._c
        if c is None:
            c = self._c = _is_c(self.shape, self.strides, self.itemsize)
        return c

    def copy_to_host(self) -> np.ndarray:
        if _devcheck._ARMED[0]:  # a synchronising call: Note [Device-side index checks]
            _devcheck.check()
        if self.size == 0:
            return np.empty(self.shape, self.dtype)
        if self.contiguous:
            flat = self.root[self.offset : self.offset + self.size].copy_to_host()
            return flat.reshape(self.shape)
        host = self.root.copy_to_host()
        return np.lib.stride_tricks.as_strided(host[self.offset :], self.shape, self.strides).copy()

    def alias(self) -> CudaArray:
        """Another CudaArray over the same elements (a view with nothing changed)."""
        return CudaArray(self.block, self.root, self.offset, self.shape, self.estrides, self.dtype, self._c)

    def copy(self) -> CudaArray:
        from . import _install

        return _install.contiguous_copy(self, self.dtype)

    @property
    def __cuda_array_interface__(self) -> dict:
        return {
            "shape": self.shape,
            "strides": None if self.contiguous else self.strides,
            "typestr": self.dtype.str,
            "data": (_pointer(self.root) + self.offset * self.itemsize, False),
            "version": 3,
        }

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
            "to host memory first."
        )

    def __repr__(self) -> str:
        return f"CudaArray(shape={self.shape}, dtype={self.dtype}, strides={self.estrides}, offset={self.offset})"


def _pointer(root) -> int:
    if rt.simulated():  # the simulator's device arrays are host ndarrays
        return root._ary.__array_interface__["data"][0]
    from ._launch import _ptr

    return _ptr(root)  # cached per array: numba-cuda builds __cuda_array_interface__ anew on every read


_WINDOWS: dict = {}  # (id(root), offset, size) -> (root, the device array root[offset:offset + size])


def window(a: CudaArray):
    """``a``'s elements as their own 1-D device array (``a`` contiguous), made once per storage
    window: slicing a Numba device array costs tens of microseconds of host time, and the same
    windows come back every step (an optimizer's parameters and gradients)."""
    key = (id(a.root), a.offset, a.size)
    hit = _WINDOWS.get(key)
    if hit is not None and hit[0] is a.root:
        return hit[1]
    w = a.root[a.offset : a.offset + a.size]
    if len(_WINDOWS) > 4096:
        _WINDOWS.clear()
    _WINDOWS[key] = (a.root, w)
    return w


def bfloat16_refusal() -> NotImplementedError:
    return NotImplementedError(
        "numtorch.cuda: bfloat16 tensors are not supported on CUDA (its kernels have no bfloat16 variant; "
        "numtorch.cuda.is_bf16_supported() is False): use float16 or float32 there"
    )


_SHAPES: dict = {}  # shape -> (shape as ints, contiguous element strides, size)
_DTYPES: dict = {}  # dtype argument -> np.dtype
_new = object.__new__


def empty(shape, dtype) -> CudaArray:
    """A new contiguous CudaArray from the caching allocator. Every op's result comes through
    here, so it builds the CudaArray without ``__init__``'s conversions, from per-shape and
    per-dtype caches (the metadata of the few shapes a model uses)."""
    dt = _DTYPES.get(dtype)
    if dt is None:
        dt = np.dtype(dtype)
        if dt.name == "bfloat16":  # every CUDA storage starts here
            raise bfloat16_refusal()
        _DTYPES[dtype] = dt
    info = _SHAPES.get(shape) if shape.__class__ is tuple else None
    if info is None:
        shp = tuple(int(n) for n in shape)
        n = 1
        for s in shp:
            n *= s
        info = (shp, contiguous_strides(shp), n)
        if shape.__class__ is tuple:
            if len(_SHAPES) > 4096:
                _SHAPES.clear()
            _SHAPES[shape] = info
    block = rt.allocate(info[2] * dt.itemsize)
    a = _new(CudaArray)
    a.block, a.root, a.offset = block, rt.typed(block.mem, dt), 0
    a.shape, a.estrides, a.size = info
    a.dtype, a.itemsize, a.ndim, a._c = dt, dt.itemsize, len(info[0]), True
    return a


def from_host(a: np.ndarray) -> CudaArray:
    """A device copy of the host array ``a`` (one transfer)."""
    c = a if a.flags.c_contiguous else a.copy(order="C")  # ascontiguousarray makes 0-d 1-d
    out = empty(c.shape, c.dtype)
    if c.size:
        out.root[: c.size].copy_to_device(c.reshape(-1))
    return out


def view_of(src: CudaArray, r: np.ndarray, stand: np.ndarray) -> CudaArray:
    """The CudaArray of ``r``, a view computed by a CPU kernel from ``stand`` (a stand-in of ``src``)."""
    hit = _STANDINS.get((src.dtype, stand.shape, src.estrides))
    base = hit[1] if hit is not None and hit[0] is stand else stand.__array_interface__["data"][0]
    delta = r.__array_interface__["data"][0] - base
    root, start = src.root, src.offset * src.itemsize + delta  # in bytes from the block's start
    if r.dtype != src.dtype:  # view_as_real, .real/.imag, view(dtype): the block typed anew
        mem = getattr(src.block, "mem", None)
        if mem is None or src.root is not rt.typed(mem, src.dtype):
            raise NotImplementedError("numtorch.cuda: views that reinterpret the dtype are not supported on CUDA")
        root = rt.typed(mem, r.dtype)
    isz = r.dtype.itemsize
    st = tuple(s // isz for s in r.strides)
    if not r.size and r.ndim and not any(st):  # NumPy zeroes an empty array's strides
        st = contiguous_strides(r.shape)
    return CudaArray(src.block, root, start // isz, r.shape, st, r.dtype)


_STANDINS: dict = {}  # (dtype, shape, element strides) -> (stand-in, its data pointer)


def standin(a: CudaArray) -> np.ndarray:
    """An ndarray with ``a``'s shape and strides over a tiny read-only buffer (metadata only).
    Made once per (dtype, shape, strides): ``as_strided`` costs several microseconds and every
    view op on a CUDA tensor asks for one; a stand-in is read-only and view kernels never change
    their input's metadata, so one object serves every call."""
    key = (a.dtype, a.shape, a.estrides)
    hit = _STANDINS.get(key)
    if hit is not None:
        return hit[0]
    buf = np.zeros(1, a.dtype)
    stand = np.lib.stride_tricks.as_strided(buf, a.shape, a.strides, writeable=False)
    if len(_STANDINS) > 4096:
        _STANDINS.clear()
    _STANDINS[key] = (stand, stand.__array_interface__["data"][0])
    return stand


# Note [Storage-level CUDA views]
# The CUDA composites (convolution's im2col layouts) reshape and permute their own operands many
# times a call; through the public view ops each costs a dispatch, a stand-in and view_of (~30 us
# of host time on the GPU). Below the public API they are CudaArrays over the same elements:
# ``reshaped`` for a contiguous array, ``permuted`` for any. Their tensors carry no view
# bookkeeping (_base, shared version counter), so they serve only as operands or as results
# over storage the composite made itself.
def reshaped(a: CudaArray, shape) -> CudaArray | None:
    """``a`` (contiguous) read as ``shape`` (one entry may be -1); None where ``a`` is strided or
    the sizes do not match (the caller's reshape op then copies or raises)."""
    if not a.contiguous:
        return None
    shape = tuple(map(int, shape))  # the callers' sizes may be NumPy integers
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if not known or a.size % known:
            return None
        shape = tuple(a.size // known if s == -1 else s for s in shape)
    n = math.prod(shape)
    if n != a.size:
        return None
    return _like(a, a.offset, shape, contiguous_strides(shape), n, True)


def permuted(a: CudaArray, perm) -> CudaArray:
    """``a`` with its dims in the order ``perm`` (a permutation of range(a.ndim))."""
    sh, st = a.shape, a.estrides
    return _like(a, a.offset, tuple([sh[p] for p in perm]), tuple([st[p] for p in perm]), a.size, None)


def _like(a: CudaArray, offset: int, shape: tuple, estrides: tuple, size: int, c) -> CudaArray:
    # a CudaArray over ``a``'s storage and dtype from metadata already in Python ints (no
    # __init__ conversions), as ``empty`` builds its results
    r = _new(CudaArray)
    r.block, r.root, r.offset, r.shape, r.estrides, r.size = a.block, a.root, offset, shape, estrides, size
    r.dtype, r.itemsize, r.ndim, r._c = a.dtype, a.itemsize, len(shape), c
    return r
