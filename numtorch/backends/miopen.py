"""``numtorch.backends.miopen``: ROCm MIOpen flags, kept for scripts; there is no MIOpen here."""

from __future__ import annotations

import contextlib

immediate = False


def set_flags(_immediate=None):
    """Set MIOpen's immediate mode; returns the previous flags as a 1-tuple."""
    global immediate
    orig = (immediate,)
    if _immediate is not None:
        immediate = bool(_immediate)
    return orig


@contextlib.contextmanager
def flags(immediate=False):
    """Set MIOpen's immediate mode for the block."""
    orig = set_flags(immediate)
    try:
        yield
    finally:
        set_flags(*orig)
