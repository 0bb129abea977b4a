"""``numtorch.accelerator.memory``: accelerator memory statistics; with no accelerator each raises
PyTorch's CPU-only error."""

from __future__ import annotations

_NONE = "Cannot access accelerator device when none is available."


def _none(*args, **kwargs):
    raise RuntimeError(_NONE)


empty_cache = empty_host_cache = get_memory_info = _none
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _none
memory_stats = reset_accumulated_memory_stats = reset_peak_memory_stats = _none
