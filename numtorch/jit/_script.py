"""TorchScript's classes, for the ``isinstance`` checks and ``except`` clauses eager code has.

numtorch has no TorchScript compiler, so nothing is ever a ScriptFunction or a traced module, and
building one raises NotImplementedError naming the alternative (Note in numtorch/jit/__init__.py).
``ScriptModule`` itself stays usable as a base class (the legacy ``@script_method`` API): its
subclasses run eagerly as plain modules, which computes what the compiled module would.
"""

from __future__ import annotations

import collections
import threading
import warnings

from ..nn.modules.module import Module

_ALTERNATIVE = (
    "numtorch has no TorchScript runtime: run the module or function eagerly (it is already "
    "Python), use numtorch.save/numtorch.load (state_dict) to ship weights, and write hot loops "
    "as Numba kernels through numtorch.library.custom_op"
)


def refuse(what: str):
    """A function raising NotImplementedError for the TorchScript entry point ``what``."""

    def refused(*args, **kwargs):
        raise NotImplementedError(f"numtorch.jit.{what} is not supported: {_ALTERNATIVE}")

    refused.__name__ = what
    refused.__doc__ = f"Raises NotImplementedError: {_ALTERNATIVE}."
    return refused


class Attribute(collections.namedtuple("Attribute", ["value", "type"])):
    """A typed attribute for a ScriptModule; ``ScriptModule`` stores its ``value``.

    >>> numtorch.jit.Attribute(0, int).value
    0
    """


class ScriptModule(Module):
    """Base class of legacy ``@script_method`` modules; here they run eagerly.

    >>> class M(numtorch.jit.ScriptModule):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.n = numtorch.jit.Attribute(2, int)
    ...     @numtorch.jit.script_method
    ...     def forward(self, x):
    ...         return x * self.n
    >>> M()(numtorch.ones(1))
    tensor([2.])
    """

    def __setattr__(self, name, value):
        if isinstance(value, Attribute):
            value = value.value  # as PyTorch's ScriptModule: the type is for the compiler only
        super().__setattr__(name, value)

    @property
    def code(self):
        raise NotImplementedError(f"ScriptModule.code needs a compiled module: {_ALTERNATIVE}")

    @property
    def graph(self):
        raise NotImplementedError(f"ScriptModule.graph needs a compiled module: {_ALTERNATIVE}")

    def save(self, f, **kwargs):
        raise NotImplementedError(f"ScriptModule.save writes TorchScript: {_ALTERNATIVE}")


class _Uncompiled:
    # a class only a TorchScript compiler or tracer creates
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"numtorch.jit.{type(self).__name__} cannot be created: {_ALTERNATIVE}")


class RecursiveScriptModule(_Uncompiled, ScriptModule):
    """What ``torch.jit.script(module)`` returns; never created here."""


class TracedModule(_Uncompiled, ScriptModule):
    """What ``torch.jit.trace(module)`` returns; never created here."""


class TopLevelTracedModule(TracedModule):
    """The outermost traced module; never created here."""


class ONNXTracedModule(_Uncompiled, Module):
    """The module ONNX export traces; never created here."""


class ScriptFunction(_Uncompiled):
    """What ``torch.jit.script(fn)`` returns; never created here, so no function is one."""


class RecursiveScriptClass(_Uncompiled):
    """An instance of a scripted class; never created here."""


class CompilationUnit(_Uncompiled):
    """A TorchScript compilation unit (source compiled into functions); not supported."""


def script_method(fn):
    """Mark a ScriptModule method for compilation; here it stays a Python method and runs eagerly."""
    fn._torchscript_modifier = "script_method"
    return fn


class TracerWarning(Warning):
    """Warned by PyTorch's tracer about Python values frozen into a trace."""

    @staticmethod
    def ignore_lib_warnings() -> None:
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")
        warnings.filterwarnings("ignore", "torch::jit::fuser::cuda")


class ScriptWarning(Warning):
    """Warned by TorchScript-compiled code."""


class TracingCheckError(Exception):
    """A trace whose re-run disagreed with the original (``trace(check_trace=True)``)."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None) -> None:
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error + "\n"
        if tensor_compare_error is not None:
            self.message += (
                "ERROR: Tensor-valued Constant nodes differed in value across invocations. This often indicates "
                "that the tracer has encountered untraceable code.\n" + tensor_compare_error + "\n"
            )
        super().__init__(self.message)


class Future:
    """The result of asynchronous work (``fork`` returns one; ``numtorch.futures`` is the same class):
    ``wait()`` / ``value()`` block until it is completed, ``then`` chains callbacks.

    >>> fut = numtorch.jit.fork(lambda: 3)
    >>> fut.done(), numtorch.jit.wait(fut)
    (True, 3)
    """

    _UNSET = object()

    def __init__(self, *, devices=None) -> None:
        self._value, self._exc, self._callbacks = Future._UNSET, None, []
        # completion may come from another thread (a worker calling set_result): wait() blocks on it
        self._lock, self._event = threading.Lock(), threading.Event()

    def done(self) -> bool:
        return self._event.is_set()

    def wait(self):
        self._event.wait()
        if self._exc is not None:
            raise self._exc
        return self._value

    value = wait

    def _complete(self, value, exc) -> None:
        with self._lock:
            if self._event.is_set():
                raise RuntimeError("Future can only be marked completed once")
            self._value, self._exc = value, exc
            self._event.set()
        self._run_callbacks()

    def set_result(self, result) -> None:
        self._complete(result, None)

    def set_exception(self, result) -> None:
        if not isinstance(result, Exception):
            raise TypeError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(Future._UNSET, result)

    def then(self, callback):
        out = Future()

        def chain(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001 - the chained future carries it
                out.set_exception(e)

        self.add_done_callback(chain)
        return out

    def add_done_callback(self, callback) -> None:
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def _run_callbacks(self) -> None:
        cbs, self._callbacks = self._callbacks, []
        for cb in cbs:
            cb(self)
