"""Per-row selection kernels for ops/reduction/_select_fast.py: kthvalue and median/nanmedian
along a dim (one quickselect a row), topk/sort of short rows, mode of short rows.

Rows run along axis 1 of a C-contiguous (outer, n, inner) array. The order is a stable sort's
with NaN largest (PyTorch's): equal values, NaNs among them, keep index order, so every
result is the element a stable argsort would put there (Note [Selection by quickselect]).
"""

import numpy as np

from numtorch.kernels._jit import inline, kernel
from numtorch.kernels.cpu.reduction.core import mode_of_sorted


@inline
def _before(x, y, largest):
    # x strictly precedes y; NaN is the largest value, equal values keep their index order
    if largest:
        return x > y or (x != x and y == y)
    return x < y or (y != y and x == x)


@inline
def _qselect(b, m, p):
    """The p-th smallest of b[:m] (no NaN), partially reordering b: Hoare's selection with a
    median-of-three pivot (one of the elements, so the scans stop inside the range)."""
    lo = 0
    hi = m - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        x, y, z = b[lo], b[mid], b[hi]
        piv = max(min(x, y), min(max(x, y), z))
        i = lo
        j = hi
        while i <= j:
            while b[i] < piv:
                i += 1
            while piv < b[j]:
                j -= 1
            if i <= j:
                t = b[i]
                b[i] = b[j]
                b[j] = t
                i += 1
                j -= 1
        if p <= j:
            hi = j
        elif p >= i:
            lo = i
        else:
            return b[p]
    return b[p]


@kernel
def kth_rows(a, how, k, vals, idx):
    """vals/idx (outer, inner): the element at stable-sorted position p of each row, with p
    by ``how``: 0 the given k (kthvalue); 1 the row's first NaN where it has one, else the
    lower median (median); 2 the lower median of the non-NaN values, the first NaN of an
    all-NaN row (nanmedian)."""
    outer, n, inner = a.shape
    buf = np.empty(n, a.dtype)
    for o in range(outer):
        for i in range(inner):
            m = 0
            for j in range(n):
                x = a[o, j, i]
                if x == x:
                    buf[m] = x
                    m += 1
            if how == 0:
                p = k
            elif how == 1:
                p = m if m < n else (n - 1) // 2
            else:
                p = (m - 1) // 2 if m > 0 else 0
            if p >= m:  # a NaN: the (p - m)-th in index order
                r = p - m
                for j in range(n):
                    x = a[o, j, i]
                    if x != x:
                        if r == 0:
                            vals[o, i] = x
                            idx[o, i] = j
                            break
                        r -= 1
                continue
            v = _qselect(buf, m, p)
            r = p
            for j in range(m):  # buf holds the row's non-NaN values, reordered
                if buf[j] < v:
                    r -= 1
            for j in range(n):  # the r-th occurrence of v is at position p
                x = a[o, j, i]
                if x == v:
                    if r == 0:
                        vals[o, i] = x
                        idx[o, i] = j
                        break
                    r -= 1


@kernel
def topk_rows(a, k, largest, vals, idx):
    """vals/idx (outer, k, inner): the first k of each row in stable sorted order (ascending,
    or descending with ``largest``), by insertion into the kept k: O(n k) a row."""
    outer, n, inner = a.shape
    if k == 0:
        return
    for o in range(outer):
        for i in range(inner):
            cnt = 0
            for j in range(n):
                x = a[o, j, i]
                if cnt == k and not _before(x, vals[o, k - 1, i], largest):
                    continue
                s = cnt if cnt < k else k - 1
                while s > 0 and _before(x, vals[o, s - 1, i], largest):
                    vals[o, s, i] = vals[o, s - 1, i]
                    idx[o, s, i] = idx[o, s - 1, i]
                    s -= 1
                vals[o, s, i] = x
                idx[o, s, i] = j
                if cnt < k:
                    cnt += 1


@kernel
def mode_short_rows(a, vals, idx):
    """vals/idx (outer, inner): the mode of each row (core.mode_of_sorted's rule), sorting
    each row by insertion."""
    outer, n, inner = a.shape
    sv = np.empty(n, a.dtype)
    si = np.empty(n, np.int64)
    for o in range(outer):
        for i in range(inner):
            for j in range(n):
                x = a[o, j, i]
                s = j
                while s > 0 and _before(x, sv[s - 1], False):
                    sv[s] = sv[s - 1]
                    si[s] = si[s - 1]
                    s -= 1
                sv[s] = x
                si[s] = j
            best, last = mode_of_sorted(sv, si, n)
            vals[o, i] = sv[best]
            idx[o, i] = last


@kernel
def put_along_dim(g, idx, out, outer, k, r, inner, accumulate):
    """Backward of a selection or running extreme: ``g`` and ``idx`` (outer, k, inner), flat, put
    into the zeros ``out`` (outer, r, inner) at ``idx`` along the middle axis; ``accumulate`` adds
    (scatter_add's ``0 + g``: -0.0 becomes +0.0, repeated indices sum in index order) where
    assignment (scatter's) keeps ``g``'s bits. -1 when done, else the first out-of-range
    position (``out`` is then partly written: the caller discards it)."""
    p = 0
    for o in range(outer):
        base = o * r * inner
        for _ in range(k):
            for i in range(inner):
                j = idx[p]
                if j < 0 or j >= r:
                    return p
                q = base + j * inner + i
                if accumulate:
                    out[q] += g[p]
                else:
                    out[q] = g[p]
                p += 1
    return -1
