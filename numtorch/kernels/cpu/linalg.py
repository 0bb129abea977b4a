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
def trsm_left(a, ia, b, ib, upper, unit, cnan, out):
    """out[k] = a[ia[k]]^-1 b[ib[k]] for each batch k; a (na, n, n), b (nb, n, m), out (nk, n, m),
    all C-contiguous; only the ``upper`` (or lower) triangle of a is read. ``cnan`` (complex):
    a zero or infinite pivot gives nan+nanj, as MKL's complex trsm (whose reciprocal of such a
    pivot is NaN), not Numba's ZeroDivisionError or Smith's 0 for x / inf."""
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
                if cnan and (d == 0 or abs(d.real) == np.inf or abs(d.imag) == np.inf):
                    for j in range(m):
                        X[i, j] = X[i, j] * np.nan
                else:
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
    # the pivot in a's dtype: a failed complex pivot keeps its imaginary part, as torch's LAPACK
    # leaves it (nan+nanj where a row holds inf: (inf+nanj) * conj(inf+nanj) is nan+nanj)
    acc = np.zeros(1, out.dtype)
    for k in range(nb):
        A = a[k]
        L = out[k]
        for i in range(n):
            for j in range(n):
                L[i, j] = A[i, j] if j <= i else 0
        for j in range(n):
            acc[0] = L[j, j].real
            for p in range(j):
                acc[0] -= L[j, p] * np.conj(L[j, p])
            s = acc[0].real
            if not s > 0:  # NaN fails too, as in LAPACK
                L[j, j] = acc[0]
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
def lu_partial_pivot(a, piv, info, cnan):
    """LAPACK's getf2 on each a[k] (m, n), in place: unit-lower L below the diagonal, U on and
    above it, 1-based row interchanges in piv[k] (min(m, n)) and in info[k] the 1-based index of
    the first exactly-zero pivot (0 when none). The pivot is the first entry of largest
    |re| + |im| in its column (idamax/izamax). ``cnan`` (complex): an infinite pivot makes its
    multipliers NaN, as zgetf2's reciprocal of it (trsm_left's rule)."""
    m = a.shape[1]
    n = a.shape[2]
    for b in range(a.shape[0]):
        A = a[b]
        for j in range(min(m, n)):
            p = j
            # the first entry's own magnitude to start, as i?amax: a NaN there is never beaten,
            # a later NaN never wins (torch's LU of [[nan, 1], [2, 3]] keeps row 1)
            best = abs(A[j, j].real) + abs(A[j, j].imag)
            for i in range(j + 1, m):
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
                if cnan and (abs(d.real) == np.inf or abs(d.imag) == np.inf):
                    for i in range(j + 1, m):
                        A[i, j] = A[i, j] * np.nan
                else:
                    for i in range(j + 1, m):
                        A[i, j] = A[i, j] / d
            elif info[b] == 0:
                info[b] = j + 1
            for i in range(j + 1, m):
                f = A[i, j]
                for c in range(j + 1, n):
                    A[i, c] -= f * A[j, c]


# Note [Bunch-Kaufman as LAPACK's sytf2]
# ``linalg.ldl_factor`` returns what LAPACK's ?sytrf (uplo 'L') leaves: L below the diagonal,
# D's 1x1 and 2x2 blocks on the diagonal and first subdiagonal, and 1-based pivots, negative and
# repeated for a 2x2 block. The kernel below is the unblocked ?sytf2 step for step (PyTorch's
# LAPACK runs it for n <= 64; its blocked ?lasyf makes the same pivot choices), with ?sytf2's
# cabs1 = |re| + |im| as the magnitude, so complex symmetric (not Hermitian) input follows csytf2.
# A zero or NaN pivot column sets info to its 1-based index and is left as it is.
@kernel
def _cabs1(x):
    return abs(x.real) + abs(x.imag)


@kernel
def _iamax_col(A, lo, hi, j):
    # first row in lo..hi-1 of the largest cabs1 in column j (BLAS i?amax)
    best, at = -1.0, lo
    for i in range(lo, hi):
        v = _cabs1(A[i, j])
        if v > best:
            best, at = v, i
    return at


