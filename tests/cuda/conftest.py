"""CUDA tests: under Numba's CUDA simulator every thread of a block is a Python thread and the
simulator's block manager polls them; a short GIL switch interval makes each __syncthreads()
(reductions, matmul) ~4x cheaper there. Restored after each test. The simulator's shared
arrays get a lock (_lock_simulator_shared_arrays)."""

from __future__ import annotations

import sys
import threading

import pytest


def _lock_simulator_shared_arrays() -> None:
    """Numba's simulator finds a block's shared array by the line that allocates it, with a
    look-up, then a store, in a dict and no lock: two threads that both find nothing (a switch
    between the two steps, likely with the short switch interval below) each make an array of
    their own, and the kernel's tree reduction silently adds up garbage (1 launch in 3000 of a
    4-thread block; a flaky sum, amax or softmax in a long test run). The same look-up under a
    lock, keyed as the simulator keys it (the caller's file and line)."""
    import numpy as np
    from numba.core import types
    from numba.cuda.simulator import kernelapi
    from numba.np import numpy_support

    cls = kernelapi.FakeCUDAShared
    if getattr(cls.array, "_numtorch_locked", False):
        return
    real = cls.array
    lock = threading.Lock()

    def array(self, shape, dtype):
        if shape == 0:  # dynamic shared memory: one buffer, no look-up
            return real(self, shape, dtype)
        f = sys._getframe(1)
        caller = (f.f_code.co_filename, f.f_lineno)
        with lock:
            res = self._allocations.get(caller)
            if res is None:
                dt = numpy_support.as_dtype(dtype) if isinstance(dtype, types.Type) else dtype
                res = self._allocations[caller] = np.empty(shape, dt)
        return res

    array._numtorch_locked = True
    cls.array = array


@pytest.fixture(autouse=True)
def _fast_simulator_switching():
    import numtorch

    if not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated():
        yield
        return
    _lock_simulator_shared_arrays()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        yield
    finally:
        sys.setswitchinterval(old)
