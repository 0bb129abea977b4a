"""Samplers on raw arrays for numtorch/ops/factory/random.py.

``g`` is a ``np.random.Generator`` (PCG64); NumPy draws the bits and these functions shape
them into PyTorch's distributions. They are plain NumPy (the draws are already vectorised C)
and do not import Numba. Arguments arrive validated: nothing here raises user-facing errors.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np


_GRID = {np.dtype(np.float16): 11, np.dtype(ml_dtypes.bfloat16): 8}  # significand bits of the halves


def _compute(npdtype: np.dtype):
    # half and bfloat16 have no NumPy sampler: draw in float32 and round once
    return np.float32 if npdtype in _GRID else npdtype.type


def uniform(g, shape, npdtype: np.dtype, lo: float = 0.0, hi: float = 1.0) -> np.ndarray:
    """Samples on [lo, hi) as ``npdtype`` (complex: real and imaginary parts independently)."""
    if npdtype.kind == "c":
        real = np.dtype(npdtype.char.lower())
        return uniform(g, shape, real, lo, hi) + 1j * uniform(g, shape, real, lo, hi)
    bits = _GRID.get(npdtype)
    if bits is not None:  # PyTorch's grid of the dtype's significand, so rounding never reaches 1
        u = (g.integers(0, 2**bits, shape) * 2.0**-bits).astype(np.float32)
    else:
        u = g.random(shape, dtype=npdtype.type)
    ct = _compute(npdtype)
    return (ct(lo) + ct(hi - lo) * u).astype(npdtype)


def normal(g, shape, npdtype: np.dtype) -> np.ndarray:
    """Standard normal samples in ``npdtype``'s compute precision (complex: variance 1/2 per part)."""
    if npdtype.kind == "c":
        real = np.dtype(npdtype.char.lower())
        return ((normal(g, shape, real) + 1j * normal(g, shape, real)) * np.sqrt(0.5)).astype(
            npdtype
        )
    return g.standard_normal(shape, dtype=np.float64 if npdtype == np.float64 else np.float32)


def integers(g, shape, npdtype: np.dtype, lo: int, hi_incl: int) -> np.ndarray:
    """Uniform integers in [lo, hi_incl] stored as ``npdtype``."""
    return g.integers(lo, hi_incl, size=shape, dtype=np.int64, endpoint=True).astype(npdtype)


def multinomial(g, rows: np.ndarray, n: int, replacement: bool) -> np.ndarray:
    """(rows, n) int64 category indices from non-negative float64 weights ``rows`` (R x C)."""
    if not replacement or n == 1:
        # PyTorch's sampler: the top-n of p / q with q ~ Exp(1) (the Gumbel-max trick, exponentiated)
        keys = rows / g.standard_exponential(rows.shape)
        return (-keys).argsort(axis=-1, kind="stable")[:, :n]  # (the method: no np.argsort layers)
    ncat = rows.shape[1]
    # one searchsorted for all rows: row r's normalised CDF is shifted into [r, r + 1]
    r = np.arange(rows.shape[0])[:, None]
    cdf = np.cumsum(rows / rows.sum(-1, keepdims=True), axis=-1)
    cdf[:, -1] = 1.0
    u = g.random((rows.shape[0], n)) + r
    idx = np.searchsorted((cdf + r).ravel(), u.ravel(), side="right").reshape(u.shape) - r * ncat
    last = ncat - 1 - np.argmax(rows[:, ::-1] > 0, axis=-1)  # never land on a trailing zero weight
    return np.minimum(idx, last[:, None])


def poisson(g, lam: np.ndarray) -> np.ndarray:
    """Poisson counts (float64) for non-negative rates; huge or NaN rates saturate as in PyTorch."""
    with np.errstate(invalid="ignore"):
        big = ~(lam < 1e18)  # NumPy refuses these rates
    vals = np.asarray(g.poisson(np.where(big, 0.0, lam)), np.float64)  # (a 0-d rate gives an int)
    vals[big] = -(2.0**63)
    return vals
