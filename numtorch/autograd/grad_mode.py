"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (context managers and decorators)."""

from __future__ import annotations

import functools

from .._state import STATE
from .._tensor import set_inference_make


class _DecoratorContextManager:
    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)

        return wrapper

    _args: tuple = ()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording inside the block (or decorated function).

    >>> x = numtorch.ones(2, requires_grad=True)
    >>> with numtorch.no_grad():
    ...     (x * 2).requires_grad
    False
    """

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = False

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside the block, e.g. within ``no_grad``.

    >>> with numtorch.no_grad(), numtorch.enable_grad():
    ...     numtorch.is_grad_enabled()
    True
    """

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = True

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off; works as a function, context manager or decorator.

    >>> _ = numtorch.set_grad_enabled(True)
    """

    def __init__(self, mode: bool):
        self._args = (mode,)
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = bool(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev

    def __call__(self, fn):
        STATE.grad_enabled = self.prev
        return super().__call__(fn)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, for code that never needs autograd (``inference_mode(False)`` is a no-op).

    >>> with numtorch.inference_mode():
    ...     numtorch.is_inference_mode_enabled()
    True
    """

    def __init__(self, mode: bool = True):
        self._args = (mode,)
        self.mode = mode

    def __enter__(self):
        self.prev = (STATE.grad_enabled, STATE.inference)
        if self.mode:
            STATE.grad_enabled = False
            STATE.inference = True
            set_inference_make(True)

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference = self.prev
        set_inference_make(STATE.inference)


def is_grad_enabled() -> bool:
    """Whether operations are currently recorded for autograd.

    >>> numtorch.is_grad_enabled()
    True
    """
    return STATE.grad_enabled


def is_inference(input) -> bool:  # noqa: A002 - torch's parameter name
    """Whether ``input`` is an inference tensor (made inside ``inference_mode``).

    >>> numtorch.is_inference(numtorch.ones(1))
    False
    """
    if not hasattr(input, "is_inference"):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_inference()


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode`` block is active."""
    return STATE.inference


# Flags PyTorch's engine reads: multithreading (a device thread per accelerator; CPU work always
# runs on the calling thread, as in numtorch, so the flag changes nothing here) and the gradient
# layout contract (numtorch's AccumulateGrad stores .grad in the layout the engine produced it).
_FLAGS = {"multithreading": True, "grad_layout": True, "view_replay": False}


class _FlagMode(_DecoratorContextManager):
    _flag = ""

    def __init__(self, mode: bool = True):
        self._args = (mode,)
        self.mode = mode
        self.prev = _FLAGS[self._flag]
        _FLAGS[self._flag] = bool(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _FLAGS[self._flag] = self.prev

    def __call__(self, fn):
        _FLAGS[self._flag] = self.prev
        return super().__call__(fn)

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_FlagMode):
    """Allow or forbid multithreaded backward (function, context manager or decorator).

    >>> with numtorch.autograd.set_multithreading_enabled(False):
    ...     numtorch.autograd.is_multithreading_enabled()
    False
    """

    _flag = "multithreading"


class enforce_grad_layout_policy(_FlagMode):
    """Enforce (default) or relax the contract that ``.grad`` matches its parameter's strides.

    >>> with numtorch.autograd.enforce_grad_layout_policy(False):
    ...     pass
    """

    _flag = "grad_layout"


def is_multithreading_enabled() -> bool:
    """Whether multithreaded backward is allowed (``set_multithreading_enabled``).

    >>> numtorch.autograd.is_multithreading_enabled()
    True
    """
    return _FLAGS["multithreading"]


def is_view_replay_enabled() -> bool:
    """Whether autograd replays views with their view function (off by default, as in PyTorch).

    >>> numtorch.autograd.is_view_replay_enabled()
    False
    """
    return _FLAGS["view_replay"]
