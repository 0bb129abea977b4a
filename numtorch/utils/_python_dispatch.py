"""The Python dispatch key: TorchDispatchMode and ``__torch_dispatch__`` subclasses.

Reached from numtorch._dispatch.below_autograd, so handlers run below autograd and see aten
overloads (``func`` is a ``numtorch.ops.aten.<op>.<overload>``) with arguments normalised per
PyTorch's calling convention (numtorch._schema.normalize_for_dispatch).
"""

from __future__ import annotations

import contextlib
import warnings

from .. import _dispatch as _D
from .._C import _TD_DISABLED
from .._schema import dispatch_plan, normalize_for_dispatch
from .._state import STATE
from .._tensor import PY_DISPATCH_TYPES, Tensor

__all__ = [
    "TorchDispatchMode", "BaseTorchDispatchMode", "_get_current_dispatch_mode", "_push_mode",
    "_pop_mode", "_pop_mode_temporarily", "_disable_current_modes", "_get_current_dispatch_mode_stack",
    "_len_torch_dispatch_stack", "_get_dispatch_stack_at", "_is_in_torch_dispatch_mode",
    "is_in_torch_dispatch_mode", "any_torch_dispatch_mode_on_stack", "return_and_correct_aliasing",
    "is_traceable_wrapper_subclass", "is_traceable_wrapper_subclass_type", "transform_subclass",
]  # fmt: skip


class TorchDispatchMode:
    """Base class for modes that intercept every aten call below autograd.

    Inside its own ``__torch_dispatch__`` a mode is off (its calls reach the modes below it and
    then the kernels); ``with self:`` turns it back on.

    >>> class Count(numtorch.utils._python_dispatch.TorchDispatchMode):
    ...     def __init__(self):
    ...         super().__init__(); self.n = 0
    ...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
    ...         self.n += 1
    ...         return func(*args, **(kwargs or {}))
    >>> with Count() as c:
    ...     _ = numtorch.ones(2) + 1
    >>> c.n
    2
    """

    def __init__(self, _dispatch_key=None):
        if _dispatch_key is not None:
            self.__dict__["_dispatch_key"] = _dispatch_key
        self.old_dispatch_mode_flags: list = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, *exc):
        st = STATE.td_modes
        for i in range(len(st) - 1, -1, -1):  # the innermost entry: `with self:` may nest
            if st[i] is self:
                del st[i]
                break

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)  # fmt: skip
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return False


BaseTorchDispatchMode = TorchDispatchMode


# ---- the mode stack (innermost last) ------------------------------------------------------------
def _get_current_dispatch_mode():
    return STATE.td_modes[-1] if STATE.td_modes else None


def _get_current_dispatch_mode_stack() -> list:
    return list(STATE.td_modes)


def _len_torch_dispatch_stack() -> int:
    return len(STATE.td_modes)


def _get_dispatch_stack_at(i: int):
    return STATE.td_modes[i]


def _push_mode(mode) -> None:
    if not hasattr(mode, "__torch_dispatch__"):
        raise TypeError(f"{type(mode).__name__} is not a TorchDispatchMode")
    STATE.td_modes.append(mode)


def _pop_mode(k=None):
    if not STATE.td_modes:
        raise AssertionError("Trying to pop from an empty mode stack")
    return STATE.td_modes.pop()


_push_on_torch_dispatch_stack = _push_mode
_pop_torch_dispatch_stack = _pop_mode


@contextlib.contextmanager
def _pop_mode_temporarily(k=None):
    mode = _pop_mode(k)
    try:
        yield mode
    finally:
        STATE.td_modes.append(mode)


@contextlib.contextmanager
def _disable_current_modes():
    """Run the body with no TorchDispatchMode active; the stack comes back afterwards."""
    saved = STATE.td_modes[:]
    del STATE.td_modes[:]
    try:
        yield saved
    finally:
        STATE.td_modes[:] = saved + STATE.td_modes


def _is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    return bool(STATE.td_modes)


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    return bool(STATE.td_modes)


def any_torch_dispatch_mode_on_stack(*, include_infra_modes=True, respect_ignore=False) -> bool:
    return bool(STATE.td_modes)


# ---- the Python key -------------------------------------------------------------------------------
def _subclass_args(op, vals):
    found = []
    for i in op.tensor_idx:
        v = vals[i]
        if v.__class__ in PY_DISPATCH_TYPES and not any(v is f for f in found):
            found.append(v)
    for i in op.list_idx:
        for v in vals[i]:
            if v.__class__ in PY_DISPATCH_TYPES:
                found.append(v)
    ordered = []
    for a in found:
        tp = type(a)
        if any(type(o) is tp for o in ordered):
            continue
        idx = len(ordered)
        for k, o in enumerate(ordered):
            if issubclass(tp, type(o)):
                idx = k
                break
        ordered.insert(idx, a)
    return ordered


# Note [Redispatch loops]
# A __torch_dispatch__ handler that calls ``func`` on its own subclass's instances without
# unwrapping them re-enters itself forever. PyTorch overflows the C++ stack; here the nesting
# depth of the Python key is counted and past _MAX_DEPTH a RuntimeError names the op and the
# handler, long before Python's recursion limit.
_MAX_DEPTH = 120
_DEPTH = [0]


