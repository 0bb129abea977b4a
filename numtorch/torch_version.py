"""``TorchVersion``: a version string that also compares with tuples and version strings by
release number (``numtorch.version.__version__ >= (0, 1)``), as ``torch.torch_version``."""

from __future__ import annotations

import re

__all__ = ["TorchVersion"]


def _release(v) -> tuple:
    if isinstance(v, str):
        m = re.match(r"\s*v?(\d+(?:\.\d+)*)", v)
        if m is None:
            raise ValueError(f"Invalid version: '{v}'")
        parts = [int(p) for p in m.group(1).split(".")]
    else:
        parts = [int(p) for p in v]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


class TorchVersion(str):
    """A ``str`` that compares as a release number with strings and tuples.

    >>> numtorch.torch_version.TorchVersion("2.1.0") > (1, 13)
    True
    """

    __slots__ = ()

    def _cmp(self, other, op):
        try:
            a, b = _release(str(self)), _release(other)
        except (TypeError, ValueError):
            return NotImplemented
        return op(a, b)

    def __gt__(self, other):
        return self._cmp(other, tuple.__gt__)

    def __ge__(self, other):
        return self._cmp(other, tuple.__ge__)

    def __lt__(self, other):
        return self._cmp(other, tuple.__lt__)

    def __le__(self, other):
        return self._cmp(other, tuple.__le__)

    def __eq__(self, other):
        r = self._cmp(other, tuple.__eq__)
        return str.__eq__(self, other) if r is NotImplemented else r

    __hash__ = str.__hash__
