"""The ``__torch_function__`` protocol: the slow path behind every public wrapper's gate.

See Note [One cheap gate]. ``NO_TF`` caches the types known to need no handler (plain
Tensor, Python numbers, classes whose ``__torch_function__`` is disabled); the generated
wrappers test membership, and only arguments of other types reach this module. The tables
(``get_overridable_functions``, ``resolve_name`` ...) are generated in ``_overridable.py``.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from typing import Any, Callable, Iterable

from . import _C, _ops
from ._C import (  # noqa: F401 (re-exported: PyTorch code imports them from here too)
    ALL_DISABLED,
    ENABLED,
    SUBCLASSES_DISABLED,
    TF_STATE,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _is_torch_function_mode_enabled,
    _len_torch_function_stack,
    _pop_torch_function_stack,
    _push_on_torch_function_stack,
)
from ._overridable import (  # noqa: F401
    PUBLIC,
    _get_tensor_methods,
    get_ignored_functions,
    get_overridable_functions,
    get_testing_overrides,
    is_tensor_method_or_property,
    resolve_name,
)
from ._state import STATE
from ._tensor import Tensor

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
    "handle_torch_function", "has_torch_function", "has_torch_function_unary",
    "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property",
    "resolve_name", "wrap_torch_function", "TorchFunctionMode", "enable_reentrant_dispatch",
]  # fmt: skip


class _NotHandled:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_HANDLED"


NOT_HANDLED = _NotHandled()
NO_TF: set = {Tensor, int, float, bool, complex, type(None), str, slice, type(Ellipsis)}


def _tf_impl(tp):
    """The type's __torch_function__, or None when it has none or opts out."""
    attr = getattr(tp, "__torch_function__", None)
    if attr is None or getattr(attr, "__func__", attr) is _disabled_torch_function_impl:
        return None
    return attr


def _forget_type(cls) -> None:
    NO_TF.discard(cls)


def _needs_handler(tp) -> bool:
    if tp in NO_TF:
        return False
    if _tf_impl(tp) is None:
        NO_TF.add(tp)
        return False
    return True


def list_has_tf(seq) -> bool:
    if type(seq) not in (list, tuple):
        return type(seq) not in NO_TF and _needs_handler(type(seq))
    return any(type(x) not in NO_TF and _needs_handler(type(x)) for x in seq)


def _get_overloaded_args(relevant: Iterable, get_type_fn=type) -> list:
    """Arguments whose types define __torch_function__, one per type: subclasses before
    superclasses, otherwise left to right (PyTorch's order)."""
    if TF_STATE[0] != ENABLED:
        return []
    args = []
    for a in relevant:
        tp = get_type_fn(a)
        if tp in NO_TF or not _needs_handler(tp):
            continue
        if not args:  # the common case: one overloaded argument
            args.append(a)
            continue
        if any(get_type_fn(o) is tp for o in args):
            continue
        idx = len(args)
        for i, other in enumerate(args):
            if issubclass(tp, get_type_fn(other)):
                idx = i
                break
        args.insert(idx, a)
    return args


_overloaded_args = _get_overloaded_args


def _flat_tensor_likes(args, kwargs) -> tuple:
    out = []
    for a in (*args, *(kwargs or {}).values()):
        if type(a) in (list, tuple):
            out.extend(x for x in a if type(x) not in NO_TF)
        elif type(a) not in NO_TF:
            out.append(a)
    return tuple(out)


def _op_torch_function(op, args, kwargs):
    """Note [Operator calls see __torch_function__] (numtorch._ops)."""
    state = TF_STATE[0]
    if state == ALL_DISABLED:
        return _ops._NH
    relevant = _flat_tensor_likes(args, kwargs)
    overloaded = _get_overloaded_args(relevant)
    if not (STATE.tf_modes or overloaded):
        return _ops._NH
    return _run_handlers(op, relevant, args, kwargs or None, False, overloaded)


def has_torch_function(relevant_args: Iterable) -> bool:
    """Whether a call with these arguments must go through ``__torch_function__``.

    >>> numtorch.overrides.has_torch_function((numtorch.ones(1),))
    False
    """
    if STATE.tf_modes and TF_STATE[0] != ALL_DISABLED:
        return True
    return bool(_get_overloaded_args(relevant_args))


def has_torch_function_unary(arg) -> bool:
    """``has_torch_function((arg,))``.

    >>> numtorch.overrides.has_torch_function_unary(numtorch.ones(1))
    False
    """
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    """``has_torch_function(args)``.

    >>> numtorch.overrides.has_torch_function_variadic(numtorch.ones(1), 2)
    False
    """
    return has_torch_function(args)


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs):
    """Run the modes and the overloaded arguments' handlers for a call of ``public_api``.

    >>> class Neg:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return -1
    >>> numtorch.overrides.handle_torch_function(numtorch.add, (Neg(),), Neg(), 1)
    -1
    """
    r = _run_handlers(public_api, tuple(relevant_args), args, kwargs, python_api=True)
    if r is NOT_HANDLED:
        return public_api(*args, **kwargs)
    return r


