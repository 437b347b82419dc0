"""torch.optim.SparseAdam: needs sparse gradients, which torchlike does not have."""
from .optimizer import Optimizer

__all__ = ['SparseAdam']


class SparseAdam(Optimizer):
    r"""Lazy Adam for sparse gradients (``torch.optim.SparseAdam``): not supported."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        raise NotImplementedError("torchlike.optim.SparseAdam: sparse gradients (nn.Embedding(sparse=True)) are not "
                                  "supported by torchlike; use Adam or AdamW")
