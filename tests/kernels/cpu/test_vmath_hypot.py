"""Vectorizable float32 hypot (numtorch/kernels/cpu/pointwise/vmath_hypot.py): ulp error against
mpmath over every exponent pair (overflow to inf and subnormal results included) and C99's
infinity-beats-NaN rule."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.kernels import _codegen

from .test_vmath_atan2 import worst_ulp2

mpmath = pytest.importorskip("mpmath")


def test_ulp_error_against_mpmath():
    rng = np.random.default_rng(18)
    n = 3000
    bits = rng.integers(0, 0x7F800000, n, dtype=np.int32).view(np.float32)  # every exponent
    a = np.concatenate([-bits, rng.uniform(-9, 9, n).astype(np.float32), np.float32([3e38, 1e-45])])
    b = np.concatenate(
        [rng.permutation(bits), rng.uniform(-5, 5, n).astype(np.float32), np.float32([3e38, 1e-45])]
    )
    got = numtorch.hypot(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    assert got.dtype == np.float32
    worst = worst_ulp2(a, b, got, lambda p, q: mpmath.sqrt(p * p + q * q))
    assert worst <= 0.51, worst  # measured 0.50


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(dtype):
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -2.0, 1e-45], dtype)
    a, b = np.repeat(sp, sp.size), np.tile(sp, sp.size)
    got = numtorch.hypot(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    np.testing.assert_array_equal(got, np.hypot(a, b))  # inf with NaN is inf; NaN stays NaN


def test_generated_hypot_calls_the_vector_version():
    src = _codegen.render_pointwise(["self", "other"], [], "np.hypot(self, other)")
    assert "vhypot(self, other)" in src and "np.hypot" not in src
