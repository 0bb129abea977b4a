"""The lower median of every element of a large array by NumPy's introselect.

# Note [Whole-tensor median by NumPy's partition]
# median()/nanmedian() of every element ran the lower_median kernel (Numba's np.partition, a
# plain quickselect that copies first): 1.07 ms on 131072 float32 of few distinct values
# (PyTorch 0.63 ms; it degrades on ties), where NumPy's np.partition (introselect, C) takes
# ~90 us. From NP_MIN elements the CPU function and the fast call (arg_fast._median_all) both
# take lower_median below instead, with the kernel's rules: the first NaN (its payload) where
# median meets one, NaN counted out of nanmedian's rank, the (n - 1) // 2-th smallest of the
# rest (NumPy orders NaN last). The value is the same order statistic as the kernel's (a tie of
# -0.0 and 0.0 may give the other zero, as either algorithm may). Below NP_MIN the kernel's
# single call costs less (measured level at ~1024). Tests: tests/ops/reduction/test_median_all.py.
"""

from __future__ import annotations

import numpy as np

NP_MIN = 1024
_max = np.maximum.reduce


def lower_median(a: np.ndarray, skip_nan: bool):
    """The lower median of the 1-D array ``a`` (size >= NP_MIN) as the lower_median kernel
    gives it."""
    nans = 0
    if a.dtype.kind == "f":
        m = _max(a)  # NaN propagates: one pass where there is none
        if m != m:
            isnan = np.isnan(a)
            if not skip_nan:
                return a[isnan.argmax()]
            nans = int(np.count_nonzero(isnan))
    k = max((a.size - nans - 1) // 2, 0)
    return np.partition(a, k)[k]
