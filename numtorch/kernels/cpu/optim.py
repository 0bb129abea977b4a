"""Optimizer updates: one fused pass per parameter, in place on contiguous 1-D arrays.

# Note [Optimizer kernels follow PyTorch's single-tensor order]
# Each kernel reproduces, element by element, the sequence of in-place ops of PyTorch's
# ``_single_tensor_<optim>`` (e.g. Adam: ``exp_avg.lerp_(grad, 1 - beta1)``, then
# ``exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)``, then
# ``denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)``, then
# ``param.addcdiv_(exp_avg, denom, value=-step_size)``). Every scalar arrives already cast to the
# array dtype (as ATen casts Scalars to the op's compute type), and no float64 literal appears
# in the loops, so float32 parameters are updated in float32 arithmetic as PyTorch does; only
# the FMA contractions of ATen's compiled loops can differ, by an ulp.
#
# Note [Optimizer kernels stay vectorisable]
# LLVM vectorises these loops only if (a) scalars are unpacked from their tuples before the
# loop, (b) p[i] is read once, and (c) every array the loop body touches is distinct: an
# aliased placeholder (say ``v`` passed again as AMSGrad's ``vmax``) fails the runtime alias
# check and runs the scalar loop, 30x slower. So each array set (Adam vs AMSGrad, RMSprop's
# centered/momentum variants, SGD with/without momentum) has its own kernel, passing literal
# flags to the shared inline element function so that the unused branches and their array
# accesses are folded away.
"""

from __future__ import annotations

import math

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange


@inline
def _lerp(start, end, w, one_minus_w, half):
    # ATen's lerp: the formula depends on |w| < 0.5 for accuracy at both ends
    if abs(w) < half:
        return start + w * (end - start)
    return end - (end - start) * one_minus_w


# ---- SGD: s = (-lr, weight_decay, momentum, 1 - dampening);
#      flags = (has_weight_decay, first_step, nesterov, maximize) ------------------------------
@inline
def _sgd_elem(i, p, g, buf, neg_lr, wd, mom, omd, has_wd, has_mom, first, nesterov, maximize):
    gi = -g[i] if maximize else g[i]
    pi = p[i]
    if has_wd:
        gi = gi + wd * pi
    if has_mom:
        b = gi if first else buf[i] * mom + omd * gi
        buf[i] = b
        gi = gi + mom * b if nesterov else b
    p[i] = pi + neg_lr * gi


@kernel
def sgd_step(p, g, s, flags):
    """Plain SGD: ``p += -lr * (g + weight_decay * p)``."""
    neg_lr, wd, mom, omd = s
    has_wd, first, nesterov, maximize = flags
    for i in range(p.size):
        _sgd_elem(i, p, g, g, neg_lr, wd, mom, omd, has_wd, False, first, nesterov, maximize)


@parallel_kernel
def sgd_step_parallel(p, g, s, flags):
    neg_lr, wd, mom, omd = s
    has_wd, first, nesterov, maximize = flags
    for i in prange(p.size):
        _sgd_elem(i, p, g, g, neg_lr, wd, mom, omd, has_wd, False, first, nesterov, maximize)


@kernel
def sgd_momentum_step(p, g, buf, s, flags):
    """SGD with (Nesterov) momentum and dampening; ``first`` seeds ``buf`` with the gradient."""
    neg_lr, wd, mom, omd = s
    has_wd, first, nesterov, maximize = flags
    for i in range(p.size):
        _sgd_elem(i, p, g, buf, neg_lr, wd, mom, omd, has_wd, True, first, nesterov, maximize)


@parallel_kernel
def sgd_momentum_step_parallel(p, g, buf, s, flags):
    neg_lr, wd, mom, omd = s
    has_wd, first, nesterov, maximize = flags
    for i in prange(p.size):
        _sgd_elem(i, p, g, buf, neg_lr, wd, mom, omd, has_wd, True, first, nesterov, maximize)


# ---- Adam: s = (weight_decay, 1 - lr * weight_decay, 1 - beta1, 1 - (1 - beta1), beta2,
#      1 - beta2, sqrt(bias_correction2), eps, -lr / bias_correction1, 0.5);
#      flags = (has_weight_decay, decoupled, maximize) ---------------------------------------
@inline
def _adam_elem(i, p, g, m, v, vmax, wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half, has_wd,
               decoupled, maximize, amsgrad):  # fmt: skip
    gi = -g[i] if maximize else g[i]
    pi = p[i]
    if has_wd:
        if decoupled:
            pi = pi * decay
        else:
            gi = gi + wd * pi
    mi = _lerp(m[i], gi, w1, omw1, half)
    m[i] = mi
    vi = v[i] * b2 + omb2 * gi * gi
    v[i] = vi
    if amsgrad:
        old = vmax[i]
        vi = old if (old > vi or old != old) else vi  # torch.maximum propagates NaN
        vmax[i] = vi
    p[i] = pi + nss * mi / (math.sqrt(vi) / bc2s + eps)


@kernel
def adam_step(p, g, m, v, s, flags):
    """Adam / AdamW (``decoupled``) on exp_avg ``m`` and exp_avg_sq ``v``."""
    wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half = s
    has_wd, decoupled, maximize = flags
    for i in range(p.size):
        _adam_elem(i, p, g, m, v, v, wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half,
                   has_wd, decoupled, maximize, False)  # fmt: skip


