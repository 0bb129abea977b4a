"""numtorch.special's Bessel J0, J1, Y0, Y1 and Airy Ai against SciPy (Cephes, the same
approximations) on a dense grid, and against mpmath on a small one: a few ulp of the value or of
the envelope sqrt(2 / (pi x)). PyTorch itself is not the oracle here: its Math.h drops the
leading 1 of Cephes's p1evl denominators and is off by 1e-9 to 1e-11."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

sp = pytest.importorskip("scipy.special")
mpmath = pytest.importorskip("mpmath")
pytest.importorskip("torch")

_EPS = np.finfo(np.float64).eps
_FNS = {
    "bessel_j0": (sp.j0, lambda v: mpmath.besselj(0, v)),
    "bessel_j1": (sp.j1, lambda v: mpmath.besselj(1, v)),
    "bessel_y0": (sp.y0, lambda v: mpmath.bessely(0, v)),
    "bessel_y1": (sp.y1, lambda v: mpmath.bessely(1, v)),
    "airy_ai": (lambda v: sp.airy(v)[0], mpmath.airyai),
}


@pytest.mark.parametrize("name", sorted(_FNS))
def test_matches_scipy_on_a_dense_grid(name):
    x = np.linspace(-40, 40, 4001)
    got = getattr(numtorch.special, name)(numtorch.tensor(x)).numpy()
    want = _FNS[name][0](x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=0, atol=1e-14)


@pytest.mark.parametrize("name", sorted(_FNS))
def test_few_ulp_of_mpmath(name):
    mpmath.mp.dps = 30
    x = np.linspace(-20, 20, 60) if name == "airy_ai" else np.linspace(0.1, 30, 60)
    got = getattr(numtorch.special, name)(numtorch.tensor(x)).numpy()
    want = np.array([float(_FNS[name][1](mpmath.mpf(v))) for v in x])
    env = np.abs(x) ** -0.25 / np.sqrt(np.pi) if name == "airy_ai" else np.sqrt(2 / (np.pi * x))
    scale = np.maximum(np.abs(want), np.minimum(env, 1.0))
    budget = 160 if name == "airy_ai" else 24  # Cephes's airy.c is the weaker approximation
    assert (np.abs(got - want) / (_EPS * scale)).max() < budget
