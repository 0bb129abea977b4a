"""Kernel calls of the session-15 binding fast calls through compiled entry points (Note
[Compiled kernel entry]): reduction, selection, norm-layer and loss kernels."""

from __future__ import annotations

from ._reduce import _entry

_ENTRIES: dict = {}  # (kernel name, first argument's np dtype) -> compiled entry


def call(mod, name: str, args: tuple):
    """``mod.<name>(*args)``: through the dispatcher the first time for args[0]'s dtype, then
    through the compiled entry for the types of that call. Each caller passes one set of types
    per dtype (C-contiguous arrays of fixed ranks and dtypes, Python ints, floats and bools), so
    the entry's types are the call's."""
    key = (name, args[0].dtype)
    k = _ENTRIES.get(key)
    if k is not None:
        return k(*args)
    kernel = getattr(mod, name)
    r = kernel(*args)
    _ENTRIES[key] = _entry(kernel, args)
    return r
