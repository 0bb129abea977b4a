"""Optimizer updates for NAdam, RAdam, Adamax, Adadelta, ASGD and Rprop: one fused pass per
parameter, in place on contiguous 1-D arrays (the rest live in ``optim.py``, which has no room).

Note [Optimizer kernels follow PyTorch's single-tensor order] and Note [Optimizer kernels stay
vectorisable] (kernels/cpu/optim.py) hold here too: every scalar arrives cast to the array dtype,
and the element functions repeat the in-place op sequence of ``torch.optim._single_tensor_<name>``.
"""

from __future__ import annotations

import math

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange
from numtorch.kernels.cpu.optim import _lerp


@inline
def _decay_or_l2(pi, gi, wd, decay, has_wd, decoupled):
    if has_wd:
        if decoupled:
            return pi * decay, gi
        return pi, gi + wd * pi
    return pi, gi


# ---- NAdam: s = (weight_decay, 1 - lr * wd, 1 - beta1, beta1, beta2, 1 - beta2,
#      bias_correction2, eps, grad coefficient, exp_avg coefficient, 0.5);
#      flags = (has_weight_decay, decoupled, maximize) ----------------------------------------
@inline
def _nadam_elem(i, p, g, m, v, wd, decay, w1, omw1, b2, omb2, bc2, eps, cg, cm, half, has_wd,
                decoupled, maximize):  # fmt: skip
    gi = -g[i] if maximize else g[i]
    pi, gi = _decay_or_l2(p[i], gi, wd, decay, has_wd, decoupled)
    mi = _lerp(m[i], gi, w1, omw1, half)
    m[i] = mi
    vi = v[i] * b2 + omb2 * gi * gi
    v[i] = vi
    denom = math.sqrt(vi / bc2) + eps
    pi = pi + cg * gi / denom
    p[i] = pi + cm * mi / denom


@kernel
def nadam_step(p, g, m, v, s, flags):
    """NAdam: Nesterov momentum folded into Adam's step."""
    wd, decay, w1, omw1, b2, omb2, bc2, eps, cg, cm, half = s
    has_wd, decoupled, maximize = flags
    for i in range(p.size):
        _nadam_elem(i, p, g, m, v, wd, decay, w1, omw1, b2, omb2, bc2, eps, cg, cm, half,
                    has_wd, decoupled, maximize)  # fmt: skip


@parallel_kernel
def nadam_step_parallel(p, g, m, v, s, flags):
    wd, decay, w1, omw1, b2, omb2, bc2, eps, cg, cm, half = s
    has_wd, decoupled, maximize = flags
    for i in prange(p.size):
        _nadam_elem(i, p, g, m, v, wd, decay, w1, omw1, b2, omb2, bc2, eps, cg, cm, half,
                    has_wd, decoupled, maximize)  # fmt: skip


# ---- RAdam: s = (weight_decay, 1 - lr * wd, 1 - beta1, beta1, beta2, 1 - beta2,
#      bias_correction1, lr, sqrt(bias_correction2), eps, rect, 0.5, -1);
#      flags = (has_weight_decay, decoupled, maximize, rectified) -----------------------------
@inline
def _radam_elem(i, p, g, m, v, wd, decay, w1, omw1, b2, omb2, bc1, lr, bc2s, eps, rect, half,
                neg_one, has_wd, decoupled, maximize, rectified):  # fmt: skip
    gi = -g[i] if maximize else g[i]
    pi, gi = _decay_or_l2(p[i], gi, wd, decay, has_wd, decoupled)
    mi = _lerp(m[i], gi, w1, omw1, half)
    m[i] = mi
    vi = v[i] * b2 + omb2 * gi * gi
    v[i] = vi
    upd = mi / bc1 * lr
    if rectified:
        upd = upd * (bc2s / (math.sqrt(vi) + eps)) * rect
    p[i] = pi + neg_one * upd


@kernel
def radam_step(p, g, m, v, s, flags):
    """RAdam: Adam with the variance rectification term (plain momentum SGD early on)."""
    wd, decay, w1, omw1, b2, omb2, bc1, lr, bc2s, eps, rect, half, neg_one = s
    has_wd, decoupled, maximize, rectified = flags
    for i in range(p.size):
        _radam_elem(i, p, g, m, v, wd, decay, w1, omw1, b2, omb2, bc1, lr, bc2s, eps, rect, half,
                    neg_one, has_wd, decoupled, maximize, rectified)  # fmt: skip


@parallel_kernel
def radam_step_parallel(p, g, m, v, s, flags):
    wd, decay, w1, omw1, b2, omb2, bc1, lr, bc2s, eps, rect, half, neg_one = s
    has_wd, decoupled, maximize, rectified = flags
    for i in prange(p.size):
        _radam_elem(i, p, g, m, v, wd, decay, w1, omw1, b2, omb2, bc1, lr, bc2s, eps, rect, half,
                    neg_one, has_wd, decoupled, maximize, rectified)  # fmt: skip


# ---- Adamax: s = (weight_decay, 1 - beta1, beta1, beta2, eps, -clr, 0.5);
#      flags = (has_weight_decay, maximize) -----------------------------------------------------
@inline
def _adamax_elem(i, p, g, m, u, wd, w1, omw1, b2, eps, nclr, half, has_wd, maximize):
    gi = -g[i] if maximize else g[i]
    pi = p[i]
    if has_wd:
        gi = gi + wd * pi
    mi = _lerp(m[i], gi, w1, omw1, half)
    m[i] = mi
    a = u[i] * b2
    b = abs(gi) + eps
    ui = a if (a > b or a != a) else b  # torch.maximum propagates NaN
    u[i] = ui
    p[i] = pi + nclr * mi / ui


