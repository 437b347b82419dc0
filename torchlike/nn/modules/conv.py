"""Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy variants.

As torch's: ``_ConvNd`` validates groups/padding/padding_mode, allocates ``weight`` (out, in/groups, *k) or,
transposed, (in, out/groups, *k) and ``bias``, and initialises them with kaiming_uniform_(a=sqrt(5)) and
U(-1/sqrt(fan_in), 1/sqrt(fan_in)); a non-'zeros' padding_mode pads with F.pad before an unpadded
convolution. The math is F.conv*d (torchlike/_ops/nn_conv.py).
"""
import collections.abc
import math
from itertools import repeat

from .. import functional as F
from .. import init
from ..._ops import creation
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ['Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d', 'LazyConv1d',
           'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d', 'LazyConvTranspose2d', 'LazyConvTranspose3d']


# torch.nn.modules.utils' tuple helpers (the layer files of this family share them from here)
def _ntuple(n, name='parse'):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, '_single')
_pair = _ntuple(2, '_pair')
_triple = _ntuple(3, '_triple')
_quadruple = _ntuple(4, '_quadruple')


def _reverse_repeat_tuple(t, n):
    """Reverse ``t`` and repeat each element ``n`` times: a conv padding tuple -> F.pad's order."""
    return tuple(x for x in reversed(t) for _ in range(n))


class _ConvNd(Module):
    __constants__ = ['stride', 'padding', 'dilation', 'groups', 'padding_mode', 'output_padding', 'in_channels',
                     'out_channels', 'kernel_size']

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError('groups must be a positive integer')
        if in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups')
        if out_channels % groups != 0:
            raise ValueError('out_channels must be divisible by groups')
        valid_padding_strings = {'same', 'valid'}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == 'same' and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {'zeros', 'reflect', 'replicate', 'circular'}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == 'same':
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total_padding = d * (k - 1)
                    left_pad = total_padding // 2
                    self._reversed_padding_repeated_twice[2 * i] = left_pad
                    self._reversed_padding_repeated_twice[2 * i + 1] = total_padding - left_pad
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(self.padding, 2)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(creation.empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)): torch's historical default,
        # see https://github.com/pytorch/pytorch/issues/57109
        with no_grad():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = '{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}'
        if self.padding != (0,) * len(self.padding):
            s += ', padding={padding}'
        if self.dilation != (1,) * len(self.dilation):
            s += ', dilation={dilation}'
        if self.output_padding != (0,) * len(self.output_padding):
            s += ', output_padding={output_padding}'
        if self.groups != 1:
            s += ', groups={groups}'
        if self.bias is None:
            s += ', bias=False'
        if self.padding_mode != 'zeros':
            s += ', padding_mode={padding_mode}'
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, 'padding_mode'):
            self.padding_mode = 'zeros'

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)

    def _conv_forward(self, input, weight, bias):
        conv = self._conv_fn
        if self.padding_mode != 'zeros':
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, self._tuple(0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)


def _conv_class(n, tup):
    name = f'Conv{n}d'

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode='zeros', device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        padding_ = padding if isinstance(padding, str) else tup(padding)
        _ConvNd.__init__(self, in_channels, out_channels, tup(kernel_size), tup(stride), padding_, tup(dilation),
                         False, tup(0), groups, bias, padding_mode, **factory_kwargs)

    cls = type(name, (_ConvNd,), {
        '__init__': __init__, '__module__': __name__, '_tuple': staticmethod(tup),
        '_conv_fn': property(lambda self: getattr(F, f'conv{n}d')),
        '__doc__': f"Applies a {n}D convolution over an input signal composed of several input planes (as "
                   f"torch.nn.{name})."})
    cls.__qualname__ = name
    return cls


Conv1d = _conv_class(1, _single)
Conv2d = _conv_class(2, _pair)
Conv3d = _conv_class(3, _triple)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, **factory_kwargs)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d]
                        + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for i in range(len(output_size)):
            size, min_size, max_size = output_size[i], min_sizes[i], max_sizes[i]
            if size < min_size or size > max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {input.size()[2:]})")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input, output_size=None):
        n = len(self.kernel_size)
        if self.padding_mode != 'zeros':
            raise ValueError(f'Only `zeros` padding mode is supported for ConvTranspose{n}d')
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, n,
                                              self.dilation)
        return getattr(F, f'conv_transpose{n}d')(input, self.weight, self.bias, self.stride, self.padding,
                                                 output_padding, self.groups, self.dilation)


def _conv_transpose_class(n, tup):
    name = f'ConvTranspose{n}d'

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        _ConvTransposeNd.__init__(self, in_channels, out_channels, tup(kernel_size), tup(stride), tup(padding),
                                  tup(dilation), True, tup(output_padding), groups, bias, padding_mode,
                                  **factory_kwargs)

    cls = type(name, (_ConvTransposeNd,), {
        '__init__': __init__, '__module__': __name__, '_tuple': staticmethod(tup),
        '__doc__': f"Applies a {n}D transposed convolution operator over an input image composed of several input "
                   f"planes (as torch.nn.{name})."})
    cls.__qualname__ = name
    return cls


ConvTranspose1d = _conv_transpose_class(1, _single)
ConvTranspose2d = _conv_transpose_class(2, _pair)
ConvTranspose3d = _conv_transpose_class(3, _triple)


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels is inferred from the first input (torch's _LazyConvXdMixin)."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError('in_channels must be divisible by groups')
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            with no_grad():
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        num_spatial_dims = self._get_num_spatial_dims()
        num_dims_no_batch = num_spatial_dims + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    def _get_num_spatial_dims(self):
        return len(self.kernel_size)


def _lazy_class(base, transposed):
    n = len(base._tuple(0))
    name = f"Lazy{base.__name__}"

    if transposed:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode='zeros', device=None, dtype=None):
            factory_kwargs = {'device': device, 'dtype': dtype}
            # through LazyModuleMixin.__init__ (which registers the inference hook), then base.__init__
            _LazyConvXdMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                                      dilation, padding_mode, **factory_kwargs)
            _lazy_params(self, out_channels, bias, factory_kwargs)
    else:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode='zeros', device=None, dtype=None):
            factory_kwargs = {'device': device, 'dtype': dtype}
            _LazyConvXdMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                                      padding_mode, **factory_kwargs)
            _lazy_params(self, out_channels, bias, factory_kwargs)

    cls = type(name, (_LazyConvXdMixin, base), {
        '__init__': __init__, '__module__': __name__, 'cls_to_become': base,
        '__doc__': f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from the first input ({n}D)."})
    cls.__qualname__ = name
    return cls


def _lazy_params(self, out_channels, bias, factory_kwargs):
    # base.__init__ ran with in/out_channels 0 and bias=False so no real parameters were allocated
    self.weight = UninitializedParameter(**factory_kwargs)
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(**factory_kwargs)


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_class(c, False) for c in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_class(c, True) for c in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
