"""numtorch.utils: ``data`` (datasets and loaders) and ``hooks`` (hook handles).

Submodules load on first attribute access, so importing ``numtorch.utils`` (which the
dispatcher does for ``utils._python_dispatch``) never pulls in the data pipeline.
"""

from __future__ import annotations

import importlib

_LAZY = ("data", "hooks", "weak", "_pytree", "_python_dispatch", "collect_env", "dlpack", "checkpoint")


def __getattr__(name: str):
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
