"""numtorch.accelerator's memory and graph namespaces answer as PyTorch does on a CPU-only machine."""

from __future__ import annotations

import pytest

import numtorch


@pytest.mark.parametrize("name", ["empty_host_cache", "get_device_capability", "get_memory_info", "Graph",
                                  "memory.memory_stats", "memory.get_memory_info", "graphs.Graph"])  # fmt: skip
def test_each_raises_the_cpu_only_error(name):
    obj = numtorch.accelerator
    for part in name.split("."):
        obj = getattr(obj, part)
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
        obj()


def test_top_level_memory_names_are_the_memory_modules():
    acc = numtorch.accelerator
    assert acc.empty_cache is acc.memory.empty_cache and acc.Graph is acc.graphs.Graph