@kernel
def _sytf2_lower(A, piv):
    n = A.shape[0]
    alpha = (1.0 + np.sqrt(17.0)) / 8.0
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = _cabs1(A[k, k])
        imax, colmax = k, 0.0
        if k < n - 1:
            imax = _iamax_col(A, k + 1, n, k)
            colmax = _cabs1(A[imax, k])
        if max(absakk, colmax) == 0.0 or np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= alpha * colmax:
                kp = k
            else:
                jmax, rowmax = k, -1.0
                for j in range(k, imax):  # row imax, columns k..imax-1
                    v = _cabs1(A[imax, j])
                    if v > rowmax:
                        jmax, rowmax = j, v
                if imax < n - 1:
                    jmax = _iamax_col(A, imax + 1, n, imax)
                    rowmax = max(rowmax, _cabs1(A[jmax, imax]))
                if absakk >= alpha * colmax * (colmax / rowmax):
                    kp = k
                elif _cabs1(A[imax, imax]) >= alpha * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                for i in range(kp + 1, n):
                    A[i, kk], A[i, kp] = A[i, kp], A[i, kk]
                for j in range(kk + 1, kp):
                    A[j, kk], A[kp, j] = A[kp, j], A[j, kk]
                A[kk, kk], A[kp, kp] = A[kp, kp], A[kk, kk]
                if kstep == 2:
                    A[k + 1, k], A[kp, k] = A[kp, k], A[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / A[k, k]
                    for j in range(k + 1, n):  # ?syr, lower: A -= d11 x x^T
                        if A[j, k] == 0:  # ?syr skips zero columns (inf/NaN elsewhere stay put)
                            continue
                        t = -d11 * A[j, k]
                        for i in range(j, n):
                            A[i, j] += A[i, k] * t
                    for i in range(k + 1, n):
                        A[i, k] *= d11
            elif k < n - 2:
                d21 = A[k + 1, k]
                d11 = A[k + 1, k + 1] / d21
                d22 = A[k, k] / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * A[j, k] - A[j, k + 1])
                    wkp1 = d21 * (d22 * A[j, k + 1] - A[j, k])
                    for i in range(j, n):
                        A[i, j] = A[i, j] - A[i, k] * wk - A[i, k + 1] * wkp1
                    A[j, k] = wk
                    A[j, k + 1] = wkp1
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return info


@kernel
def ldl_factor_lower(a, piv, info):
    """Bunch-Kaufman of each a[b] in place (Note [Bunch-Kaufman as LAPACK's sytf2]); a (nb, n, n)."""
    for b in range(a.shape[0]):
        info[b] = _sytf2_lower(a[b], piv[b])


@kernel
def ldl_solve_lower(a, ia, piv, ip, x):
    """x[k] <- A^-1 x[k] with A = L D L^T from a[ia[k]], piv[ip[k]] (LAPACK ?sytrs, uplo 'L')."""
    n = x.shape[1]
    for b in range(x.shape[0]):
        A, P, B = a[ia[b]], piv[ip[b]], x[b]
        k = 0
        while k < n:  # L D y = b
            if P[k] > 0:
                kp = P[k] - 1
                if kp != k:
                    for c in range(B.shape[1]):
                        B[k, c], B[kp, c] = B[kp, c], B[k, c]
                for i in range(k + 1, n):
                    for c in range(B.shape[1]):
                        B[i, c] -= A[i, k] * B[k, c]
                for c in range(B.shape[1]):
                    B[k, c] /= A[k, k]
                k += 1
            else:
                kp = -P[k] - 1
                if kp != k + 1:
                    for c in range(B.shape[1]):
                        B[k + 1, c], B[kp, c] = B[kp, c], B[k + 1, c]
                for i in range(k + 2, n):
                    for c in range(B.shape[1]):
                        B[i, c] -= A[i, k] * B[k, c] + A[i, k + 1] * B[k + 1, c]
                akm1k = A[k + 1, k]
                akm1 = A[k, k] / akm1k
                ak = A[k + 1, k + 1] / akm1k
                denom = akm1 * ak - 1.0
                for c in range(B.shape[1]):
                    bkm1 = B[k, c] / akm1k
                    bk = B[k + 1, c] / akm1k
                    B[k, c] = (ak * bkm1 - bk) / denom
                    B[k + 1, c] = (akm1 * bk - bkm1) / denom
                k += 2
        k = n - 1
        while k >= 0:  # L^T x = y
            if P[k] > 0:
                for i in range(k + 1, n):
                    for c in range(B.shape[1]):
                        B[k, c] -= A[i, k] * B[i, c]
                kp = P[k] - 1
                if kp != k:
                    for c in range(B.shape[1]):
                        B[k, c], B[kp, c] = B[kp, c], B[k, c]
                k -= 1
            else:
                for i in range(k + 1, n):
                    for c in range(B.shape[1]):
                        B[k, c] -= A[i, k] * B[i, c]
                        B[k - 1, c] -= A[i, k - 1] * B[i, c]
                kp = -P[k] - 1
                if kp != k:
                    for c in range(B.shape[1]):
                        B[k, c], B[kp, c] = B[kp, c], B[k, c]
                k -= 2


