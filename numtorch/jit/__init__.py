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

__all__ = [
    "Final", "Error", "annotate", "export", "ignore", "interface", "is_scripting", "is_tracing",
    "isinstance", "script", "script_if_tracing", "trace", "trace_module", "unused", "load",
    "save", "fork", "wait", "freeze", "optimize_for_inference",
]  # fmt: skip

Final = typing.Final
_builtin_isinstance = isinstance

_ALTERNATIVE = (
    "numtorch has no TorchScript runtime: run the module or function eagerly (it is already "
    "Python), use numtorch.save/numtorch.load (state_dict) to ship weights, and write hot loops "
    "as Numba kernels through numtorch.library.custom_op"
)


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


def _refuse(what: str):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"numtorch.jit.{what} is not supported: {_ALTERNATIVE}")

    refuse.__name__ = what
    refuse.__doc__ = f"Raises NotImplementedError: {_ALTERNATIVE}."
    return refuse


script = _refuse("script")
trace = _refuse("trace")
trace_module = _refuse("trace_module")
load = _refuse("load")
save = _refuse("save")
freeze = _refuse("freeze")
optimize_for_inference = _refuse("optimize_for_inference")


def script_if_tracing(fn):
    """Return ``fn``: without a tracer it always runs eagerly."""
    return fn


class _Future:
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value


def fork(func, *args, **kwargs):
    """Run ``func`` now and return a future holding its result (no inter-op parallelism)."""
    return _Future(func(*args, **kwargs))


def wait(future):
    """The result of ``fork``."""
    return future.wait()
