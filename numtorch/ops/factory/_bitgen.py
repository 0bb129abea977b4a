"""The ``bitgen_t`` address of a NumPy Generator, for kernels that draw by it (Note [Bit
generator in kernels], numtorch/kernels/cpu/bitgen.py), and the integer draws through it."""

from __future__ import annotations

import numpy as np

from ..._random import default_generator as _DG
from ...kernels import lazy

K = lazy("numtorch.kernels.cpu.bitgen")

_LAST: tuple = (None, 0)  # (Generator, address): one pair, swapped whole (a manual_seed makes a new one)


def address(g) -> int:
    """``g``'s bitgen_t address (``bit_generator.ctypes`` is ~1 us: kept for the last Generator)."""
    global _LAST
    last = _LAST
    if last[0] is g:
        return last[1]
    a = g.bit_generator.ctypes.bit_generator.value
    _LAST = (g, a)
    return a


def integers_into(g, lo: int, hi_incl: int, out: np.ndarray) -> None:
    """Fill C-contiguous ``out`` with ``g.integers(lo, hi_incl, size=out.shape, dtype=np.int64,
    endpoint=True).astype(out.dtype)``'s values, advancing ``g`` as that call does (-2**63 <= lo
    <= hi_incl < 2**63; ``out`` int64 or float)."""
    if out.size:  # NumPy draws nothing for an empty size
        rng = hi_incl - lo
        K.integers_into(address(g), lo, rng - 2**64 if rng >= 2**63 else rng, out.reshape(-1))


_KZ = lazy("numtorch.kernels.cpu.ziggurat")


SMALL = 1024  # below this many values NumPy's own call is cheaper than a kernel's dispatch


def standard_normal(shape, dtype) -> np.ndarray:
    """The default generator's ``standard_normal(shape, dtype=dtype)`` (float32 or float64) drawn
    by a kernel (Note [Ziggurat samplers in kernels]: 2.5x NumPy's speed from SMALL values)."""
    out = np.empty(shape, dtype)
    fill = _KZ.normal32_ if out.itemsize == 4 else _KZ.normal64_
    fill(address(_DG._np), out.reshape(-1), 1.0, 0.0, False)
    return out


def random(shape, dtype) -> np.ndarray:
    """The default generator's ``random(shape, dtype=dtype)`` (float32 or float64) by a kernel."""
    out = np.empty(shape, dtype)
    fill = K.uniform32_ if out.itemsize == 4 else K.uniform64_
    fill(address(_DG._np), out.reshape(-1), 1.0, 0.0, False)
    return out
