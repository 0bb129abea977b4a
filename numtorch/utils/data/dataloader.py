"""DataLoader (single-process) and the default collate functions, mirroring
``torch.utils.data.dataloader`` and ``torch.utils.data._utils.collate``.

Workers are not spawned: ``num_workers`` is accepted and validated, and batches are always
produced in the calling process (the order and contents are the same as PyTorch's).
"""

from __future__ import annotations

import collections
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._dtype import int64
from ..._tensor import Tensor, _make
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def get_worker_info():
    """None: loading always happens in the main process here."""
    return None


def default_convert(data):
    """Convert NumPy arrays/scalars (also inside dicts, lists and tuples) to tensors.

    >>> default_convert({"x": np.zeros(2)})
    {'x': tensor([0., 0.], dtype=torch.float64)}
    """
    import numtorch

    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if (
            elem_type.__name__ == "ndarray"
            and np_str_obj_array_pattern.search(data.dtype.str) is not None
        ):
            return data
        return numtorch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate a list of samples, dispatching on the first sample's type through ``collate_fn_map``
    and recursing into mappings, named tuples and sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(
                    {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
                )
                return clone
            return elem_type(
                {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
            )
        except TypeError:
            return {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(
            *(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch, strict=False))
        )
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch, strict=False))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type(
                [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
            )
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    import numtorch

    return numtorch.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    import numtorch

    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([numtorch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    import numtorch

    return numtorch.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    import numtorch

    return numtorch.tensor(batch, dtype=numtorch.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    import numtorch

    return numtorch.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[Any, Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch: tensors are stacked along a new dim 0, numbers become
    1-D tensors (floats as float64), and dicts/tuples/lists are collated field by field.

    >>> default_collate([(numtorch.zeros(2), 1), (numtorch.ones(2), 2)])
    [tensor([[0., 0.],
            [1., 1.]]), tensor([1, 2])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over a dataset in (optionally shuffled) batches.

    >>> ds = numtorch.utils.data.TensorDataset(numtorch.arange(5))
    >>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    _DataLoader__initialized = False

    def __init__(
        self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
        batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
        drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
        multiprocessing_context=None, generator=None, *, prefetch_factor: int | None = None,
        persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True,
    ) -> None:  # fmt: skip
        _check_worker_args(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor if num_workers == 0 or prefetch_factor else 2
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = 1
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = 0
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                    "and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        if sampler is None:
            if self._dataset_kind == 1:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in (
            "batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers",
        ):  # fmt: skip
            raise ValueError(
                f"{attr} attribute should not be set after {self.__class__.__name__} is initialized"
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        if self._dataset_kind == 1:
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


def _row_indices(index, n: int):
    """``index`` as an int64 tensor when every entry is an in-range int, else None.

    Note [TensorDataset batches by one gather]: default_collate stacks the rows ``ds[i]``, which
    equals one gather ``t[rows]`` per tensor; anything unusual takes the per-sample path, so its
    errors stay PyTorch's."""
    try:
        rows = np.asarray(index)
    except (TypeError, ValueError):
        return None
    if rows.ndim != 1 or rows.size == 0 or rows.dtype.kind not in "iu":
        return None
    if rows.min() < -n or rows.max() >= n:
        return None
    return _make(np.ascontiguousarray(rows, dtype=np.int64), int64)


def _check_worker_args(num_workers, timeout, prefetch_factor, persistent_workers) -> None:
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
            "to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


class _SingleProcessDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(loader._index_sampler)
        self._iterable = loader._dataset_kind == 1
        self._dataset_iter = iter(self._dataset) if self._iterable else None
        self._ended = False
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __next__(self):
        index = next(self._sampler_iter)
        data = self._fetch_iterable(index) if self._iterable else self._fetch_map(index)
        self._num_yielded += 1
        return data

    def _fetch_map(self, index):
        ds = self._dataset
        if self._auto_collation and type(ds) is TensorDataset and self._collate_fn is default_collate:
            rows = _row_indices(index, len(ds))
            if rows is not None:
                return [t[rows] for t in ds.tensors]
        if self._auto_collation:
            getitems = getattr(ds, "__getitems__", None)
            data = getitems(index) if getitems else [ds[idx] for idx in index]
        else:
            data = ds[index]
        return self._collate_fn(data)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if self._auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self._dataset_iter))
                except StopIteration:
                    self._ended = True
                    break
            if len(data) == 0 or (self._drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self._dataset_iter)
        return self._collate_fn(data)

    def __len__(self) -> int:
        return len(self._sampler_iter) if hasattr(self._sampler_iter, "__len__") else 0
