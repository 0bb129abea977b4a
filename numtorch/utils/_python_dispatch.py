"""The Python dispatch key: TorchDispatchMode and ``__torch_dispatch__`` subclasses.

Reached from numtorch._dispatch.below_autograd, so handlers run below autograd and see aten
overloads (``func`` is a ``numtorch.ops.aten.<op>.<overload>``) with arguments normalised per
PyTorch's calling convention (numtorch._schema.normalize_for_dispatch).
"""

from __future__ import annotations

import contextlib

from .._schema import normalize_for_dispatch
from .._state import STATE
from .._tensor import PY_DISPATCH_TYPES, Tensor


class TorchDispatchMode:
    """Base class for modes that intercept every aten call below autograd.

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
        pass

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        STATE.td_modes.append(self)
        return self

    def __exit__(self, *exc):
        STATE.td_modes.remove(self)

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs).__enter__()

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False


def _get_current_dispatch_mode():
    return STATE.td_modes[-1] if STATE.td_modes else None


def _get_current_dispatch_mode_stack():
    return list(STATE.td_modes)


@contextlib.contextmanager
def _pop_mode_temporarily():
    mode = STATE.td_modes.pop()
    try:
        yield mode
    finally:
        STATE.td_modes.append(mode)


def _subclass_args(op, vals):
    found = []
    for i in op.tensor_idx:
        v = vals[i]
        if v.__class__ in PY_DISPATCH_TYPES and v not in found:
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


def python_key(op, vals):
    from .._dispatch import backend

    args, kwargs = normalize_for_dispatch(op._schema, vals)
    overloaded = _subclass_args(op, vals)
    types = tuple(type(a) for a in overloaded)
    if STATE.td_modes:
        mode = STATE.td_modes.pop()
        try:
            r = mode.__torch_dispatch__(op, types, args, kwargs)
        finally:
            STATE.td_modes.append(mode)
        if r is not NotImplemented:
            return r
    if not overloaded:
        return backend(op, vals)
    for a in overloaded:
        r = type(a).__torch_dispatch__(op, types, args, kwargs)
        if r is not NotImplemented:
            return r
    raise TypeError(
        f"Multiple dispatch failed for '{op}'; all __torch_dispatch__ handlers returned "
        f"NotImplemented:\n\n  - tensor subclass {', '.join(repr(t) for t in types)}\n\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented"
    )


def is_traceable_wrapper_subclass(t) -> bool:
    return (
        isinstance(t, Tensor)
        and hasattr(t, "__tensor_flatten__")
        and hasattr(t, "__tensor_unflatten__")
    )
