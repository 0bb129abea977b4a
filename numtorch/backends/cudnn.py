"""``numtorch.backends.cudnn``: cuDNN flags, kept for scripts; there is no cuDNN without CUDA."""

from __future__ import annotations

import contextlib

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: no cuDNN."""
    return False


def version():
    """None: no cuDNN."""
    return None


def is_acceptable(tensor) -> bool:
    """False: no tensor can use cuDNN here."""
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Temporarily set the cuDNN flags, as ``torch.backends.cudnn.flags``."""
    g = globals()
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    old = {n: g[n] for n in names}
    g.update(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    try:
        yield
    finally:
        g.update(old)
