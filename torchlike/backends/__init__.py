"""torch.backends: the flags and availability queries scripts touch (cudnn, cuda.matmul, mps, mkldnn, openmp).

The flag values live in torchlike/_determinism.py; these modules are views of it (one place per thing).
Names torch has that are not here (cusparselt, mha, opt_einsum, ...) are absent rather than faked.
"""
from . import cuda, cudnn, mkldnn, mps, openmp  # noqa: F401

__all__ = ['cuda', 'cudnn', 'mkldnn', 'mps', 'openmp']