def python_key(op, vals):
    if _TD_DISABLED[0]:
        return _D.backend(op, vals)
    plan = op.dplan
    if plan is None:
        plan = op.dplan = _plan(op)
    args, kwargs = normalize_for_dispatch(op._schema, vals, plan)
    # the common case, no subclass argument, without a call (Note [Python key fast path])
    for i in op.tensor_idx:
        if vals[i].__class__ in PY_DISPATCH_TYPES:
            overloaded = _subclass_args(op, vals)
            break
    else:
        overloaded = _subclass_args(op, vals) if op.list_idx else ()
    types = tuple([type(a) for a in overloaded]) if overloaded else ()
    if _DEPTH[0] >= _MAX_DEPTH:
        who = type(STATE.td_modes[-1]) if STATE.td_modes else types[0] if types else None
        raise RuntimeError(
            f"{op}: __torch_dispatch__ of {getattr(who, '__name__', who)} re-entered the dispatcher "
            f"{_MAX_DEPTH} times: a handler calling func on its own subclass's tensors must unwrap "
            "them first (or run under `with no_dispatch()` / numtorch._C._DisableTorchDispatch())"
        )
    _DEPTH[0] += 1
    try:
        modes = STATE.td_modes
        if modes:
            mode = modes.pop()
            try:
                # Note [register_torch_dispatch]: a handler registered for this mode's (or
                # subclass's) type on a custom op runs instead of its __torch_dispatch__
                h = op.py_kernels.get(type(mode)) if op.py_kernels else None
                r = mode.__torch_dispatch__(op, types, args, kwargs) if h is None else h(mode, op, types, args, kwargs)
            except Exception as e:
                _note(e, op, type(mode))
                raise
            finally:
                modes.append(mode)
            if r is not NotImplemented:
                if plan[5] and not isinstance(r, Tensor):
                    _bad_result(op, r, type(mode))
                return r
        if not overloaded:
            return _D.backend(op, vals)
        for a in overloaded:
            cls = type(a)
            try:
                h = op.py_kernels.get(cls) if op.py_kernels else None
                r = cls.__torch_dispatch__(op, types, args, kwargs) if h is None else h(cls, op, types, args, kwargs)
            except Exception as e:
                _note(e, op, cls)
                raise
            if r is not NotImplemented:
                if plan[5] and not isinstance(r, Tensor):
                    _bad_result(op, r, cls)
                return r
    finally:
        _DEPTH[0] -= 1
    raise TypeError(
        f"Multiple dispatch failed for '{op}'; all __torch_dispatch__ handlers returned "
        f"NotImplemented:\n\n  - tensor subclass {', '.join(repr(t) for t in types)}\n\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented"
    )


# Note [Python key fast path]
# A pass-through mode pays this key on every aten call, so its per-call work is kept to attribute
# reads: the normalisation plan is made once per op (with whether the schema returns a single
# Tensor, which the result check needs), the subclass scan runs only when an argument's class
# has a handler, and the dispatcher and this module hold each other as module objects instead
# of importing inside the call.
def _plan(op) -> tuple:
    rets = op._schema.returns
    return (*dispatch_plan(op._schema), len(rets) == 1 and rets[0].type == "Tensor")


def _note(e: Exception, op, cls) -> None:
    note = f"(raised in {cls.__name__}.__torch_dispatch__ for {op})"
    if note not in getattr(e, "__notes__", ()):
        e.add_note(note)


def _bad_result(op, r, cls):
    # PyTorch converts the handler's result to the schema's return types and refuses others
    # with "Unable to cast <r> to Tensor"; the op and handler are named here.
    raise RuntimeError(
        f"Unable to cast {r} to Tensor: {cls.__name__}.__torch_dispatch__ returned "
        f"{type(r).__name__} for {op}, whose schema returns Tensor"
    )


# ---- wrapper-subclass helpers ---------------------------------------------------------------------
def is_traceable_wrapper_subclass(t) -> bool:
    """True for a Tensor subclass instance defining ``__tensor_flatten__``/``__tensor_unflatten__``."""
    return is_traceable_wrapper_subclass_type(type(t))


def is_traceable_wrapper_subclass_type(t) -> bool:
    return (
        isinstance(t, type)
        and issubclass(t, Tensor)
        and t is not Tensor
        and hasattr(t, "__tensor_flatten__")
        and hasattr(t, "__tensor_unflatten__")
    )


def transform_subclass(t, callback, outer_size=None, outer_stride=None):
    """Rebuild the wrapper subclass ``t`` with ``callback(attr_name, inner_tensor)`` applied to
    each inner tensor (via ``__tensor_flatten__`` / ``__tensor_unflatten__``)."""
    outer_size = t.size() if outer_size is None else outer_size
    outer_stride = t.stride() if outer_stride is None else outer_stride
    attrs, ctx = t.__tensor_flatten__()
    inner = {a: callback(a, getattr(t, a)) for a in attrs}
    return type(t).__tensor_unflatten__(inner, ctx, outer_size, outer_stride)


def _get_write_alias(x):
    alias = x.alias
    return alias if alias is not None and alias.endswith("!") else None


def return_and_correct_aliasing(func, args, kwargs, out):
    """Make a wrapper subclass's result alias its inputs as ``func``'s schema says: an in-place or
    ``out=`` op returns the very input it mutated; a view op's result shares its input's version
    counter and records it as its base."""
    schema = func._schema
    kwargs = kwargs or {}
    vals = list(args) + [kwargs.get(a.name) for a in schema.arguments[len(args):]]

    def arg_for(alias):
        for a, v in zip(schema.arguments, vals):
            if a.alias is not None and a.alias == alias:
                return v
        return None

    rets = schema.returns
    outs = list(out) if isinstance(out, (tuple, list)) and len(rets) > 1 else [out]
    fixed = []
    for r, o in zip(rets, outs):
        src = arg_for(r.alias) if r.alias is not None else None
        if src is None or not isinstance(o, Tensor):
            fixed.append(o)
        elif r.alias.endswith("!"):
            fixed.append(src)  # mutated in place: the input object itself comes back
        else:
            o._vc = src._vc
            o._base = src if src._base is None else src._base
            fixed.append(o)
    return tuple(fixed) if len(rets) > 1 else fixed[0]
