"""Rejection and inversion samplers that draw from a ``np.random.Generator`` inside Numba.

A sampler whose number of uniform draws per sample is random (rejection) cannot take its
uniforms pre-drawn from NumPy, so the kernel takes the Generator itself: Numba advances the
same PCG64 bit generator NumPy does, so ``manual_seed`` reproduces the samples.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import inline, kernel

# Note [Binomial sampler]
# PyTorch's sample_binomial (aten/src/ATen/native/Distributions.h), step for step: with
# q = min(p, 1 - p), BTRS (Hormann 1993, transformed rejection with squeeze) when count * q >= 10,
# else the inversion that counts geometric waiting times until they pass count; a sample for
# p > 0.5 is count minus one for 1 - p. count <= 0 or p <= 0 gives 0, p >= 1 gives count, and a
# NaN probability gives NaN.
_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287])  # fmt: skip


@inline
def _stirling_tail(k, tail):
    # log(k!) minus its Stirling approximation: a table below 10, the series above
    if k <= 9:
        return tail[int(k)]
    kp1sq = (k + 1.0) * (k + 1.0)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0)


@inline
def _inversion(g, count, prob):
    geom_sum = 0.0
    num_geom = 0.0
    logprob = math.log1p(-prob)
    while True:
        geom = math.ceil(math.log(g.random()) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom += 1.0


@inline
def _btrs(g, count, prob, tail):
    stddev = math.sqrt(count * prob * (1.0 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1.0 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1.0) * prob)
    while True:
        u = g.random() - 0.5
        v = g.random()
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1.0) / (r * (count - m + 1.0)))
                 + (count + 1.0) * math.log((count - m + 1.0) / (count - k + 1.0))
                 + (k + 0.5) * math.log(r * (count - k + 1.0) / (k + 1.0))
                 + _stirling_tail(m, tail) + _stirling_tail(count - m, tail)
                 - _stirling_tail(k, tail) - _stirling_tail(count - k, tail))  # fmt: skip
        if v <= upper:
            return k


@kernel
def binomial(g, count, prob, out, tail):
    """Binomial(count[i], prob[i]) samples into ``out`` (Note [Binomial sampler]); all 1-D float64."""
    for i in range(out.size):
        n = count[i]
        p = prob[i]
        if n <= 0.0 or p <= 0.0:
            out[i] = 0.0
        elif p >= 1.0:
            out[i] = n
        elif p <= 0.5:
            out[i] = _btrs(g, n, p, tail) if n * p >= 10.0 else _inversion(g, n, p)
        elif p > 0.5:
            q = 1.0 - p
            out[i] = n - (_btrs(g, n, q, tail) if n * q >= 10.0 else _inversion(g, n, q))
        else:
            out[i] = math.nan


def binomial_samples(g, count: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """float64 samples for float64 ``count``/``prob`` arrays of one shape."""
    out = np.empty(count.shape, np.float64)
    c, p = np.ascontiguousarray(count).reshape(-1), np.ascontiguousarray(prob).reshape(-1)
    binomial(g, c, p, out.reshape(-1), _TAIL)
    return out
