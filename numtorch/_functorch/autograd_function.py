"""autograd.Function and custom ops under vmap (Note [Function under vmap]).

# Note [Function under vmap]
# ``F.apply`` with a BatchedTensor argument runs in two parts, in the order the dispatcher runs
# an op's keys. At the BatchedTensor's (per-sample) level, ``_apply`` records F's node on the
# wrappers as usual (a grad transform inside the vmap differentiates through F.backward on
# per-sample tensors). Below that, ``vmap_forward`` computes the outputs on the values with the
# vmap level lowered (taken off VMAP_LEVELS while the rule runs, as PyTorch's
# ``interpreter.lower()``): either F's ``vmap`` staticmethod, or, with ``generate_vmap_rule``,
# ``Vmapped<F>.apply`` on the values, a Function whose forward, setup_context, backward and jvp
# are F's run under a fresh vmap level of the same size. Grad mode inside the rule is the one
# the vmap level was entered with, so a transform outside the vmap records Vmapped<F> (or what
# the vmap staticmethod calls) on the values. Every BatchedTensor carries its batch dim first,
# so the in_dims a rule sees are 0 or None.
"""

from __future__ import annotations

from typing import NamedTuple

from .._state import STATE
from .._tensor import Tensor
from ..utils import _pytree as pytree
from ._levels import VMAP_LEVELS, VmapLevel
from .batched import BatchedTensor, _find, is_batched_at, make_batched
from .vmap import _broadcast_prefix

_SEE = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


class VmapInfo(NamedTuple):
    batch_size: int
    randomness: str


def check_vmap_support(cls, base) -> None:
    overridden = cls.vmap is not base.vmap
    if cls.generate_vmap_rule and overridden:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and "
            "an overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            f"overridden vmap staticmethod to avoid ambiguity. {_SEE}"
        )
    if not cls.generate_vmap_rule and not overridden:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. " + _SEE
        )


def batched_level(args) -> int:
    lvl = -1
    for a in args:
        if a.__class__ is BatchedTensor and a._level > lvl:
            lvl = a._level
    return lvl


def _unwrap(args, level):
    vals, dims = [], []
    for a in args:
        if is_batched_at(a, level):
            vals.append(a._value)
            dims.append(0)
        else:
            vals.append(a)
            dims.append(None)
    return vals, tuple(dims)


class _Lowered:
    """Take a vmap level off the stack while its rule runs on the values; restore grad mode."""

    def __init__(self, lv, grad):
        self.lv, self.grad = lv, grad

    def __enter__(self):
        self.pos = VMAP_LEVELS.index(self.lv)
        VMAP_LEVELS.pop(self.pos)
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = self.grad

    def __exit__(self, *exc):
        VMAP_LEVELS.insert(self.pos, self.lv)
        STATE.grad_enabled = self.prev


def vmap_forward(cls, args, level: int, grad_on: bool):
    """F's outputs for BatchedTensor ``args`` of ``level``, by F's vmap rule."""
    lv = _find(level)
    vals, in_dims = _unwrap(args, level)
    with _Lowered(lv, grad_on and lv.grad_enabled):
        if cls.generate_vmap_rule:
            out = vmapify(cls, in_dims, lv.batch_size, lv.randomness).apply(*vals)
            out, out_dims = unpack_outputs(out)
        else:
            res = cls.vmap(VmapInfo(lv.batch_size, lv.randomness), in_dims, *vals)
            validate_vmap_returns(res)
            out, out_dims = res
    return wrap_outputs(out, out_dims, vals, args, level, "autograd.Function's vmap staticmethod")


def validate_vmap_returns(res) -> None:
    msg = ("Expected the vmap staticmethod to have two returns, an output and out_dims with pytree "
           "structure compatible with the output. ")  # fmt: skip
    if not isinstance(res, tuple):
        raise RuntimeError(msg + f"Got a {type(res)} instead")
    if len(res) != 2:
        raise RuntimeError(msg + f"Got {len(res)} returns instead")


