"""utils.data datasets and samplers."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    random_split,
)


class Range(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_base_dataset_requires_getitem_and_adds():
    with pytest.raises(
        NotImplementedError, match="Subclasses of Dataset should implement __getitem__."
    ):
        Dataset()[0]
    both = TensorDataset(numtorch.arange(2)) + TensorDataset(numtorch.arange(3))
    assert isinstance(both, ConcatDataset) and len(both) == 5
    assert list(Range(2) + Range(1)) == [0, 1, 0]


def test_tensor_dataset():
    x, y = numtorch.arange(6).reshape(3, 2), numtorch.tensor([0.0, 1.0, 2.0])
    ds = TensorDataset(x, y)
    a, b = ds[1]
    assert a.tolist() == [2, 3] and float(b) == 1.0 and len(ds) == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, numtorch.zeros(2))


def test_concat_dataset_indexing():
    ds = ConcatDataset([[1, 2], [3], [4, 5]])
    assert [ds[i] for i in range(5)] == [1, 2, 3, 4, 5]
    assert ds[-1] == 5 and ds.cumulative_sizes == [2, 3, 5]
    with pytest.raises(
        ValueError, match="absolute value of index should not exceed dataset length"
    ):
        ds[-6]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Range(2)])


def test_chain_and_stack_datasets():
    assert list(ChainDataset([Range(2), Range(3)])) == [0, 1, 0, 1, 2]
    assert len(ChainDataset([Range(2), Range(3)])) == 5
    assert StackDataset([1, 2], [3, 4])[1] == (2, 4)
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset([1], [1, 2])


def test_subset():
    s = Subset([10, 20, 30, 40], [3, 1])
    assert len(s) == 2 and s[0] == 40 and s.__getitems__([0, 1]) == [40, 20]


def test_random_split_lengths_fractions_and_determinism():
    ds = list(range(10))
    a, b = random_split(ds, [7, 3], generator=numtorch.Generator().manual_seed(5))
    c, d = random_split(ds, [7, 3], generator=numtorch.Generator().manual_seed(5))
    assert list(a) == list(c) and list(b) == list(d)
    assert sorted(list(a) + list(b)) == ds
    e, f, g = random_split(ds, [0.5, 0.3, 0.2])
    assert (len(e), len(f), len(g)) == (5, 3, 2)
    h, i = random_split(list(range(5)), [0.5, 0.5])
    assert (len(h), len(i)) == (3, 2)  # the remainder goes round-robin from the first split
    with pytest.raises(
        ValueError, match="Sum of input lengths does not equal the length of the input dataset!"
    ):
        random_split(ds, [5, 6])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(ds, [0.5, 1.5, -1.0])


def test_samplers():
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    perm = list(RandomSampler(range(20), generator=numtorch.Generator().manual_seed(0)))
    assert sorted(perm) == list(range(20)) and perm != list(range(20))
    again = list(RandomSampler(range(20), generator=numtorch.Generator().manual_seed(0)))
    assert perm == again
    draws = list(RandomSampler(range(3), replacement=True, num_samples=40))
    assert len(draws) == 40 and set(draws) <= {0, 1, 2}
    more = list(RandomSampler(range(3), num_samples=7))
    assert len(more) == 7 and sorted(more[:3]) == [0, 1, 2]
    assert sorted(SubsetRandomSampler([4, 8, 9])) == [4, 8, 9]
    with pytest.raises(
        ValueError, match="num_samples should be a positive integer value, but got num_samples=0"
    ):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(
        TypeError, match="replacement should be a boolean value, but got replacement=1"
    ):
        RandomSampler(range(3), replacement=1)


def test_batch_sampler():
    assert list(BatchSampler(range(5), 2, drop_last=False)) == [[0, 1], [2, 3], [4]]
    assert list(BatchSampler(range(5), 2, drop_last=True)) == [[0, 1], [2, 3]]
    assert len(BatchSampler(range(5), 2, False)) == 3 and len(BatchSampler(range(5), 2, True)) == 2
    with pytest.raises(
        ValueError, match="batch_size should be a positive integer value, but got batch_size=0"
    ):
        BatchSampler(range(5), 0, False)
    with pytest.raises(
        ValueError, match="drop_last should be a boolean value, but got drop_last=1"
    ):
        BatchSampler(range(5), 2, 1)


def test_tensor_dataset_rows_share_memory():
    x = numtorch.from_numpy(np.arange(6.0).reshape(3, 2))
    (row,) = TensorDataset(x)[2]
    assert np.shares_memory(row.numpy(), x.numpy())
