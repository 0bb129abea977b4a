"""CUDA tests: under Numba's CUDA simulator every thread of a block is a Python thread and the
simulator's block manager polls them; a short GIL switch interval makes each __syncthreads()
(reductions, matmul) ~4x cheaper there. Restored after each test."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _fast_simulator_switching():
    import numtorch

    if not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated():
        yield
        return
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        yield
    finally:
        sys.setswitchinterval(old)
