"""torch.nn.parameter: Parameter, Buffer and the uninitialized placeholders of Lazy modules.

A Parameter is a Tensor subclass whose instances are autograd leaves requiring grad by default;
Module.__setattr__ registers it. Ops applied to a Parameter return plain Tensors (dispatch wraps
results as Tensor), as torch's ``__torch_function__ = _disabled_torch_function_impl`` does.

``Parameter(t)`` takes ``t``'s current value but does not alias ``t``'s storage: an in-place write
to ``t`` afterwards is not seen by the Parameter (torch shares storage). Code almost never keeps the
source tensor, and aliasing would make every Parameter a view paying a replay check on each read.
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .._engine import dispatch
from .._engine.jaxrt import jnp

__all__ = ['Parameter', 'Buffer', 'UninitializedParameter', 'UninitializedBuffer', 'is_lazy']


def _handle_like(cls, data, requires_grad):
    """A new ``cls`` leaf holding ``data``'s value (torch's ``Tensor._make_subclass``)."""
    t = object.__new__(cls)
    t._v = data._value()
    t._base = None
    t._grad_fn = None
    t._vc = None
    t.requires_grad = False
    if requires_grad:
        t.requires_grad_(True)
    return t


class _ParameterMeta(type):
    # torch counts a plain tensor flagged ``_is_param`` as a Parameter too.
    def __instancecheck__(cls, instance):
        if cls is Parameter and isinstance(instance, Tensor) and instance.__dict__.get('_is_param', False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    r"""A Tensor that is to be considered a module parameter.

    Args:
        data (Tensor): parameter tensor.
        requires_grad (bool, optional): if the parameter requires gradient. Default: `True`
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = dispatch.wrap(jnp.zeros((0,), D.state.default_dtype.np))
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter.__new__(): argument 'data' (position 1) must be Tensor, not "
                            f"{type(data).__name__}")
        return _handle_like(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return 'Parameter containing:\n' + super().__repr__()

    def __reduce_ex__(self, proto):
        state = {k: v for k, v in self.__dict__.items() if not k.startswith('_')}
        return (_rebuild_parameter, (np.asarray(self._materialize()), self.requires_grad, state))


def _rebuild_parameter(arr, requires_grad, state=None):
    p = Parameter(dispatch.wrap(jnp.asarray(arr)), requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class _BufferMeta(type):
    # Buffer(t) returns a plain Tensor flagged ``_is_buffer``; isinstance(x, Buffer) reads the flag.
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and instance.__dict__.get('_is_buffer', False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    r"""A kind of Tensor that should not be considered a model parameter (e.g. BatchNorm's running_mean).

    Assigning a Buffer to a Module attribute registers it as a buffer.

    Args:
        data (Tensor): buffer tensor.
        persistent (bool, optional): whether the buffer is part of the module's state_dict. Default: ``True``
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = dispatch.wrap(jnp.zeros((0,), D.state.default_dtype.np))
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """A placeholder with no shape yet; ``materialize(shape)`` turns it into ``cls_to_become``."""

    def materialize(self, shape, device=None, dtype=None):
        from .._ops import creation
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = creation.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f'<{self.__class__.__name__}>'

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether ``param`` is an uninitialized parameter or buffer of a Lazy module."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    r"""A parameter that is not initialized (used by Lazy modules until their first forward)."""
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._ops import creation
        data = creation.empty(0, device=device, dtype=dtype)
        return _handle_like(cls, data, requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    r"""A buffer that is not initialized (used by Lazy modules until their first forward)."""
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .._ops import creation
        data = creation.empty(0, device=device, dtype=dtype)
        ret = _handle_like(cls, data, requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass
