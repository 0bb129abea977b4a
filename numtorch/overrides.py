"""The ``__torch_function__`` protocol: the slow path behind every public wrapper's gate.

See Note [One cheap gate]. ``NO_TF`` caches the types known to need no handler (plain
Tensor, Python numbers, classes whose ``__torch_function__`` is disabled); the generated
wrappers test membership, and only arguments of other types reach this module.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

from ._state import STATE
from ._tensor import Tensor


class _NotHandled:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_HANDLED"


NOT_HANDLED = _NotHandled()
NO_TF: set = {Tensor, int, float, bool, complex, type(None), str, slice, type(Ellipsis)}
_SUBCLASS_DISABLED = [0]  # depth of DisableTorchFunctionSubclass contexts
_ALL_DISABLED = [0]  # depth of DisableTorchFunction contexts
PUBLIC: dict[Callable, Any] = {}  # generated public function -> its Binding


def _disabled_torch_function_impl(cls, func, types, args=(), kwargs=None):
    """Assign as ``__torch_function__ = _disabled_torch_function_impl`` to opt a subclass out."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _tf_impl(tp):
    """The type's __torch_function__ as a plain function, or None when it has none or opts out."""
    attr = getattr(tp, "__torch_function__", None)
    if attr is None:
        return None
    fn = getattr(attr, "__func__", attr)
    if fn is _disabled_torch_function_impl:
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


def _overloaded_args(relevant: Iterable) -> list:
    """Arguments whose types define __torch_function__: subclasses before superclasses, else left to right."""
    if _SUBCLASS_DISABLED[0]:
        return []
    args, seen = [], set()
    for a in relevant:
        tp = type(a)
        if tp in seen or not _needs_handler(tp):
            continue
        seen.add(tp)
        idx = len(args)
        for i, other in enumerate(args):
            if issubclass(tp, type(other)):
                idx = i
                break
        args.insert(idx, a)
    return args


def has_torch_function(relevant_args: Iterable) -> bool:
    """Whether a call with these arguments must go through ``__torch_function__``.

    >>> numtorch.overrides.has_torch_function((numtorch.ones(1),))
    False
    """
    if STATE.tf_modes and not _ALL_DISABLED[0]:
        return True
    return bool(_overloaded_args(relevant_args))


def has_torch_function_unary(arg) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs):
    """Run the torch-function modes and the overloaded arguments' handlers for one call."""
    r = _run_handlers(public_api, tuple(relevant_args), args, kwargs or None)
    if r is NOT_HANDLED:
        return public_api(*args, **kwargs)
    return r


def _run_handlers(func, relevant, args, kwargs):
    overloaded = _overloaded_args(relevant)
    types = tuple(type(a) for a in overloaded)
    if STATE.tf_modes and not _ALL_DISABLED[0]:
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
        r = type(a).__torch_function__(func, types, args, kwargs)
        if r is not NotImplemented:
            return r
    names = ", ".join(t.__name__ for t in types)
    raise TypeError(
        f"no implementation found for '{resolve_name(func)}' on types that implement "
        f"__torch_function__: [{names}]"
    )


def dispatch_torch_function(func, relevant, pos, kw, is_method):
    """Entry from a generated wrapper whose gate fired (see numtorch._api)."""
    binding = PUBLIC.get(func)
    if _ALL_DISABLED[0] or not (STATE.tf_modes or _overloaded_args(relevant)):
        if binding is not None and binding._strict and not isinstance(relevant[0], Tensor):
            raise TypeError(
                f"{binding.name}(): argument '{binding._strict}' (position 1) must be Tensor, "
                f"not {type(relevant[0]).__name__}"
            )
        return NOT_HANDLED
    if binding is not None:
        pos = _trim_defaults(pos, binding)
    return _run_handlers(func, relevant, pos, kw or None)


def _trim_defaults(pos: tuple, binding) -> tuple:
    defaults = binding._pos_defaults
    n = len(pos)
    while 0 < n <= len(defaults) and defaults[n - 1] is not _REQUIRED and _same(pos[n - 1], defaults[n - 1]):
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
    binding._is_method = is_method
    first = binding.relevant[0] if binding.relevant else None
    binding._strict = first if first in ("input", "self") and not is_method else None
    PUBLIC[fn] = binding


def resolve_name(f) -> str | None:
    """PyTorch's name of a public function, e.g. ``'torch.add'`` or ``'torch.Tensor.mul'``."""
    b = PUBLIC.get(f)
    if b is not None:
        return f"torch.Tensor.{b.name}" if b.module == "Tensor" else f"{b.module}.{b.name}"
    qual = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    mod = getattr(f, "__module__", None)
    if qual is None:
        return None
    if mod and mod.startswith("numtorch"):
        mod = "torch" + mod[len("numtorch") :]
        if qual.startswith("Tensor."):
            mod = "torch"
    return f"{mod}.{qual}" if mod else qual


def is_tensor_like(inp) -> bool:
    """True for Tensors and for any object whose type defines ``__torch_function__``.

    >>> numtorch.overrides.is_tensor_like(numtorch.ones(1))
    True
    """
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


class DisableTorchFunctionSubclass:
    """Within this context, only modes (not subclasses) see ``__torch_function__``."""

    def __enter__(self):
        _SUBCLASS_DISABLED[0] += 1
        return self

    def __exit__(self, *exc):
        _SUBCLASS_DISABLED[0] -= 1


class DisableTorchFunction:
    """Within this context, neither modes nor subclasses see ``__torch_function__``."""

    def __enter__(self):
        _ALL_DISABLED[0] += 1
        _SUBCLASS_DISABLED[0] += 1
        return self

    def __exit__(self, *exc):
        _ALL_DISABLED[0] -= 1
        _SUBCLASS_DISABLED[0] -= 1


def _convert(ret, cls):
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        return type(ret)(_convert(r, cls) for r in ret) if type(ret) in (tuple, list) else type(ret)(
            *(_convert(r, cls) for r in ret)
        )
    return ret


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """Default ``Tensor.__torch_function__``: run func, then re-wrap Tensor outputs as ``cls``."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in _NOWRAP:
            return ret
        return _convert(ret, cls)


_NOWRAP: set = set()
Tensor.__torch_function__ = classmethod(_tensor_torch_function)


class TorchFunctionMode:
    """Base class for ``__torch_function__`` modes, used as context managers.

    >>> class Log(numtorch.overrides.TorchFunctionMode):
    ...     def __torch_function__(self, func, types, args=(), kwargs=None):
    ...         return func(*args, **(kwargs or {}))
    >>> with Log():
    ...     _ = numtorch.ones(1) + 1
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        STATE.tf_modes.append(self)
        return self

    def __exit__(self, *exc):
        STATE.tf_modes.remove(self)

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs).__enter__()


def wrap_torch_function(dispatcher: Callable):
    """Decorator making a Python function overridable by ``__torch_function__``."""

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner
