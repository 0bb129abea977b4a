"""JIT fusion and executor settings. numtorch has no graph executor: each op is a Numba kernel called
eagerly, so these hints are accepted, validated and recorded, and change nothing."""

from __future__ import annotations

import contextlib
import warnings

_STATE = {"optimize": True, "onednn": False, "strategy": [("STATIC", 2), ("DYNAMIC", 10)]}
_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


@contextlib.contextmanager
def optimized_execution(should_optimize: bool):
    """Whether the JIT executor optimizes graphs before running them (no executor here).

    >>> with numtorch.jit.optimized_execution(False):
    ...     pass
    """
    prev, _STATE["optimize"] = _STATE["optimize"], should_optimize
    try:
        yield
    finally:
        _STATE["optimize"] = prev


@contextlib.contextmanager
def fuser(name: str):
    """Pick a JIT fuser (``fuser0``..``fuser3`` or ``none``) for the block; no fuser runs here.

    >>> with numtorch.jit.fuser("fuser1"):
    ...     pass
    """
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002 - PyTorch's type
    yield


def set_fusion_strategy(strategy):
    """Set the (``"STATIC"``/``"DYNAMIC"``, depth) fusion specialisations; returns the previous ones.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     numtorch.jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)])
    [('STATIC', 2), ('DYNAMIC', 10)]
    """
    warnings.warn("`torch.jit.set_fusion_strategy` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)  # fmt: skip
    for kind, depth in strategy:
        if kind not in ("STATIC", "DYNAMIC"):
            raise RuntimeError(f"Expected STATIC or DYNAMIC, got {kind}")
        if not isinstance(depth, int):
            raise TypeError(f"fusion depth must be an int, got {type(depth).__name__}")
    prev, _STATE["strategy"] = _STATE["strategy"], [tuple(s) for s in strategy]
    return prev


def enable_onednn_fusion(enabled: bool) -> None:
    """Turn oneDNN graph fusion on or off (recorded only: there is no JIT graph to fuse).

    >>> numtorch.jit.enable_onednn_fusion(False)
    """
    _STATE["onednn"] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """Whether ``enable_onednn_fusion(True)`` was called.

    >>> numtorch.jit.onednn_fusion_enabled()
    False
    """
    return _STATE["onednn"]


class strict_fusion:
    """Require full fusion of a scripted block; outside TorchScript it warns and does nothing.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with numtorch.jit.strict_fusion():
    ...         pass
    """

    def __init__(self) -> None:
        warnings.warn("Only works in script mode", stacklevel=2)

    def __enter__(self):
        pass

    def __exit__(self, *args) -> None:
        pass
