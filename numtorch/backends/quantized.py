"""``numtorch.backends.quantized``: the quantized engine. numtorch has no quantized kernels, so the
only engine is ``"none"``."""

from __future__ import annotations

import sys
import types

_NAMES = ("none", "fbgemm", "qnnpack", "onednn", "x86")


class _QuantizedModule(types.ModuleType):
    _engine = "none"

    @property
    def engine(self) -> str:
        return self._engine

    @engine.setter
    def engine(self, val) -> None:
        if val in ("", None):
            val = "none"
        if val not in _NAMES:
            raise RuntimeError(f"{val} is not a valid value for quantized engine")
        if val != "none":
            raise RuntimeError(f"quantized engine {val.upper()} is not supported")
        type(self)._engine = val

    @property
    def supported_engines(self) -> list:
        return ["none"]

    @supported_engines.setter
    def supported_engines(self, val) -> None:
        raise RuntimeError("Assignment not supported")


sys.modules[__name__].__class__ = _QuantizedModule
