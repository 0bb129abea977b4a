"""``numtorch.backends.openmp``: Numba's threading layer stands in for OpenMP."""

from __future__ import annotations


def is_available() -> bool:
    """True: parallel kernels run on Numba's threading layer (Note [Thread counts])."""
    return True
