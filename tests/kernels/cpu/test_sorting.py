"""kernels/cpu/reduction/sorting.py as plain functions on NumPy arrays."""

import numpy as np
import pytest

from numtorch.kernels.cpu.reduction.sorting import lower_median


def _lower(a):
    s = np.sort(a)  # NaN sorts last
    return s[(a.size - 1) // 2]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("n", [1, 2, 7, 8, 1000, 1001])
def test_lower_median_matches_a_full_sort(dtype, n):
    rng = np.random.default_rng(n)
    a = rng.integers(-5, 5, n).astype(dtype)  # many ties
    before = a.copy()
    assert lower_median(a, False) == _lower(a) and lower_median(a, True) == _lower(a)
    np.testing.assert_array_equal(a, before)  # the input is not reordered


def test_lower_median_nan_rules():
    a = np.array([3.0, np.nan, 1.0, 2.0, np.nan])
    assert np.isnan(lower_median(a, False))  # median: NaN wherever the input holds one
    assert lower_median(a, True) == 2.0  # nanmedian: the lower median of 1, 2, 3
    assert lower_median(np.array([5.0, np.nan]), True) == 5.0
    assert np.isnan(lower_median(np.full(3, np.nan, np.float32), True))
