"""Identity, Linear, Bilinear, LazyLinear."""
import math

from ..._engine.registry import PUBLIC
from ..._ops import creation
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ['Bilinear', 'Identity', 'LazyLinear', 'Linear']


def _functional(name):
    return PUBLIC.get('nn.functional', {}).get(name)


def _linear(input, weight, bias):
    f = _functional('linear')
    if f is not None:
        return f(input, weight, bias)
    out = input.matmul(weight.t())     # until F.linear is registered: the same math from existing ops
    return out if bias is None else out + bias


def _bilinear(input1, input2, weight, bias):
    f = _functional('bilinear')
    if f is not None:
        return f(input1, input2, weight, bias)
    out = PUBLIC['torch']['einsum']('...i,oij,...j->...o', input1, weight, input2)
    return out if bias is None else out + bias


def _init():
    from .. import init
    return init


def _uniform_(t, bound):
    init = _init()
    if hasattr(init, 'uniform_'):
        return init.uniform_(t, -bound, bound)
    with no_grad():
        return t.uniform_(-bound, bound)


class Identity(Module):
    r"""A placeholder identity operator that is argument-insensitive."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    r"""Applies an affine linear transformation to the incoming data: :math:`y = xA^T + b`.

    Args:
        in_features: size of each input sample
        out_features: size of each output sample
        bias: If set to ``False``, the layer will not learn an additive bias. Default: ``True``

    Attributes:
        weight: shape (out_features, in_features), initialized from U(-k, k), k = 1/in_features
        bias: shape (out_features), initialized from U(-k, k)
    """
    __constants__ = ['in_features', 'out_features']

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(creation.empty(out_features, **factory_kwargs))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)): torch's historical default,
        # see https://github.com/pytorch/pytorch/issues/57109
        fan_in = self.weight.shape[1] if self.weight.dim() > 1 else 0
        init = _init()
        if hasattr(init, 'kaiming_uniform_'):
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        elif fan_in > 0:
            _uniform_(self.weight, 1 / math.sqrt(fan_in))
        if self.bias is not None:
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            _uniform_(self.bias, bound)

    def forward(self, input):
        return _linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f'in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}'


class NonDynamicallyQuantizableLinear(Linear):
    """Linear under another name (used by MultiheadAttention's out_proj, as torch)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)


class Bilinear(Module):
    r"""Applies a bilinear transformation to the incoming data: :math:`y = x_1^T A x_2 + b`."""
    __constants__ = ['in1_features', 'in2_features', 'out_features']

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty((out_features, in1_features, in2_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(creation.empty(out_features, **factory_kwargs))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f'in1_features must be > 0, but got (in1_features={self.in1_features})')
        bound = 1 / math.sqrt(self.weight.size(1))
        _uniform_(self.weight, bound)
        if self.bias is not None:
            _uniform_(self.bias, bound)

    def forward(self, input1, input2):
        return _bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f'in1_features={self.in1_features}, in2_features={self.in2_features}, '
                f'out_features={self.out_features}, bias={self.bias is not None}')


class LazyLinear(LazyModuleMixin, Linear):
    r"""A :class:`Linear` whose ``in_features`` is inferred from the first input."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        # bias=False first so Linear does not create a bias of shape (0,)
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f'The in_features inferred from input: {input.shape[-1]} is not equal to '
                                     f'in_features from self.weight: {self.weight.shape[-1]}')
            self.in_features = input.shape[-1]
