"""Reduction kernels as plain functions on NumPy arrays: the generated combiner kernels
(numtorch/kernels/_codegen_reduction.py) and the hand-written ones (kernels/cpu/reduction/core.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from numtorch.kernels import _codegen_reduction as CR
from numtorch.kernels.cpu.reduction import core as K

SUM = CR.Combiner("sum", "a + b")
AMAX = CR.Combiner("amax", "maximum(a, b)")
NORMP = CR.Combiner("normp", "a + b", "abs(x) ** p", "a ** (1.0 / p)", ("p",))
SHAPES = [
    (1, 1, 1),
    (3, 5, 1),
    (2, 7, 3),
    (1, 1000, 1),
    (4, 129, 130),
    (2, 4097, 3),
    (5, 64, 17),
    (1, 3, 2000),
]


def _col_args(mod, x, out, o, r, i, chunk):
    return mod.col, (x.ravel(), out, o, r, i, chunk)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("variant", ["row", "row_p", "split_p", "col", "col_p"])
def test_generated_sum_matches_numpy_in_every_variant(shape, variant, rng):
    o, r, i = shape
    a = rng.standard_normal(shape)
    want = a.sum(1).ravel()
    out = np.empty(o * i)
    mod = SUM.module()
    if variant.startswith("col"):
        getattr(mod, variant)(a.ravel(), out, o, r, i, 16)
    else:
        rows = np.ascontiguousarray(a.transpose(0, 2, 1)).ravel()
        if variant == "split_p":
            mod.split_p(rows, out, o * i, r, 3)
        else:
            getattr(mod, variant)(rows, out, o * i, r)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


def test_pairwise_sum_of_ten_million_float32_ones_is_exact():
    x = np.ones(10**7, np.float32)
    out = np.empty(1, np.float32)
    SUM.module().row(x, out, 1, x.size)
    assert out[0] == 1e7
    col = np.empty(100, np.float32)
    SUM.module().col(np.ones(3 * 10**7, np.float32), col, 1, 3 * 10**5, 100, 100)
    assert np.all(col == 3e5)


def test_pairwise_sum_error_stays_near_float32_rounding(rng):
    # naive float32 accumulation of 1e7 values drifts by ~1e-3 relative; pairwise stays ~1e-6
    x = rng.random(10**7).astype(np.float32)
    out = np.empty(1, np.float32)
    SUM.module().row(x, out, 1, x.size)
    exact = x.astype(np.float64).sum()
    assert abs(out[0] - exact) / exact < 1e-6
    col = np.empty(10, np.float32)
    SUM.module().col(x, col, 1, 10**6, 10, 10)
    exact = x.reshape(10**6, 10).astype(np.float64).sum(0)
    assert np.max(np.abs(col - exact) / exact) < 1e-6


def test_amax_combiner_propagates_nan_in_rows_and_columns():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    out = np.empty(2)
    AMAX.module().row(x.ravel(), out, 2, 3)
    assert np.isnan(out[0]) and out[1] == 6.0
    out3 = np.empty(3)
    AMAX.module().col(x.ravel(), out3, 1, 2, 3, 3)
    assert out3[0] == 4.0 and np.isnan(out3[1]) and out3[2] == 6.0


def test_parameterised_combiner_applies_map_and_post(rng):
    x = rng.random(50) + 0.5
    out = np.empty(1)
    NORMP.module().row(x, out, 1, 50, 3.0)
    assert math.isclose(out[0], np.sum(x**3) ** (1 / 3), rel_tol=1e-12)


def test_generated_module_is_a_real_file_loaded_once():
    mod = SUM.module()
    assert mod is SUM.module()
    assert mod.__file__.endswith(".py")
    src = CR.render(SUM)
    assert "def row_p(" in src and "def col(" in src and "a + b" in src


@pytest.mark.parametrize("largest", [True, False])
def test_argext_keeps_first_tie_and_lets_nan_win(largest):
    x = np.array([2.0, 5.0, 5.0, np.nan, 1.0, np.nan, 1.0])
    vals, idx = np.empty(1), np.empty(1, np.int64)
    K.argext_rows(x, vals, idx, 1, x.size, largest)
    assert idx[0] == 3 and np.isnan(vals[0])
    y = np.array([2.0, 5.0, 5.0, 1.0, 1.0])
    K.argext_rows(y, vals, idx, 1, y.size, largest)
    assert idx[0] == (1 if largest else 3)


def test_argext_rows_and_cols_agree_with_numpy(rng):
    a = rng.integers(0, 4, (3, 6, 5)).astype(np.int64)
    vals, idx = np.empty(15, np.int64), np.empty(15, np.int64)
    K.argext_cols(a.ravel(), vals, idx, 3, 6, 5, True)
    np.testing.assert_array_equal(idx.reshape(3, 5), a.argmax(1))
    rows = np.ascontiguousarray(a.transpose(0, 2, 1)).ravel()
    K.argext_rows_p(rows, vals, idx, 15, 6, False)
    np.testing.assert_array_equal(idx.reshape(3, 5), a.argmin(1))
    np.testing.assert_array_equal(vals.reshape(3, 5), a.min(1))


@pytest.mark.parametrize("correction", [0.0, 1.0, 2.5])
def test_var_kernels_are_two_pass_and_apply_correction(correction, rng):
    a = rng.standard_normal((2, 9, 3)) + 1e4  # a large mean: one-pass formulas lose digits here
    var, mean = np.empty(6), np.empty(6)
    K.var_cols(a.ravel(), var, mean, 2, 9, 3, correction)
    np.testing.assert_allclose(var.reshape(2, 3), a.var(1, ddof=correction), rtol=1e-9)
    np.testing.assert_allclose(mean.reshape(2, 3), a.mean(1), rtol=1e-12)
    rows = np.ascontiguousarray(a.transpose(0, 2, 1)).ravel()
    K.var_rows(rows, var, mean, 6, 9, correction)
    np.testing.assert_allclose(var.reshape(2, 3), a.var(1, ddof=correction), rtol=1e-9)


def test_var_with_no_degrees_of_freedom_is_nan_or_inf():
    var, mean = np.empty(1), np.empty(1)
    K.var_rows(np.array([3.0]), var, mean, 1, 1, 1.0)
    assert np.isnan(var[0]) and mean[0] == 3.0
    K.var_rows(np.array([3.0, 5.0]), var, mean, 1, 2, 2.0)
    assert var[0] == np.inf


def test_cumulative_accumulates_in_the_accumulator_dtype():
    x = np.full(10**6, 0.1, np.float32)
    out = np.empty(x.size, np.float32)
    K.cumulative(x, out, 1, x.size, 1, np.empty(1, np.float64), False)
    assert out[-1] == np.float32(np.float64(np.float32(0.1)) * 10**6)
    a = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    o = np.empty(6, np.int64)
    K.cumulative(a.ravel(), o, 1, 2, 3, np.empty(3, np.int64), True)
    np.testing.assert_array_equal(o.reshape(2, 3), np.cumprod(a, 0))


def test_cumext_nan_takes_over_and_ties_move_the_index():
    x = np.array([1.0, np.nan, 3.0, np.nan, 2.0])
    vals, idx = np.empty(5), np.empty(5, np.int64)
    K.cumext(x, vals, idx, 1, 5, 1, True)
    np.testing.assert_array_equal(idx, [0, 1, 1, 3, 3])
    assert np.isnan(vals[1:]).all()
    y = np.array([2, 1, 2, 2], np.int64)
    v2, i2 = np.empty(4, np.int64), np.empty(4, np.int64)
    K.cumext(y, v2, i2, 1, 4, 1, True)
    np.testing.assert_array_equal(i2, [0, 0, 2, 3])
    K.cumext(y, v2, i2, 1, 4, 1, False)
    np.testing.assert_array_equal(i2, [0, 1, 1, 1])


def test_cumprod_grad_is_exact_with_zeros(rng):
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    g = rng.standard_normal(5)
    out = np.empty(5)
    K.cumprod_grad(x, g, out, 1, 5, 1)
    eps = 1e-6
    for k in range(5):
        xp, xm = x.copy(), x.copy()
        xp[k] += eps
        xm[k] -= eps
        fd = (np.cumprod(xp) @ g - np.cumprod(xm) @ g) / (2 * eps)
        assert math.isclose(out[k], fd, rel_tol=1e-6, abs_tol=1e-8)


def test_mode_rows_prefers_the_smallest_most_frequent_value_and_its_last_index():
    rows = np.array([[1, 2, 2, 3, 3], [3, 2, 2, 3, 1]], np.int64)
    order = np.argsort(rows, axis=1, kind="stable")
    sv = np.take_along_axis(rows, order, 1)
    vals, idx = np.empty(2, np.int64), np.empty(2, np.int64)
    K.mode_rows(sv.ravel(), order.ravel(), vals, idx, 2, 5)
    np.testing.assert_array_equal(vals, [2, 2])
    np.testing.assert_array_equal(idx, [2, 2])
