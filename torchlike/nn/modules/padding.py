"""Padding layers: Circular/Constant/Reflection/Replication/ZeroPad 1d/2d/3d (torch's attributes, extra_repr
and input-rank checks); the math is F.pad (torchlike/_ops/nn_sample.py)."""
from .. import functional as F
from .conv import _ntuple, _pair, _quadruple
from .module import Module

__all__ = ['CircularPad1d', 'CircularPad2d', 'CircularPad3d', 'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d',
           'ReflectionPad1d', 'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d',
           'ReplicationPad3d', 'ZeroPad1d', 'ZeroPad2d', 'ZeroPad3d']

_TUPLE = {1: _pair, 2: _quadruple, 3: _ntuple(6)}


class _CircularPadNd(Module):
    __constants__ = ['padding']

    def __init__(self, padding):
        super().__init__()
        self.padding = _TUPLE[self._n](padding)

    def _check_input_dim(self, input):
        n = self._n
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, 'circular')

    def extra_repr(self):
        return f'{self.padding}'


class _ConstantPadNd(Module):
    __constants__ = ['padding', 'value']

    def __init__(self, padding, value):
        super().__init__()
        self.value = value
        self.padding = _TUPLE[self._n](padding)

    def forward(self, input):
        return F.pad(input, self.padding, 'constant', self.value)

    def extra_repr(self):
        return f'padding={self.padding}, value={self.value}'


class _ReflectionPadNd(Module):
    __constants__ = ['padding']

    def __init__(self, padding):
        super().__init__()
        self.padding = _TUPLE[self._n](padding)

    def forward(self, input):
        return F.pad(input, self.padding, 'reflect')

    def extra_repr(self):
        return f'{self.padding}'


class _ReplicationPadNd(_ReflectionPadNd):
    def forward(self, input):
        return F.pad(input, self.padding, 'replicate')


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f'{self.padding}'


def _make(base, kind, n, doc):
    name = f'{kind}{n}d'
    cls = type(name, (base,), {'_n': n, '__module__': __name__, '__doc__': f'{doc} (as torch.nn.{name}).'})
    cls.__qualname__ = name
    return cls


CircularPad1d, CircularPad2d, CircularPad3d = (
    _make(_CircularPadNd, 'CircularPad', n, 'Pads the input tensor using circular padding of the input boundary')
    for n in (1, 2, 3))
ConstantPad1d, ConstantPad2d, ConstantPad3d = (
    _make(_ConstantPadNd, 'ConstantPad', n, 'Pads the input tensor boundaries with a constant value')
    for n in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (
    _make(_ReflectionPadNd, 'ReflectionPad', n, 'Pads the input tensor using the reflection of the input boundary')
    for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (
    _make(_ReplicationPadNd, 'ReplicationPad', n, 'Pads the input tensor using replication of the input boundary')
    for n in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (
    _make(_ZeroPadNd, 'ZeroPad', n, 'Pads the input tensor boundaries with zero') for n in (1, 2, 3))
