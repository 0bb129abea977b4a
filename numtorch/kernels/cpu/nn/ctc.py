"""CTC loss kernels: the alpha (forward) recursion and the beta recursion with the gradient, in
log space, one batch element per iteration (the parallel variants split the batch).

# Note [CTC kernel layout]
# All arrays are flat: log_probs (T, N, C), log_alpha (N, T, S2) with S2 = 2 * max_target_length
# + 1, grad (T, N, C); targets is flat int64 with ``tg_off[n]`` the start of element n's labels
# (padded 2-D targets and concatenated 1-D targets both reduce to this). The extended label
# sequence is l'(s) = blank for even s and targets[(s - 1) / 2] for odd s. The three-term
# log-sum-exp uses PyTorch's form (max subtracted, 0 when every term is -inf) so results match it.
"""

from __future__ import annotations

import math

import numpy as np

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange


@inline
def _label(targets, off, s, blank):
    return blank if s % 2 == 0 else targets[off + (s - 1) // 2]


@inline
def _lse3(a, b, c):
    m = max(a, max(b, c))
    if m == -np.inf:
        m = 0.0
    return math.log(math.exp(a - m) + math.exp(b - m) + math.exp(c - m)) + m


@inline
def _alpha_one(lp, targets, in_len, tg_len, tg_off, la, nll, n, T, N, C, S2, blank):
    T_n, L, off = in_len[n], tg_len[n], tg_off[n]
    base = n * T * S2
    for i in range(T * S2):
        la[base + i] = -np.inf
    if T_n == 0:
        nll[n] = 0.0 if L == 0 else np.inf
        return
    la[base] = lp[n * C + blank]
    if L > 0:
        la[base + 1] = lp[n * C + targets[off]]
    for t in range(1, T_n):
        row, prev = base + t * S2, base + (t - 1) * S2
        for s in range(2 * L + 1):
            c = _label(targets, off, s, blank)
            a2 = la[prev + s - 1] if s > 0 else -np.inf
            a3 = -np.inf
            if s > 1 and c != blank and targets[off + (s - 1) // 2 - 1] != c:
                a3 = la[prev + s - 2]
            la[row + s] = _lse3(la[prev + s], a2, a3) + lp[(t * N + n) * C + c]
    last = base + (T_n - 1) * S2
    if L == 0:
        nll[n] = -la[last]
    else:
        nll[n] = -_lse3(la[last + 2 * L], la[last + 2 * L - 1], -np.inf)


@kernel
def ctc_alpha(lp, targets, in_len, tg_len, tg_off, la, nll, T, N, C, S2, blank):
    """Fill ``log_alpha`` and ``nll`` (N,); Note [CTC kernel layout]."""
    for n in range(N):
        _alpha_one(lp, targets, in_len, tg_len, tg_off, la, nll, n, T, N, C, S2, blank)


@parallel_kernel
def ctc_alpha_parallel(lp, targets, in_len, tg_len, tg_off, la, nll, T, N, C, S2, blank):
    for n in prange(N):
        _alpha_one(lp, targets, in_len, tg_len, tg_off, la, nll, n, T, N, C, S2, blank)


@inline
def _accumulate(grad, k, v):
    g = grad[k]
    if g == -np.inf:
        grad[k] = v
    else:
        grad[k] = _lse3(g, v, -np.inf)


@inline
def _grad_one(go, lp, targets, in_len, tg_len, tg_off, la, lb, nll, grad, n, T, N, C, S2, blank, zero_infinity):
    T_n, L, off = in_len[n], tg_len[n], tg_off[n]
    base = n * T * S2
    for t in range(T):
        for c in range(C):
            grad[(t * N + n) * C + c] = -np.inf if t < T_n else 0.0
    for i in range(T * S2):
        lb[base + i] = -np.inf
    if T_n == 0:
        return
    if zero_infinity and nll[n] == np.inf:
        for t in range(T_n):
            for c in range(C):
                grad[(t * N + n) * C + c] = 0.0
        return
    last = base + (T_n - 1) * S2
    k = ((T_n - 1) * N + n) * C
    lb[last + 2 * L] = lp[k + blank]
    grad[k + blank] = la[last + 2 * L] + lb[last + 2 * L]
    if L > 0:
        c = targets[off + L - 1]
        lb[last + 2 * L - 1] = lp[k + c]
        grad[k + c] = la[last + 2 * L - 1] + lb[last + 2 * L - 1]
    for t in range(T_n - 2, -1, -1):
        row, nxt = base + t * S2, base + (t + 1) * S2
        for s in range(2 * L, -1, -1):
            c = _label(targets, off, s, blank)
            b2 = lb[nxt + s + 1] if s < 2 * L else -np.inf
            b3 = -np.inf
            if s < 2 * L - 1 and c != blank and targets[off + (s + 1) // 2] != c:
                b3 = lb[nxt + s + 2]
            lb[row + s] = _lse3(lb[nxt + s], b2, b3) + lp[(t * N + n) * C + c]
            _accumulate(grad, (t * N + n) * C + c, la[row + s] + lb[row + s])
    gr, nl = go[n], nll[n]
    for t in range(T_n):
        for c in range(C):
            k = (t * N + n) * C + c
            v = lp[k]
            grad[k] = (math.exp(v) - math.exp(grad[k] + nl - v)) * gr


@kernel
def ctc_grad(go, lp, targets, in_len, tg_len, tg_off, la, lb, nll, grad, T, N, C, S2, blank, zero_infinity):
    """Gradient of each element's nll w.r.t. ``log_probs``, scaled by ``go`` (N,)."""
    for n in range(N):
        _grad_one(go, lp, targets, in_len, tg_len, tg_off, la, lb, nll, grad, n, T, N, C, S2, blank, zero_infinity)


@parallel_kernel
def ctc_grad_parallel(go, lp, targets, in_len, tg_len, tg_off, la, lb, nll, grad, T, N, C, S2, blank, zero_infinity):
    for n in prange(N):
        _grad_one(go, lp, targets, in_len, tg_len, tg_off, la, lb, nll, grad, n, T, N, C, S2, blank, zero_infinity)
