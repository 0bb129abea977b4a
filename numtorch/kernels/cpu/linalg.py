"""Linear-algebra kernels NumPy's LAPACK wrappers do not provide: triangular substitution,
the partial Cholesky factor LAPACK leaves behind on failure, and LU with partial pivoting
(getf2).

# Note [Substitution, not LU, for triangular systems]
# ``linalg.solve_triangular`` must read one triangle only and behave like BLAS trsm on special
# values: an inf below the diagonal of a lower system reaches only the rows after it, a zero
# pivot gives inf/NaN in its own row onwards. Solving with general LU (``np.linalg.solve`` on
# the masked matrix) pivots and spreads one bad entry to every row. Each row is
# ``x_i = (b_i - sum_p a_ip x_p) / a_ii``, with the sum over the rows already solved and no
# skipping of zero terms (MKL's trsm forms ``0 * inf = NaN`` too); the inner loop runs over the
# right-hand sides, which are contiguous.
"""

import numpy as np

from numtorch.kernels._jit import kernel


@kernel
def trsm_left(a, ia, b, ib, upper, unit, out):
    """out[k] = a[ia[k]]^-1 b[ib[k]] for each batch k; a (na, n, n), b (nb, n, m), out (nk, n, m),
    all C-contiguous; only the ``upper`` (or lower) triangle of a is read."""
    n = out.shape[1]
    m = out.shape[2]
    for k in range(out.shape[0]):
        A = a[ia[k]]
        B = b[ib[k]]
        X = out[k]
        for t in range(n):
            i = n - 1 - t if upper else t
            for j in range(m):
                X[i, j] = B[i, j]
            lo = i + 1 if upper else 0
            hi = n if upper else i
            for p in range(lo, hi):
                c = A[i, p]
                for j in range(m):
                    X[i, j] -= c * X[p, j]
            if not unit:
                d = A[i, i]
                for j in range(m):
                    X[i, j] = X[i, j] / d


@kernel
def cholesky_left_looking(a, out):
    """Lower Cholesky factor of each a[k] (n, n) by LAPACK's unblocked left-looking order
    (potf2), reading the lower triangle. Returns per matrix the 1-based column where a pivot
    was not positive (0 when none); there, as LAPACK leaves it, the diagonal holds the failed
    pivot and the columns from it on keep a's values."""
    nb = a.shape[0]
    n = a.shape[1]
    info = np.zeros(nb, np.int32)
    for k in range(nb):
        A = a[k]
        L = out[k]
        for i in range(n):
            for j in range(n):
                L[i, j] = A[i, j] if j <= i else 0
        for j in range(n):
            s = L[j, j].real
            for p in range(j):
                s -= (L[j, p] * np.conj(L[j, p])).real
            if not s > 0:  # NaN fails too, as in LAPACK
                L[j, j] = s
                info[k] = j + 1
                break
            d = np.sqrt(s)
            L[j, j] = d
            for i in range(j + 1, n):
                v = L[i, j]
                for p in range(j):
                    v -= L[i, p] * np.conj(L[j, p])
                L[i, j] = v / d
    return info


@kernel
def lu_partial_pivot(a, piv, info):
    """LAPACK's getf2 on each a[k] (m, n), in place: unit-lower L below the diagonal, U on and
    above it, 1-based row interchanges in piv[k] (min(m, n)) and in info[k] the 1-based index of
    the first exactly-zero pivot (0 when none). The pivot is the first entry of largest
    |re| + |im| in its column (idamax/izamax)."""
    m = a.shape[1]
    n = a.shape[2]
    for b in range(a.shape[0]):
        A = a[b]
        for j in range(min(m, n)):
            p = j
            best = -1.0
            for i in range(j, m):
                v = abs(A[i, j].real) + abs(A[i, j].imag)
                if v > best:
                    best = v
                    p = i
            piv[b, j] = p + 1
            if A[p, j] != 0:
                if p != j:
                    for c in range(n):
                        t = A[j, c]
                        A[j, c] = A[p, c]
                        A[p, c] = t
                d = A[j, j]
                for i in range(j + 1, m):
                    A[i, j] = A[i, j] / d
            elif info[b] == 0:
                info[b] = j + 1
            for i in range(j + 1, m):
                f = A[i, j]
                for c in range(j + 1, n):
                    A[i, c] -= f * A[j, c]
