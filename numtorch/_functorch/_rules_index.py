"""Batching rules for indexing and a few ops that need their own arithmetic (Note [vmap key]):
index and index_put with batched indices, take_along_dim, masked_scatter, permute, linalg_solve.

Batched advanced indices get an ``arange(B)`` index in front on the values, so that each sample
reads (or writes) its own rows. Argument patterns a rule does not cover go to the loop fallback,
which raises PyTorch's per-sample errors."""

from __future__ import annotations

from .. import _dtype as D
from .batched import is_batched_at, loop_fallback, make_batched, raise_inplace_error


def _val(v, level, bsz):
    if is_batched_at(v, level):
        return v._value
    return v.expand((bsz,) + tuple(v.shape))


def _padded(v, level, rank):
    """The value (B, 1.., *s) of a batched ``v`` of logical rank ``rank``; ``v`` itself if not."""
    if not is_batched_at(v, level):
        return v
    x = v._value
    return x.reshape((x.shape[0],) + (1,) * (rank - v.dim()) + tuple(v.shape))


def _arange_index(bsz, rank, like):
    from .. import ops

    a = ops.aten.arange.default(bsz, dtype=None, layout=None, device=like.device, pin_memory=None)
    return a.reshape((bsz,) + (1,) * rank)


# ---- index / index_put ------------------------------------------------------------------------
def _is_mask(i) -> bool:
    return i._dtype in (D.bool, D.uint8)


def _batched_indices(x, idx, level, bsz):
    """(value indices with arange(B) in front, index rank, where the per-sample index dims sit)
    or None for masks (their nonzero() has a data-dependent shape per sample)."""
    pos = [k for k, i in enumerate(idx) if i is not None]
    if not pos or any(_is_mask(idx[k]) for k in pos):
        return None
    rank = max(idx[k].dim() for k in pos)
    contiguous = pos[-1] - pos[0] + 1 == len(pos)
    new = [_arange_index(bsz, rank, x)] + [None if i is None else _padded(i, level, rank) for i in idx]
    # per sample, contiguous advanced indices keep their place; on the values they move to the front
    return new, rank, pos[0] if contiguous else 0


def index_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    x, idx = vals
    if not any(is_batched_at(i, level) for i in idx if i is not None):
        if not is_batched_at(x, level):
            return loop_fallback(op, vals, lv)
        pos = [k for k, i in enumerate(idx) if i is not None]
        if pos and pos[-1] - pos[0] + 1 != len(pos):
            return _index_batched(op, x, idx, level, bsz, lv, vals)
        return make_batched(op.fast(x._value, [None, *idx]), level)
    return _index_batched(op, x, idx, level, bsz, lv, vals)


def _index_batched(op, x, idx, level, bsz, lv, vals):
    plan = _batched_indices(x, idx, level, bsz)
    if plan is None:
        return loop_fallback(op, vals, lv)
    new, rank, move = plan
    out = op.fast(_val(x, level, bsz), new)
    if move:  # (B, *I, *before, *after) -> (B, *before, *I, *after)
        out = out.movedim(tuple(range(1, 1 + rank)), tuple(range(1 + move, 1 + move + rank)))
    return make_batched(out, level)


def index_put_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    x, idx, values, accumulate = vals
    inplace = op.kind == "inplace"
    if inplace and not is_batched_at(x, level):
        raise_inplace_error(op)
    plan = _batched_indices(x, idx, level, bsz)
    if plan is None:
        return loop_fallback(op, vals, lv)
    new, rank, move = plan
    # values broadcast against the per-sample result (*before, *I, *after); on the values the
    # index dims I come first, so pad them to that rank (B or 1 in front) and move I forward
    full = rank + x.dim() - sum(1 for i in idx if i is not None)
    if values.dim() > full:
        return loop_fallback(op, vals, lv)
    v, lead = (values._value, bsz) if is_batched_at(values, level) else (values, 1)
    values_v = v.reshape((lead,) + (1,) * (full - values.dim()) + tuple(values.shape))
    if move:
        values_v = values_v.movedim(tuple(range(1 + move, 1 + move + rank)), tuple(range(1, 1 + rank)))
    out = op.fast(_val(x, level, bsz), new, values_v, accumulate)
    return x if inplace else make_batched(out, level)


