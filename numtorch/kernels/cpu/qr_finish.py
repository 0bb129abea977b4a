"""What linalg.qr's CPU kernel makes of LAPACK's float64 arrays for a real matrix (Note [QR's
arrays in one pass])."""

from numtorch.kernels._jit import kernel


@kernel
def qr_finish(w, q, r_out, q_out):
    """r_out = the upper triangle of w[:, :mc, :] (zeros below: np.triu's where) and q_out = q
    (both flat, C-ordered), each cast to the outputs' dtype (one rounding per element, as
    astype)."""
    B, mc, n = r_out.shape
    zero = r_out.dtype.type(0)
    for b in range(B):
        for i in range(mc):
            for j in range(n):
                v = r_out.dtype.type(w[b, i, j])
                r_out[b, i, j] = v if j >= i else zero
    for k in range(q.size):  # one flat loop: vector casts
        q_out[k] = q[k]
