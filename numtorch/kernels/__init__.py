"""Numba kernels on raw arrays: ``cpu/`` (``@njit``) and ``cuda/`` (``@cuda.jit``).

Kernel modules import Numba, so nothing here is imported by ``import numtorch``; op
declarations reach kernels through ``lazy()`` module proxies, loaded on first use.
"""

from __future__ import annotations

import importlib

# Below this many elements a serial loop beats a parallel one (threading-layer start-up and
# per-call scheduling cost ~1.6 us; see benchmarks/bench_elementwise.py).
PARALLEL_THRESHOLD = 1 << 18


class lazy:
    """A module proxy: ``K = lazy("numtorch.kernels.cpu.reduction.core")``; ``K.sum_dim`` imports on first use."""

    def __init__(self, name: str):
        self.__dict__["_name"] = name

    def __getattr__(self, attr: str):
        mod = importlib.import_module(self.__dict__["_name"])
        self.__dict__.update(mod.__dict__)
        return getattr(mod, attr)