def wrap_outputs(out, out_dims, vals, args, level, who):
    """Outputs of a rule made BatchedTensors of ``level`` per ``out_dims``; an input returned
    as is comes back as the caller's own object."""
    flat, spec = pytree.tree_flatten(out)
    try:
        dims = _broadcast_prefix(out_dims, out, None, out_dims, spec)
    except ValueError:
        dims = None
    if dims is None or len(dims) != len(flat):
        raise RuntimeError(
            f"The {who} returned an incompatible (output, out_dims) tuple. Expected "
            f"out_dims={out_dims} to be compatible with the structure of `output`. out_dims has "
            f"structure {pytree.tree_flatten(out_dims)[1]} but output has structure {spec}. {_SEE}"
        )
    same = {id(v): a for v, a in zip(vals, args) if isinstance(v, Tensor)}
    res = []
    for o, d in zip(flat, dims):
        if not isinstance(o, Tensor) or d is None:
            res.append(o)
        elif id(o) in same:
            res.append(same[id(o)])
        else:
            res.append(make_batched(o.movedim(d, 0) if d else o, level))
    return pytree.tree_unflatten(res, spec)


def restore_vmap(fn, in_dims, batch_size, randomness, args):
    """``fn(*args)`` under a fresh vmap level: (outputs as values, out_dims of 0 or None)."""
    flat, spec = pytree.tree_flatten(args)
    dims = _broadcast_prefix(in_dims, args, fn, in_dims, spec)
    lv = VmapLevel(batch_size, randomness, STATE.grad_enabled)
    VMAP_LEVELS.append(lv)
    try:
        wrapped = [make_batched(a.movedim(d, 0) if d else a, lv.level)
                   if d is not None and isinstance(a, Tensor) else a
                   for a, d in zip(flat, dims)]  # fmt: skip
        out = fn(*pytree.tree_unflatten(wrapped, spec))
    finally:
        VMAP_LEVELS.remove(lv)
    flat_o, ospec = pytree.tree_flatten(out)
    vals = [o._value if is_batched_at(o, lv.level) else o for o in flat_o]
    odims = [0 if is_batched_at(o, lv.level) else None for o in flat_o]
    return pytree.tree_unflatten(vals, ospec), pytree.tree_unflatten(odims, ospec)


def unpack_outputs(outputs):
    out_dims = outputs[-1]
    return (outputs[:-1], out_dims) if isinstance(out_dims, tuple) else (outputs[0], out_dims)


class _WrappedCtx:
    """ctx seen by F's methods inside the generated rule: everything goes to the real ctx."""

    _own = ("_inner",)

    def __init__(self, ctx):
        object.__setattr__(self, "_inner", ctx)

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __setattr__(self, name, value):
        if name in type(self)._own:
            object.__setattr__(self, name, value)
        else:
            setattr(self._inner, name, value)


class _CtxWithSaved(_WrappedCtx):
    _own = ("_inner", "_saved_now")

    def __init__(self, ctx, saved):
        super().__init__(ctx)
        self._saved_now = tuple(saved)

    @property
    def saved_tensors(self):
        return self._saved_now


class _CtxCustomSave(_WrappedCtx):
    """setup_context under the fresh level: saves values, records their batch dims."""

    _own = ("_inner", "_level")

    def __init__(self, ctx, level):
        super().__init__(ctx)
        self._level = level

    def _values(self, ts):
        return [t._value if is_batched_at(t, self._level) else t for t in ts]

    def _dims(self, ts):
        return tuple(0 if is_batched_at(t, self._level) else None for t in ts)

    def save_for_backward(self, *ts):
        self._inner.save_for_backward(*self._values(ts))
        self._inner._pt_bw_bdims = self._dims(ts)

    def save_for_forward(self, *ts):
        self._inner.save_for_forward(*self._values(ts))
        self._inner._pt_fw_bdims = self._dims(ts)

    def mark_non_differentiable(self, *ts):
        self._inner.mark_non_differentiable(*self._values(ts))

    def mark_dirty(self, *ts):
        self._inner.mark_dirty(*self._values(ts))