@kernel
def adamax_step(p, g, m, u, s, flags):
    """Adamax: Adam with the infinity norm ``u`` in place of the second moment."""
    wd, w1, omw1, b2, eps, nclr, half = s
    has_wd, maximize = flags
    for i in range(p.size):
        _adamax_elem(i, p, g, m, u, wd, w1, omw1, b2, eps, nclr, half, has_wd, maximize)


@parallel_kernel
def adamax_step_parallel(p, g, m, u, s, flags):
    wd, w1, omw1, b2, eps, nclr, half = s
    has_wd, maximize = flags
    for i in prange(p.size):
        _adamax_elem(i, p, g, m, u, wd, w1, omw1, b2, eps, nclr, half, has_wd, maximize)


# ---- Adadelta: s = (weight_decay, rho, 1 - rho, eps, -lr); flags = (has_weight_decay, maximize)
@inline
def _adadelta_elem(i, p, g, sq, acc, wd, rho, omr, eps, neg_lr, has_wd, maximize):
    gi = -g[i] if maximize else g[i]
    pi = p[i]
    if has_wd:
        gi = gi + wd * pi
    si = sq[i] * rho + omr * gi * gi
    sq[i] = si
    delta = math.sqrt(acc[i] + eps) / math.sqrt(si + eps) * gi
    acc[i] = acc[i] * rho + omr * delta * delta
    p[i] = pi + neg_lr * delta


@kernel
def adadelta_step(p, g, sq, acc, s, flags):
    """Adadelta: steps scaled by the ratio of running RMS of updates and of gradients."""
    wd, rho, omr, eps, neg_lr = s
    has_wd, maximize = flags
    for i in range(p.size):
        _adadelta_elem(i, p, g, sq, acc, wd, rho, omr, eps, neg_lr, has_wd, maximize)


@parallel_kernel
def adadelta_step_parallel(p, g, sq, acc, s, flags):
    wd, rho, omr, eps, neg_lr = s
    has_wd, maximize = flags
    for i in prange(p.size):
        _adadelta_elem(i, p, g, sq, acc, wd, rho, omr, eps, neg_lr, has_wd, maximize)


# ---- ASGD: s = (weight_decay, 1 - lambd * eta, -eta, mu); flags = (has_wd, maximize, averaging)
@inline
def _asgd_elem(i, p, g, ax, wd, decay, neg_eta, mu, has_wd, maximize, averaging):
    gi = -g[i] if maximize else g[i]
    pi = p[i]
    if has_wd:
        gi = gi + wd * pi
    pi = pi * decay
    pi = pi + neg_eta * gi
    p[i] = pi
    ax[i] = ax[i] + (pi - ax[i]) * mu if averaging else pi


@kernel
def asgd_step(p, g, ax, s, flags):
    """ASGD: decayed SGD step, then the running average ``ax`` of the iterates."""
    wd, decay, neg_eta, mu = s
    has_wd, maximize, averaging = flags
    for i in range(p.size):
        _asgd_elem(i, p, g, ax, wd, decay, neg_eta, mu, has_wd, maximize, averaging)


@parallel_kernel
def asgd_step_parallel(p, g, ax, s, flags):
    wd, decay, neg_eta, mu = s
    has_wd, maximize, averaging = flags
    for i in prange(p.size):
        _asgd_elem(i, p, g, ax, wd, decay, neg_eta, mu, has_wd, maximize, averaging)


# ---- Rprop: s = (etaminus, etaplus, step_size_min, step_size_max, 0, 1, -1);
#      flags = (maximize,) ---------------------------------------------------------------------
@inline
def _sign(x, zero, one):
    if x > zero:
        return one
    if x < zero:
        return -one
    return x  # 0 stays 0, NaN stays NaN


@inline
def _rprop_elem(i, p, g, prev, ss, em, ep, lo, hi, zero, one, neg_one, maximize):
    gi = -g[i] if maximize else g[i]
    sg = _sign(gi * prev[i], zero, one)
    f = ep if sg > zero else (em if sg < zero else (one if sg == zero else sg))
    si = ss[i] * f
    si = lo if si < lo else si  # clamp_(min, max): min first, then max, NaN kept
    si = hi if si > hi else si
    ss[i] = si
    if f == em:
        gi = zero
    p[i] = p[i] + neg_one * _sign(gi, zero, one) * si
    prev[i] = gi


@kernel
def rprop_step(p, g, prev, ss, s, flags):
    """Rprop: per-element step sizes grown or shrunk by the sign agreement of gradients."""
    em, ep, lo, hi, zero, one, neg_one = s
    (maximize,) = flags
    for i in range(p.size):
        _rprop_elem(i, p, g, prev, ss, em, ep, lo, hi, zero, one, neg_one, maximize)


@parallel_kernel
def rprop_step_parallel(p, g, prev, ss, s, flags):
    em, ep, lo, hi, zero, one, neg_one = s
    (maximize,) = flags
    for i in prange(p.size):
        _rprop_elem(i, p, g, prev, ss, em, ep, lo, hi, zero, one, neg_one, maximize)
