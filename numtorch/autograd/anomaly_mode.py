"""Anomaly detection: record forward tracebacks; fail on NaN gradients naming the forward op."""

from __future__ import annotations

from .._state import ANOMALY, STATE

_CHECK_NAN = [True]  # whether anomaly mode also fails on NaN gradients (check_nan=)


class detect_anomaly:
    """Context manager/decorator enabling anomaly detection for autograd.

    >>> with numtorch.autograd.detect_anomaly():
    ...     pass
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = STATE.anomaly & ANOMALY, _CHECK_NAN[0]
        _set(True, self.check_nan)

    def __exit__(self, *exc):
        _set(*self.prev)

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
        self.prev = STATE.anomaly & ANOMALY, _CHECK_NAN[0]
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)


def _set(mode, check_nan) -> None:
    # the saved-hooks bit is not ours (Note [Slow recording gate])
    STATE.anomaly = (STATE.anomaly & ~ANOMALY) | (ANOMALY if mode else 0)
    _CHECK_NAN[0] = bool(check_nan)


def is_anomaly_enabled() -> bool:
    return bool(STATE.anomaly & ANOMALY)


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode fails on NaN gradients (its ``check_nan``), as
    ``torch.is_anomaly_check_nan_enabled``.

    >>> numtorch.is_anomaly_check_nan_enabled()
    True
    """
    return _CHECK_NAN[0]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off for the process, as ``torch.set_anomaly_enabled``.

    >>> numtorch.set_anomaly_enabled(False)
    """
    _set(enabled, check_nan)
