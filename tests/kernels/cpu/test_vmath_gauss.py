"""float32 ndtr, log_ndtr, ndtri and erfcx (numtorch/kernels/cpu/pointwise/vmath_gauss.py, Note
[Vectorizable Gaussian functions]) through numtorch.special: ulp error against the float64 ops
(gauss.py's scalar code on libm's erfc; that code path is unchanged) and exact special values.

Measured on the grid below: ndtr, log_ndtr and erfcx give the float64 results rounded (0 of 85k
differ), ndtri 0.50006 ulp (12 of 100k differ: the tail fit's 2e-11 relative error at a rounding
tie); PyTorch's own float32 kernels are off by more (tests/parity/test_vmath_gauss_parity.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.kernels._codegen import vector_expr

from ._ulp import assert_float32_matches_float64


def _bits(n, rng):
    b = rng.integers(0, 2**31 - 1, n, dtype=np.int32).view(np.float32)  # every exponent
    return b[np.isfinite(b)]  # (a signalling NaN's cast to float64 warns)


def _grid(name):
    rng = np.random.default_rng(14)
    if name == "ndtri":
        p = np.concatenate([_bits(20000, rng), rng.uniform(0, 1, 20000), np.linspace(0, 1, 20001),
                            1 - np.geomspace(2.0**-24, 0.5, 2000), [0.2, 0.8, 0.5 - 0.3, 0.5 + 0.3, 1e-45, 1e-38]])  # fmt: skip
        p = p.astype(np.float32)
        return p[(p > 0) & (p < 1)]
    x = np.concatenate([_bits(8000, rng), -_bits(8000, rng), np.linspace(-40, 40, 40001), rng.uniform(-15, 15, 20000),
                        [-1.0, np.nextafter(np.float32(-1), np.float32(0)), -26.6, 26.6, 1e-45, -1e-45]])  # fmt: skip
    x = x.astype(np.float32)
    return x[np.isfinite(x)]



@pytest.mark.parametrize("name", ["ndtr", "log_ndtr", "ndtri", "erfcx"])
def test_float32_ulp_error_against_float64(name):
    assert_float32_matches_float64(getattr(numtorch.special, name), _grid(name))


@pytest.mark.parametrize(("name", "x", "want"), [
    ("ndtr", [math.nan, math.inf, -math.inf, 0.0, -0.0, -38.5, 9.0], [math.nan, 1.0, 0.0, 0.5, 0.5, 0.0, 1.0]),
    ("log_ndtr", [math.nan, math.inf, -math.inf, 0.0], [math.nan, -0.0, -math.inf, math.log(0.5)]),
    ("ndtri", [math.nan, 0.0, 1.0, -0.0, 0.5, -1e-45, 1.0000001, 2.0, math.inf, -math.inf],
     [math.nan, -math.inf, math.inf, -math.inf, 0.0, math.nan, math.nan, math.nan, math.nan, math.nan]),
    ("erfcx", [math.nan, math.inf, -math.inf, 0.0, -0.0, -10.0, 3e37], [math.nan, 0.0, math.inf, 1.0, 1.0, math.inf, 1 / (float(np.float32(3e37)) * math.sqrt(math.pi))]),
])  # fmt: skip
def test_float32_special_values(name, x, want):
    y = getattr(numtorch.special, name)(numtorch.tensor(x, dtype=numtorch.float32)).numpy()
    np.testing.assert_allclose(y, np.float32(want), rtol=1e-6, atol=0)
    assert np.array_equal(np.signbit(y), np.signbit(np.float32(want)))


def test_float64_keeps_the_scalar_code():
    # the vectorised entry points serve float32 only: float64 results are gauss.py's
    from numtorch.kernels.cpu.pointwise import gauss

    x = np.array([-30.0, -5.0, -0.3, 0.0, 0.7, 4.0, 30.0])
    for name in ("ndtr", "log_ndtr", "erfcx"):
        got = getattr(numtorch.special, name)(numtorch.from_numpy(x)).numpy()
        assert np.array_equal(got, [getattr(gauss, name)(v) for v in x])
    p = np.array([1e-300, 1e-20, 0.01, 0.3, 0.5, 0.9, 1 - 1e-16])
    assert np.array_equal(numtorch.special.ndtri(numtorch.from_numpy(p)).numpy(), [gauss.ndtri(v) for v in p])


def test_generated_kernels_call_the_vector_versions():
    assert vector_expr("ndtr(self)") == "vndtr(self)"
    assert vector_expr("ndtri(self) + log_ndtr(self) + erfcx(self)") == "vndtri(self) + vlog_ndtr(self) + verfcx(self)"
