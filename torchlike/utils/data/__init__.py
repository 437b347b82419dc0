"""torch.utils.data: datasets, samplers, collation and the DataLoader.

torch's datapipes (IterDataPipe, MapDataPipe, DataChunk, functional_datapipe, ...) are not provided.
"""
from ._utils.collate import default_collate, default_convert  # noqa: F401
from .dataloader import _DatasetKind, DataLoader, get_worker_info  # noqa: F401
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, random_split, StackDataset,  # noqa: F401
                      Subset, TensorDataset)
from .distributed import DistributedSampler  # noqa: F401
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "_DatasetKind",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
