"""The Autograd key of custom ops: a generated ``autograd.Function`` per op, as PyTorch's
``GeneratedBackwardFor_<ns>_<name>_<overload>``.

# Note [Custom-op autograd kernel]
# A custom op's ``op.autograd`` is an ``AutogradKernel`` instead of a derivative table: the
# engine's Autograd key (numtorch.autograd._engine._record) hands the call to it. Its forward
# redispatches below the Autograd key (so dispatch modes and the backend see the op), then the
# user's ``setup_context(ctx, inputs, output)`` runs at forward time and ``backward(ctx, *grads)``
# at backward time, through the same ctx/node machinery as ``autograd.Function``.
"""

from __future__ import annotations

import functools

from .._dispatch import below_autograd
from ..autograd.function import Function, _apply


class AutogradKernel:
    """What ``register_autograd`` stored for one op (``backward`` None: backward raises)."""

    __slots__ = ("op", "backward", "setup_context", "fn_cls", "n_pos", "kw_names")

    def __init__(self, op, backward=None, setup_context=None):
        self.op = op
        self.backward = backward
        self.setup_context = setup_context
        args = op._schema.arguments
        self.n_pos = sum(1 for a in args if not a.kwarg_only)
        self.kw_names = tuple(a.name for a in args if a.kwarg_only)
        s = op._schema
        name = f"GeneratedBackwardFor_{s.namespace}_{s.name}_{op._overloadname}"
        methods = {m: staticmethod(functools.partial(f, self)) for m, f in
                   (("forward", _forward), ("setup_context", _setup), ("backward", _backward))}  # fmt: skip
        self.fn_cls = type(name, (Function,), methods)

    def call(self, op, vals):
        # the last "input" carries the keyword-only values, as PyTorch's Metadata argument does
        n = self.n_pos
        return _apply(self.fn_cls, (*vals[:n], _KwOnly(vals[n:])), True)


class _KwOnly:
    __slots__ = ("vals",)

    def __init__(self, vals):
        self.vals = vals


def _forward(k, *args):
    *pos, kw = args
    return below_autograd(k.op, [*pos, *kw.vals])


def _setup(k, ctx, inputs, output):
    if k.setup_context is None:
        return
    *pos, kw = inputs
    if k.kw_names:
        k.setup_context(ctx=ctx, inputs=tuple(pos), keyword_only_inputs=dict(zip(k.kw_names, kw.vals)), output=output)
    else:
        k.setup_context(ctx=ctx, inputs=tuple(pos), output=output)


def _backward(k, ctx, *grads):
    if k.backward is None:
        raise RuntimeError(
            f"Trying to backward through {k.op} but no autograd formula was registered. "
            "Please use register_autograd to add one."
        )
    prev = ctx.needs_input_grad
    ctx.needs_input_grad = prev[:-1]
    try:
        res = k.backward(ctx, *grads)
    finally:
        ctx.needs_input_grad = prev
    res = res if isinstance(res, tuple) else (res,)
    if len(res) != k.n_pos:
        raise RuntimeError(
            f"Expected the return from backward to be of the same structure as the inputs. "
            f"Got: {len(res)} gradients (return from backward), {k.n_pos} inputs (inputs): "
            f"the backward of {k.op} must return one gradient (or None) per positional input"
        )
    return (*res, None)