def masked_scatter_backward_rule(op, vals, lv):
    # per sample: the gradient at the mask's true positions, in order, then zeros up to sizes
    from .. import ops

    aten = ops.aten
    level, bsz = lv.level, lv.batch_size
    g, mask, sizes = vals
    gs, ms = tuple(g.shape), tuple(mask.shape)
    if len(ms) > len(gs) or any(m not in (1, n) for m, n in zip(ms[::-1], gs[::-1])):
        return loop_fallback(op, vals, lv)
    n = 1
    for k in sizes:
        n *= k
    gv = _val(g, level, bsz).reshape((bsz, -1))
    mv = _val(mask, level, bsz)
    mv = mv.reshape((bsz,) + (1,) * (len(gs) - len(ms)) + ms).expand((bsz,) + gs).reshape((bsz, -1))
    if bool((mv.sum(1) > n).any()):
        return loop_fallback(op, vals, lv)
    pos = aten.where.self(mv, mv.cumsum(1) - 1, aten.full_like.default(mv, n, dtype=D.int64))
    out = aten.zeros.default([bsz, n + 1], dtype=g.dtype)
    out = aten.scatter_add.default(out, 1, pos, aten.where.ScalarOther(mv, gv, 0.0))
    return make_batched(out.narrow(1, 0, n).reshape((bsz, *sizes)), level)


# ---- take_along_dim, masked_scatter, permute, linalg_solve -------------------------------------
def take_along_dim_rule(op, vals, lv):
    level, bsz = lv.level, lv.batch_size
    x, ind, dim = vals
    if dim is None:
        xv = _val(x, level, bsz).reshape((bsz, -1))
        iv = _padded(ind, level, ind.dim()).reshape((bsz, -1)) if is_batched_at(ind, level) \
            else ind.reshape((1, -1))  # fmt: skip
        return make_batched(op.fast(xv, iv, 1), level)
    if x.dim() != ind.dim():
        return loop_fallback(op, vals, lv)  # PyTorch's per-sample error
    n = max(x.dim(), 1)
    if not -n <= dim < n:
        return loop_fallback(op, vals, lv)
    d = (dim % n) + 1
    xv = _padded(x, level, x.dim())
    iv = _padded(ind, level, ind.dim())
    if not is_batched_at(x, level):
        xv = x.unsqueeze(0)
    if not is_batched_at(ind, level):
        iv = ind.unsqueeze(0)
    return make_batched(op.fast(xv, iv, d), level)


def masked_scatter_rule(op, vals, lv):
    from .. import ops

    aten = ops.aten
    level, bsz = lv.level, lv.batch_size
    x, mask, src = vals
    inplace = op.kind == "inplace"
    if inplace and not is_batched_at(x, level):
        raise_inplace_error(op)
    ms, xs = tuple(mask.shape), tuple(x.shape)
    fits = len(ms) <= len(xs) and all(m in (1, n) for m, n in zip(ms[::-1], xs[::-1]))
    if not fits or mask._dtype is not D.bool or src._dtype is not x._dtype:
        return loop_fallback(op, vals, lv)  # PyTorch's per-sample errors (or broadcast self)
    shape = tuple(x.shape)
    xv = _val(x, level, bsz).reshape((bsz, -1))
    mv = _val(mask, level, bsz)
    mv = mv.reshape((bsz,) + (1,) * (x.dim() - mask.dim()) + tuple(mask.shape)).expand((bsz,) + shape)
    mv = mv.reshape((bsz, -1))
    sv = _val(src, level, bsz).reshape((bsz, -1))
    count = mv.sum(1)
    if sv.shape[1] == 0 or bool((count > sv.shape[1]).any()):
        return loop_fallback(op, vals, lv)  # too few source elements: PyTorch's error per sample
    pos = (mv.cumsum(1) - 1).clamp(0, sv.shape[1] - 1)
    out = aten.where.self(mv, sv.gather(1, pos), xv).reshape((bsz,) + shape)
    if inplace:
        x._value.copy_(out)
        return x
    return make_batched(out, level)


