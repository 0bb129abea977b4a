"""numtorch/kernels/cpu/indexing.py as plain functions on NumPy arrays."""

from __future__ import annotations

import numpy as np
import pytest

from numtorch.kernels.cpu import indexing as K


def _offsets(shape, dim, dim_size, base, base_st, idx, idx_st, wrap=False):
    st = np.array(base_st, np.int64)
    dim_st = int(st[dim])
    st[dim] = 0
    out = np.empty(int(np.prod(shape)), np.int64)
    bad = K.dim_offsets(np.array(shape, np.int64), base, st, dim_st, idx.reshape(-1), 0,
                        np.array(idx_st, np.int64), dim, dim_size, wrap, out)  # fmt: skip
    return out, bad


@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64])
def test_dim_offsets_matches_take_along_axis(idx_dtype):
    rng = np.random.default_rng(0)
    a = rng.random((3, 5))
    idx = rng.integers(0, 5, size=(3, 4)).astype(idx_dtype)
    offs, bad = _offsets((3, 4), 1, 5, 0, (5, 1), idx, (4, 1))
    assert bad == -1
    np.testing.assert_array_equal(a.reshape(-1)[offs].reshape(3, 4), np.take_along_axis(a, idx, 1))


def test_dim_offsets_broadcasts_a_1d_index_with_stride_zero():
    idx = np.array([2, 0], np.int64)
    offs, bad = _offsets((3, 2), 1, 4, 10, (4, 1), idx, (0, 1))
    assert bad == -1
    assert offs.tolist() == [12, 10, 16, 14, 20, 18]


def test_dim_offsets_reports_the_first_bad_position():
    idx = np.array([[0, 1], [5, 7]], np.int64)
    _, bad = _offsets((2, 2), 1, 4, 0, (4, 1), idx, (2, 1))
    assert bad == 2


def test_dim_offsets_wraps_negative_indices_only_when_asked():
    idx = np.array([-1, -4], np.int64)
    _, bad = _offsets((2,), 0, 4, 0, (1,), idx, (1,))
    assert bad == 0
    offs, bad = _offsets((2,), 0, 4, 0, (1,), idx, (1,), wrap=True)
    assert bad == -1 and offs.tolist() == [3, 0]
    _, bad = _offsets((2,), 0, 4, 0, (1,), np.array([-1, -5], np.int64), (1,), wrap=True)
    assert bad == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_accumulate_at_combines_repeated_offsets_in_order(dtype):
    offs = np.array([0, 2, 0, 0], np.int64)
    src = np.array([1, 2, 3, 4], dtype)
    for mode, ufunc in (
        (K.ADD, np.add),
        (K.MUL, np.multiply),
        (K.MAX, np.maximum),
        (K.MIN, np.minimum),
    ):
        dst = np.array([2, 5, 1], dtype)
        want = dst.copy()
        ufunc.at(want, offs, src)
        K.accumulate_at(dst, offs, src, mode)
        np.testing.assert_array_equal(dst, want)


def test_accumulate_at_max_and_min_propagate_nan():
    for mode in (K.MAX, K.MIN):
        dst = np.zeros(2)
        K.accumulate_at(dst, np.array([0, 0, 1], np.int64), np.array([np.nan, 1.0, -1.0]), mode)
        assert np.isnan(dst[0]) and dst[1] == (0.0 if mode == K.MAX else -1.0)


def test_count_at_counts_offsets():
    counts = np.zeros(3, np.int64)
    K.count_at(counts, np.array([2, 2, 0], np.int64))
    assert counts.tolist() == [1, 0, 2]


@pytest.mark.parametrize("right", [False, True])
def test_search_rows_matches_numpy_searchsorted(right):
    rng = np.random.default_rng(1)
    bounds = np.sort(rng.integers(0, 6, size=(3, 5)), axis=1).astype(np.float64)
    values = rng.integers(-1, 7, size=(3, 4)).astype(np.float64)
    out = np.empty(12, np.int64)
    K.search_rows(bounds.reshape(-1), 5, 5, values.reshape(-1), 4, right, out)
    side = "right" if right else "left"
    want = np.stack([np.searchsorted(b, v, side) for b, v in zip(bounds, values, strict=True)])
    np.testing.assert_array_equal(out.reshape(3, 4), want)
    shared = np.empty(12, np.int64)
    K.search_rows(bounds[0].copy(), 0, 5, values.reshape(-1), 4, right, shared)
    np.testing.assert_array_equal(shared, np.searchsorted(bounds[0], values.reshape(-1), side))


def test_search_rows_puts_nan_last():
    out = np.empty(2, np.int64)
    K.search_rows(np.array([1.0, 2.0]), 0, 2, np.array([np.nan, 1.5]), 2, False, out)
    assert out.tolist() == [2, 1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_add_slabs_adds_source_slabs_at_repeated_indices(dtype):
    rng = np.random.default_rng(2)
    dst = rng.integers(0, 9, size=(2, 4, 3)).astype(dtype)
    src = rng.integers(0, 9, size=(2, 3, 3)).astype(dtype)
    idx = np.array([1, 3, 1], np.int64)
    want = dst.copy()
    np.add.at(want, (slice(None), idx), src)
    assert K.add_slabs(dst.reshape(-1), src.reshape(-1), idx, 2, 4, 3, 0) == -1
    np.testing.assert_array_equal(dst, want)


def test_add_slabs_copies_source_slabs_the_last_repeat_winning():
    rng = np.random.default_rng(3)
    dst = rng.standard_normal((2, 4, 3))
    src = rng.standard_normal((2, 3, 3))
    idx = np.array([1, 3, 1], np.int64)
    want = dst.copy()
    want[:, idx] = src  # NumPy's assignment: the last slab of a repeated index
    assert K.add_slabs(dst.reshape(-1), src.reshape(-1), idx, 2, 4, 3, 1) == -1
    assert dst.tobytes() == want.tobytes()


def test_add_slabs_checks_every_index_before_writing():
    dst = np.zeros(4)
    assert K.add_slabs(dst, np.ones(2), np.array([0, 4], np.int64), 1, 4, 1, 1) == 1
    assert K.add_slabs(dst, np.ones(1), np.array([-1], np.int64), 1, 4, 1, 0) == 0
    assert not dst.any()
