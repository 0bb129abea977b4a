"""Copies of contiguous storage as one device-to-device memcpy (Note [Device memcpy]), and of
transposed views through shared-memory tiles (Note [Tiled transposing copy])."""

from __future__ import annotations

from ..kernels import lazy
from . import _runtime as rt
from . import _storage as S

K_COPY = lazy("numtorch.kernels.cuda.copy")

# Note [Device memcpy]
# clone/contiguous/to(same dtype)/copy_ of a contiguous source into a contiguous destination of
# the same dtype and size is a byte copy: cuMemcpyDtoD (numba-cuda's driver wrapper, which
# checks its status) runs at the copy engines' full bandwidth, where the strided copy kernel
# indexes every element (a quarter of the rate on an H200). On the legacy default stream, the
# one numtorch launches on, a device-to-device cuMemcpyDtoD is ordered with the kernels and
# does not block the host. Under the simulator, device arrays are host memory, so
# ctypes.memmove stands in for the driver call and the same pointer arithmetic runs in tests.
_COPY: list = []


def device_copy(dst: S.CudaArray, src: S.CudaArray) -> bool:
    """Copy ``src`` into ``dst`` as one memcpy when both are contiguous with the same dtype and
    shape and do not overlap, or through transposing tiles when ``src`` is a transposed view
    (Note [Tiled transposing copy]); False (nothing done: the copy kernels' case) otherwise."""
    if not (src.dtype == dst.dtype and src.shape == dst.shape and dst.contiguous):
        return False
    if not src.contiguous:
        return src.root is not dst.root and _transpose(dst, src)
    if src.root is dst.root and src.offset < dst.offset + dst.size and dst.offset < src.offset + src.size:
        return False  # memcpy's overlap is undefined
    if src.size:
        if not _COPY:
            _setup()
        isz = src.itemsize
        _COPY[0](S._pointer(dst.root) + dst.offset * isz, S._pointer(src.root) + src.offset * isz, src.size * isz)
    return True


def _setup() -> None:
    if rt.simulated():
        import ctypes

        _COPY.append(ctypes.memmove)
    else:
        from numba.cuda.cudadrv.driver import driver

        _COPY.append(driver.cuMemcpyDtoD)


_MIN_EDGE = 8  # both transposed dims at least this long: shorter ones leave tiles mostly empty


def _transpose(dst: S.CudaArray, src: S.CudaArray) -> bool:
    sh, st = src.shape, src.estrides
    dims = [k for k in range(len(sh)) if sh[k] != 1]
    if len(dims) < 2 or st[dims[-1]] == 1:
        return False  # the last dim runs with unit stride: copy_strided's accesses coalesce
    e = dims[-1]
    d = next((k for k in dims[:-1] if st[k] == 1), None)
    kind, isz = src.dtype.kind, src.itemsize
    if d is None or sh[d] < _MIN_EDGE or sh[e] < _MIN_EDGE:
        return False
    if kind == "f" and isz >= 4 or kind == "b" or kind in "iu" and isz <= 4:
        kern = K_COPY.transpose_tiles_f
    elif kind in "iu":
        kern = K_COPY.transpose_tiles_i
    else:
        return False  # half (no exact float64 tile without linked conversions) and complex
    from ..kernels.cuda.copy import TROWS, TT
    from ._launch import meta, run

    ost = [1] * len(sh)
    for k in range(len(sh) - 2, -1, -1):
        ost[k] = ost[k + 1] * sh[k + 1]
    batch = [k for k in dims if k not in (d, e)] or None
    bshape = meta([sh[k] for k in batch] if batch else (1,))
    bxs = meta([st[k] for k in batch] if batch else (0,))
    bos = meta([ost[k] for k in batch] if batch else (0,))
    nb = src.size // (sh[d] * sh[e])
    tD, tE = -(-sh[d] // TT), -(-sh[e] // TT)
    run(kern, nb * tD * tE, TT * TROWS, (tD, tE, bshape, bxs, bos, src.root, src.offset, dst.root, dst.offset,
                                         sh[d], sh[e], 1, st[e], ost[d]))  # fmt: skip
    return True


def resize_(self, size, memory_format=None):
    """``Tensor.resize_`` on CUDA, as the CPU op (numtorch/ops/shape/inplace.py): a storage large
    enough is kept and viewed contiguously from the tensor's offset; a larger one is new, the old
    elements (in storage order) copied to its front."""
    import math

    from ..ops.shape.inplace import resize_shape

    shape = tuple(int(s) for s in resize_shape(self, size))
    a = self._data
    if shape == a.shape:
        return self
    n = math.prod(shape)
    st = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        st[k] = st[k + 1] * shape[k + 1]
    avail = a.root.size - a.offset
    if n <= avail:
        self._data = S.CudaArray(a.block, a.root, a.offset, shape, st, a.dtype)
        return self
    new = S.empty(shape, a.dtype)
    if avail > 0:
        device_copy(S.CudaArray(new.block, new.root, new.offset, (avail,), (1,), a.dtype),
                    S.CudaArray(a.block, a.root, a.offset, (avail,), (1,), a.dtype))  # fmt: skip
    self._data = new
    return self
