"""Softmax / log_softmax / logsumexp kernels (numtorch/kernels/cpu/reduction/softmax.py) on NumPy arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from numtorch.kernels.cpu.reduction import softmax as K


def _gathered(x, y, outer, R, inner, log):
    # the small-inner path of ops/reduction/scan.py: columns gathered into rows, back after
    bx, by = np.empty_like(x), np.empty_like(x)
    K.gather_cols(x, bx, outer, R, inner)
    K.softmax_rows_inline(bx, by, outer * inner, R, log)
    K.scatter_cols(by, y, outer, R, inner)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_rows_and_cols_match_numpy(log, rng):
    a = rng.standard_normal((2, 7, 3)).astype(np.float32) * 30
    s = a.astype(np.float64) - a.max(1, keepdims=True)
    lse = np.log(np.exp(s).sum(1, keepdims=True))
    want = s - lse if log else np.exp(s - lse)
    y = np.empty(a.size, np.float32)
    K.softmax_cols(a.ravel(), y, 2, 7, 3, log)
    np.testing.assert_allclose(y.reshape(a.shape), want, rtol=1e-5, atol=1e-6)
    K.softmax_cols_p(a.ravel(), y, 2, 7, 3, log)
    np.testing.assert_allclose(y.reshape(a.shape), want, rtol=1e-5, atol=1e-6)
    y[:] = 0  # Note [Softmax over a small inner size]: each column through the row kernel
    _gathered(a.ravel(), y, 2, 7, 3, log)
    np.testing.assert_allclose(y.reshape(a.shape), want, rtol=1e-5, atol=1e-6)
    rows = np.ascontiguousarray(a.transpose(0, 2, 1))
    yr = np.empty(a.size, np.float32)
    K.softmax_rows(rows.ravel(), yr, 6, 7, log)
    np.testing.assert_allclose(yr.reshape(2, 3, 7).transpose(0, 2, 1), want, rtol=1e-5, atol=1e-6)


def test_softmax_row_with_nan_or_all_minus_inf_is_nan():
    y = np.empty(3)
    K.softmax_rows(np.array([1.0, np.nan, 2.0]), y, 1, 3, False)
    assert np.all(np.isnan(y))
    K.softmax_rows(np.array([-np.inf, -np.inf, -np.inf]), y, 1, 3, False)
    assert np.all(np.isnan(y))
    y = np.empty(6)  # columns of a (3, 2) block: a NaN poisons only its own column
    _gathered(np.array([1.0, 0.0, np.nan, 0.0, 2.0, 0.0]), y, 1, 3, 2, False)
    assert np.all(np.isnan(y[0::2])) and np.allclose(y[1::2], 1 / 3)


def test_logsumexp_does_not_subtract_an_infinite_max():
    out = np.empty(1)
    K.logsumexp_rows(np.array([np.inf, 1.0]), out, 1, 2)
    assert out[0] == np.inf
    K.logsumexp_rows(np.array([-np.inf, -np.inf]), out, 1, 2)
    assert out[0] == -np.inf
    out2 = np.empty(2)
    K.logsumexp_cols(np.array([[np.inf, -np.inf], [1.0, -np.inf]]).ravel(), out2, 1, 2, 2)
    assert out2[0] == np.inf and out2[1] == -np.inf
    K.logsumexp_rows(np.array([1000.0, 1000.0]), out, 1, 2)
    assert math.isclose(out[0], 1000.0 + math.log(2.0))


def test_vectorizable_exp_is_within_two_ulp_over_the_float32_range():
    x = np.linspace(-110, 95, 20001).astype(np.float32)
    want = np.exp(x.astype(np.float64))
    with np.errstate(over="ignore"):
        want32 = want.astype(np.float32)
    got = np.array([K._exp32(v) for v in x], np.float32)
    normal = (want > 1.2e-38) & (want < 3.4e38)
    assert np.all(np.abs(got[normal] - want[normal]) <= 2 * np.spacing(want32[normal]))
    assert np.all(got[want > 3.41e38] == np.inf)
    sub = want < 1.1e-38  # denormal results keep their absolute accuracy
    assert np.all(np.abs(got[sub] - want[sub]) <= 2 * np.spacing(np.float32(0)))


def test_vectorizable_exp_special_values():
    assert K._exp32(np.float32(0.0)) == 1.0 and K._exp32(np.float32(-0.0)) == 1.0
    assert K._exp32(np.float32(np.inf)) == np.inf and K._exp32(np.float32(-np.inf)) == 0.0
    assert np.isnan(K._exp32(np.float32(np.nan)))
