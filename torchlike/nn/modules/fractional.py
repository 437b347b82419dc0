"""FractionalMaxPool2d / FractionalMaxPool3d (torch/nn/modules/pooling.py): constructor validation, the
``_random_samples`` buffer and forward as torch; the math is F.fractional_max_pool2d/3d
(torchlike/_ops/nn_fractional.py)."""
from .. import functional as F
from .conv import _pair, _triple
from .module import Module

__all__ = ['FractionalMaxPool2d', 'FractionalMaxPool3d']


class _FractionalMaxPoolNd(Module):
    __constants__ = ['kernel_size', 'return_indices', 'output_size', 'output_ratio']

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        tup, n = self._tuple, self._n
        if n == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or
                       (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer('_random_samples', _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{n}d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return getattr(F, f'fractional_max_pool{self._n}d')(input, self.kernel_size, self.output_size,
                                                             self.output_ratio, self.return_indices,
                                                             _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Applies a 2D fractional max pooling over an input signal composed of several input planes
    (as torch.nn.FractionalMaxPool2d; windows start at stochastic steps, Graham 2014)."""
    _n = 2
    _tuple = staticmethod(_pair)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Applies a 3D fractional max pooling over an input signal composed of several input planes
    (as torch.nn.FractionalMaxPool3d)."""
    _n = 3
    _tuple = staticmethod(_triple)
