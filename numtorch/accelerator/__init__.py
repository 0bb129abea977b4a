"""numtorch.accelerator: the device-agnostic accelerator API, as PyTorch answers it on a CPU-only machine.

>>> numtorch.accelerator.is_available(), numtorch.accelerator.current_accelerator()
(False, None)
"""

from __future__ import annotations

__all__ = [
    "current_accelerator", "current_device_idx", "current_device_index", "current_stream",
    "device_count", "device_index", "empty_cache", "is_available", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
    "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
    "set_device_index", "set_stream", "synchronize", "empty_host_cache", "get_device_capability", "get_memory_info",
    "Graph",
]  # fmt: skip

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """False: no accelerator backend is loaded."""
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator's device type (a ``numtorch.device``), or None when there is none."""
    return None


def device_count() -> int:
    """0 accelerator devices."""
    return 0


def _none(*args, **kwargs):
    raise RuntimeError(_NONE)


current_device_index = current_device_idx = set_device_index = set_device_idx = _none
current_stream = set_stream = synchronize = get_device_capability = _none


from . import graphs, memory  # noqa: E402
from .graphs import Graph  # noqa: E402
from .memory import (empty_cache, empty_host_cache, get_memory_info, max_memory_allocated,  # noqa: E402
                     max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
                     reset_accumulated_memory_stats, reset_peak_memory_stats)  # fmt: skip


class device_index:  # noqa: N801 - torch's name
    """Context manager selecting an accelerator device; ``None`` is a no-op."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            raise RuntimeError(_NONE)

    def __exit__(self, *exc):
        return False
