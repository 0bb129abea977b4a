"""The basic iterable DataPipes: wrap, map, filter, batch, shuffle, header."""

from __future__ import annotations

import random

from ._decorator import functional_datapipe
from .datapipe import DataChunk, IterDataPipe


class IterableWrapper(IterDataPipe):
    """An IterDataPipe over any iterable.

    >>> list(IterableWrapper(range(3)))
    [0, 1, 2]
    """

    def __init__(self, iterable, deepcopy: bool = True) -> None:
        self.iterable, self.deepcopy = iterable, deepcopy

    def __iter__(self):
        yield from self.iterable

    def __len__(self) -> int:
        return len(self.iterable)


@functional_datapipe("map")
class Mapper(IterDataPipe):
    """``fn`` applied to each item (``dp.map(fn)``)."""

    def __init__(self, datapipe, fn) -> None:
        self.datapipe, self.fn = datapipe, fn

    def __iter__(self):
        for x in self.datapipe:
            yield self.fn(x)

    def __len__(self) -> int:
        return len(self.datapipe)


@functional_datapipe("filter")
class Filter(IterDataPipe):
    """The items for which ``filter_fn`` is true (``dp.filter(fn)``)."""

    def __init__(self, datapipe, filter_fn) -> None:
        self.datapipe, self.filter_fn = datapipe, filter_fn

    def __iter__(self):
        for x in self.datapipe:
            if self.filter_fn(x):
                yield x


@functional_datapipe("batch")
class Batcher(IterDataPipe):
    """Items grouped into DataChunks of ``batch_size`` (``dp.batch(n, drop_last=False)``)."""

    def __init__(self, datapipe, batch_size: int, drop_last: bool = False, wrapper_class=DataChunk) -> None:
        if batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        self.datapipe, self.batch_size, self.drop_last, self.wrapper_class = datapipe, batch_size, drop_last, wrapper_class

    def __iter__(self):
        batch = []
        for x in self.datapipe:
            batch.append(x)
            if len(batch) == self.batch_size:
                yield self.wrapper_class(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.wrapper_class(batch)

    def __len__(self) -> int:
        n = len(self.datapipe)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


@functional_datapipe("shuffle")
class Shuffler(IterDataPipe):
    """Items shuffled within a buffer of ``buffer_size`` (``dp.shuffle()``); ``set_seed`` fixes the order."""

    def __init__(self, datapipe, *, buffer_size: int = 10000, unbatch_level: int = 0) -> None:
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        self.datapipe, self.buffer_size = datapipe, buffer_size
        self._enabled, self._seed = True, None

    def set_shuffle(self, shuffle: bool = True):
        self._enabled = shuffle
        return self

    def set_seed(self, seed: int):
        self._seed = seed
        return self

    def __iter__(self):
        if not self._enabled:
            yield from self.datapipe
            return
        rng = random.Random(self._seed)
        buf = []
        for x in self.datapipe:
            if len(buf) == self.buffer_size:
                i = rng.randint(0, len(buf) - 1)
                buf[i], x = x, buf[i]
                yield x
            else:
                buf.append(x)
        while buf:
            yield buf.pop(rng.randint(0, len(buf) - 1))

    def __len__(self) -> int:
        return len(self.datapipe)


@functional_datapipe("header")
class Header(IterDataPipe):
    """The first ``limit`` items (``dp.header(n)``)."""

    def __init__(self, source_datapipe, limit: int = 10) -> None:
        self.source_datapipe, self.limit = source_datapipe, limit

    def __iter__(self):
        if self.limit <= 0:
            return
        for i, x in enumerate(self.source_datapipe):
            yield x
            if i + 1 >= self.limit:
                return
