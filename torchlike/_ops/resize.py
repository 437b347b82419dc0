"""Tensor.resize_ / resize_as_: a tensor's shape changes in place and its storage keeps its first elements.

torch keeps the storage: shrinking keeps the first numel elements (in storage order), growing appends
uninitialised elements (zeros here; NaN or the dtype's max under deterministic algorithms, as torch.empty).
A resized view would need a storage of its own shared with its base; torchlike's views are functions of their
base's value (Note [Views]), so resizing a view is refused by name instead."""
import math

from .._engine.registry import method, public
from .._engine.jaxrt import jnp
from .._layout import check_memory_format
from ._shape_args import _varargs_ints


@method('resize_')
def resize_(self, *sizes, memory_format=None):
    check_memory_format(memory_format, 'resize_')
    size = tuple(_varargs_ints(sizes, None, 'resize_', 'size'))
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    neg = [s for s in size if s < 0]
    if neg:
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg[0]}: {list(size)}")
    if self._base is not None:
        raise NotImplementedError("Tensor.resize_ of a view is not supported by torchlike (views are functions of "
                                  "their base's values); resize the base or a clone")
    n = math.prod(size)
    flat = self._value().ravel()
    if n <= flat.size:
        new = flat[:n]
    else:
        from .creation import _empty
        fill = _empty((n - flat.size,), self.dtype, self.device, False)._value()
        new = jnp.concatenate([flat, fill])
    self._set_value_inplace(new.reshape(size), resize=True)
    return self


@public('resize_as_')
@method('resize_as_')
def resize_as_(self, the_template, *, memory_format=None):
    return resize_(self, tuple(the_template.shape), memory_format=memory_format)
