"""Launch helpers shared by the CUDA op implementations: grid sizes, kernel metadata arrays,
(storage, offset, strides) triples and the mixed-device error."""

from __future__ import annotations

import numpy as np

from . import _runtime as rt

_META: dict = {}


def device_error() -> RuntimeError:
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    )


def launch(kernel, n: int, *args) -> None:
    """Run ``kernel`` on ``n`` threads (first argument ``n``), THREADS per block."""
    if n <= 0:
        return
    from ..kernels.cuda import THREADS

    kernel[(n + THREADS - 1) // THREADS, THREADS](n, *args)


def meta(values):
    """An int64 device array of ``values`` (shapes, strides), cached: a launch then transfers
    nothing for metadata it has seen before."""
    key = tuple(int(v) for v in values)
    arr = _META.get(key)
    if arr is None:
        host = np.array(key if key else (0,), np.int64)
        arr = _META[key] = rt.driver().to_device(host)
        if len(_META) > 4096:  # bounded: a long run over many shapes must not grow it forever
            _META.clear()
            _META[key] = arr
    return arr


def strides_for(a, shape) -> tuple:
    """``a``'s element strides broadcast to ``shape`` (0 where it is broadcast)."""
    lead = len(shape) - a.ndim
    st = [0] * len(shape)
    for i, (s, n) in enumerate(zip(a.estrides, a.shape)):
        st[lead + i] = 0 if n == 1 else s
    return tuple(st)


def parts(a, shape) -> list:
    """(storage, element offset, strides) of CudaArray ``a`` read at ``shape``."""
    return [a.root, a.offset, meta(strides_for(a, shape))]