def _run_handlers(func, relevant, args, kwargs, python_api=False, overloaded=None):
    if overloaded is None:
        overloaded = _get_overloaded_args(relevant)
    types = (type(overloaded[0]),) if len(overloaded) == 1 else tuple(map(type, overloaded))
    mode = None
    if STATE.tf_modes and TF_STATE[0] != ALL_DISABLED:
        # Note [Mode handler runs with itself popped]: calls its handler makes reach the next
        # mode out (or the subclasses); ``with self:`` pushes it back.
        mode = STATE.tf_modes.pop()
        try:
            r = mode.__torch_function__(func, types, args, kwargs)
        finally:
            STATE.tf_modes.append(mode)
        if r is not NotImplemented:
            return r
    elif not overloaded:
        return NOT_HANDLED
    for a in overloaded:
        handler = a.__torch_function__
        if getattr(handler, "__self__", None) is a:
            warnings.warn(
                "Defining your `__torch_function__` as a plain method is deprecated and will be an "
                "error in future, please define it as a classmethod.",
                UserWarning,
                stacklevel=3,
            )
        r = handler(func, types, args, kwargs)
        if r is not NotImplemented:
            return r
    raise TypeError(_not_implemented_text(func, overloaded, mode, python_api))


def _not_implemented_text(func, overloaded, mode, python_api: bool) -> str:
    name = resolve_name(func)
    if python_api:  # torch/overrides.py's handle_torch_function
        msg = (
            f"no implementation found for '{name}' on types that implement "
            f"__torch_function__: {[type(a) for a in overloaded]}"
        )
        return msg + (f" nor in mode {mode}" if mode is not None else "")
    lines = [f"  - mode object {mode!r}"] if mode is not None else []
    lines += [f"  - tensor subclass {type(a)!r}" for a in overloaded]
    return (
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        "NotImplemented:\n\n" + "\n".join(lines) + "\n\nFor more information, try re-running "
        "with TORCH_LOGS=not_implemented"
    )


def dispatch_torch_function(func, relevant, pos, kw, is_method):
    """Entry from a generated wrapper whose gate fired (see numtorch._api)."""
    state = TF_STATE[0]
    # inside a subclass handler (SUBCLASSES_DISABLED) no argument is looked at: the common
    # re-entry of the default Tensor.__torch_function__ costs one read here
    overloaded = _NONE
    if state == ENABLED:
        for a in relevant:
            if type(a) not in NO_TF:
                overloaded = _get_overloaded_args(relevant)
                break
    modes = STATE.tf_modes
    binding = PUBLIC.get(func)
    if state == ALL_DISABLED or not (modes or overloaded):
        if binding is not None and binding._strict and not isinstance(relevant[0], Tensor):
            raise TypeError(
                f"{binding.name}(): argument '{binding._strict}' (position 1) must be Tensor, "
                f"not {type(relevant[0]).__name__}"
            )
        return NOT_HANDLED
    tf_func, py = func, False
    if binding is not None:
        if len(pos) > binding._n_required:
            pos = _trim_defaults(pos, binding._pos_defaults)
        tf_func = binding._tf_func or func
        py = binding._py
    if overloaded:
        return _run_handlers(tf_func, relevant, pos, kw or None, py, overloaded)
    # modes only (a TorchFunctionMode over plain tensors): Note [Mode handler runs with itself
    # popped], as in _run_handlers, without its subclass half
    mode = modes.pop()
    try:
        r = mode.__torch_function__(tf_func, (), pos, kw or None)
    finally:
        modes.append(mode)
    if r is not NotImplemented:
        return r
    raise TypeError(_not_implemented_text(tf_func, overloaded, mode, py))


_NONE: list = []  # never mutated: the overloaded arguments of a call that has none


def _trim_defaults(pos: tuple, defaults: tuple) -> tuple:
    n = len(pos)
    while 0 < n <= len(defaults):
        d = defaults[n - 1]
        v = pos[n - 1]
        if d is _REQUIRED:
            break
        if d is None or d.__class__ is bool:
            if v is not d:
                break
        elif v.__class__ is not d.__class__ or v != d:
            break
        n -= 1
    return pos[:n]


_REQUIRED = object()


def _same(value, default) -> bool:
    if default is None or isinstance(default, bool):
        return value is default
    return type(value) is type(default) and value == default


def nondefault_kwargs(pairs: tuple, required: dict) -> dict:
    kw = dict(required)
    for name, value, default in pairs:
        if not _same(value, default):
            kw[name] = value
    return kw


