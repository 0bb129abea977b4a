"""Guards: the properties of a call that a captured graph is valid for.

# Note [Guards]
# A call's arguments are flattened (tuples, lists, dicts); each tensor contributes its class,
# shape, dtype, device, requires_grad and whether it is contiguous (the recorded view ops and the
# fused kernels' layout depend on it), plus the position of its first occurrence (two arguments
# that are one tensor are a different graph than two tensors). Every other leaf contributes its
# type and value (the graph bakes Python numbers in, as Dynamo specializes on them), or its
# identity when unhashable. Grad mode joins the key. A compiled module adds the identity of each
# parameter and buffer and each submodule's ``training`` flag. Constants the graph holds by
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


def module_key(mod) -> tuple:
    """Identity of a module's parameters and buffers and its submodules' training flags."""
    parts = [id(p) for p in mod.parameters()]
    parts += [id(b) for b in mod.buffers()]
    parts += [m.training for m in mod.modules()]
    return tuple(parts)


def shape_free(key: tuple) -> tuple:
    """The key with tensor shapes left out (to tell shape-only recaptures apart)."""
    return tuple((k[0], len(k[1]), *k[2:]) if k.__class__ is tuple and len(k) == 7 else k for k in key)


def call_key(args: tuple, kwargs: dict, mod=None) -> tuple[list, tuple]:
    tensors, key = flatten(args, kwargs)
    key.append(STATE.grad_enabled)
    if mod is not None:
        key.append(module_key(mod))
    return tensors, tuple(key)


def const_meta(t) -> tuple:
    return (t._data.shape, t._dtype, t._device, t._rg, t._data.flags.c_contiguous)
