"""torch.fft: discrete Fourier transforms (the functions are registered in torchlike/_ops/fft.py under the
registry namespace 'fft')."""
from .._engine.registry import namespace_module as _namespace_module

_namespace_module('fft', globals())
