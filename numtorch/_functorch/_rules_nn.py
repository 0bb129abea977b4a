"""Batching rules for nn ops that need more than a fold (Note [vmap key]): nll_loss forward and
backward, convolution backward and convolution with a batched weight.

Every rule answers exactly what stacking the per-sample results would (the loop fallback); an
argument pattern a rule does not cover goes to that loop, which raises PyTorch's per-sample
errors."""

from __future__ import annotations

from .batched import is_batched_at, loop_fallback, make_batched

_NONE, _MEAN = 0, 1


def _val(v, level, bsz):
    """The value of ``v`` with the batch dim first, expanded when ``v`` is not batched here."""
    if is_batched_at(v, level):
        return v._value
    return v.expand((bsz,) + tuple(v.shape))


# ---- nll_loss ---------------------------------------------------------------------------------
# Per sample: input (N, C) with target (N,), or (C,) with target (). The batch folds into N
# (rows B*N) and the kernel runs once unreduced; sum/mean reduce each sample's N rows, mean over
# the sample's own total weight, as the kernel computes it (weights of non-ignored targets).
def _nll_shapes(x, t):
    if x.dim() == 2 and t.dim() == 1 and x.shape[0] == t.shape[0]:
        return x.shape[0]
    if x.dim() == 1 and t.dim() == 0:
        return 1
    return None


def _weights(ft, weight, ignore_index, dtype):
    from .. import ops

    aten = ops.aten
    valid = aten.ne.Scalar(ft, ignore_index)
    if weight is None:
        return valid.to(dtype)
    safe = aten.masked_fill.Scalar(ft, aten.logical_not.default(valid), 0)
    return aten.index_select.default(weight, 0, safe) * valid.to(dtype)


def nll_forward(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    x, t, weight, reduction, ignore_index = vals
    n = _nll_shapes(x, t)
    if n is None or is_batched_at(weight, level) or (weight is not None and weight.dim() != 1):
        return loop_fallback(op, vals, lv)
    xv = _val(x, level, bsz)
    c = xv.shape[-1]
    fx, ft = xv.reshape((-1, c)), _val(t, level, bsz).reshape((-1,))
    per, _ = op.fast(fx, ft, weight, _NONE, ignore_index)
    tw = _weights(ft, weight, ignore_index, per.dtype).reshape((bsz, n)).sum(1)
    if reduction == _NONE:
        out = per.reshape((bsz,) + tuple(x.shape[:-1]))
    else:
        out = per.reshape((bsz, n)).sum(1)
        if reduction == _MEAN:
            out = out / tw
    return make_batched(out, level), make_batched(tw, level)


def nll_backward(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    g, x, t, weight, reduction, ignore_index, total_weight = vals
    n = _nll_shapes(x, t)
    if n is None or is_batched_at(weight, level) or (weight is not None and weight.dim() != 1):
        return loop_fallback(op, vals, lv)
    if g.dim() != (len(x.shape) - 1 if reduction == _NONE else 0):
        return loop_fallback(op, vals, lv)
    xv = _val(x, level, bsz)
    c = xv.shape[-1]
    fx, ft = xv.reshape((-1, c)), _val(t, level, bsz).reshape((-1,))
    gv = _val(g, level, bsz).reshape((bsz, -1))
    if reduction == _MEAN:
        gv = gv / _val(total_weight, level, bsz).reshape((bsz, 1))
    gv = gv.expand((bsz, n)).reshape((-1,))
    tw = total_weight._value if is_batched_at(total_weight, level) else total_weight  # unread: unreduced
    gi = op.fast(gv, fx, ft, weight, _NONE, ignore_index, tw)
    return make_batched(gi.reshape(tuple(xv.shape)), level)


RULES = {"nll_loss_forward": nll_forward, "nll_loss_backward": nll_backward}