def permute_rule(op, vals, lv):
    x, dims = vals
    n = x.dim()
    if len(dims) != n:
        return loop_fallback(op, vals, lv)
    shifted = [0]
    for d in dims:
        if not -max(n, 1) <= d < max(n, 1):
            return loop_fallback(op, vals, lv)
        shifted.append(d % max(n, 1) + 1)
    return make_batched(op.fast(x._value, shifted), lv.level)


def roll_rule(op, vals, lv):
    # dims shift past the batch dim; no dims rolls each sample's flattened elements
    x, shifts, dims = vals
    n = x.dim()
    v = x._value
    if not dims:
        if len(shifts) != 1:
            return loop_fallback(op, vals, lv)  # PyTorch's per-sample error
        flat = v.reshape((v.shape[0], -1))
        return make_batched(op.fast(flat, list(shifts), [1]).reshape(tuple(v.shape)), lv.level)
    if len(shifts) != len(dims) or any(not -max(n, 1) <= d < max(n, 1) for d in dims):
        return loop_fallback(op, vals, lv)
    return make_batched(op.fast(v, list(shifts), [d % max(n, 1) + 1 for d in dims]), lv.level)


def solve_rule(op, vals, lv):
    level = lv.level
    a, b, left = vals
    vector = b.dim() == 1 or (b.dim() == a.dim() - 1 and tuple(b.shape) == tuple(a.shape[:-1]))
    if a.dim() < 2 or (vector and not left):
        return loop_fallback(op, vals, lv)
    if vector:  # as a one-column matrix, padded to the matrix's rank
        r = max(a.dim(), b.dim() + 1)
        bm = _padded(b, level, r - 1).unsqueeze(-1)
        return make_batched(op.fast(_padded(a, level, r), bm, True).squeeze(-1), level)
    r = max(a.dim(), b.dim())
    return make_batched(op.fast(_padded(a, level, r), _padded(b, level, r), left), level)


def solve_triangular_rule(op, vals, lv):
    # both operands are matrices with broadcast batch dims: the vmapped dim is one more
    a, b = vals[0], vals[1]
    if a.dim() < 2 or b.dim() < 2:
        return loop_fallback(op, vals, lv)
    r = max(a.dim(), b.dim())
    return make_batched(op.fast(_padded(a, lv.level, r), _padded(b, lv.level, r), *vals[2:]), lv.level)


def as_strided_rule(op, vals, lv):
    # PyTorch's rule: the view of every sample at its own place, the batch stride in front; the
    # storage offset is sample 0's and must stay inside the memory each sample can reach
    x, size, stride, offset = vals
    v = x._value
    base = v.storage_offset()
    off = base if offset is None else offset
    if all(n > 0 for n in size) and x.numel():
        hi_t = base + sum((n - 1) * s for n, s in zip(x.shape, x.stride()))
        hi_r = off + sum((n - 1) * s for n, s in zip(size, stride))
        if off < base or hi_r > hi_t:
            raise RuntimeError(
                f"result = tensor.as_strided({list(size)}, {list(stride)}, {off}) can access memory "
                f"outside of `tensor`. `result` can access some memory in range [{off}, {hi_r + 1}], "
                f"but `tensor` can only access some memory in range [{base}, {hi_t + 1}]. This is "
                "not supported inside of vmap, please try to rewrite the `as_strided` call as a "
                "sequence of PyTorch view operations"
            )
    return make_batched(op.fast(v, [v.shape[0], *size], [v.stride(0), *stride], off), lv.level)


RULES = {"as_strided": as_strided_rule, "index": index_rule, "index_put": index_put_rule, "take_along_dim": take_along_dim_rule,
         "masked_scatter": masked_scatter_rule,
         "masked_scatter_backward": masked_scatter_backward_rule, "permute": permute_rule, "roll": roll_rule, "linalg_solve": solve_rule,
         "linalg_solve_triangular": solve_triangular_rule}
