"""``numtorch.accelerator.graphs``: device graph capture; with no accelerator there is nothing to capture."""

from __future__ import annotations

_NONE = "Cannot access accelerator device when none is available."


class Graph:
    """A captured accelerator graph (CUDA graphs on CUDA); raises on a CPU-only machine."""

    def __init__(self, *args, **kwargs) -> None:
        raise RuntimeError(_NONE)
