"""Pooling layers: MaxPool1/2/3d, MaxUnpool1/2/3d, AvgPool1/2/3d, LPPool1/2/3d, AdaptiveMaxPool1/2/3d,
AdaptiveAvgPool1/2/3d, with torch's constructor arguments, stored attributes and extra_repr. The math is
F.*pool* (torchlike/_ops/nn_pool.py)."""
from .. import functional as F
from .conv import _single, _pair, _triple
from .module import Module

__all__ = ['MaxPool1d', 'MaxPool2d', 'MaxPool3d', 'MaxUnpool1d', 'MaxUnpool2d', 'MaxUnpool3d', 'AvgPool1d',
           'AvgPool2d', 'AvgPool3d', 'LPPool1d', 'LPPool2d', 'LPPool3d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d',
           'AdaptiveMaxPool3d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d']


def _named(base, name, n, doc, **attrs):
    cls = type(name, (base,), dict(attrs, _n=n, __module__=__name__, __doc__=doc))
    cls.__qualname__ = name
    return cls


class _MaxPoolNd(Module):
    __constants__ = ['kernel_size', 'stride', 'padding', 'dilation', 'return_indices', 'ceil_mode']

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, f'max_pool{self._n}d')(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                                  ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return ('kernel_size={kernel_size}, stride={stride}, padding={padding}'
                ', dilation={dilation}, ceil_mode={ceil_mode}'.format(**self.__dict__))


MaxPool1d, MaxPool2d, MaxPool3d = (
    _named(_MaxPoolNd, f'MaxPool{n}d', n, f'Applies a {n}D max pooling over an input signal (as torch.nn.MaxPool{n}d).')
    for n in (1, 2, 3))


class _MaxUnpoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        tup = self._tuple
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if (stride is not None) else kernel_size)
        self.padding = tup(padding)

    def forward(self, input, indices, output_size=None):
        return getattr(F, f'max_unpool{self._n}d')(input, indices, self.kernel_size, self.stride, self.padding,
                                                    output_size)

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}'


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = (
    _named(_MaxUnpoolNd, f'MaxUnpool{n}d', n, f'Computes a partial inverse of MaxPool{n}d (as torch.nn.MaxUnpool{n}d).',
           _tuple=staticmethod(t)) for n, t in ((1, _single), (2, _pair), (3, _triple)))


class _AvgPoolNd(Module):
    __constants__ = ['kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad']

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}'


class AvgPool1d(_AvgPoolNd):
    """Applies a 1D average pooling over an input signal (as torch.nn.AvgPool1d)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolNdOverride(_AvgPoolNd):
    __constants__ = ['kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad', 'divisor_override']

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, f'avg_pool{self._n}d')(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                                  self.count_include_pad, self.divisor_override)


AvgPool2d, AvgPool3d = (
    _named(_AvgPoolNdOverride, f'AvgPool{n}d', n,
           f'Applies a {n}D average pooling over an input signal (as torch.nn.AvgPool{n}d).') for n in (2, 3))


class _LPPoolNd(Module):
    __constants__ = ['norm_type', 'kernel_size', 'stride', 'ceil_mode']

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, f'lp_pool{self._n}d')(input, float(self.norm_type), self.kernel_size, self.stride,
                                                 self.ceil_mode)

    def extra_repr(self):
        return 'norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}'.format(
            **self.__dict__)


LPPool1d, LPPool2d, LPPool3d = (
    _named(_LPPoolNd, f'LPPool{n}d', n, f'Applies a {n}D power-average pooling (as torch.nn.LPPool{n}d).')
    for n in (1, 2, 3))


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ['output_size', 'return_indices']

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return getattr(F, f'adaptive_max_pool{self._n}d')(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f'output_size={self.output_size}'


AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (
    _named(_AdaptiveMaxPoolNd, f'AdaptiveMaxPool{n}d', n,
           f'Applies a {n}D adaptive max pooling (as torch.nn.AdaptiveMaxPool{n}d).') for n in (1, 2, 3))


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ['output_size']

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return getattr(F, f'adaptive_avg_pool{self._n}d')(input, self.output_size)

    def extra_repr(self):
        return f'output_size={self.output_size}'


AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = (
    _named(_AdaptiveAvgPoolNd, f'AdaptiveAvgPool{n}d', n,
           f'Applies a {n}D adaptive average pooling (as torch.nn.AdaptiveAvgPool{n}d).') for n in (1, 2, 3))
