"""Reductions: sum, mean, prod, std/var, min/max family, median, mode, quantile, logsumexp, norm, all/any,
count_nonzero, cumulative ops."""
from .. import _dtype as D
from .._engine.registry import op
from .._engine.jaxrt import jnp


def _dims(dim, ndim):
    if dim is None or dim == ():
        return None
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(d % max(ndim, 1) for d in dim)


@op('sum', static=('dim', 'keepdim', 'dtype'), saves=())
def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.astype(dtype.np)
    elif input.dtype.kind in 'biu':
        input = input.astype(jnp.int64)
    return jnp.sum(input, axis=_dims(dim, input.ndim), keepdims=keepdim)


@op('mean', static=('dim', 'keepdim', 'dtype'), saves=())
def mean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.astype(dtype.np)
    return jnp.mean(input, axis=_dims(dim, input.ndim), keepdims=keepdim)
