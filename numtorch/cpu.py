"""``numtorch.cpu``: the CPU's answers to the device-module API ``numtorch.cuda`` offers, so code
written against ``get_device_module()`` runs on any device (as ``torch.cpu``). CPU work is
synchronous: streams and events are trivially complete."""

from __future__ import annotations

import contextlib

from .amp import autocast_mode as _A

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream", "device_count",
           "is_available", "is_initialized", "set_device", "stream", "synchronize"]  # fmt: skip


class amp:  # noqa: N801 - torch.cpu.amp is a namespace
    """``numtorch.cpu.amp.autocast`` is ``numtorch.autocast("cpu", ...)``."""

    @staticmethod
    def autocast(enabled: bool = True, dtype=None, cache_enabled: bool = True):
        import numtorch

        return numtorch.autocast("cpu", dtype=dtype or _A.get_autocast_dtype("cpu"), enabled=enabled,
                                 cache_enabled=cache_enabled)  # fmt: skip


def is_available() -> bool:
    """Always True.

    >>> numtorch.cpu.is_available()
    True
    """
    return True


def is_initialized() -> bool:
    """Always True: the CPU needs no initialisation."""
    return True


def device_count() -> int:
    """One CPU device.

    >>> numtorch.cpu.device_count()
    1
    """
    return 1


def current_device() -> str:
    """``'cpu'``.

    >>> numtorch.cpu.current_device()
    'cpu'
    """
    return "cpu"


def set_device(device) -> None:
    """Accepted and ignored: there is one CPU device."""


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU kernels return when they are done."""


class Stream:
    """The CPU's only stream: work on it is complete when the call returns."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """True: all work is done."""
        return True

    def record_event(self, event=None):
        """Record (trivially) an event on this stream."""
        event = event or Event()
        event.record(self)
        return event


class Event:
    """A CPU event: complete as soon as it is recorded."""

    def __init__(self, enable_timing: bool = False) -> None:
        self.enable_timing = enable_timing

    def record(self, stream=None) -> None:
        """Mark the event (already complete)."""

    def wait(self, stream=None) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """True: complete."""
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""


_CURRENT = Stream()


def current_stream(device=None) -> Stream:
    """The CPU stream.

    >>> numtorch.cpu.current_stream().query()
    True
    """
    return _CURRENT


class StreamContext(contextlib.AbstractContextManager):
    """Context manager selecting a stream (the CPU has one, so nothing changes)."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def __exit__(self, *exc) -> None:
        return None


def stream(stream) -> StreamContext:
    """``with numtorch.cpu.stream(s):`` (a no-op on the CPU's single stream)."""
    return StreamContext(stream)
