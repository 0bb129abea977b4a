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


# ---- convolution ------------------------------------------------------------------------------
# A batched weight makes every sample a different convolution: the samples become groups (input
# (N, B*C, ...), weight (B*O, C/g, ...), groups B*g), as functorch's rule does; with only the
# input batched the batch folds into N. The backward gets each sample's weight gradient the same
# grouped way and the input gradient folded when the weight is shared. A per-sample input
# without N is given a unit N on the values.
def _grouped(v, bsz):
    # (B, N, C, *s) -> (N, B*C, *s)
    return v.movedim(0, 1).reshape((v.shape[1], bsz * v.shape[2]) + tuple(v.shape[3:]))


def _ungrouped(v, bsz):
    # (N, B*C, *s) -> (B, N, C, *s)
    return v.reshape((v.shape[0], bsz, v.shape[1] // bsz) + tuple(v.shape[2:])).movedim(1, 0)


def conv_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    x, w, b, stride, padding, dilation, transposed, output_padding, groups = vals
    xb, wb, bb = (is_batched_at(v, level) for v in (x, w, b))
    k = w.dim() - 2
    if x.dim() not in (k + 1, k + 2):
        return loop_fallback(op, vals, lv)  # the per-sample call raises PyTorch's error
    has_n = x.dim() == k + 2
    rest = (stride, padding, dilation, transposed, output_padding)
    if wb:
        xv = _val(x, level, bsz)
        xv = xv if has_n else xv.unsqueeze(1)
        wv = w._value
        wide = wv.reshape((bsz * wv.shape[1],) + tuple(wv.shape[2:]))
        out = _ungrouped(op.fast(_grouped(xv, bsz), wide, None, *rest, groups * bsz), bsz)
    elif xb:
        xv = x._value if has_n else x._value.unsqueeze(1)
        n = xv.shape[1]
        out = op.fast(xv.reshape((bsz * n,) + tuple(xv.shape[2:])), w, None if bb else b, *rest, groups)
        out = out.reshape((bsz, n) + tuple(out.shape[1:]))
    else:  # only the bias is batched
        out = op.fast(x if has_n else x.unsqueeze(0), w, None, *rest, groups).unsqueeze(0)
    if b is not None and (bb or wb):
        bv = b._value if bb else b.unsqueeze(0)
        out = out + bv.reshape((bv.shape[0], 1, bv.shape[1]) + (1,) * k)
    return make_batched(out if has_n else out.squeeze(1), level)


def conv_backward_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    go, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, mask = vals
    k = w.dim() - 2
    if x.dim() not in (k + 1, k + 2) or go.dim() != x.dim():
        return loop_fallback(op, vals, lv)
    has_n = x.dim() == k + 2
    rest = (stride, padding, dilation, transposed, output_padding)
    gv, xv = _val(go, level, bsz), _val(x, level, bsz)
    if not has_n:
        gv, xv = gv.unsqueeze(1), xv.unsqueeze(1)
    wb = is_batched_at(w, level)
    gi = gw = gb = None
    if mask[2]:
        gb = gv.sum([1, *range(3, gv.dim())])
    if wb or mask[1]:
        wv = _val(w, level, bsz)
        wide = wv.reshape((bsz * wv.shape[1],) + tuple(wv.shape[2:]))
        r = op.fast(_grouped(gv, bsz), _grouped(xv, bsz), wide, None, *rest, groups * bsz,
                    [bool(mask[0]) and wb, bool(mask[1]), False])  # fmt: skip
        if mask[1]:
            gw = r[1].reshape(tuple(wv.shape))
        if mask[0] and wb:
            gi = _ungrouped(r[0], bsz)
    if mask[0] and not wb:
        n = xv.shape[1]
        r = op.fast(gv.reshape((bsz * n,) + tuple(gv.shape[2:])), xv.reshape((bsz * n,) + tuple(xv.shape[2:])),
                    w, None, *rest, groups, [True, False, False])  # fmt: skip
        gi = r[0].reshape(tuple(xv.shape))
    if gi is not None and not has_n:
        gi = gi.squeeze(1)
    return tuple(None if t is None else make_batched(t, level) for t in (gi, gw, gb))


# ---- elementwise losses --------------------------------------------------------------------------
# Unreduced, these are pointwise; a reduced loss runs unreduced on the values and reduces each
# sample's elements, and its backward runs with 'sum' (no 1/numel) and divides by the sample's
# own element count (the values hold B times as many elements as one sample).
_LOSSES = ("mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits")
_LOSS_BACKWARDS = ("mse_loss_backward", "smooth_l1_loss_backward", "huber_loss_backward",
                   "binary_cross_entropy_backward")  # fmt: skip


def _loss_values(op, vals, level):
    """Values with every tensor argument padded to the common per-sample rank, and that rank."""
    idx = [i for i in op.tensor_idx if vals[i] is not None]
    rank = max(vals[i].dim() for i in idx)
    new = list(vals)
    for i in idx:
        v = vals[i]
        if is_batched_at(v, level):
            x = v._value
            new[i] = x.reshape((x.shape[0],) + (1,) * (rank - v.dim()) + tuple(v.shape))
    return new


def _reduction_at(op) -> int:
    return next(k for k, a in enumerate(op._schema.arguments) if a.name == "reduction")


def loss_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    new = _loss_values(op, vals, level)
    ri = _reduction_at(op)
    reduction, new[ri] = vals[ri], _NONE
    elems = op.fast(*new)
    if elems.dim() == 0 or elems.shape[0] != bsz:
        return loop_fallback(op, vals, lv)
    if reduction != _NONE:
        flat = elems.reshape((bsz, -1))
        elems = flat.mean(1) if reduction == _MEAN else flat.sum(1)
    return make_batched(elems, level)


def loss_backward_rule(op, vals, lv):
    # the output gradient is 0-d for a reduced loss, or shaped like the input (double backward)
    level = lv.level
    new = _loss_values(op, vals, level)
    ri = _reduction_at(op)
    reduction = vals[ri]
    if reduction == _NONE:
        return make_batched(op.fast(*new), level)
    new[ri] = 2  # 'sum': the kernel's scale stays 1
    out = op.fast(*new)
    if reduction == _MEAN:
        n = 1
        for k in _broadcast_shape(vals[1].shape, vals[2].shape):
            n *= k
        out = out / n if n else out * float("nan")
    return make_batched(out, level)


def _broadcast_shape(a, b):
    a, b = tuple(a), tuple(b)
    r = max(len(a), len(b))
    a, b = (1,) * (r - len(a)) + a, (1,) * (r - len(b)) + b
    return tuple(max(x, y) if 1 in (x, y) else x for x, y in zip(a, b))


# ---- layer_norm, embedding --------------------------------------------------------------------
# layer_norm normalizes trailing dims, so the batch is one more leading dim; a batched weight or
# bias is applied after (backward: folded into the output gradient), and the per-sample weight
# and bias gradients sum over each sample's own leading dims only.
def _pad_trailing(v, level, rank):
    """A per-sample (*norm) weight as (B or 1, 1.., *norm) against a value of per-sample rank."""
    if is_batched_at(v, level):
        x = v._value
        return x.reshape((x.shape[0],) + (1,) * (rank - v.dim()) + tuple(v.shape))
    return v


def layer_norm_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    x, shape, w, b, eps = vals
    if not is_batched_at(x, level) or len(shape) > x.dim():
        return loop_fallback(op, vals, lv)  # PyTorch's per-sample error, or a batched weight alone
    wb, bb = is_batched_at(w, level), is_batched_at(b, level)
    out, mean, rstd = op.fast(x._value, shape, None if wb else w, None if bb or wb else b, eps)
    if wb:
        out = out * _pad_trailing(w, level, x.dim())
        if b is not None and not bb:
            out = out + b
    if bb:
        out = out + _pad_trailing(b, level, x.dim())
    return make_batched(out, level), make_batched(mean, level), make_batched(rstd, level)


def layer_norm_backward_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    go, x, shape, mean, rstd, w, b, mask = vals
    if x.dim() < len(shape):
        return loop_fallback(op, vals, lv)
    gv, xv = _val(go, level, bsz), _val(x, level, bsz)
    mv, rv = _val(mean, level, bsz), _val(rstd, level, bsz)
    gi = gw = gb = None
    lead = list(range(1, 1 + x.dim() - len(shape)))
    if mask[0]:
        gscaled = gv if w is None else gv * _pad_trailing(w, level, x.dim())
        gi = op.fast(gscaled, xv, shape, mv, rv, None, None, [True, False, False])[0]
    if mask[1] and w is not None:
        prod = gv * ((xv - mv) * rv)
        gw = prod.sum(lead) if lead else prod
    if mask[2] and b is not None:
        gb = gv.sum(lead) if lead else gv
    return tuple(None if t is None else make_batched(t, level) for t in (gi, gw, gb))


def _offset_indices(idx, level, bsz, n):
    # sample b's indices shifted by b * n: one table of B*n rows serves every sample
    from .. import ops

    iv = _val(idx, level, bsz)
    off = ops.aten.arange.default(bsz, dtype=iv.dtype, layout=None, device=iv.device, pin_memory=None)
    return iv + off.reshape((bsz,) + (1,) * idx.dim()) * n


def embedding_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    w, idx, padding_idx, scale, sparse = vals
    if w.dim() != 2:
        return loop_fallback(op, vals, lv)
    if not is_batched_at(w, level):
        return make_batched(op.fast(w, idx._value, padding_idx, scale, sparse), level)
    n, d = w.shape
    table = w._value.reshape((bsz * n, d))
    return make_batched(op.fast(table, _offset_indices(idx, level, bsz, n), -1, scale, sparse), level)


def embedding_backward_rule(op, vals, lv):
    from .. import ops

    level, bsz = lv.level, lv.batch_size
    go, idx, n, padding_idx, scale = vals
    gv = _val(go, level, bsz)
    if padding_idx is not None and padding_idx >= 0:  # the padding row gets no gradient
        keep = ops.aten.ne.Scalar(_val(idx, level, bsz), padding_idx).to(gv.dtype)
        gv = gv * keep.unsqueeze(-1)
    out = op.fast(gv, _offset_indices(idx, level, bsz, n), bsz * n, -1, scale)
    return make_batched(out.reshape((bsz, n) + tuple(out.shape[1:])), level)


# ---- pooling / padding backward ------------------------------------------------------------------
# Every tensor argument (output gradient, input, indices) carries the same leading N, so the batch
# folds into N for all of them at once (indices address positions inside one (n, c) plane).
_FOLD_ALL = {"avg_pool2d_backward": 4, "max_pool2d_with_indices_backward": 4, "_adaptive_avg_pool2d_backward": 4,
             "adaptive_max_pool2d_backward": 4, "reflection_pad2d_backward": 4, "replication_pad2d_backward": 4,
             "reflection_pad1d_backward": 3, "replication_pad1d_backward": 3, "avg_pool3d_backward": 5,
             "reflection_pad3d_backward": 5, "replication_pad3d_backward": 5,
             "max_pool3d_with_indices_backward": 5, "adaptive_max_pool3d_backward": 5,
             "_adaptive_avg_pool3d_backward": 5}  # fmt: skip


def fold_all_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    full = _FOLD_ALL[op._schema.name]
    ranks = {vals[i].dim() for i in op.tensor_idx}
    if len(ranks) != 1 or ranks.pop() not in (full, full - 1):
        return loop_fallback(op, vals, lv)
    new = list(vals)
    has_n = vals[op.tensor_idx[0]].dim() == full
    for i in op.tensor_idx:
        v = _val(vals[i], level, bsz)
        new[i] = v.reshape((-1,) + tuple(v.shape[2:])) if has_n else v
    out = op.fast(*new)
    if has_n:
        out = out.reshape((bsz, -1) + tuple(out.shape[1:]))
    return make_batched(out, level)


RULES = {"nll_loss_forward": nll_forward, "nll_loss_backward": nll_backward, "convolution": conv_rule,
         "convolution_backward": conv_backward_rule,
         "native_layer_norm": layer_norm_rule, "native_layer_norm_backward": layer_norm_backward_rule,
         "embedding": embedding_rule, "embedding_dense_backward": embedding_backward_rule,
         **{n: fold_all_rule for n in _FOLD_ALL}, **{n: loss_rule for n in _LOSSES}, **{n: loss_backward_rule for n in _LOSS_BACKWARDS}}
