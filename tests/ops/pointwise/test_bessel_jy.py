"""numtorch/kernels/cpu/pointwise/bessel_jy.py through torch.special: values against mpmath
(precomputed, 30 digits), special values, and the region boundaries of the approximations."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch

# mpmath.besselj / bessely / airyai at mp.dps = 30, rounded to float64
_REF = {
    "bessel_j0": ([3.0, 10.0], [-0.26005195490193345, -0.24593576445134835]),
    "bessel_j1": ([3.0, 10.0], [0.3390589585259365, 0.04347274616886144]),
    "bessel_y0": ([3.0, 10.0], [0.3768500100127904, 0.055671167283599395]),
    "bessel_y1": ([3.0, 10.0], [0.3246744247918, 0.24901542420695388]),
    "airy_ai": ([-5.0, 1.0, 10.0], [0.35076100902411433, 0.13529241631288141, 1.1047532552898686e-10]),
}


@pytest.mark.parametrize("name", sorted(_REF))
def test_values_within_a_few_ulp_of_mpmath(name):
    x, want = _REF[name]
    got = getattr(numtorch.special, name)(numtorch.tensor(x, dtype=numtorch.float64)).numpy()
    # a few ulp of the value, or of the envelope sqrt(2 / (pi |x|)) where the value is near a zero
    env = np.sqrt(2 / (np.pi * np.abs(x)))
    np.testing.assert_allclose(got, want, rtol=8 * np.finfo(np.float64).eps, atol=8 * np.finfo(np.float64).eps * env.min())


@pytest.mark.parametrize("name, x, want", [
    ("bessel_j0", [0.0, -3.0, math.inf, math.nan], [1.0, -0.26005195490193345, math.nan, math.nan]),  # inf: as PyTorch, SciPy
    ("bessel_j1", [0.0, -3.0], [0.0, -0.3390589585259365]),
    ("bessel_y0", [0.0, -1.0, math.nan], [-math.inf, math.nan, math.nan]),
    ("bessel_y1", [0.0, -1.0], [-math.inf, math.nan]),
    ("airy_ai", [math.inf, -math.inf, 200.0, math.nan], [math.nan, math.nan, 0.0, math.nan]),
])  # fmt: skip
def test_special_values(name, x, want):
    got = getattr(numtorch.special, name)(numtorch.tensor(x, dtype=numtorch.float64)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_y1", "airy_ai"])
def test_continuous_across_the_approximation_boundaries(name):
    # |x| = 5 for J and Y, |x| = 2.09 for Ai: the two sides agree to rounding
    b = 2.09 if name == "airy_ai" else 5.0
    x = numtorch.tensor([b * (1 - 1e-12), b * (1 + 1e-12)], dtype=numtorch.float64)
    v = getattr(numtorch.special, name)(x).numpy()
    assert abs(v[0] - v[1]) < 1e-10 * abs(v[0])
    assert getattr(numtorch.special, name)(numtorch.tensor([1.0])).dtype is numtorch.float32