@kernel
def outer(a, b, out):
    """out[i, j] = a[i] * b[j]: np.multiply.outer's one product per element, without NumPy's
    inner loop over a short ``b`` (131073 x 4 float32: 3.3x PyTorch's time) ."""
    m = b.shape[0]
    for i in range(a.shape[0]):
        x = a[i]
        row = out[i]
        for j in range(m):
            row[j] = x * b[j]


@kernel
def cross3(x, y, out):
    """out[i, :, j] = x[i, :, j] x y[i, :, j] for (pre, 3, post) arrays: np.cross's products and
    differences per element (c0 = x1 y2 - x2 y1, ...; each product rounded, then subtracted)."""
    for i in range(out.shape[0]):
        for j in range(out.shape[2]):
            x0, x1, x2 = x[i, 0, j], x[i, 1, j], x[i, 2, j]
            y0, y1, y2 = y[i, 0, j], y[i, 1, j], y[i, 2, j]
            out[i, 0, j] = x1 * y2 - x2 * y1
            out[i, 1, j] = x2 * y0 - x0 * y2
            out[i, 2, j] = x0 * y1 - x1 * y0


@kernel
def gj_small(a, b, out, info):
    """out[k] = a[k]^-1 b[k] for a batch of small real matrices a (nb, n, n) and right-hand
    sides b (nb, n, m) or one for all (1, n, m): Gauss-Jordan on [a | b] with partial pivoting, in float64 (as NumPy's
    LAPACK route computes a float32 solve or inverse); where a pivot column is exactly zero,
    info[k] = its 1-based index and out[k] is left unwritten (Note [Small batched inverse])."""
    n = a.shape[1]
    m = b.shape[2]
    w = np.empty((n, n + m))
    one = b.shape[0] == 1
    for k in range(a.shape[0]):
        kb = 0 if one else k
        for i in range(n):
            for j in range(n):
                w[i, j] = a[k, i, j]
            for j in range(m):
                w[i, n + j] = b[kb, i, j]
        bad = 0
        for c in range(n):
            p = c
            best = abs(w[c, c])
            for r in range(c + 1, n):
                v = abs(w[r, c])
                if v > best:
                    best = v
                    p = r
            if best == 0.0:
                bad = c + 1
                break
            if p != c:
                for j in range(n + m):
                    t = w[c, j]
                    w[c, j] = w[p, j]
                    w[p, j] = t
            d = 1.0 / w[c, c]
            for j in range(c, n + m):
                w[c, j] *= d
            for r in range(n):
                f = w[r, c]
                if r != c and f != 0.0:
                    for j in range(c, n + m):
                        w[r, j] -= f * w[c, j]
        info[k] = bad
        if not bad:
            for i in range(n):
                for j in range(m):
                    out[k, i, j] = w[i, n + j]
