"""NumPy's pairwise summation, for fused kernels that must reproduce an eager NumPy row sum.

# Note [NumPy pairwise sum]
# ``np.add.reduce`` over a contiguous row starts from the identity 0 and adds the row's pairwise
# sum (numpy/_core/src/umath/loops_utils.h.src): below 8 elements one running sum; up to 128,
# eight running sums over the row in strides of 8, combined as ((r0 + r1) + (r2 + r3)) +
# ((r4 + r5) + (r6 + r7)), then the remainder added in order; longer rows split in two halves
# (the first a multiple of 8) summed alike. Every addition is in the row's dtype, so a kernel
# that computes a row (softmax's backward, Note [Fused softmax backward]) and sums it with
# ``pairwise_sum`` gets eager's bits.
"""

import numpy as np

from numtorch.kernels._jit import kernel


@kernel
def _block_sum(a, lo, n):
    if n < 8:
        res = a.dtype.type(0)
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - n % 8:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@kernel
def _pairwise(a, lo, n):
    # NumPy's recursion as an explicit post-order walk: a cached Numba function that calls a
    # recursive one crashes when loaded from the cache (measured here), so none recurses
    if n <= 128:
        return _block_sum(a, lo, n)
    los, ns, marks = np.empty(128, np.int64), np.empty(128, np.int64), np.zeros(128, np.bool_)
    vals = np.empty(64, a.dtype)
    los[0], ns[0], sp, vp = lo, n, 1, 0
    while sp:
        sp -= 1
        s, m = los[sp], ns[sp]
        if marks[sp]:  # both halves done: left + right, as NumPy adds them
            marks[sp] = False
            vals[vp - 2] = vals[vp - 2] + vals[vp - 1]
            vp -= 1
        elif m <= 128:
            vals[vp] = _block_sum(a, s, m)
            vp += 1
        else:
            m2 = m // 2
            m2 -= m2 % 8
            marks[sp] = True
            sp += 1
            los[sp], ns[sp] = s + m2, m - m2
            sp += 1
            los[sp], ns[sp] = s, m2
            sp += 1
    return vals[0]


@kernel
def pairwise_sum(a, lo, n):
    """0 + the pairwise sum of a[lo : lo + n], as np.add.reduce computes it."""
    return a.dtype.type(0) + _pairwise(a, lo, n)