def register_public(fn: Callable, binding, is_method: bool) -> None:
    import inspect

    params = [
        p for p in inspect.signature(fn).parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    binding._pos_defaults = tuple(_REQUIRED if p.default is p.empty else p.default for p in params)
    # positional arguments past the last required one may equal their defaults (trimmed)
    req = [i + 1 for i, d in enumerate(binding._pos_defaults) if d is _REQUIRED]
    binding._n_required = req[-1] if req else 0
    binding._is_method = is_method
    binding._tf_func = None  # Note [Operators pass the method PyTorch passes] (numtorch._api)
    # torch.nn.functional is Python in PyTorch: its all-NotImplemented error is overrides.py's
    binding._py = binding.module == "torch.nn.functional"
    first = binding.relevant[0] if binding.relevant else None
    # A Scalar overload (bucketize.Scalar) makes a number a valid first argument.
    scalar_first = any(
        o._schema.positional and o._schema.positional[0].type == "Scalar"
        for o in binding.ops
        if hasattr(o, "_schema")
    )
    strict = first in ("input", "self") and not is_method and not scalar_first
    binding._strict = first if strict else None
    PUBLIC[fn] = binding


def is_tensor_like(inp) -> bool:
    """True for Tensors and for any object whose type defines ``__torch_function__``.

    >>> numtorch.overrides.is_tensor_like(numtorch.ones(1)), numtorch.overrides.is_tensor_like(6)
    (True, False)
    """
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


# ---- the default Tensor.__torch_function__ ---------------------------------------------------------
def get_default_nowrap_functions() -> set:
    """Functions whose results the default ``Tensor.__torch_function__`` does not convert."""
    return {Tensor._base.__get__, Tensor.grad.__get__}


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if ret.__class__ is Tensor:
        return ret.as_subclass(cls)
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        if hasattr(type(ret), "_fields"):  # namedtuple return types take fields positionally
            return type(ret)(*(_convert(r, cls) for r in ret))
        return type(ret)(_convert(r, cls) for r in ret)
    return ret


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """Run ``func`` with subclass dispatch disabled, then re-wrap Tensor results as ``cls``."""
    if kwargs is None:
        kwargs = {}
    for t in types:
        if not issubclass(cls, t):
            return NotImplemented
    # DisableTorchFunctionSubclass, inlined: this runs once per call on every pass-through
    # subclass, and inside it the wrappers' fast calls take the subclass (Note [Plain subclasses])
    old = TF_STATE[0]
    if old == ENABLED:
        TF_STATE[0] = SUBCLASSES_DISABLED
    try:
        ret = func(*args, **kwargs)
    finally:
        TF_STATE[0] = old
    if func in _NOWRAP:
        return ret
    return _convert(ret, cls)


_NOWRAP: set = set()  # filled once Tensor's properties exist (numtorch/_tensor_tf.py)
Tensor.__torch_function__ = classmethod(_tensor_torch_function)


# ---- modes -------------------------------------------------------------------------------------
class TorchFunctionMode:
    """Base class for ``__torch_function__`` modes, used as context managers; the innermost runs
    first, before any subclass handler, and is disabled inside its own handler.

    >>> class Log(numtorch.overrides.TorchFunctionMode):
    ...     def __torch_function__(self, func, types, args=(), kwargs=None):
    ...         print(resolve_name(func))
    ...         return func(*args, **(kwargs or {}))
    >>> with Log():
    ...     _ = numtorch.ones(1) + 1
    torch.ones
    torch.Tensor.add
    """

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode whose handler just runs the function (subclass it to override a few calls)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _push_mode(mode) -> None:
    _push_on_torch_function_stack(mode)


def _pop_mode():
    return _pop_torch_function_stack()


@contextlib.contextmanager
def _pop_mode_temporarily():
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


def _get_current_function_mode():
    return STATE.tf_modes[-1] if STATE.tf_modes else None


def _get_current_function_mode_stack() -> list:
    return list(STATE.tf_modes)


def _is_torch_function_mode_enabled_py() -> bool:
    return _is_torch_function_mode_enabled()


@contextlib.contextmanager
def _enable_torch_function():
    with _C._EnableTorchFunction():
        yield


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """Let code running with the Python key excluded (``_DisableTorchDispatch``) reach
    ``__torch_dispatch__`` and dispatch modes again for the duration of the block."""
    saved = _C._TD_DISABLED[0]
    _C._TD_DISABLED[0] = 0
    try:
        yield
    finally:
        _C._TD_DISABLED[0] = saved


def wrap_torch_function(dispatcher: Callable):
    """Make a Python function overridable: ``dispatcher`` returns its tensor-like arguments.

    >>> @numtorch.overrides.wrap_torch_function(lambda x: (x,))
    ... def double(x):
    ...     return x * 2
    >>> double(numtorch.ones(1))
    tensor([2.])
    """

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


_ops._NO_TF = NO_TF
_ops._NH = NOT_HANDLED
_ops._op_torch_function = _op_torch_function
