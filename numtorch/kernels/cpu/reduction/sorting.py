"""Selection kernels for ops/reduction/sorting.py: the median of a whole tensor."""

import numpy as np

from numtorch.kernels._jit import kernel


@kernel
def lower_median(a, skip_nan):
    """The lower median of a contiguous 1-D array (PyTorch's median of all elements): its first
    NaN where it holds one, or with ``skip_nan`` (nanmedian) the lower median of the others
    (NaN where all are NaN). One quickselect, O(n); NumPy's partition orders NaN last."""
    n = a.size
    nans = 0
    for i in range(n):
        if a[i] != a[i]:
            if not skip_nan:
                return a[i]
            nans += 1
    k = max((n - nans - 1) // 2, 0)
    return np.partition(a, k)[k]
