"""Spies for the formula tests: the aten calls a dispatch mode sees, and the NumPy calls a
formula's NumPy route makes (each test asserts its route was or was not taken)."""

from __future__ import annotations

import numpy as np

from numtorch.utils._python_dispatch import TorchDispatchMode


class OpLog(TorchDispatchMode):
    """Records the aten calls it sees in ``calls`` (``aten.`` left off with ``short``)."""

    def __init__(self, short: bool = False):
        super().__init__()
        self.calls = []
        self._short = short

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(str(func).replace("aten.", "") if self._short else str(func))
        return func(*args, **(kwargs or {}))


def numpy_spy(monkeypatch, module, name: str, arg: int = 0) -> list:
    """Replace ``module.np`` by NumPy with ``name`` counted: the shape of argument ``arg`` of each
    call goes into the returned list."""
    seen = []
    real = getattr(np, name)

    def counted(*a, **k):
        seen.append(np.shape(a[arg]))
        return real(*a, **k)

    class _NP:
        def __getattr__(self, attr):
            return counted if attr == name else getattr(np, attr)

    monkeypatch.setattr(module, "np", _NP())
    return seen
