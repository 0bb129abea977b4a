"""``numtorch._C``: the names that Python-level subclass and mode code reaches through ``torch._C``.

PyTorch implements these in C++; here they are the real Python implementations, grouped by the
protocol they belong to so that the ``__torch_dispatch__`` side can be added as its own section.
Names implemented in ``overrides.py`` (which imports this module) are forwarded lazily.
"""

from __future__ import annotations

from ._state import STATE

# ---- Tensor base ------------------------------------------------------------------------------


class TensorBase:
    """The base class of ``numtorch.Tensor``, as ``torch._C.TensorBase`` is of ``torch.Tensor``."""

    __slots__ = ()


# ---- __torch_function__ state -----------------------------------------------------------------
# Note [Torch function state]
# One process-wide level, as PyTorch's TorchFunctionState: ENABLED, SUBCLASSES_DISABLED (only
# modes run: the default Tensor.__torch_function__ and _disabled_torch_function_impl use it so a
# handler's own call does not re-dispatch) or ALL_DISABLED (neither modes nor subclasses run).
# The generated gates only read STATE.tf_modes; overrides.py reads TF_STATE[0] on the slow path.
ENABLED, SUBCLASSES_DISABLED, ALL_DISABLED = 0, 1, 2
TF_STATE = [ENABLED]


class _TorchFunctionState:
    __slots__ = ("_level", "_old")

    def __init__(self, level: int):
        self._level = level
        self._old = None

    def __enter__(self):
        self._old = TF_STATE[0]
        # a weaker request never re-enables what an outer context disabled
        if not (self._level == SUBCLASSES_DISABLED and self._old == ALL_DISABLED):
            TF_STATE[0] = self._level
        return self

    def __exit__(self, *exc):
        TF_STATE[0] = self._old


class DisableTorchFunctionSubclass(_TorchFunctionState):
    """Within this context only modes, not subclasses or duck types, see ``__torch_function__``."""

    def __init__(self):
        super().__init__(SUBCLASSES_DISABLED)


class DisableTorchFunction(_TorchFunctionState):
    """Within this context neither modes nor subclasses see ``__torch_function__``."""

    def __init__(self):
        super().__init__(ALL_DISABLED)


class _EnableTorchFunction(_TorchFunctionState):
    """Re-enable ``__torch_function__`` inside a disabled region."""

    def __init__(self):
        super().__init__(ENABLED)


def _is_torch_function_enabled() -> bool:
    return TF_STATE[0] == ENABLED


def _is_torch_function_all_disabled() -> bool:
    return TF_STATE[0] == ALL_DISABLED


def _is_torch_function_mode_enabled() -> bool:
    return bool(STATE.tf_modes) and TF_STATE[0] != ALL_DISABLED


class _DisabledImpl:
    """Assign as ``__torch_function__ = numtorch._C._disabled_torch_function_impl`` to opt a
    Tensor subclass out of the protocol (its results are then plain Tensors).

    Like PyTorch's builtin it is not a descriptor, so class and instance access give the same
    object (``func, types, args, kwargs`` are its parameters whichever way it is reached).
    """

    __slots__ = ()
    __name__ = __qualname__ = "_disabled_torch_function_impl"

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self) -> str:
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledImpl()


# ---- __torch_function__ mode stack (innermost last) ---------------------------------------------
def _push_on_torch_function_stack(mode) -> None:
    STATE.tf_modes.append(mode)


def _pop_torch_function_stack():
    if not STATE.tf_modes:
        raise RuntimeError("Trying to pop from an empty mode stack")
    return STATE.tf_modes.pop()


def _len_torch_function_stack() -> int:
    return len(STATE.tf_modes)


def _get_function_stack_at(i: int):
    return STATE.tf_modes[i]


# ---- __torch_dispatch__ side --------------------------------------------------------------------
# Note [Python key exclusion]
# PyTorch excludes the Python dispatch key through thread-local key sets; numtorch models only the
# key this protocol needs: while _TD_DISABLED[0] is non-zero the Python key passes every call
# straight to the backend (no modes, no __torch_dispatch__), read in utils/_python_dispatch.
import enum as _enum  # noqa: E402

_TD_DISABLED = [0]


class DispatchKey(_enum.Enum):
    """The dispatch keys numtorch has, named and ordered as PyTorch's (highest priority last)."""

    Undefined = 0
    CPU = 1
    CUDA = 2
    Meta = 3
    CompositeExplicitAutograd = 4
    CompositeImplicitAutograd = 5
    Python = 6
    PythonTLSSnapshot = 7
    ADInplaceOrView = 8
    AutogradOther = 9
    AutogradCPU = 10
    AutogradCUDA = 11
    AutogradMeta = 12
    Autograd = 13
    FuncTorchBatched = 14


class _DisableTorchDispatch:
    """Within this context ``__torch_dispatch__`` and dispatch modes are skipped (the Python key
    is excluded): calls go from autograd straight to the kernels."""

    def __enter__(self):
        _TD_DISABLED[0] += 1
        return self

    def __exit__(self, *exc):
        _TD_DISABLED[0] -= 1


def _dispatch_tls_set_dispatch_key_excluded(key: DispatchKey, excluded: bool) -> None:
    """Exclude (or re-include) a key for this thread; only ``DispatchKey.Python`` has meaning."""
    if key is DispatchKey.Python:
        _TD_DISABLED[0] = 1 if excluded else 0


def _dispatch_tls_is_dispatch_key_excluded(key: DispatchKey) -> bool:
    return key is DispatchKey.Python and _TD_DISABLED[0] > 0


def _len_torch_dispatch_stack() -> int:
    return len(STATE.td_modes)


def _get_dispatch_stack_at(i: int):
    return STATE.td_modes[i]


def _push_on_torch_dispatch_stack(mode) -> None:
    STATE.td_modes.append(mode)


def _pop_torch_dispatch_stack(mode_key=None):
    if not STATE.td_modes:
        raise RuntimeError("Trying to pop from an empty mode stack")
    return STATE.td_modes.pop()


# ---- misc -------------------------------------------------------------------------------------
_API_USAGE: set = set()


def _log_api_usage_once(event: str) -> None:
    """Record a usage event once per process (PyTorch forwards it to a logger; none is set here)."""
    _API_USAGE.add(event)


_FROM_OVERRIDES = {
    "_has_torch_function": "has_torch_function",
    "_has_torch_function_unary": "has_torch_function_unary",
    "_has_torch_function_variadic": "has_torch_function_variadic",
    "_get_overloaded_args": "_get_overloaded_args",
}


def __getattr__(name: str):
    target = _FROM_OVERRIDES.get(name)
    if target is None:
        raise AttributeError(f"module 'numtorch._C' has no attribute '{name}'")
    from . import overrides

    return getattr(overrides, target)
