"""Kernel calls of the session-15 binding fast calls through compiled entry points (Note
[Compiled kernel entry]): reduction, selection, norm-layer and loss kernels."""

from __future__ import annotations

from ._reduce import _entry

# kernel name -> first argument's np dtype -> compiled entry: two dict reads cost less than
# building and hashing a (name, dtype) key (~60 ns of each fast call's kernel call)
_BY_NAME: dict = {}
_NONE: dict = {}


def call(mod, name: str, args: tuple):
    """``mod.<name>(*args)``: through the dispatcher the first time for args[0]'s dtype, then
    through the compiled entry for the types of that call. Each caller passes one set of types
    per dtype (C-contiguous arrays of fixed ranks and dtypes, Python ints, floats and bools), so
    the entry's types are the call's."""
    k = _BY_NAME.get(name, _NONE).get(args[0].dtype)
    if k is not None:
        return k(*args)
    kernel = getattr(mod, name)
    r = kernel(*args)
    _BY_NAME.setdefault(name, {})[args[0].dtype] = _entry(kernel, args)
    return r


def entry(mod, name: str, args: tuple):
    """(result, the compiled entry ``call`` keeps for these args): for a caller that keeps the
    entry in its own per-geometry plan and calls it directly afterwards."""
    r = call(mod, name, args)
    return r, _BY_NAME[name][args[0].dtype]


def learned(name: str, dtype):
    """The compiled entry ``call`` keeps for kernel ``name`` and first-argument dtype, or None."""
    return _BY_NAME.get(name, _NONE).get(dtype)
