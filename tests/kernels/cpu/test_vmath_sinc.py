"""float32 sinc (numtorch/kernels/cpu/pointwise/vmath_sinc.py, Note [Vectorizable sinc]): ulp error
against mpmath, the special values, and the route the generated kernels take. The float64
expression this replaced for float32 (sin(x * pi) with x * pi rounded) was off by up to 1e7 ulp
next to the integers (sinc(1) gave 3.9e-17 for 0); torch 2.13's float32 sinc is too."""

from __future__ import annotations

import math

import numpy as np

import numtorch
from numtorch.kernels._codegen import vector_expr

from ._ulp import ulp32 as _ulp


def _want(x):
    mpmath = __import__("mpmath")
    mpmath.mp.dps = 30
    return np.array([1.0 if v == 0 else float(mpmath.sinpi(mpmath.mpf(float(v))) / (mpmath.pi * float(v))) for v in x])



def test_float32_ulp_error_against_mpmath():
    rng = np.random.default_rng(17)
    b = rng.integers(0, 2**31 - 1, 3000, dtype=np.int32).view(np.float32)
    near = np.arange(-60, 61).astype(np.float32)
    x = np.concatenate([b[np.isfinite(b)], rng.uniform(-20, 20, 6000), np.nextafter(near, np.float32(100)),
                        np.nextafter(near, np.float32(-100)), near + np.float32(0.5), [1e-30, 2.0**23, 2.0**23 + 1]])  # fmt: skip
    x = x.astype(np.float32)
    y = numtorch.sinc(numtorch.from_numpy(x)).numpy()
    assert y.dtype == np.float32
    want = _want(x)
    err = np.abs(y - want) / _ulp(want)
    assert err.max() <= 0.51, (err.max(), x[np.argmax(err)])  # measured 0.5000


def test_float32_special_values():
    x = np.float32([0.0, -0.0, 1.0, -1.0, 3.0, -4.0, 2.0**30, math.inf, -math.inf, math.nan])
    y = numtorch.special.sinc(numtorch.from_numpy(x)).numpy()
    want = np.float32([1, 1, 0, 0, 0, 0, 0, math.nan, math.nan, math.nan])
    np.testing.assert_array_equal(y, want)
    assert not np.signbit(y[:7]).any()


def test_float64_keeps_the_expression():
    x = np.array([0.0, 0.25, 1.0, -2.5, 1e3 + 0.1])
    got = numtorch.sinc(numtorch.from_numpy(x)).numpy()
    want = [1.0 if v == 0 else math.sin(v * math.pi) / (v * math.pi) for v in x]
    np.testing.assert_array_equal(got, want)


def test_generated_kernels_call_the_vector_version():
    assert vector_expr("sinc_real(self)") == "vsinc_real(self)"
