"""numtorch.Size: the shape tuple."""

from __future__ import annotations

import math


class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as ``torch.Size([2, 3])``.

    >>> numtorch.zeros(2, 3).shape
    torch.Size([2, 3])
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))
