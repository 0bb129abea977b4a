"""numtorch.compiler: controls for ``numtorch.compile`` (PyTorch's ``torch.compiler``)."""

from __future__ import annotations

from ._compile.api import BACKENDS, compile, disable, reset_all
from ._compile.capture import Unsupported, is_capturing

__all__ = ["Unsupported", "allow_in_graph", "compile", "disable", "is_compiling", "is_dynamo_compiling",
           "list_backends", "reset"]  # fmt: skip


def is_compiling() -> bool:
    """True while ``numtorch.compile`` captures a call (code may skip side effects then).

    >>> numtorch.compiler.is_compiling()
    False
    """
    return is_capturing()


is_dynamo_compiling = is_compiling


def reset() -> None:
    """Forget every captured graph, so the next call of each compiled function captures again.

    >>> numtorch.compiler.reset()
    """
    reset_all()


def allow_in_graph(fn):
    """Returns ``fn``: numtorch captures at the aten level, so the ops ``fn`` calls are always
    in the graph (there is no bytecode tracer to keep out of it).

    >>> numtorch.compiler.allow_in_graph(abs) is abs
    True
    """
    return fn


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The names ``numtorch.compile(backend=...)`` accepts.

    >>> numtorch.compiler.list_backends()
    ['aot_eager', 'eager', 'inductor', 'numba']
    """
    return sorted(BACKENDS)
