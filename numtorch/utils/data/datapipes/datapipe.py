"""DataPipes: composable datasets whose operations chain as methods (``dp.map(f).batch(4)``),
registered by ``functional_datapipe`` as in PyTorch's ``torch.utils.data.datapipes``."""

from __future__ import annotations

import typing
from typing import TypeVar

from ..dataset import Dataset, IterableDataset

_T_co = TypeVar("_T_co", covariant=True)


def _item_type(cls):
    # the T of ``class P(IterDataPipe[T])``, when T is a plain class (what runtime_validation checks)
    for base in getattr(cls, "__orig_bases__", ()):
        args = typing.get_args(base)
        if args and isinstance(args[0], type):
            return args[0]
    return None


class IterDataPipe(IterableDataset[_T_co]):
    """An iterable-style DataPipe. Subclasses registered with ``functional_datapipe("name")``
    become methods of every IterDataPipe.

    >>> from numtorch.utils.data.datapipes.iter import IterableWrapper
    >>> list(IterableWrapper(range(6)).map(lambda x: x * 10).filter(lambda x: x > 10).batch(2))
    [[20, 30], [40, 50]]
    """

    functions: dict = {}

    def __getattr__(self, name):
        fn = IterDataPipe.functions.get(name)
        if fn is None:
            raise AttributeError(f"'{self.__class__.__name__}' object has no attribute '{name}'")
        return lambda *args, **kwargs: fn(self, *args, **kwargs)

    @classmethod
    def register_function(cls, function_name, function) -> None:
        cls.functions[function_name] = function

    @classmethod
    def register_datapipe_as_function(cls, function_name, cls_to_register, enable_df_api_tracing=False) -> None:
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is already taken")  # noqa: TRY002
        cls.functions[function_name] = cls_to_register

    def __repr__(self) -> str:
        return self.__class__.__qualname__

    def __str__(self) -> str:
        return self.__class__.__qualname__

    def reset(self) -> None:
        """Reset the DataPipe's iteration state (a no-op unless a subclass keeps one)."""


class MapDataPipe(Dataset[_T_co]):
    """A map-style DataPipe (``__getitem__`` and ``__len__``), with functional registration too.

    >>> from numtorch.utils.data.datapipes.map import SequenceWrapper
    >>> dp = SequenceWrapper([1, 2, 3]).map(lambda x: x + 1)
    >>> len(dp), dp[2]
    (3, 4)
    """

    functions: dict = {}

    def __getattr__(self, name):
        fn = MapDataPipe.functions.get(name)
        if fn is None:
            raise AttributeError(f"'{self.__class__.__name__}' object has no attribute '{name}'")
        return lambda *args, **kwargs: fn(self, *args, **kwargs)

    @classmethod
    def register_function(cls, function_name, function) -> None:
        cls.functions[function_name] = function

    @classmethod
    def register_datapipe_as_function(cls, function_name, cls_to_register) -> None:
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is already taken")  # noqa: TRY002
        cls.functions[function_name] = cls_to_register

    def __repr__(self) -> str:
        return self.__class__.__qualname__


class DFIterDataPipe(IterDataPipe):
    """An IterDataPipe of DataFrames (PyTorch's DataFrame tracing API builds on it)."""

    def _is_dfpipe(self) -> bool:
        return True


class DataChunk(list):
    """A list of items a batching DataPipe yields.

    >>> DataChunk([1, 2]).as_str()
    '[1, 2]'
    """

    def __init__(self, items) -> None:
        super().__init__(items)
        self.items = items

    def as_str(self, indent: str = "") -> str:
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self):
        yield from super().__iter__()

    def raw_iterator(self):
        yield from self.items
