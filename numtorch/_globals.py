"""Top-level names PyTorch defines in ``torch/__init__.py`` and its C module that scripts call
for configuration: build flags (``has_lapack``, ...), ``set_flush_denormal``,
``set_default_tensor_type``, ``get_device_module``, the deprecated autocast cpu/gpu getters and
setters, and the eager forms of the control-flow operators ``cond`` and ``while_loop``."""

from __future__ import annotations

import os
import warnings

from . import _dtype as D

TYPE_CHECKING = False
USE_GLOBAL_DEPS = False  # no shared libraries of our own to preload
USE_RTLD_GLOBAL_WITH_LIBTORCH = False

# What this build has: LAPACK through NumPy, fft through NumPy's pocketfft; no MKL, and Numba's
# threads are not OpenMP's (torch.backends.openmp answers the same).
has_lapack = True
has_spectral = True
has_mkl = False
has_openmp = False


def set_flush_denormal(mode: bool) -> bool:
    """Whether flush-denormal mode could be set to ``mode``: NumPy and Numba keep IEEE
    subnormals and expose no switch for the FPU's flag, so enabling it fails (returns False,
    as PyTorch does on a CPU without the feature) and disabling it is already true.

    >>> numtorch.set_flush_denormal(False)
    True
    """
    return not mode


def init_num_threads() -> None:
    """Propagate ``set_num_threads`` to a new thread: Numba's and BLAS's thread counts are
    process-wide, so there is nothing to copy.

    >>> numtorch.init_num_threads()
    """


def get_file_path(*path_components: str) -> str:
    """A path under the directory that holds the numtorch package.

    >>> numtorch.get_file_path("numtorch").endswith("numtorch")
    True
    """
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *path_components)


def get_device_module(device=None):
    """The module for a device type (``numtorch.cpu``, ``numtorch.cuda``); with no device, the
    current accelerator's, or ``numtorch.cpu`` when there is none.

    >>> numtorch.get_device_module("cpu").__name__
    'numtorch.cpu'
    """
    import numtorch

    if isinstance(device, numtorch.device):
        name = device.type
    elif isinstance(device, str):
        name = numtorch.device(device).type
    elif device is None:
        acc = numtorch.accelerator.current_accelerator()
        name = "cpu" if acc is None else acc.type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    mod = getattr(numtorch, name, None)
    if mod is None:
        raise RuntimeError(
            f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'."
        )
    return mod


def set_default_tensor_type(t, /) -> None:
    """Deprecated: set the default floating dtype from a typed tensor class or its name.

    >>> numtorch.set_default_tensor_type("torch.FloatTensor")
    """
    from . import _tensortype as TT

    if isinstance(t, str):
        name = t.rsplit(".", 1)[-1]
        t = getattr(TT, name, None)
        if t is None:
            raise ValueError(f"invalid type: '{name}'")
    if not isinstance(t, TT.tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
        "and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    D.set_default_dtype(t.dtype)


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def get_autocast_cpu_dtype():
    """Deprecated spelling of ``get_autocast_dtype('cpu')``."""
    from .amp import autocast_mode as A

    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return A.get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype) -> None:
    """Deprecated spelling of ``set_autocast_dtype('cpu', dtype)``."""
    from .amp import autocast_mode as A

    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    A.set_autocast_dtype("cpu", dtype)


def is_autocast_cpu_enabled() -> bool:
    """Deprecated spelling of ``is_autocast_enabled('cpu')``."""
    from .amp import autocast_mode as A

    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return A.is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated spelling of ``set_autocast_enabled('cpu', enabled)``."""
    from .amp import autocast_mode as A

    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    A.set_autocast_enabled("cpu", enabled)


def get_autocast_gpu_dtype():
    """Deprecated spelling of ``get_autocast_dtype('cuda')``."""
    from .amp import autocast_mode as A

    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return A.get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype) -> None:
    """Deprecated spelling of ``set_autocast_dtype('cuda', dtype)``."""
    from .amp import autocast_mode as A

    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    A.set_autocast_dtype("cuda", dtype)


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``; ``pred`` is a bool or
    a one-element tensor (eager form of PyTorch's control-flow operator).

    >>> numtorch.cond(True, lambda x: x + 1, lambda x: x - 1, (numtorch.ones(1),))
    tensor([2.])
    """
    import numtorch

    if not isinstance(pred, (bool, int, float, numtorch.Tensor)) or isinstance(pred, str):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    ops = tuple(operands)
    return true_fn(*ops) if bool(pred) else false_fn(*ops)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run ``carried = body_fn(*carried)`` while ``cond_fn(*carried)``; returns the final tuple.

    >>> numtorch.while_loop(lambda i: i < 3, lambda i: (i + 1,), (numtorch.tensor(0),))
    (tensor(3),)
    """
    carried = tuple(carried_inputs)
    while bool(cond_fn(*carried)):
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return carried


