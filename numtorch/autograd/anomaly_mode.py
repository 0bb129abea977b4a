"""Anomaly detection: record forward tracebacks; fail on NaN gradients naming the forward op."""

from __future__ import annotations

from .._state import STATE


class detect_anomaly:
    """Context manager/decorator enabling anomaly detection for autograd.

    >>> with numtorch.autograd.detect_anomaly():
    ...     pass
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = STATE.anomaly
        STATE.anomaly = True

    def __exit__(self, *exc):
        STATE.anomaly = self.prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with detect_anomaly(self.check_nan):
                return fn(*a, **k)

        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off (as a function call or context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = STATE.anomaly
        STATE.anomaly = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.anomaly = self.prev


def is_anomaly_enabled() -> bool:
    return STATE.anomaly
