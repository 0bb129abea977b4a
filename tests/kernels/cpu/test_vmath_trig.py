"""Vectorizable float32 sin, cos, tan (numtorch/kernels/cpu/pointwise/vmath_trig.py, Note
[Vectorizable trig]): ulp error against mpmath over every exponent (the huge arguments' range
reduction included), special values, and the reduction table's constant."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.kernels.cpu.pointwise import vmath_trig

mpmath = pytest.importorskip("mpmath")

# float32 arguments closest to a multiple of pi/2 (the hardest reductions) and large powers of 2
HARD = [16367173 * 2.0**72, 13176795 * 2.0**-22, 1.5707964, 3.1415927, 4.7123890, 2.0**127,
        3.4028235e38, -1.0e38, 1.0e10, 1.0e20, 105414350.0, 1e-45, 2.0**-126, 0.7853982]  # fmt: skip


def _inputs(n=6000):
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 0x7F800000, n, dtype=np.int32).view(np.float32)  # every exponent
    x = np.concatenate([bits, -bits, rng.uniform(-20, 20, n).astype(np.float32), np.float32(HARD)])
    return x.astype(np.float32)


def _worst_ulp(x, y, ref):
    mpmath.mp.prec = 300  # enough bits to reduce 2**128 by pi/2 exactly
    fi = np.finfo(np.float32)
    worst = 0.0
    for xi, yi in zip(x.tolist(), y.tolist()):
        r = ref(mpmath.mpf(xi))
        a = abs(float(r))
        if a > float(fi.max):
            continue
        ulp = float(np.spacing(np.float32(a))) if a >= fi.tiny else float(fi.smallest_subnormal)
        worst = max(worst, float(abs(mpmath.mpf(yi) - r)) / ulp)
    return worst


@pytest.mark.parametrize(
    ("name", "ref", "bound"), [("sin", "sin", 0.501), ("cos", "cos", 0.501), ("tan", "tan", 0.8)]
)
def test_ulp_error_against_mpmath(name, ref, bound):
    x = _inputs()
    y = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
    assert y.dtype == np.float32
    assert _worst_ulp(x, y, getattr(mpmath, ref)) <= bound  # measured 0.5007, 0.5006, 0.785


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(name, dtype):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45], dtype)
    y = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
    want = getattr(np, name)(x)
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(np.signbit(y), np.signbit(want))


def test_reduction_table_constant_is_two_over_pi():
    mpmath.mp.prec = 400
    assert vmath_trig.TWO_OVER_PI_BITS == int(mpmath.floor(2 / mpmath.pi * mpmath.mpf(2) ** 320))


@pytest.mark.parametrize(
    ("name", "ref", "bound"), [("sin", "sin", 0.501), ("cos", "cos", 0.501), ("tan", "tan", 0.8)]
)
def test_medium_arguments_take_the_guarded_fast_path_within_the_bound(name, ref, bound):
    # Note [Guarded fast paths]: every block below 2**28 * pi/2 takes the medium reduction
    rng = np.random.default_rng(12)
    bits = rng.integers(0, 0x4DC90FDB, 4000, dtype=np.int32).view(np.float32)  # every exponent below it
    x = np.concatenate([bits, -bits, np.float32([1.5707964, 3.1415927, 4.712389, 105414350.0, 421657400.0])])
    y = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
    assert _worst_ulp(x, y, getattr(mpmath, ref)) <= bound


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_guarded_blocks_mix_fast_and_full_paths(name):
    # a huge, inf or NaN element sends its block of 16 through the full path; the last block is
    # shorter; in place and the parallel variant (one op: each costs seconds to compile) block
    # the same way
    fn = getattr(np, name)
    for n in (5, 16, 37) + ((300_001,) if name == "sin" else ()):
        x = np.random.default_rng(n).uniform(-50, 50, n).astype(np.float32)
        x[:: max(n // 7, 1)] = np.float32(3e30)
        x[n // 2] = np.inf
        x[-1] = np.nan if n > 16 else x[-1]
        want = fn(x.astype(np.float64)).astype(np.float32)
        got = getattr(numtorch, name)(numtorch.from_numpy(x)).numpy()
        np.testing.assert_array_max_ulp(got[np.isfinite(want)], want[np.isfinite(want)], maxulp=1)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        if name == "sin":
            t = numtorch.from_numpy(x.copy())
            t.sin_()
            np.testing.assert_array_equal(t.numpy(), got)