@parallel_kernel
def adam_step_parallel(p, g, m, v, s, flags):
    wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half = s
    has_wd, decoupled, maximize = flags
    for i in prange(p.size):
        _adam_elem(i, p, g, m, v, v, wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half,
                   has_wd, decoupled, maximize, False)  # fmt: skip


@kernel
def adam_amsgrad_step(p, g, m, v, vmax, s, flags):
    """Adam / AdamW with AMSGrad's running maximum ``vmax`` of ``v``."""
    wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half = s
    has_wd, decoupled, maximize = flags
    for i in range(p.size):
        _adam_elem(i, p, g, m, v, vmax, wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half,
                   has_wd, decoupled, maximize, True)  # fmt: skip


@parallel_kernel
def adam_amsgrad_step_parallel(p, g, m, v, vmax, s, flags):
    wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half = s
    has_wd, decoupled, maximize = flags
    for i in prange(p.size):
        _adam_elem(i, p, g, m, v, vmax, wd, decay, w1, omw1, b2, omb2, bc2s, eps, nss, half,
                   has_wd, decoupled, maximize, True)  # fmt: skip


# ---- RMSprop: s = (weight_decay, alpha, 1 - alpha, lerp weight 1 - alpha, its complement,
#      eps, momentum, -lr, 0.5, -1); flags = (has_weight_decay, maximize) ----------------------
@inline
def _rmsprop_elem(i, p, g, sq, gavg, buf, wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one,
                  has_wd, maximize, centered, has_mom):  # fmt: skip
    gi = -g[i] if maximize else g[i]
    pi = p[i]
    if has_wd:
        gi = gi + wd * pi
    sqi = sq[i] * alpha + oma * gi * gi
    sq[i] = sqi
    if centered:
        ga = _lerp(gavg[i], gi, w, omw, half)
        gavg[i] = ga
        avg = math.sqrt(sqi + neg_one * ga * ga) + eps
    else:
        avg = math.sqrt(sqi) + eps
    if has_mom:
        b = buf[i] * mom + gi / avg
        buf[i] = b
        p[i] = pi + neg_lr * b
    else:
        p[i] = pi + neg_lr * gi / avg


@kernel
def rmsprop_step(p, g, sq, s, flags):
    """RMSprop on square_avg ``sq``."""
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in range(p.size):
        _rmsprop_elem(i, p, g, sq, sq, sq, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, False, False)  # fmt: skip


@parallel_kernel
def rmsprop_step_parallel(p, g, sq, s, flags):
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in prange(p.size):
        _rmsprop_elem(i, p, g, sq, sq, sq, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, False, False)  # fmt: skip


@kernel
def rmsprop_centered_step(p, g, sq, gavg, s, flags):
    """Centered RMSprop (also tracks grad_avg ``gavg``)."""
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in range(p.size):
        _rmsprop_elem(i, p, g, sq, gavg, sq, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, True, False)  # fmt: skip


@parallel_kernel
def rmsprop_centered_step_parallel(p, g, sq, gavg, s, flags):
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in prange(p.size):
        _rmsprop_elem(i, p, g, sq, gavg, sq, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, True, False)  # fmt: skip


@kernel
def rmsprop_momentum_step(p, g, sq, buf, s, flags):
    """RMSprop with a momentum buffer ``buf``."""
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in range(p.size):
        _rmsprop_elem(i, p, g, sq, sq, buf, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, False, True)  # fmt: skip


@parallel_kernel
def rmsprop_momentum_step_parallel(p, g, sq, buf, s, flags):
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in prange(p.size):
        _rmsprop_elem(i, p, g, sq, sq, buf, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, False, True)  # fmt: skip


@kernel
def rmsprop_centered_momentum_step(p, g, sq, gavg, buf, s, flags):
    """Centered RMSprop with momentum."""
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in range(p.size):
        _rmsprop_elem(i, p, g, sq, gavg, buf, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, True, True)  # fmt: skip


@parallel_kernel
def rmsprop_centered_momentum_step_parallel(p, g, sq, gavg, buf, s, flags):
    wd, alpha, oma, w, omw, eps, mom, neg_lr, half, neg_one = s
    has_wd, maximize = flags
    for i in prange(p.size):
        _rmsprop_elem(i, p, g, sq, gavg, buf, wd, alpha, oma, w, omw, eps, mom, neg_lr,
                      half, neg_one, has_wd, maximize, True, True)  # fmt: skip


# ---- Adagrad: s = (weight_decay, eps, -clr); flags = (has_weight_decay, maximize) -----------
@inline
def _adagrad_elem(i, p, g, acc, wd, eps, neg_clr, has_wd, maximize):
    gi = -g[i] if maximize else g[i]
    pi = p[i]
    if has_wd:
        gi = gi + wd * pi
    a = acc[i] + gi * gi
    acc[i] = a
    p[i] = pi + neg_clr * gi / (math.sqrt(a) + eps)


@kernel
def adagrad_step(p, g, acc, s, flags):
    """Adagrad: accumulate squared gradients, step by ``-clr * g / (sqrt(acc) + eps)``."""
    wd, eps, neg_clr = s
    has_wd, maximize = flags
    for i in range(p.size):
        _adagrad_elem(i, p, g, acc, wd, eps, neg_clr, has_wd, maximize)


@parallel_kernel
def adagrad_step_parallel(p, g, acc, s, flags):
    wd, eps, neg_clr = s
    has_wd, maximize = flags
    for i in prange(p.size):
        _adagrad_elem(i, p, g, acc, wd, eps, neg_clr, has_wd, maximize)
