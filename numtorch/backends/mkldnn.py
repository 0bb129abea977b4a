"""``numtorch.backends.mkldnn``: oneDNN flags; numtorch's kernels are Numba, not oneDNN."""

from __future__ import annotations

enabled = True
deterministic = False


def is_available() -> bool:
    """False: numtorch does not use oneDNN."""
    return False
