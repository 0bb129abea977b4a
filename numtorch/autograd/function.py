"""Custom autograd Functions: ``class F(numtorch.autograd.Function)`` with forward/backward/jvp.

The backward node of a custom Function is also its ``ctx`` (as in PyTorch): ``F.apply``
creates one ``FBackward`` object, passes it to forward/setup_context as ``ctx`` and, when an
input requires grad, links it into the graph as the outputs' ``grad_fn``.
"""

from __future__ import annotations

import functools
import inspect
import weakref

from .._functorch._levels import GRAD_DEPTH, VMAP_LEVELS
from .._state import STATE
from .._tensor import Tensor, _make
from .graph import _FREED, Node, SavedTensor, gradient_edge


class FunctionCtx:
    """What ``ctx`` offers inside forward, setup_context, backward and jvp."""

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for backward; read them back with ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument 0 is not a Variable")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs modified in place by forward (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that never require grad (their grads in backward are zeros)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward/jvp receive None instead of zero tensors for unused outputs."""
        self.materialize_grads = value

    @property
    def saved_tensors(self):
        if self.__dict__.get("_in_jvp"):  # jvp reads only what save_for_forward kept, as in torch
            return tuple(self.__dict__.get("saved_for_forward", ()))
        saved = self.__dict__.get("_saved")
        if saved is None:
            if self.__dict__.get("_released"):
                raise RuntimeError(_FREED)
            return tuple(self.__dict__.get("to_save", ()))
        return tuple(s.unpack(self) if s is not None else None for s in saved)

    saved_variables = saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """The graph node (and ctx) of one custom Function call."""

    _forward_cls = None

    def __init__(self):
        super().__init__()
        self.materialize_grads = True
        self.needs_input_grad = ()

    def apply(self, *grads):
        cls = self._forward_cls
        if self.__dict__.get("_released"):
            raise RuntimeError(_FREED)
        if self.materialize_grads:
            grads = tuple(
                g if g is not None or m is None else _zeros_like_meta(m)
                for g, m in zip(grads, self._out_meta)
            )
        backward_fn = cls.vjp if cls.vjp is not Function.vjp else cls.backward
        if backward_fn is Function.backward:
            raise NotImplementedError(
                "You must implement either the backward or vjp method for your custom "
                "autograd.Function to use it with backward mode AD."
            )
        res = backward_fn(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self._is_tensor_input)
        if len(res) < n or any(r is not None for r in res[n:]):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {n}, got {len(res)})"
            )
        out = []
        for i, (r, is_t) in enumerate(zip(res, self._is_tensor_input)):
            if is_t:
                out.append(r)
            elif r is not None:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at position "
                    f"{i + 1}, but the corresponding forward input was not a Variable"
                )
        return tuple(out)

    def _release(self) -> None:
        self._saved = None
        self._released = True


