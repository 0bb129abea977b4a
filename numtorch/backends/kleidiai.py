"""``numtorch.backends.kleidiai``: Arm KleidiAI micro-kernels, which numtorch does not use."""

from __future__ import annotations


def is_available() -> bool:
    """False: numtorch is not built with KleidiAI."""
    return False
