"""multi_margin_loss and multilabel_margin_loss forward/backward kernels over (N, C) rows
(Note [Fused multi-class margin losses]): ATen's loops (LossMultiMargin.cpp,
LossMultiLabelMargin.cpp) step for step, the same summation order and accumulator types.

``reduction``: 0 none (``out`` per row), 1 mean, 2 sum (``out[0]``). A kernel that meets a
target out of range returns -1 before its caller hands anything out; 0 otherwise.
"""

from __future__ import annotations

from numtorch.kernels._jit import kernel


@kernel
def multi_margin(x, t, p, margin, w, has_w, out, reduction):
    n, c = x.shape
    T = type(margin)
    total = T(0)
    for i in range(n):
        ti = t[i]
        if ti < 0 or ti >= c:
            return -1
        xt = x[i, ti]
        s = T(0)
        for d in range(c):
            if d == ti:
                continue
            z = margin - xt + x[i, d]
            if z > T(0):
                h = z if p == 1 else z * z
                if has_w:
                    h *= w[ti]
                s += h
        s /= T(c)
        if reduction == 0:
            out[i] = s
        else:
            total += s
    if reduction != 0:
        out[0] = total / T(n) if reduction == 1 else total
    return 0


@kernel
def _scale_by_grad(gi, go, per_row):
    n, c = gi.shape
    for i in range(n):
        s = go[i] if per_row else go[0]
        for d in range(c):
            gi[i, d] *= s


@kernel
def multi_margin_backward(go, x, t, p, margin, w, has_w, gi, reduction, per_row):
    n, c = x.shape
    T = type(margin)
    g = T(1.0 / (n * c)) if reduction == 1 else T(1.0 / c)
    for i in range(n):
        ti = t[i]
        if ti < 0 or ti >= c:
            return -1
        xt = x[i, ti]
        gsum = T(0)
        for d in range(c):
            z = margin - xt + x[i, d]
            if d == ti:
                continue
            if z > T(0):
                h = g if p == 1 else T(2) * g * z
                if has_w:
                    h *= w[ti]
                gsum += h
                gi[i, d] = h
            else:
                gi[i, d] = T(0)
        gi[i, ti] = -gsum
    _scale_by_grad(gi, go, per_row)
    return 0


@kernel
def _targets_in_range(t, c):
    for i in range(t.shape[0]):
        for k in range(t.shape[1]):
            if t[i, k] < -1 or t[i, k] >= c:
                return False
    return True


@kernel
def multilabel_margin(x, t, is_t, out, reduction, one):
    """``is_t`` (N, C, input's dtype) gets 1 at each row's labels (those before its first -1)."""
    n, c = x.shape
    if not _targets_in_range(t, c):
        return -1
    T = type(one)  # the input's dtype
    total = 0.0  # ATen's accscalar_t: double on CPU
    for i in range(n):
        for d in range(c):
            is_t[i, d] = 0
        for k in range(c):
            ti = t[i, k]
            if ti < 0:
                break
            is_t[i, ti] = 1
        # the row's hinge sum; backward walks the same pairs (one shared inline helper, with a
        # branch per pair, ran ~1.6x slower)
        s = 0.0
        for k in range(c):
            ti = t[i, k]
            if ti < 0:
                break
            xt = x[i, ti]
            for d in range(c):
                if is_t[i, d] == 0:
                    z = T(1) - xt + x[i, d]
                    if z > T(0):
                        s += z
        if reduction == 0:
            out[i] = s / c
        else:
            total += s
    if reduction != 0:
        total /= c
        out[0] = total / n if reduction == 1 else total
    return 0


@kernel
def multilabel_margin_backward(go, x, t, is_t, gi, reduction, per_row, one):
    n, c = x.shape
    if not _targets_in_range(t, c):
        return -1
    T = type(one)  # the input's dtype
    g = T(1.0 / (n * c)) if reduction == 1 else T(1.0 / c)
    for i in range(n):
        for d in range(c):
            gi[i, d] = T(0)
        for k in range(c):
            ti = t[i, k]
            if ti < 0:
                break
            xt = x[i, ti]
            for d in range(c):
                if is_t[i, d] == 0:
                    z = T(1) - xt + x[i, d]
                    if z > T(0):
                        gi[i, ti] -= g
                        gi[i, d] += g
    _scale_by_grad(gi, go, per_row)
    return 0
