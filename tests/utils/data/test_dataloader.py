"""utils.data.DataLoader and the default collate functions."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import numtorch
from numtorch.utils.data import (
    BatchSampler,
    DataLoader,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
    default_collate,
    default_convert,
)


def _ds(n=10):
    return TensorDataset(numtorch.arange(n), numtorch.arange(n) * 2.0)


def test_batches_in_order():
    batches = list(DataLoader(_ds(), batch_size=4))
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][1].dtype is numtorch.float32 and batches[0][1].tolist() == [
        0.0,
        2.0,
        4.0,
        6.0,
    ]
    assert len(DataLoader(_ds(), batch_size=4)) == 3


def test_drop_last():
    loader = DataLoader(_ds(), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [len(b[0]) for b in loader] == [4, 4]


def test_shuffle_is_deterministic_with_a_generator():
    def order(seed):
        loader = DataLoader(
            _ds(), batch_size=3, shuffle=True, generator=numtorch.Generator().manual_seed(seed)
        )
        return [i for b in loader for i in b[0].tolist()]

    assert order(1) == order(1)
    assert order(1) != order(2)
    assert sorted(order(1)) == list(range(10))
    g = numtorch.Generator().manual_seed(3)
    loader = DataLoader(_ds(), batch_size=10, shuffle=True, generator=g)
    first, second = next(iter(loader))[0].tolist(), next(iter(loader))[0].tolist()
    assert first != second  # the generator advances between epochs


def test_global_seed_controls_unseeded_shuffle():
    numtorch.manual_seed(0)
    a = [b[0].tolist() for b in DataLoader(_ds(), batch_size=10, shuffle=True)]
    numtorch.manual_seed(0)
    b = [b[0].tolist() for b in DataLoader(_ds(), batch_size=10, shuffle=True)]
    assert a == b


def test_batch_size_none_yields_samples():
    samples = list(DataLoader([np.float64(1.5), np.float64(2.5)], batch_size=None))
    assert [float(s) for s in samples] == [1.5, 2.5] and isinstance(samples[0], numtorch.Tensor)


def test_custom_collate_and_batch_sampler():
    loader = DataLoader(list(range(5)), batch_sampler=BatchSampler(SequentialSampler(range(5)), 2, False),
                        collate_fn=lambda batch: sum(batch))  # fmt: skip
    assert list(loader) == [1, 5, 4] and len(loader) == 3


def test_iterable_dataset():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3, drop_last=True)] == [
        [0, 1, 2],
        [3, 4, 5],
    ]
    assert len(DataLoader(Stream(), batch_size=3)) == 3
    with pytest.raises(
        ValueError,
        match="DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True",
    ):
        DataLoader(Stream(), shuffle=True)


def test_argument_errors():
    with pytest.raises(ValueError, match="^sampler option is mutually exclusive with shuffle$"):
        DataLoader(_ds(), sampler=SequentialSampler(_ds()), shuffle=True)
    with pytest.raises(
        ValueError, match="batch_sampler option is mutually exclusive with batch_size"
    ):
        DataLoader(_ds(), batch_sampler=BatchSampler(range(3), 1, False), batch_size=2)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(_ds(), num_workers=-1)
    with pytest.raises(
        ValueError,
        match="batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
    ):
        DataLoader(_ds(), batch_size=None, drop_last=True)
    loader = DataLoader(_ds())
    with pytest.raises(
        ValueError, match="^batch_size attribute should not be set after DataLoader is initialized$"
    ):
        loader.batch_size = 3


def test_num_workers_is_accepted_and_runs_in_process():
    loader = DataLoader(_ds(4), batch_size=2, num_workers=2)
    assert [b[0].tolist() for b in loader] == [[0, 1], [2, 3]]


def test_default_collate_structures():
    Point = namedtuple("Point", "x y")
    batch = [
        {"img": numtorch.zeros(2), "label": 1, "w": 0.5, "name": "a", "p": Point(1, 2.0)},
        {"img": numtorch.ones(2), "label": 2, "w": 1.5, "name": "b", "p": Point(3, 4.0)},
    ]
    out = default_collate(batch)
    assert out["img"].tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert out["label"].dtype is numtorch.int64 and out["label"].tolist() == [1, 2]
    assert out["w"].dtype is numtorch.float64 and out["name"] == ["a", "b"]
    assert isinstance(out["p"], Point) and out["p"].x.tolist() == [1, 3]
    arrays = default_collate([np.zeros((2, 2), np.float32), np.ones((2, 2), np.float32)])
    assert arrays.shape == (2, 2, 2) and arrays.dtype is numtorch.float32
    assert default_collate([np.int32(1), np.int32(2)]).dtype is numtorch.int32
    lists = default_collate([[1, 2.0], [3, 4.0]])
    assert isinstance(lists, list) and lists[0].tolist() == [1, 3]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(
        TypeError,
        match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'object'>",
    ):
        default_collate([object()])


def test_default_convert():
    out = default_convert({"a": np.arange(3), "b": (np.float32(1.0), "s")})
    assert isinstance(out["a"], numtorch.Tensor) and out["a"].dtype is numtorch.int64
    assert (
        isinstance(out["b"], list)
        and isinstance(out["b"][0], numtorch.Tensor)
        and out["b"][1] == "s"
    )


def test_tensor_dataset_batches_equal_stacked_samples():
    # Note [TensorDataset batches by one gather]: same batches as collating ds[i] one by one
    x, y = numtorch.randn(23, 2, 3), numtorch.arange(23)
    ds = TensorDataset(x, y)
    fast = DataLoader(ds, batch_size=5, shuffle=True, generator=numtorch.Generator().manual_seed(1))
    slow = DataLoader(ds, batch_size=5, shuffle=True, generator=numtorch.Generator().manual_seed(1),
                      collate_fn=lambda b: default_collate(b))  # fmt: skip
    pairs = list(zip(fast, slow, strict=True))
    assert len(pairs) == 5
    for a, b in pairs:
        assert type(a) is list and type(b) is list
        for u, v in zip(a, b, strict=True):
            assert u.dtype is v.dtype and u.shape == v.shape and numtorch.equal(u, v)
    neg = next(iter(DataLoader(ds, sampler=[-1, 0], batch_size=2)))
    assert neg[1].tolist() == [22, 0]


def test_tensor_dataset_out_of_range_index_raises_per_sample_error():
    loader = DataLoader(TensorDataset(numtorch.arange(5)), sampler=[0, 7], batch_size=2)
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 5"):
        list(loader)
