"""The memory formats (``numtorch.contiguous_format``, ...): a leaf of the shape area, so that
``core`` (reshape) and ``copy`` (clone, contiguous) both use them without importing each other."""

from __future__ import annotations


class memory_format:
    """A memory layout request, mirroring ``torch.memory_format``.

    >>> numtorch.zeros(2, 3).t().contiguous(memory_format=numtorch.contiguous_format).stride()
    (2, 1)
    """

    __slots__ = ("name", "code")

    def __init__(self, name: str, code: int):
        self.name, self.code = name, code

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name


contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)
channels_last_3d = memory_format("channels_last_3d", 3)
_FORMATS = (contiguous_format, preserve_format, channels_last, channels_last_3d)
