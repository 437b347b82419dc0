"""torch.cpu: the CPU device module (its ``amp`` submodule)."""
from . import amp  # noqa: F401

__all__ = ['amp']
