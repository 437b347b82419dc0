"""torch.backends.mps: Apple's Metal backend, which JAX (and so torchlike) does not provide."""

__all__ = ['is_available', 'is_built']


def is_available():
    return False


def is_built():
    return False
