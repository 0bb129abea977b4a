"""Guards: the properties of a call that a captured graph is valid for.

# Note [Guards]
# A call's arguments are flattened (tuples, lists, dicts); each tensor contributes its class,
# shape, dtype, device, requires_grad and whether it is contiguous (the recorded view ops and the
# fused kernels' layout depend on it), plus the position of its first occurrence (two arguments
# that are one tensor are a different graph than two tensors). Every other leaf contributes its
# type and value (the graph bakes Python numbers in, as Dynamo specializes on them), or its
# identity when unhashable. Grad mode joins the key. A compiled module adds the identity of each
# parameter and buffer and each submodule's plain attributes (``training``, ``eps``); a compiled
# function adds the plain values (numbers, strings, None) of the globals its code names and of
# its closure cells (not of the functions it calls, which Dynamo would also guard). Constants the graph holds by
# reference (Note [Captured graph]) are checked after the key matches: a parameter whose dtype
# or shape changed in place (``.data = ...``) invalidates the graph. ``dynamic=True`` is
# accepted, but the key keeps shapes: the generated kernels are shape-generic, so a new shape
# costs one capture and reuses the kernel; shape-only recaptures do not count toward the limit.
"""

from __future__ import annotations

from .._state import STATE
from .._tensor import Tensor


def flatten(args: tuple, kwargs: dict) -> tuple[list, list]:
    """(tensors, key parts) of a call's arguments (Note [Guards])."""
    tensors: list = []
    key: list = []
    _walk(args, tensors, key)
    if kwargs:
        key.append("**")
        for k in sorted(kwargs):
            key.append(k)
            _walk(kwargs[k], tensors, key)
    return tensors, key


def _walk(x, tensors: list, key: list) -> None:
    c = x.__class__
    if c is tuple or c is list:
        key.append((c, len(x)))
        for v in x:
            _walk(v, tensors, key)
    elif c is dict:
        key.append((dict, tuple(x)))
        for v in x.values():
            _walk(v, tensors, key)
    elif isinstance(x, Tensor):
        first = len(tensors)
        for i, t in enumerate(tensors):
            if t is x:
                first = i
                break
        tensors.append(x)
        d = x._data
        key.append((c, d.shape, x._dtype, x._device, x._rg, d.flags.c_contiguous, first))
    else:
        try:
            hash(x)
            key.append((c, x))
        except TypeError:
            key.append((c, id(x)))


_PLAIN = (int, float, bool, str, type(None))


def module_key(mod) -> tuple:
    """Identity of a module's parameters and buffers, and its submodules' plain attributes
    (``training``, ``eps``, ``scale = 2.0`` ...)."""
    parts = [id(p) for p in mod.parameters()]
    parts += [id(b) for b in mod.buffers()]
    for m in mod.modules():
        parts += [(k, v) for k, v in m.__dict__.items() if v.__class__ in _PLAIN]
    return tuple(parts)


def function_reads(fn) -> tuple[list, list]:
    """(global names, closure cells) of ``fn`` holding plain Python values when compiled: the
    values its code may bake into a graph (Note [Guards])."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return [], []
    g = getattr(fn, "__globals__", {})
    names = [n for n in code.co_names if n in g and g[n].__class__ in _PLAIN]
    cells = [c for c in (fn.__closure__ or ()) if _cell_plain(c)]
    return names, cells


def _cell_plain(c) -> bool:
    try:
        return c.cell_contents.__class__ in _PLAIN
    except ValueError:  # an empty cell
        return False


def function_key(fn, names: list, cells: list) -> tuple:
    g = fn.__globals__
    return tuple(g.get(n) for n in names) + tuple(c.cell_contents for c in cells)


def shape_free(key: tuple) -> tuple:
    """The key with tensor shapes left out (to tell shape-only recaptures apart)."""
    return tuple((k[0], len(k[1]), *k[2:]) if k.__class__ is tuple and len(k) == 7 else k for k in key)


def call_key(args: tuple, kwargs: dict, mod=None, fn_reads=None) -> tuple[list, tuple]:
    tensors, key = flatten(args, kwargs)
    key.append(STATE.grad_enabled)
    if mod is not None:
        key.append(module_key(mod))
    if fn_reads is not None:
        key.append(function_key(*fn_reads))
    return tensors, tuple(key)


def const_meta(t) -> tuple:
    return (t._data.shape, t._dtype, t._device, t._rg, t._data.flags.c_contiguous)
