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

from . import datapipes, distributed, graph, graph_settings
from .datapipes._decorator import (argument_validation, functional_datapipe, guaranteed_datapipes_determinism,
                                   non_deterministic, runtime_validation, runtime_validation_disabled)  # fmt: skip
from .datapipes.datapipe import DataChunk, DFIterDataPipe, IterDataPipe, MapDataPipe
from .distributed import DistributedSampler

__all__ = [
    "BatchSampler", "ChainDataset", "DataChunk", "DFIterDataPipe", "DistributedSampler", "IterDataPipe",
    "MapDataPipe", "argument_validation", "functional_datapipe", "guaranteed_datapipes_determinism",
    "non_deterministic", "runtime_validation", "runtime_validation_disabled", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
    "default_convert", "get_worker_info", "random_split",
]  # fmt: skip
