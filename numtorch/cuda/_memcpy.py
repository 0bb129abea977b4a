"""Copies of contiguous storage as one device-to-device memcpy (Note [Device memcpy])."""

from __future__ import annotations

from . import _runtime as rt
from . import _storage as S

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
    shape and do not overlap; False (nothing done: the copy kernels' case) otherwise."""
    if not (src.dtype == dst.dtype and src.shape == dst.shape and src.contiguous and dst.contiguous):
        return False
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
