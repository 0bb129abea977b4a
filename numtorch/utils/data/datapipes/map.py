"""The basic map-style DataPipes: wrap a sequence, map its items."""

from __future__ import annotations

from ._decorator import functional_datapipe
from .datapipe import MapDataPipe


class SequenceWrapper(MapDataPipe):
    """A MapDataPipe over a sequence.

    >>> SequenceWrapper([5, 6])[1]
    6
    """

    def __init__(self, sequence, deepcopy: bool = True) -> None:
        self.sequence = sequence

    def __getitem__(self, index):
        return self.sequence[index]

    def __len__(self) -> int:
        return len(self.sequence)


@functional_datapipe("map")
class Mapper(MapDataPipe):
    """``fn`` applied to the item at each index (``dp.map(fn)``)."""

    def __init__(self, datapipe, fn) -> None:
        self.datapipe, self.fn = datapipe, fn

    def __getitem__(self, index):
        return self.fn(self.datapipe[index])

    def __len__(self) -> int:
        return len(self.datapipe)
