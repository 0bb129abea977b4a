"""``numtorch.backends.opt_einsum``: einsum's contraction-order search (NumPy's ``optimize=``)."""

from __future__ import annotations

enabled = True
strategy = "auto"


def is_available() -> bool:
    """Whether the ``opt_einsum`` package is installed (NumPy's own path search is used regardless)."""
    import importlib.util

    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The ``opt_einsum`` module, or None when it is not installed."""
    if not is_available():
        return None
    import opt_einsum

    return opt_einsum
