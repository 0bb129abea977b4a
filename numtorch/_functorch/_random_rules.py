"""Random ops under vmap: ``randomness=`` decides (Note [vmap randomness]).

# Note [vmap randomness]
# A random op answers the innermost vmap level whether or not its arguments are batched there,
# as PyTorch's vmap-mode key does (the dispatcher's fast path lets no random op through while a
# vmap runs, see ``_random_gate``):
# - "error": PyTorch's error, always;
# - "same": one draw of the per-sample shape shared by every sample; a batched probability or
#   mean argument has no single per-sample draw, so PyTorch's error; an in-place op on a batched
#   tensor draws one sample and copies it to all;
# - "different": every sample draws its own values: factories get the batch size prepended,
#   ``*_like`` and probability arguments are expanded to the batch, in-place needs a batched self.
# The op then runs on the values with this level and any inner ones out of the way (``_below``),
# so that an outer vmap still sees the call and applies its own randomness.
"""

from __future__ import annotations

from .._tensor import Tensor
from ._levels import VMAP_LEVELS
from .batched import is_batched_at, make_batched, raise_inplace_error


def _randomness_error():
    raise RuntimeError(
        "vmap: called random operation while in randomness error mode. Please either use the "
        "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
        "of vmap"
    )


def _same_batched_error():
    raise RuntimeError(
        "Vmap does not currently support same randomness with a batched tensor input. Please file "
        "an issue with functorch"
    )


def _below(op, vals, lv):
    """Call ``op`` on values with ``lv`` and the levels inside it removed (restored after)."""
    from .._dispatch import slow_dispatch

    i = VMAP_LEVELS.index(lv)
    inner = VMAP_LEVELS[i:]
    del VMAP_LEVELS[i:]
    try:
        return op.fast(*vals) if not op.list_idx else slow_dispatch(op, vals)
    finally:
        VMAP_LEVELS.extend(inner)


def random_rule(op, vals, lv):
    if lv.randomness == "error":
        _randomness_error()
    level = lv.level
    if op.kind == "inplace":
        return _inplace(op, vals, lv)
    batched = [i for i in op.tensor_idx if is_batched_at(vals[i], level)]
    new = list(vals)
    if op._schema.name.endswith("_like"):  # PyTorch's tensor_like_random_batch_rule
        x = vals[0]
        if lv.randomness == "same":
            new[0] = x._value[0] if batched else x
            return _below(op, new, lv)
        new[0] = x._value if batched else x.expand((lv.batch_size,) + tuple(x.shape))
        return make_batched(_below(op, new, lv), level)
    if lv.randomness == "same":
        if batched:
            _same_batched_error()
        return _below(op, vals, lv)
    if op.kind == "out":
        raise RuntimeError(
            f"vmap: {op.name()}: an out= random op is not supported with randomness='different'; "
            "call the functional variant instead"
        )
    if not op.tensor_idx:  # factories: the batch size prepended to the size, or one draw each
        names = [a.name for a in op._schema.arguments]
        if "size" in names:
            i = names.index("size")
            new[i] = [lv.batch_size, *vals[i]]
            return make_batched(_below(op, new, lv), level)
        from .. import stack

        return make_batched(stack([_below(op, vals, lv) for _ in range(lv.batch_size)]), level)
    # bernoulli / normal / poisson / multinomial: every tensor argument given the batch dim
    rank = max(vals[i]._data.ndim for i in op.tensor_idx)
    for i in op.tensor_idx:
        v = vals[i]
        pad = (1,) * (rank - v._data.ndim)
        if i in batched:
            new[i] = v._value.reshape((v._value.shape[0],) + pad + tuple(v.shape))
        else:
            new[i] = v.expand((lv.batch_size,) + pad + tuple(v.shape))
    if op._schema.name == "multinomial" and rank == 2:  # rows of every sample as one matrix
        p = new[0]
        new[0] = p.reshape((-1, p.shape[-1]))
        out = _below(op, new, lv)
        return make_batched(out.reshape(tuple(p.shape[:2]) + (out.shape[-1],)), level)
    return make_batched(_below(op, new, lv), level)


def _inplace(op, vals, lv):
    level = lv.level
    s = vals[op.self_idx]
    others = [i for i in op.tensor_idx if i != op.self_idx and is_batched_at(vals[i], level)]
    if not is_batched_at(s, level):
        if lv.randomness == "different":
            raise RuntimeError(
                "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This "
                "will appear like same randomness. If this is necessary for your usage, please "
                "file an issue with functorch."
            )
        if others:
            raise_inplace_error(op)
        return _below(op, vals, lv)
    v = s._value
    new = list(vals)
    if lv.randomness == "same":
        if others:
            _same_batched_error()
        first = v[0]
        new[op.self_idx] = first
        _below(op, new, lv)
        v.copy_(first.expand(tuple(v.shape)))
        return s
    for i in op.tensor_idx:
        x = vals[i]
        if i == op.self_idx or not isinstance(x, Tensor):
            continue
        pad = (1,) * (s._data.ndim - x._data.ndim)
        new[i] = x._value.reshape((x._value.shape[0],) + pad + tuple(x.shape)) if i in others \
            else x  # fmt: skip
    new[op.self_idx] = v
    _below(op, new, lv)
    return s


def dropout_input(x, inplace: bool):
    """``x``, or under randomness="different" an unbatched ``x`` given the batch (expanded): the
    dropout composites then draw their noise like it, one mask per sample, as PyTorch's vmap
    does for an unbatched dropout input ("same" and "error" keep ``x``: one mask, or the error).
    In place, a batched mask cannot be written into an unbatched ``x``: PyTorch's error."""
    lv = VMAP_LEVELS[-1]
    if lv.randomness != "different" or is_batched_at(x, lv.level):
        return x
    if inplace:
        raise RuntimeError(
            "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
            "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
            "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
            "use out-of-place operators instead of inplace arithmetic. If said operator is being "
            "called inside the PyTorch framework, please file a bug report instead."
        )
    return make_batched(x.expand((lv.batch_size,) + tuple(x.shape)), lv.level)
