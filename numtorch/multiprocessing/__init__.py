"""numtorch.multiprocessing: Python's ``multiprocessing`` plus PyTorch's ``spawn`` / ``start_processes``
and the sharing-strategy settings.

numtorch tensors pickle by value (their NumPy memory is copied into the child); a tensor on which
``share_memory_()`` was called lives in shared memory that forked children see and write.

>>> sorted(numtorch.multiprocessing.get_all_sharing_strategies())
['file_descriptor', 'file_system']
"""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403 - torch.multiprocessing re-exports the whole module

from .spawn import (
    ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException, spawn, start_processes,
)  # fmt: skip

__all__ = ["get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy", "spawn",
           "start_processes", "ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException"] + multiprocessing.__all__  # fmt: skip

# PyTorch's defaults: file descriptors on Linux, files in a tmpfs on macOS
_all_sharing_strategies = {"file_system"} if sys.platform == "darwin" else {"file_descriptor", "file_system"}
_sharing_strategy = "file_system" if sys.platform == "darwin" else "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Set how tensors in shared memory are handed to other processes (one of ``get_all_sharing_strategies()``)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"Invalid sharing strategy: {new_strategy}")
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """The current sharing strategy."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set:
    """The sharing strategies this platform supports."""
    return set(_all_sharing_strategies)


def init_reductions() -> None:
    """Nothing to register: numtorch tensors pickle through ``Tensor.__reduce_ex__``."""
