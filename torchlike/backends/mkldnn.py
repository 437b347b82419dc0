"""torch.backends.mkldnn: torchlike runs no oneDNN kernels of its own (XLA's CPU compiler decides what it
calls), so it reports none; a True here would send scripts to ``Tensor.to_mkldnn()`` paths."""

__all__ = ['is_available']


def is_available():
    return False
