"""torch.signal: signal-processing namespaces (so far ``windows``)."""
from . import windows  # noqa: F401

__all__ = ['windows']
