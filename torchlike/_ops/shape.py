"""Shape ops: views (view, reshape, transpose, permute, squeeze, select, narrow, expand, ...) and copies
(cat, stack, flip, roll, repeat, ...)."""
import math

from .._engine.registry import op, public, method
from .._engine import dispatch
from .._engine.jaxrt import jnp


def _infer_size(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


@op('_view', static=('size',), view=True, node='ViewBackward0', saves=(), function=False, method=False)
def _view(input, *, size):
    return input.reshape(size)


@op('_reshape_copy', static=('size',), node='ReshapeAliasBackward0', saves=(), function=False, method=False)
def _reshape_copy(input, *, size):
    return input.reshape(size)


def _shape_args(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(s) for s in size)


@method('view')
def view(self, *size):
    from .. import _dtype as D
    if len(size) == 1 and isinstance(size[0], D.dtype):
        raise NotImplementedError("Tensor.view(dtype): reinterpreting bits is not supported by torchlike")
    s = _infer_size(_shape_args(size), self.numel())
    return dispatch.apply(_view, (self,), (s,))


@public('reshape', method=True)
def reshape(input, *shape):
    s = _infer_size(_shape_args(shape), input.numel())
    return dispatch.apply(_view, (input,), (s,))
