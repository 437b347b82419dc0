"""torch.autograd.Variable: the legacy wrapper, today an alias that returns the tensor itself."""
from .._engine import dispatch


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, dispatch.Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            from .._ops.creation import tensor
            data = tensor([])
        if not isinstance(data, dispatch.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            raise NotImplementedError("Variable(volatile=True) was removed in PyTorch 0.4; use torch.no_grad()")
        if requires_grad:
            data.requires_grad_(True)
        return data
