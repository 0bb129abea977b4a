"""What linalg.qr's CPU kernel makes of LAPACK's float64 arrays for a real matrix (Note [QR's
arrays in one pass])."""

from numtorch.kernels._jit import kernel


@kernel
def qr_finish(w, q, r_out, q_out):
    """r_out = the upper triangle of w[:, :mc, :] (zeros below: np.triu's where), q_out = q, each
    cast to the outputs' dtype (one rounding per element, as astype) and C-ordered."""
    B, mc, n = r_out.shape
    for b in range(B):
        for i in range(mc):
            for j in range(min(i, n)):
                r_out[b, i, j] = 0.0
            for j in range(i, n):
                r_out[b, i, j] = w[b, i, j]
    _, m, k = q_out.shape
    for b in range(q_out.shape[0]):
        for i in range(m):
            for j in range(k):
                q_out[b, i, j] = q[b, i, j]
