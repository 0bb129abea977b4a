"""``numtorch.backends.mps``: Apple's Metal backend does not exist in numtorch."""

from __future__ import annotations


def is_available() -> bool:
    """False."""
    return False


def is_built() -> bool:
    """False."""
    return False
