"""torch.fft: discrete Fourier transforms (the functions are registered in torchlike/_ops/fft.py).

The namespace is ``registry.PUBLIC['fft']``: every function registered with ``namespace='fft'``.
"""
from .._engine.registry import PUBLIC as _PUBLIC


def __getattr__(name):
    ns = _PUBLIC.get('fft', {})
    if name in ns:
        return ns[name]
    raise AttributeError(f"module 'torchlike.fft' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC.get('fft', {})))


globals().update(_PUBLIC.get('fft', {}))
