"""Determinant kernels over a batch of small matrices: getf2 (linalg.lu_partial_pivot) and,
in the same call, what det and slogdet read of it (Note [Batched LU for det and slogdet])."""

import math

from numtorch.kernels._jit import kernel
from numtorch.kernels.cpu.linalg import lu_partial_pivot


@kernel
def lu_sign(a, piv, info, cnan, sign):
    """lu_partial_pivot on each a[k], and sign[k] = det(P): -1 for an odd number of row
    interchanges, else 1 (the parity in the same call: per-column NumPy passes cost ~5 us on
    one small matrix)."""
    lu_partial_pivot(a, piv, info, cnan)
    for b in range(a.shape[0]):
        s = 1
        for j in range(piv.shape[1]):
            if piv[b, j] != j + 1:
                s = -s
        sign[b] = s


@kernel
def lu_slogdet(a, piv, info, sign, logabs):
    """slogdet of each real a[k] (n, n) from its LU (in place): sign[k] = det(P) times the
    pivots' signs and logabs[k] the sum of log |pivot| in index order, in a's precision (as
    LAPACK-based slogdet accumulates); a zero pivot (info[k] > 0) gives (0, -inf), as NumPy's."""
    lu_partial_pivot(a, piv, info, False)
    n = a.shape[1]
    for b in range(a.shape[0]):
        A = a[b]
        if info[b] != 0:
            sign[b] = 0
            logabs[b] = -math.inf
            continue
        s = 1.0
        logabs[b] = 0.0  # the sum in logabs' dtype, one rounding per term
        for j in range(n):
            if piv[b, j] != j + 1:
                s = -s
            d = A[j, j]
            if d < 0:
                s = -s
                d = -d
            logabs[b] += math.log(d)
        sign[b] = s
