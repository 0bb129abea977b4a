"""``numtorch.backends.nnpack``: NNPACK convolution flags; numtorch's convolutions are Numba/BLAS."""

from __future__ import annotations

import contextlib

__all__ = ["is_available", "flags", "set_flags"]
_ENABLED = [True]


def is_available() -> bool:
    """False: numtorch does not use NNPACK."""
    return False


def set_flags(_enabled):
    """Set whether NNPACK may be used; returns the previous flags as a 1-tuple."""
    orig = (_ENABLED[0],)
    _ENABLED[0] = bool(_enabled)
    return orig


@contextlib.contextmanager
def flags(enabled=False):
    """Set the NNPACK flag for the block."""
    orig = set_flags(enabled)
    try:
        yield
    finally:
        set_flags(orig[0])
