"""float32 J0, J1, Y0, Y1 and spherical j0 (numtorch/kernels/cpu/pointwise/vmath_bessel_jy.py, Note
[Vectorizable Bessel J and Y]): error against the float64 ops (bessel_jy.py with libm's sin and
cos, unchanged), the special values, and the route the generated kernels take."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.kernels._codegen import vector_expr

from ._ulp import ulp32 as _ulp

_NAMES = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "spherical_bessel_j0"]



def _envelope(x):
    a = np.abs(x.astype(np.float64))
    return np.where(a > 5, np.sqrt(2 / (np.pi * np.maximum(a, 5.0))), 0.0)


@pytest.mark.parametrize("name", _NAMES)
def test_float32_error_against_float64(name):
    # up to |x| = 1000 the float64 code's own error is its x - phase rounding, ulp(x)/2 of the
    # envelope sqrt(2 / (pi x)) at most: 0.5 ulp plus that much (measured: 0.5 ulp + 6e-14 env)
    rng = np.random.default_rng(19)
    x = np.concatenate([np.linspace(-60, 60, 60001), rng.uniform(-1000, 1000, 20000), [5.0, 4.9999995, 5.0000005, 1e-30, -1e-30]])
    x = x.astype(np.float32)
    fn = getattr(numtorch.special, name)
    y = fn(numtorch.from_numpy(x)).numpy()
    want = fn(numtorch.from_numpy(x.astype(np.float64))).numpy()
    assert y.dtype == np.float32
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
    fin = np.isfinite(want)
    assert np.array_equal(y[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
    err = np.abs(y[fin] - want[fin]) - 0.5 * _ulp(want[fin])
    bad = err > 1.2e-13 * _envelope(x[fin]) + 1e-6 * _ulp(want[fin])
    assert not bad.any(), (x[fin][bad][:5], y[fin][bad][:5], want[fin][bad][:5])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bessel_j0", "bessel_y1"])
def test_float32_error_against_mpmath_at_large_x(name):
    # every exponent up to float32's max: the exact reduction keeps 0.5 ulp + 1e-15 of the
    # envelope (the float64 code's x - phase loses the phase itself past 1e16)
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    rng = np.random.default_rng(20)
    x = np.float32(np.exp(rng.uniform(np.log(5.0), np.log(3e38), 600)))
    y = getattr(numtorch.special, name)(numtorch.from_numpy(x)).numpy()
    f = mpmath.besselj if name == "bessel_j0" else mpmath.bessely
    want = np.array([float(f(0 if name == "bessel_j0" else 1, mpmath.mpf(float(v)))) for v in x])
    err = np.abs(y - want) - 0.5 * _ulp(want)
    assert (err <= 1e-15 * _envelope(x) + 1e-6 * _ulp(want)).all()


@pytest.mark.parametrize("name", _NAMES)
def test_float32_special_values(name):
    x = np.float32([math.nan, math.inf, -math.inf, 0.0, -0.0, -3.0, 5.0])
    fn = getattr(numtorch.special, name)
    y = fn(numtorch.from_numpy(x)).numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        want = fn(numtorch.from_numpy(x.astype(np.float64))).numpy().astype(np.float32)
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(np.signbit(y[3:]), np.signbit(want[3:]))


def test_generated_kernels_call_the_vector_versions():
    got = vector_expr("bessel_j0(self) + bessel_j1(self) + bessel_y0(self) + bessel_y1(self) + spherical_j0(self)")
    assert got == "vbessel_j0(self) + vbessel_j1(self) + vbessel_y0(self) + vbessel_y1(self) + vspherical_j0(self)"
