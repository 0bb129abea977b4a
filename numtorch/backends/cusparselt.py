"""``numtorch.backends.cusparselt``: the CUDA semi-structured sparsity library; absent without CUDA."""

from __future__ import annotations


def is_available() -> bool:
    """False: no cuSPARSELt."""
    return False


def version() -> int | None:
    """None: no cuSPARSELt."""
    return None


def get_max_alg_id() -> int | None:
    """None: no cuSPARSELt."""
    return None
