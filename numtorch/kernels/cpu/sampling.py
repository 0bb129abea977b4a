"""Rejection and inversion samplers that draw from a ``np.random.Generator`` inside Numba.

A sampler whose number of uniform draws per sample is random (rejection) cannot take its
uniforms pre-drawn from NumPy, so the kernel takes the Generator's bit generator by address
(Note [Bit generator in kernels]) and advances the same PCG64 state NumPy does, so
``manual_seed`` reproduces the samples.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import inline, kernel
from .bitgen import next_double

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
        geom = math.ceil(math.log(next_double(g)) / logprob)
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
        u = next_double(g) - 0.5
        v = next_double(g)
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
    """Binomial(count[i], prob[i]) samples into ``out`` (Note [Binomial sampler]); all 1-D, of one
    dtype (float32 or float64; the arithmetic is float64); ``g`` a bitgen_t address."""
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


_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))


def binomial_samples(bg: int, count: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """Samples as ``count``'s dtype for float ``count``/``prob`` arrays of one shape and dtype,
    drawn by the bitgen_t at address ``bg``: computed in float64 (float32 values widen exactly
    in the kernel, and its float64 results round once on store, as astype; other dtypes are
    converted first and the float64 results cast)."""
    native = count.dtype in _NATIVE
    out = np.empty(count.shape, count.dtype if native else np.float64)
    c = np.ascontiguousarray(count if native else count.astype(np.float64)).reshape(-1)
    p = np.ascontiguousarray(prob if native else prob.astype(np.float64)).reshape(-1)
    binomial(bg, c, p, out.reshape(-1), _TAIL)
    return out if native else out.astype(count.dtype)


# Note [Poisson sampler]
# NumPy's random_poisson (numpy/random/src/distributions/distributions.c), step for step, so that
# Generator.poisson's samples and stream position are reproduced: the multiplication method below
# lam 10 (uniforms multiplied until their product falls to exp(-lam)), PTRS (Hormann's
# transformed rejection with squeeze) from 10 up, 0 for lam 0. Same IEEE operations in the same
# order (Numba contracts nothing without fastmath; log/exp/sqrt are the C library's).
_LOGGAM = np.array([8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
                    -5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03,
                    6.410256410256410e-03, -2.955065359477124e-02, 1.796443723688307e-01,
                    -1.39243221690590e+00])  # fmt: skip


@inline
def _loggam(x, a):
    if x == 1.0 or x == 2.0:
        return 0.0
    n = int(7 - x) if x < 7.0 else 0
    x0 = x + n
    x2 = (1.0 / x0) * (1.0 / x0)
    gl0 = a[9]
    for k in range(8, -1, -1):
        gl0 *= x2
        gl0 += a[k]
    gl = gl0 / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * math.log(x0) - x0
    if x < 7.0:
        for _ in range(n):
            gl -= math.log(x0 - 1.0)
            x0 -= 1.0
    return gl


@inline
def _poisson_ptrs(g, lam, a_tab):
    slam = math.sqrt(lam)
    loglam = math.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = next_double(g) - 0.5
        v = next_double(g)
        us = 0.5 - abs(u)
        k = np.int64(math.floor((2 * a / us + b) * u + lam + 0.43))
        if us >= 0.07 and v <= vr:
            return k
        if k < 0 or (us < 0.013 and v > us):
            continue
        if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= (
            -lam + k * loglam - _loggam(k + 1.0, a_tab)
        ):
            return k


@kernel
def poisson(g, lam, out, a_tab):
    """Poisson(lam[i]) counts into ``out`` (int64, or float64: each int64 count converted), or
    False with nothing drawn where a rate is not in [0, 1e18) (NaN included: NumPy refuses those);
    ``lam`` 1-D (Note [Poisson sampler]); ``g`` a bitgen_t address."""
    for i in range(lam.size):
        if not (lam[i] >= 0.0 and lam[i] < 1e18):
            return False
    for i in range(out.size):
        m = lam[i]
        if m >= 10.0:
            out[i] = _poisson_ptrs(g, m, a_tab)
        elif m == 0.0:
            out[i] = 0
        else:
            enlam = math.exp(-m)
            x = 0
            prod = 1.0
            while True:
                prod *= next_double(g)
                if prod > enlam:
                    x += 1
                else:
                    break
            out[i] = x
    return True


def poisson_counts(bg: int, lam: np.ndarray):
    """Counts of ``lam``'s shape as float64 (Generator.poisson(lam)'s int64 values and draws,
    then astype(float64)), or None with nothing drawn unless every rate is in [0, 1e18)."""
    out = np.empty(lam.shape, np.float64)
    ok = poisson(bg, np.ascontiguousarray(lam).reshape(-1), out.reshape(-1), _LOGGAM)
    return out if ok else None


@kernel
def bernoulli_probs(g, p, out):
    """``out[i] = U[0, 1) < p[i]`` (1.0 or 0.0; one next_double per value, as Generator.random),
    or False with nothing drawn where a probability is not in [0, 1] (NaN included)."""
    for i in range(p.size):
        if not (p[i] >= 0.0 and p[i] <= 1.0):
            return False
    for i in range(out.size):
        out[i] = 1.0 if next_double(g) < p[i] else 0.0
    return True
