"""``get_cpp_backtrace``: numtorch has no C++ frames, so the C++ part of a stack is empty."""

from __future__ import annotations


def get_cpp_backtrace(frames_to_skip: int = 0, maximum_number_of_frames: int = 64) -> str:
    """The C++ stack of the current thread: numtorch is Python and Numba only, so ``""``.

    >>> numtorch.utils.get_cpp_backtrace()
    ''
    """
    return ""
