"""float32 i0, i0e, i1, i1e (numtorch/kernels/cpu/pointwise/vmath_bessel.py, Note [Vectorizable
modified Bessel functions]): ulp error against the float64 ops (bessel.py's series, unchanged),
the special values, and the route the generated kernels take."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.kernels._codegen import vector_expr

from ._ulp import assert_float32_matches_float64

_OPS = {"i0": numtorch.special.i0, "i0e": numtorch.special.i0e, "i1": numtorch.special.i1, "i1e": numtorch.special.i1e,
        "torch.i0": numtorch.i0, "modified_bessel_i1": numtorch.special.modified_bessel_i1}  # fmt: skip


def _grid():
    rng = np.random.default_rng(15)
    b = rng.integers(0, 2**31 - 1, 20000, dtype=np.int32).view(np.float32)
    b = b[np.isfinite(b)]  # every exponent
    x = np.concatenate([b, -b, np.linspace(-100, 100, 40001), rng.uniform(-10, 10, 20000), [8.0, -8.0, 7.9999995, 8.000001]])
    return x.astype(np.float32)



@pytest.mark.parametrize("name", sorted(_OPS))
def test_float32_ulp_error_against_float64(name):
    # measured: the float64 results rounded, except 0.50004 ulp where a fit meets a rounding tie
    assert_float32_matches_float64(_OPS[name], _grid())


@pytest.mark.parametrize("name", sorted(_OPS))
def test_float32_special_values(name):
    x = np.float32([math.nan, math.inf, -math.inf, 0.0, -0.0, 100.0, -100.0])
    fn = _OPS[name]
    y = fn(numtorch.from_numpy(x)).numpy()
    with np.errstate(over="ignore"):  # i0(100) is past float32: inf
        want = fn(numtorch.from_numpy(x.astype(np.float64))).numpy().astype(np.float32)
    np.testing.assert_array_equal(y, want)
    assert np.array_equal(np.signbit(y), np.signbit(want))


def test_generated_kernels_call_the_vector_versions():
    got = vector_expr("bessel_i0(self) + bessel_i0e(self) + bessel_i1(self) + bessel_i1e(self)")
    assert got == "vbessel_i0(self) + vbessel_i0e(self) + vbessel_i1(self) + vbessel_i1e(self)"
