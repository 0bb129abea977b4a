"""``numtorch.layout`` and ``numtorch.strided``: every numtorch tensor is strided (dense)."""

from __future__ import annotations


class layout:
    """How a tensor's elements are laid out in memory, mirroring ``torch.layout``.

    >>> numtorch.ones(2).layout
    torch.strided
    """

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")
