"""numtorch.jit: what plain Python code needs from ``torch.jit``.

TorchScript compiles a Python subset to a graph for the C++ runtime; numtorch has no such runtime.
Decorators and queries that eager code uses (``is_scripting``, ``ignore``, ``unused``, ``export``,
``Final``, ``annotate``) behave as they do when TorchScript is not compiling; ``script`` and
``trace`` raise NotImplementedError naming what to use instead.

>>> numtorch.jit.is_scripting()
False
"""

from __future__ import annotations

import typing

from ..utils import set_module
from . import frontend
from ._fuser import (enable_onednn_fusion, fuser, onednn_fusion_enabled, optimized_execution, set_fusion_strategy,
                     strict_fusion)  # fmt: skip
from ._script import (Attribute, CompilationUnit, Future, ONNXTracedModule, RecursiveScriptClass, RecursiveScriptModule,
                      ScriptFunction, ScriptModule, ScriptWarning, TopLevelTracedModule, TracedModule, TracerWarning,
                      TracingCheckError, refuse, script_method)  # fmt: skip

__all__ = [
    "Final", "Error", "annotate", "export", "ignore", "interface", "is_scripting", "is_tracing",
    "isinstance", "script", "script_if_tracing", "trace", "trace_module", "unused", "load",
    "save", "fork", "wait", "freeze", "optimize_for_inference",
]  # fmt: skip

Final = typing.Final
_builtin_isinstance = isinstance

class Error(RuntimeError):
    """``torch.jit.Error``: raised by scripted code in PyTorch; here for ``except`` clauses."""


def is_scripting() -> bool:
    """False: code never runs under TorchScript here."""
    return False


def is_tracing() -> bool:
    """False: there is no tracer."""
    return False


def annotate(the_type, the_value):
    """Return ``the_value`` (the type is for TorchScript's compiler only)."""
    return the_value


def export(fn):
    """Mark a method for TorchScript export; eager code calls it as it is."""
    fn._torchscript_modifier = "export"
    return fn


def ignore(drop=False, **kwargs):
    """Leave a function to Python; usable as ``@ignore`` and ``@ignore(drop=True)``."""
    if callable(drop):
        drop._torchscript_modifier = "ignore"
        return drop
    if not _builtin_isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")

    def decorator(fn):
        fn._torchscript_modifier = "unused" if drop else "ignore"
        return fn

    return decorator


def unused(fn):
    """Mark a function TorchScript should replace by a raise; eager code calls it as it is."""
    if _builtin_isinstance(fn, property):
        return fn
    fn._torchscript_modifier = "unused"
    return fn


def interface(obj):
    """Mark a class as a TorchScript interface; returned unchanged."""
    return obj


def isinstance(obj, target_type) -> bool:  # noqa: A001 - torch's name
    """``builtins.isinstance`` that also understands ``list[int]``-style generics."""
    origin = typing.get_origin(target_type)
    if origin is None:
        return _builtin_isinstance(obj, target_type)
    if origin is typing.Union:
        return any(isinstance(obj, t) for t in typing.get_args(target_type))
    if not _builtin_isinstance(obj, origin):
        return False
    args = typing.get_args(target_type)
    if origin is dict:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        return len(args) == len(obj) and all(isinstance(v, t) for v, t in zip(obj, args))
    return all(isinstance(v, args[0]) for v in obj)


script = refuse("script")
trace = refuse("trace")
trace_module = refuse("trace_module")
load = refuse("load")
save = refuse("save")
freeze = refuse("freeze")
optimize_for_inference = refuse("optimize_for_inference")
export_opnames = refuse("export_opnames")
run_frozen_optimizations = refuse("run_frozen_optimizations")
save_jit_module_to_flatbuffer = refuse("save_jit_module_to_flatbuffer")
jit_module_from_flatbuffer = refuse("jit_module_from_flatbuffer")
last_executed_optimized_graph = refuse("last_executed_optimized_graph")


def script_if_tracing(fn):
    """Return ``fn``: without a tracer it always runs eagerly."""
    return fn


def fork(func, *args, **kwargs):
    """Run ``func`` now and return a future holding its result (no inter-op parallelism)."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The result of ``fork``."""
    return future.wait()
