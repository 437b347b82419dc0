"""torch.backends.openmp: XLA's CPU programs run on XLA's own thread pool, not OpenMP."""

__all__ = ['is_available']


def is_available():
    return False
