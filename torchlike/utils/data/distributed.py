"""torch.utils.data.distributed: DistributedSampler, one rank's share of a dataset.

Mirrors torch/utils/data/distributed.py index for index: (optionally) one ``randperm`` seeded with
``seed + epoch``, padded by repeating indices from the start (or its tail dropped with ``drop_last``) to
a multiple of ``num_replicas``, then ``indices[rank:total_size:num_replicas]``. The permutation itself is
torchlike's JAX stream, not torch's (Note [Randomness is explicit] in torchlike/_ops/random.py); every
rank derives the same one from the same seed, which is all the partition needs.
"""
import importlib
import importlib.util
import math

import torchlike as torch  # attribute access happens at call time, after torchlike has finished importing

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _distributed():
    """torchlike.distributed when it exists and is available; else torch's error for a build without it.

    Looked up by spec rather than by catching ImportError, so a broken distributed package still raises
    its own error instead of being mistaken for a missing one.
    """
    if importlib.util.find_spec("torchlike.distributed") is not None:
        dist = importlib.import_module("torchlike.distributed")
        if dist.is_available():
            return dist
    raise RuntimeError("Requires distributed package to be available")


class DistributedSampler(Sampler):
    """Restricts sampling to the ``rank``-th of ``num_replicas`` equal shares of ``dataset``.

    Call ``set_epoch(epoch)`` before each epoch for a different shuffle per epoch (the seed is
    ``seed + epoch``); every replica must use the same ``seed``.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _distributed().get_world_size()
        if rank is None:
            rank = _distributed().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # Drop the tail down to the largest multiple of num_replicas, so every rank gets as many samples.
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            # Deterministic in (seed, epoch), so all replicas agree on the permutation.
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))

        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})")

        indices = indices[self.rank: self.total_size: self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(
                f"Number of subsampled indices ({len(indices)}) does not match num_samples ({self.num_samples})")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch, which (with ``seed``) chooses the shuffle of the next iteration."""
        self.epoch = epoch
