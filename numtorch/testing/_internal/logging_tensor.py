"""LoggingTensorMode and capture_logs: record every op a TorchDispatchMode sees, as PyTorch's
``torch.testing._internal.logging_tensor`` (checkpoint's debug mode prints them)."""

from __future__ import annotations

import contextlib
import logging
import traceback

from ...utils._python_dispatch import TorchDispatchMode

log = logging.getLogger("LoggingTensor")


class LoggingTensorMode(TorchDispatchMode):
    """Logs ``func(args) -> outputs`` for every op dispatched under it (logger ``LoggingTensor``).

    >>> from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
    >>> x = numtorch.ones(2)
    >>> with capture_logs(is_mode=True) as logs, LoggingTensorMode():
    ...     _ = x.sin()
    >>> logs
    ['$1: f32[2] = torch._ops.aten.sin.default($0)']
    """

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        log.info("%s", (func, args, kwargs or {}, out))
        return out


class _LoggingHandler(logging.Handler):
    def __init__(self, logs: list, tbs: list | None) -> None:
        super().__init__()
        self.logs, self.tbs, self.ids = logs, tbs, {}

    def _ref(self, t) -> str:
        from ..._tensor import Tensor

        if isinstance(t, Tensor):
            key = id(t)
            if key not in self.ids:
                self.ids[key] = len(self.ids)
            return f"${self.ids[key]}"
        if isinstance(t, (list, tuple)):
            return "[" + ", ".join(self._ref(x) for x in t) + "]"
        return repr(t)

    def emit(self, record) -> None:
        func, args, kwargs, out = record.args[0]
        from ..._tensor import Tensor

        a = ", ".join([self._ref(x) for x in args] + [f"{k}={self._ref(v)}" for k, v in kwargs.items()])
        outs = out if isinstance(out, (list, tuple)) else (out,)
        lhs = ", ".join(f"{self._ref(o)}: {_dtype_abbr(o)}{list(o.shape)}" for o in outs if isinstance(o, Tensor))
        self.logs.append(f"{lhs} = torch._ops.{func}({a})")
        if self.tbs is not None:
            self.tbs.append([{"filename": f.filename, "line": f.lineno, "name": f.name} for f in traceback.extract_stack()])


def _dtype_abbr(t) -> str:
    abbr = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
            "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8",
            "complex64": "c64", "complex128": "c128"}  # fmt: skip
    return abbr.get(t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype), str(t.dtype))


@contextlib.contextmanager
def capture_logs(is_mode: bool = False, python_tb: bool = False, script_tb: bool = False, cpp_tb: bool = False):
    """Collect LoggingTensorMode's records as strings (and, with ``python_tb``, their stacks)."""
    logs: list = []
    tbs: list | None = [] if python_tb else None
    handler = _LoggingHandler(logs, tbs)
    prev_level, prev_prop = log.level, log.propagate
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    try:
        yield (logs, tbs) if python_tb else logs
    finally:
        log.removeHandler(handler)
        log.setLevel(prev_level)
        log.propagate = prev_prop