def _zeros_like_meta(meta):
    import numpy as np

    shape, dtype, _dev = meta
    return _make(np.zeros(shape, dtype.np), dtype)


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class for custom differentiable operations.

    >>> class Exp(numtorch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         y = x.exp(); ctx.save_for_backward(y); return y
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (y,) = ctx.saved_tensors; return g * y
    >>> x = numtorch.zeros(2, requires_grad=True)
    >>> Exp.apply(x).sum().backward(); x.grad
    tensor([1., 1.])
    """

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        import warnings

        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself.",
            DeprecationWarning,
            stacklevel=2,
        )

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def vmap(info, in_dims, *args):
        """The batching rule: ``(output, out_dims)`` for inputs batched along ``in_dims``."""
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True."
        )

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..overrides import NO_TF, NOT_HANDLED, dispatch_torch_function

        if STATE.tf_modes or any(type(a) not in NO_TF for a in args):
            r = dispatch_torch_function(cls.apply, args, args, kwargs or None, False)
            if r is not NOT_HANDLED:
                return r
        separate = cls.setup_context is not Function.setup_context
        if separate:
            args = _bind_defaults(cls.forward, args, kwargs)
        elif kwargs:
            raise TypeError(f"{cls.__name__}.apply() got keyword arguments; use positional arguments")
        if VMAP_LEVELS or GRAD_DEPTH[0]:  # a numtorch.func transform is running
            if not separate:
                raise RuntimeError(
                    "In order to use an autograd.Function with functorch transforms (vmap, grad, "
                    "jvp, jacrev, ...), it must override the setup_context staticmethod. For more "
                    "details, please see https://pytorch.org/docs/main/notes/extending.func.html"
                )
            if VMAP_LEVELS:
                from .._functorch.autograd_function import check_vmap_support

                check_vmap_support(cls, Function)
        return _apply(cls, args, separate)


def _tangent_values(args):
    from .forward_ad import tangent_of

    out = {}
    for a in args:
        t = tangent_of(a) if isinstance(a, Tensor) else None
        if t is not None:
            out[id(a)] = (t, t._data.copy())
    return out


def _restore_dirty_tangents(ctx, args, before) -> None:
    from .forward_ad import _set_tangent, tangent_of

    for a in ctx.__dict__.get("dirty_tensors", ()):
        if before and id(a) in before:
            t, values = before[id(a)]
            t._data[...] = values
            if tangent_of(a) is not t:
                _set_tangent(a, t)


# forward function -> (its signature, the defaults of its parameters when every parameter is
# plain positional-or-keyword, else None): inspect.signature costs ~10 us a call, and a call
# that passes such parameters positionally binds to its arguments and the trailing defaults
_SIGNATURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_PLAIN_PARAM = inspect.Parameter.POSITIONAL_OR_KEYWORD
_NO_DEFAULT = inspect.Parameter.empty


def _bind_defaults(fn, args, kwargs):
    try:
        sig, defaults = _SIGNATURES[fn]
    except (KeyError, TypeError):  # TypeError: not weak-referenceable (a callable object)
        sig = inspect.signature(fn)
        ps = sig.parameters.values()
        defaults = tuple(p.default for p in ps) if all(p.kind is _PLAIN_PARAM for p in ps) else None
        try:
            _SIGNATURES[fn] = (sig, defaults)
        except TypeError:
            pass
    if not kwargs and defaults is not None and len(args) <= len(defaults):
        rest = defaults[len(args) :]
        for d in rest:  # ``in`` would compare a tensor default with ==
            if d is _NO_DEFAULT:
                break  # a required parameter is missing: sig.bind raises Python's error
        else:
            return (*args, *rest)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args)


def _apply(cls, args, separate):
    ctx = cls._backward_cls()
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    ctx._is_tensor_input = is_tensor
    grad_on = STATE.grad_enabled
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg for a in args)
    requires = grad_on and any(ctx.needs_input_grad)
    # The tangents as forward found them: an in-place forward (mark_dirty) also updates its
    # input's tangent, and jvp must see the tangent before that, or it is applied twice.
    fw_before = _tangent_values(args) if STATE.fw_level >= 0 else None
    STATE.grad_enabled = False
    try:
        if separate:
            outputs = _forward(cls, args, grad_on)
            cls.setup_context(ctx, args, outputs)
        else:
            outputs = cls.forward(ctx, *args)
    finally:
        STATE.grad_enabled = grad_on
    if STATE.fw_level >= 0:
        from .forward_ad import _function_jvp

        _restore_dirty_tangents(ctx, args, fw_before)
        _function_jvp(cls, ctx, args, outputs)
    if not requires:
        ctx.__dict__.pop("to_save", None)
        return _views_of_returned_inputs(args, outputs, ctx)
    return _wrap_outputs(ctx, args, outputs)


def _forward(cls, args, grad_on):
    if VMAP_LEVELS:
        from .._functorch.autograd_function import batched_level, vmap_forward

        level = batched_level(args)
        if level >= 0:  # Note [Function under vmap]
            return vmap_forward(cls, args, level, grad_on)
    if GRAD_DEPTH[0] and any(isinstance(a, Tensor) and a._rg for a in args):
        # under a grad transform forward sees the inputs one level down (torch unwraps them):
        # plain tensors that do not require grad, so forward may call .numpy() on them
        low = [a.detach() if isinstance(a, Tensor) and a._rg else a for a in args]
        back = {id(d): a for d, a in zip(low, args) if d is not a}
        out = cls.forward(*low)
        if isinstance(out, tuple):
            return tuple(back.get(id(o), o) for o in out)
        return back.get(id(out), out)
    return cls.forward(*args)


def _as_view_of(a: Tensor) -> Tensor:
    """An input returned as is comes back as a new view of it, as in PyTorch."""
    v = _make(a._data, a._dtype, Tensor, a._device, vc=a._vc)
    v._base = a if a._base is None else a._base
    return v


def _views_of_returned_inputs(args, outputs, ctx):
    dirty = {id(t) for t in ctx.__dict__.get("dirty_tensors", ())}
    ids = {id(a) for a in args if isinstance(a, Tensor)} - dirty
    if isinstance(outputs, tuple):
        if any(id(o) in ids for o in outputs):
            return tuple(_as_view_of(o) if id(o) in ids else o for o in outputs)
        return outputs
    return _as_view_of(outputs) if id(outputs) in ids else outputs


_VIEW_MSG = ("Output {k} of {name} is a view and is being modified inplace. This view was created "
             "inside a custom Function (or because an input was returned as-is) and the autograd "
             "logic to handle view+inplace would override the custom backward associated with the "
             "custom Function, leading to incorrect gradients. This behavior is forbidden. You can "
             "fix this by cloning the output of the custom Function.")  # fmt: skip
_MULTI_VIEW_MSG = ("Output {k} of {name} is a view and is being modified inplace. This view is the "
                   "output of a function that returns multiple views. Such functions do not allow "
                   "the output views to be modified inplace. You should replace the inplace "
                   "operation by an out-of-place one.")  # fmt: skip


def _wrap_outputs(ctx, args, outputs):
    is_tuple = isinstance(outputs, tuple)
    outs = list(outputs) if is_tuple else [outputs]
    tensor_args = [a for a in args if isinstance(a, Tensor)]
    ctx.next_functions = tuple(gradient_edge(a) or (None, 0) for a in tensor_args)
    ctx._input_meta = tuple((a._data.shape, a._dtype, a._device) for a in tensor_args)
    dirty = {id(t) for t in ctx.__dict__.get("dirty_tensors", ())}
    nondiff = {id(t) for t in ctx.__dict__.get("non_differentiable", ())}
    input_ids = {id(a) for a in tensor_args}
    metas = []
    for k, o in enumerate(outs):
        if not isinstance(o, Tensor):
            metas.append(None)
            continue
        metas.append((o._data.shape, o._dtype, o._device))
        if id(o) in dirty:
            if o._grad_fn is None and o._rg:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            o._vc[0] += 0
        elif id(o) in input_ids:
            o = outs[k] = _as_view_of(o)
        if id(outputs if not is_tuple else outputs[k]) in nondiff or o._dtype.category < 2:
            o._rg = False
            continue
        o._grad_fn = ctx
        o._rg = True
        if k:
            o._out_nr = k
    ctx._out_meta = metas
    ctx._nout = len(outs)
    views = [k for k, o in enumerate(outs) if isinstance(o, Tensor) and o._base is not None and o._rg
             and id(outputs[k] if is_tuple else outputs) not in dirty]  # fmt: skip
    for k in views:  # in-place on them later would bypass this Function's backward: refused
        msg = _MULTI_VIEW_MSG if len(views) > 1 else _VIEW_MSG
        outs[k].__dict__["_fn_view_msg"] = msg.format(k=k, name=ctx._forward_cls.__name__)
    to_save = ctx.__dict__.pop("to_save", None)
    if to_save is not None:
        out_pos = {id(o): k for k, o in enumerate(outs) if isinstance(o, Tensor)}
        orig = {id(o): k for k, o in enumerate(outputs if is_tuple else (outputs,)) if isinstance(o, Tensor)}
        saved = []
        for t in to_save:
            if t is None:
                saved.append(None)
            elif id(t) in out_pos or id(t) in orig:
                k = out_pos.get(id(t), orig.get(id(t)))
                saved.append(SavedTensor(outs[k], ctx, k))
            else:
                saved.append(SavedTensor(t))
        ctx._saved = saved
    return tuple(outs) if is_tuple else outs[0]


def once_differentiable(fn):
    """Decorate ``backward``: it runs without recording, and differentiating it again raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .grad_mode import no_grad

        with no_grad():
            outputs = fn(ctx, *args)
        if not STATE.grad_enabled or not any(isinstance(a, Tensor) and a._rg for a in args):
            return outputs
        tup = outputs if isinstance(outputs, tuple) else (outputs,)
        err = _DelayedError(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            [a for a in args if isinstance(a, Tensor)],
        )
        wrapped = []
        for o in tup:
            if isinstance(o, Tensor) and o._dtype.category >= 2:
                o = _make(o._data, o._dtype, Tensor, o._device)
                o._grad_fn = err
                o._rg = True
            wrapped.append(o)
        return tuple(wrapped) if isinstance(outputs, tuple) else wrapped[0]

    return wrapper


class _DelayedError(Node):
    def __init__(self, msg, inputs):
        super().__init__(tuple(gradient_edge(t) or (None, 0) for t in inputs))
        self.msg = msg

    def name(self) -> str:
        return "Error"

    def apply(self, *grads):
        raise RuntimeError(self.msg)
