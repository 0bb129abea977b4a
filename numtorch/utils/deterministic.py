"""``numtorch.utils.deterministic.fill_uninitialized_memory``: with deterministic algorithms on,
empty-style factories fill new storage with NaN / the largest integer
(Note [Deterministic fill of uninitialized memory])."""

from __future__ import annotations

import sys
import types


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self) -> bool:
        """Whether ``use_deterministic_algorithms(True)`` also fills uninitialized memory (default True)."""
        from .._config import _STATE

        return _STATE["fill_uninitialized"]

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode: bool) -> None:
        from .._config import _STATE, _sync_fill

        if not isinstance(mode, bool):
            raise TypeError(f"expected a bool, but got {type(mode).__name__}")
        _STATE["fill_uninitialized"] = mode
        _sync_fill()


sys.modules[__name__].__class__ = _Deterministic
