"""Lazily conjugated views: ``conj()`` of a complex tensor (PyTorch's conjugate bit).

# Note [Conjugate views]
# x.conj() of a complex x is a view of x's memory with ``_is_conj`` set: its values are the
# conjugates of what the memory holds, and a write through it stores the conjugate, so x sees
# it (as PyTorch's Conjugate dispatch key does). Kernels never see the bit: while any conjugate
# view is alive, _CONJ_MODE sits outermost on the dispatch-mode stack, which turns off every
# fast path (they all test ``not td_modes``) and routes each op through it. It passes ops
# without a conjugate view through; view ops keep the bit on their output (they alias the same
# memory); every other op gets resolved copies and, for an argument it writes, the result is
# conjugated back into the view's memory. Tensor methods that read memory directly (tolist,
# repr, numpy) resolve or refuse as PyTorch's do.
"""

from __future__ import annotations

import weakref

import numpy as np

from ._state import STATE
from ._tensor import Tensor, _make

_LIVE = [0]  # conjugate views alive
_IN_MODE = [False]  # the mode is popped from the stack while it handles an op
_VIEW_AS_REAL = (
    "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor "
    "so you can view it as real, use self.resolve_conj(); however, be warned that the resulting "
    "tensor will NOT alias the original."
)


def mark(t: Tensor, on: bool) -> Tensor:
    """Set ``t``'s conjugate bit (``t`` is a fresh view); keep the mode on while it lives."""
    if not on:
        return t
    t.__dict__["_is_conj"] = True
    _LIVE[0] += 1
    weakref.finalize(t, _release)
    if not _IN_MODE[0] and _CONJ_MODE not in STATE.td_modes:
        STATE.td_modes.insert(0, _CONJ_MODE)
    return t


def _release() -> None:
    _LIVE[0] -= 1
    if not _LIVE[0] and not _IN_MODE[0]:
        modes = STATE.td_modes
        for i, m in enumerate(modes):
            if m is _CONJ_MODE:
                del modes[i]
                break


def resolved(t: Tensor) -> Tensor:
    """A plain tensor holding the values a conjugate view shows."""
    a = t._data
    if t._device.type == "cuda":  # the CUDA conj_physical kernel on a plain alias of the memory
        return _cuda_impl("_conj_physical")(_make(a, t._dtype, Tensor, t._device))
    return _make(np.conj(a, out=np.empty_like(a)), t._dtype, Tensor, t._device)


def _cuda_impl(name: str):
    from .ops._registry import OPS

    return OPS[f"aten::{name}"].impls["cuda"]


def _is_conj(v) -> bool:
    return isinstance(v, Tensor) and v._is_conj


def _swap(v, table):
    if isinstance(v, Tensor) and v._is_conj:
        r = table.get(id(v))
        if r is None:
            r = table[id(v)] = (v, resolved(v))
        return r[1]
    if isinstance(v, (list, tuple)) and any(_is_conj(x) for x in v):
        return type(v)(_swap(x, table) for x in v)
    return v


class _ConjMode:
    """The dispatch mode of Note [Conjugate views] (not a user-visible TorchDispatchMode)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        vals = [*args, *kwargs.values()]
        outer = _IN_MODE[0]
        _IN_MODE[0] = True  # the stack gets this mode back when the call returns
        try:
            if not any(_is_conj(v) or isinstance(v, (list, tuple)) and any(map(_is_conj, v)) for v in vals):
                return func(*args, **kwargs)
            return _handle(func, args, kwargs)
        finally:
            _IN_MODE[0] = outer


def _arg(func, args, kwargs, i):
    name = func._schema.arguments[i].name
    return kwargs[name] if name in kwargs else args[i] if i < len(args) else None


def _handle(func, args, kwargs):
    name = func._schema.name.split("::")[-1]
    if name in ("_conj", "resolve_conj"):
        return func(*args, **kwargs)
    if name == "view_as_real":
        raise RuntimeError(_VIEW_AS_REAL)
    if func.kind == "view" and name != "imag":
        out = func(*args, **kwargs)
        if _is_conj(args[0]):
            for o in out if isinstance(out, (tuple, list)) else (out,):
                if isinstance(o, Tensor) and o._dtype.is_complex:
                    mark(o, True)
        return out
    table: dict = {}
    rargs = tuple(_swap(a, table) for a in args)
    rkw = {k: _swap(v, table) for k, v in kwargs.items()}
    out = func(*rargs, **rkw)
    writes = ((func.self_idx,) if func.self_idx >= 0 else ()) + tuple(func.out_idx)
    for i in writes:
        t = _arg(func, args, kwargs, i)
        for w in t if isinstance(t, (list, tuple)) else (t,):
            if _is_conj(w):
                if w._device.type == "cuda":
                    _cuda_impl("copy_")(_make(w._data, w._dtype, Tensor, w._device), resolved(table[id(w)][1]))
                else:
                    np.conjugate(table[id(w)][1]._data, out=w._data)
                w._vc[0] += 1
    back = {id(r): v for v, r in table.values()}
    if isinstance(out, (tuple, list)):
        return type(out)(back.get(id(o), o) for o in out)
    return back.get(id(out), out)


_CONJ_MODE = _ConjMode()