def vmapify(cls, in_dims, batch_size, randomness):
    """``Vmapped<F>``: ``Vmapped<F>.apply(*values)`` means ``vmap(F.apply, in_dims)(*values)``."""
    from ..autograd.function import Function

    def forward(*operands):
        out, out_dims = restore_vmap(cls.forward, in_dims, batch_size, randomness, operands)
        return (out, out_dims) if isinstance(out, Tensor) else (*out, out_dims)

    def setup_context(ctx, inputs, outputs):
        outputs, out_dims = unpack_outputs(outputs)
        ctx._pt_out_dims = out_dims
        ctx._pt_input_shapes = tuple(
            tuple(i.shape[1:] if d is not None else i.shape) if isinstance(i, Tensor) else None
            for i, d in zip(inputs, in_dims)
        )

        def inner(inputs, outputs):
            cls.setup_context(_CtxCustomSave(ctx, VMAP_LEVELS[-1].level), inputs, outputs)

        restore_vmap(inner, (in_dims, out_dims), batch_size, randomness, (inputs, outputs))

    def backward(ctx, *grads):
        grads = grads[:-1]
        gdims = ctx._pt_out_dims if isinstance(ctx._pt_out_dims, tuple) else (ctx._pt_out_dims,)
        gdims = tuple(d if g is not None else None for g, d in zip(grads, gdims))
        saved = ctx.saved_tensors
        sdims = getattr(ctx, "_pt_bw_bdims", (None,) * len(saved))

        def bw(saved, grads):
            return cls.backward(_CtxWithSaved(ctx, saved), *grads)

        gi, gi_dims = restore_vmap(bw, (sdims, gdims), batch_size, randomness, (saved, grads))
        return reductify(gi, gi_dims, in_dims, batch_size, ctx._pt_input_shapes)

    def jvp(ctx, *tangents):
        saved = ctx.saved_tensors
        sdims = getattr(ctx, "_pt_fw_bdims", None) or getattr(ctx, "_pt_bw_bdims", (None,) * len(saved))
        tdims = tuple(d if t is not None else None for t, d in zip(tangents, in_dims))

        def fw(saved, tangents):
            return cls.jvp(_CtxWithSaved(ctx, saved), *tangents)

        to, to_dims = restore_vmap(fw, (sdims, tdims), batch_size, randomness, (saved, tangents))
        res = reductify(to, to_dims, ctx._pt_out_dims, batch_size)
        return (*res, None)

    attrs = {"forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
             "backward": staticmethod(backward), "jvp": staticmethod(jvp),
             "generate_vmap_rule": True}  # fmt: skip
    return type(f"Vmapped{cls.__name__}", (Function,), attrs)


def reductify(grads, gdims, in_dims, batch_size, shapes=None):
    """Gradients made to match their inputs' batch dims (0 or None) and per-sample shapes."""
    grads = grads if isinstance(grads, tuple) else (grads,)
    gdims = gdims if isinstance(gdims, tuple) else (gdims,)
    in_dims = in_dims if isinstance(in_dims, tuple) else (in_dims,)
    shapes = shapes or (None,) * len(grads)
    return tuple(_reductify_leaf(g, gd, d, batch_size, s) for g, gd, d, s in zip(grads, gdims, in_dims, shapes))


def _reductify_leaf(g, gdim, idim, batch_size, shape):
    if g is None or (gdim is None and idim is None):
        return g
    if idim is None:
        return g.sum(gdim)
    if gdim is None:  # the same gradient for every sample
        g = g.unsqueeze(0).expand((batch_size,) + tuple(g.shape))
    if shape is None or tuple(g.shape[1:]) == tuple(shape):
        return g
    # per-sample sum_to_size: autograd cannot reduce a batched gradient to a batched input
    extra = g.dim() - 1 - len(shape)
    if extra > 0:
        g = g.sum(tuple(range(1, 1 + extra)))
    keep = tuple(i + 1 for i, s in enumerate(shape) if s == 1 and g.shape[i + 1] != 1)
    return g.sum(keep, keepdim=True) if keep else g


def custom_op_vmap(op, vals, lv, fn):
    """A custom op's ``register_vmap`` rule: ``fn(info, in_dims, *args, **kwargs)`` on values."""
    level = lv.level
    pos, kwargs = [], {}
    for a, v in zip(op._schema.arguments, vals):
        if a.kwarg_only:
            kwargs[a.name] = v
        else:
            pos.append(v)
    for v in kwargs.values():
        if isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and any(isinstance(x, Tensor) for x in v)):
            raise NotImplementedError(
                f"Run vmap on autograd.Function with kwarg-only Tensor args. Please do not pass "
                f"kwarg-only Tensors to autograd.Function. Got: {kwargs}"
            )
    flat, spec = pytree.tree_flatten(pos)
    unwrapped = [x._value if is_batched_at(x, level) else x for x in flat]
    dims = [0 if is_batched_at(x, level) else None for x in flat]
    args = pytree.tree_unflatten(unwrapped, spec)
    in_dims = tuple(pytree.tree_unflatten(dims, spec))
    with _Lowered(lv, STATE.grad_enabled):
        res = fn(VmapInfo(lv.batch_size, lv.randomness), in_dims, *args, **kwargs)
    validate_vmap_returns(res)
    out, out_dims = res
    return wrap_outputs(out, out_dims, unwrapped, flat, level, "custom op's vmap rule")
