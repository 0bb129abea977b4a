"""numtorch.utils.data: datasets, samplers and the DataLoader.

>>> from numtorch.utils.data import DataLoader, TensorDataset
>>> loader = DataLoader(TensorDataset(numtorch.arange(6)), batch_size=4, drop_last=True)
>>> len(loader), [b[0].tolist() for b in loader]
(1, [[0, 1, 2, 3]])
"""

from __future__ import annotations

from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)  # fmt: skip
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)  # fmt: skip

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
    "default_convert", "get_worker_info", "random_split",
]  # fmt: skip
