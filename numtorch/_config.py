"""Process-wide switches PyTorch scripts set: thread counts, default device, determinism, matmul precision.

# Note [Thread counts]
# numtorch's parallel kernels run on Numba's threading layer, so ``set_num_threads`` drives
# ``numba.set_num_threads`` (bounded by NUMBA_NUM_THREADS, fixed when Numba starts its pool).
# Numba is imported lazily here: ``import numtorch`` must not start the threading layer.
# BLAS keeps the thread count it was started with (NumPy offers no portable setter).
"""

from __future__ import annotations

import builtins
import os

from ._device import device, to_device

_STATE = {"interop": None, "deterministic": False, "warn_only": False, "fill_uninitialized": True,
          "precision": "highest", "device": None, "device_mode": None}  # fmt: skip
_PRECISIONS = ("highest", "high", "medium")


def _numba():
    import numba

    return numba


def set_num_threads(int: int) -> None:  # noqa: A002 - torch's parameter name
    """Set the number of threads used by numtorch's parallel kernels (Note [Thread counts]).

    >>> numtorch.set_num_threads(1); numtorch.get_num_threads()
    1
    """
    if not isinstance(int, builtins.int) or isinstance(int, builtins.bool):
        raise TypeError(f"set_num_threads(): argument 'int' must be int, not {type(int).__name__}")
    if int <= 0:
        raise RuntimeError("Number of threads must be positive")
    nb = _numba()
    nb.set_num_threads(min(int, nb.config.NUMBA_NUM_THREADS))


def get_num_threads() -> int:
    """The number of threads numtorch's parallel kernels use.

    >>> numtorch.get_num_threads() >= 1
    True
    """
    return _numba().get_num_threads()


def set_num_interop_threads(int: int) -> None:  # noqa: A002
    """Recorded for compatibility: numtorch runs ops on the calling thread, there is no inter-op pool."""
    if _STATE["interop"] is not None:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    if int <= 0:
        raise RuntimeError("Number of threads must be positive")
    _STATE["interop"] = int


def get_num_interop_threads() -> int:
    """The inter-op thread count (``set_num_interop_threads``'s value, else the CPU count)."""
    return _STATE["interop"] or os.cpu_count() or 1


def set_default_device(device) -> None:  # noqa: A002
    """Set the device factories use when none is given. numtorch has the CPU (and CUDA when built).

    >>> numtorch.set_default_device("cpu"); numtorch.get_default_device()
    device(type='cpu')
    """
    d = None if device is None else to_device(device)
    if d is not None and d.type == "cuda":
        import numtorch.cuda

        numtorch.cuda.init()  # "Torch not compiled with CUDA enabled" without CUDA
    elif d is not None and d.type != "cpu":
        raise NotImplementedError(f"numtorch: set_default_device supports 'cpu' and 'cuda', got '{d}'")
    old = _STATE.get("device_mode")
    if old is not None:  # PyTorch's global DeviceContext: replaced, never stacked
        from .overrides import _get_current_function_mode_stack, _pop_mode, _push_mode

        stack = _get_current_function_mode_stack()
        above = []
        while stack and stack[-1] is not old:
            above.append(_pop_mode())
            stack.pop()
        if stack:
            _pop_mode()
        for m in reversed(above):
            _push_mode(m)
        _STATE["device_mode"] = None
    _STATE["device"] = d
    if d is not None and d.type != "cpu":
        from .utils._device import DeviceContext

        _STATE["device_mode"] = DeviceContext(d).__enter__()


def get_default_device() -> device:
    """The device factories use when none is given."""
    d = _STATE["device"] or to_device("cpu")
    if d.type == "cuda" and d.index is None:  # PyTorch names the current CUDA device
        import numtorch.cuda

        return to_device(f"cuda:{numtorch.cuda.current_device()}")
    return d


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Request deterministic algorithms. numtorch's CPU kernels are deterministic already
    (fixed reduction order per thread count), so this records the flag for the getters.

    >>> numtorch.use_deterministic_algorithms(True); numtorch.are_deterministic_algorithms_enabled()
    True
    """
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    _STATE["deterministic"], _STATE["warn_only"] = mode, bool(warn_only)
    _sync_fill()


def _sync_fill() -> None:
    # Note [Deterministic fill of uninitialized memory]
    from ._factory_utils import FILL_UNINITIALIZED

    FILL_UNINITIALIZED[0] = _STATE["deterministic"] and _STATE["fill_uninitialized"]


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _STATE["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True, warn_only=True)`` is in effect."""
    return _STATE["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """``"default"``/0, ``"warn"``/1 or ``"error"``/2, as ``torch.set_deterministic_debug_mode``."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (warn) or 2 (error)."""
    return 0 if not _STATE["deterministic"] else (1 if _STATE["warn_only"] else 2)


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded for compatibility: numtorch's float32 matmul is always full float32 (NumPy's BLAS).

    >>> numtorch.set_float32_matmul_precision("high"); numtorch.get_float32_matmul_precision()
    'high'
    """
    if precision not in _PRECISIONS:
        raise RuntimeError(f"Invalid precision '{precision}': expected one of highest, high, medium")
    _STATE["precision"] = precision


def get_float32_matmul_precision() -> str:
    """``"highest"`` unless ``set_float32_matmul_precision`` changed it."""
    return _STATE["precision"]


_WARN_ALWAYS = [False]


def set_warn_always(b: bool) -> None:
    """Give every time the warnings numtorch gives once per process (vmap's loop-fallback
    warning), as ``torch.set_warn_always``.

    >>> numtorch.set_warn_always(False)
    """
    _WARN_ALWAYS[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in effect, as ``torch.is_warn_always_enabled``.

    >>> numtorch.is_warn_always_enabled()
    False
    """
    return _WARN_ALWAYS[0]
