"""Decorators for DataPipes: functional registration, determinism guards, argument / runtime checks."""

from __future__ import annotations

import inspect
from functools import wraps

from .datapipe import IterDataPipe, MapDataPipe, _item_type

_SETTINGS = {"determinism": False, "runtime_validation": True}


class functional_datapipe:
    """Register a DataPipe class as a method of every DataPipe of its kind.

    >>> from numtorch.utils.data import IterDataPipe, functional_datapipe
    >>> @functional_datapipe("twice_doc")
    ... class Twice(IterDataPipe):
    ...     def __init__(self, dp): self.dp = dp
    ...     def __iter__(self): return (2 * x for x in self.dp)
    >>> from numtorch.utils.data.datapipes.iter import IterableWrapper
    >>> list(IterableWrapper([1, 2]).twice_doc())
    [2, 4]
    """

    def __init__(self, name: str, enable_df_api_tracing=False) -> None:
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        if isinstance(cls, non_deterministic) or (isinstance(cls, type) and issubclass(cls, IterDataPipe)):
            IterDataPipe.register_datapipe_as_function(self.name, cls, enable_df_api_tracing=self.enable_df_api_tracing)
        elif isinstance(cls, type) and issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        else:
            raise TypeError("`functional_datapipe` can only decorate IterDataPipe")
        return cls


class guaranteed_datapipes_determinism:
    """Inside it, building a DataPipe marked ``non_deterministic`` raises TypeError."""

    def __init__(self) -> None:
        self.prev = _SETTINGS["determinism"]
        _SETTINGS["determinism"] = True

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _SETTINGS["determinism"] = self.prev


class non_deterministic:
    """Mark an IterDataPipe class (or, given a predicate on its arguments, some of its instances)
    as non-deterministic."""

    cls = None

    def __init__(self, arg) -> None:
        if isinstance(arg, type):
            if not issubclass(arg, IterDataPipe):
                raise TypeError(f"Only `IterDataPipe` can be decorated with `non_deterministic`, but {arg.__name__} is found")
            self.cls = arg
        elif callable(arg):
            self.deterministic_fn = arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args, **kwargs):
        if self.cls is not None:
            if _SETTINGS["determinism"]:
                raise TypeError(
                    f"{self.cls.__name__} is non-deterministic, but you set 'guaranteed_datapipes_determinism'. "
                    "You can turn off determinism for this DataPipe if that is acceptable for your application"
                )
            return self.cls(*args, **kwargs)
        if not (isinstance(args[0], type) and issubclass(args[0], IterDataPipe)):
            raise TypeError(f"Only `IterDataPipe` can be decorated, but {args[0].__name__} is found")
        self.cls = args[0]
        return self.deterministic_wrapper_fn

    def deterministic_wrapper_fn(self, *args, **kwargs):
        res = self.deterministic_fn(*args, **kwargs)
        if not isinstance(res, bool):
            raise TypeError(
                f"deterministic_fn of `non_deterministic` decorator is required to return a boolean value, but {type(res)} is found"
            )
        if _SETTINGS["determinism"] and res:
            raise TypeError(
                f"{self.cls.__name__} is non-deterministic with the inputs, but you set 'guaranteed_datapipes_determinism'. "
                "You can turn off determinism for this DataPipe if that is acceptable for your application"
            )
        return self.cls(*args, **kwargs)


def argument_validation(f):
    """Check at call time that arguments annotated as an IterDataPipe type are IterDataPipes."""
    signature = inspect.signature(f)

    @wraps(f)
    def wrapper(*args, **kwargs):
        hints = typing_hints(f)
        for name, value in signature.bind(*args, **kwargs).arguments.items():
            hint = hints.get(name)
            if isinstance(hint, type) and issubclass(hint, IterDataPipe) and not isinstance(value, IterDataPipe):
                raise TypeError(f"Expected argument '{name}' as a IterDataPipe, but found {type(value)}")
        return f(*args, **kwargs)

    return wrapper


def typing_hints(f) -> dict:
    import typing

    try:
        return typing.get_type_hints(f)
    except Exception:  # noqa: BLE001 - unresolvable forward references: nothing to check
        return {}


class runtime_validation_disabled:
    """Turn ``runtime_validation``'s per-item type checks off inside the block."""

    def __init__(self) -> None:
        self.prev = _SETTINGS["runtime_validation"]
        _SETTINGS["runtime_validation"] = False

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _SETTINGS["runtime_validation"] = self.prev


def runtime_validation(f):
    """Decorate ``__iter__`` of an ``IterDataPipe[T]``: each yielded item must be a ``T``."""
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @wraps(f)
    def wrapper(self):
        t = _item_type(type(self))
        for d in f(self):
            if _SETTINGS["runtime_validation"] and t is not None and not isinstance(d, t):
                raise RuntimeError(f"Expected an instance as subtype of {t}, but found {d}({type(d)})")
            yield d

    return wrapper
