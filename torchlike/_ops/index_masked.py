"""The index_* and masked_* families: index_select, index_add, index_copy, index_fill (an index along one
dim) and masked_fill, masked_select, masked_scatter (a boolean mask).
"""
import math

import numpy as np

from .. import _dtype as D
from .._engine import dispatch
from ..amp.autocast_mode import autocast_entry
from .._engine.jaxrt import jax, jnp
from .._engine.registry import op, public, method
from .._tensor import Tensor
from .indexing import (_tname, _shp, _need_tensor, _dim, _broadcast, _scalar, _check_range, _oob, _idx_ok,
                       _nesize, _cast_to, _on_device_of, _MASK_CNAME, _check_expand)
from .scatter_gather import _at1, _index_func_checks


# ---- index_select / index_add / index_copy / index_fill --------------------------------

@op('_index_select', static=('dim',), diff=('input',), saves=(), node='IndexSelectBackward0',
    function=False, method=False)
def _index_select(input, index, *, dim):
    i = index.reshape(-1)
    if input.ndim == 0:
        return input.reshape(1).at[i].get(mode='promise_in_bounds').reshape(())
    return jnp.take(input, i, axis=dim, mode='clip')


@public('index_select', method=True)
def index_select(input, dim, index, *, out=None):
    _need_tensor('index_select', 'input', 1, input)
    _need_tensor('index_select', 'index', 3, index)
    dim = _dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not _idx_ok(index):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    n = _nesize(input.shape, dim)
    if dim == 1 and input.ndim > 1:      # torch's CPU kernel for dim 1 has its own message
        err = lambda v: RuntimeError(f"INDICES element is out of DATA bounds, id={v} axis_dim={n}")  # noqa: E731
    else:
        err = lambda v: IndexError("index out of range in self")  # noqa: E731
    _check_range(index, 0, n, err)
    return dispatch.apply(_index_select, (input, index), (dim,), out)


def _dim_index(index, dim):
    return (slice(None),) * dim + (index.reshape(-1),)


@op('_index_add', static=('dim',), diff=('input', 'source'), saves=(), node='IndexAddBackward0',
    function=False, method=False)
def _index_add(input, index, source, alpha, *, dim):
    shape = input.shape
    x, s = _at1(input), _at1(source)
    s = s * jnp.asarray(alpha).astype(x.dtype)
    return x.at[_dim_index(index, dim)].add(s, mode='promise_in_bounds').reshape(shape)


def _index_add_checked(input, dim, index, source, alpha):
    for nm, pos, v in (('input', 1, input), ('index', 3, index), ('source', 4, source)):
        _need_tensor('index_add', nm, pos, v)
    dim = _index_func_checks(input, dim, index, source, 'index_add')
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, _oob(dim, n))
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    return dim, _scalar(alpha, input.dtype)


@public('index_add', method=True)
def index_add(input, dim, index, source, *, alpha=1, out=None):
    dim, alpha = _index_add_checked(input, dim, index, source, alpha)
    return dispatch.apply(_index_add, (input, index, source, alpha), (dim,), out)


@method('index_add_')
def index_add_(self, dim, index, source, *, alpha=1):
    dim, alpha = _index_add_checked(self, dim, index, source, alpha)
    return dispatch.apply_inplace(_index_add, (self, index, source, alpha), (dim,))


@op('_index_copy', static=('dim',), diff=('input', 'source'), saves=(), node='IndexCopyBackward0',
    function=False, method=False)
def _index_copy(input, index, source, *, dim):
    shape = input.shape
    x, s = _at1(input), _at1(source)
    return x.at[_dim_index(index, dim)].set(s, mode='promise_in_bounds').reshape(shape)


def _index_copy_checked(input, dim, index, source):
    for nm, pos, v in (('input', 1, input), ('index', 3, index), ('source', 4, source)):
        _need_tensor('index_copy', nm, pos, v)
    dim = _dim(dim, input.ndim)
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    ni = index.numel()
    if source.ndim == 0 and ni != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {ni})")
    if source.ndim != input.ndim and source.ndim != 0 and input.ndim != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if index.dtype is not D.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_tname(input.dtype)} and (source) {_tname(source.dtype)}")
    ss, cs = list(input.shape), list(source.shape)
    if ss:
        del ss[dim]
    if cs:
        del cs[dim]
    if ss != cs:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, ss))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, cs))} at dimension 0.")
    if source.ndim and ni != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({ni}) should be equal to source.size(dim) "
                         f"({source.shape[dim]})")
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, _oob(dim, n, IndexError, 'index_copy_(): '))
    return dim


@public('index_copy', method=True)
@autocast_entry('index_copy')
def index_copy(input, dim, index, source, *, out=None):
    dim = _index_copy_checked(input, dim, index, source)
    return dispatch.apply(_index_copy, (input, index, source), (dim,), out)


@method('index_copy_')
def index_copy_(self, dim, index, source):
    dim = _index_copy_checked(self, dim, index, source)
    return dispatch.apply_inplace(_index_copy, (self, index, source), (dim,))


def _index_fill_body(input, index, value, *, dim):
    # a mask along dim (so a repeated index fills once: the value's gradient counts each slot once, as torch)
    shape = input.shape
    x = _at1(input)
    n = x.shape[dim]
    hit = jnp.zeros((n,), jnp.bool_).at[index.reshape(-1)].set(True, mode='promise_in_bounds')
    hit = hit.reshape(tuple(n if a == dim else 1 for a in range(x.ndim)))
    return jnp.where(hit, _cast_to(jnp.asarray(value), x.dtype), x).reshape(shape)


_index_fill_scalar = op('_index_fill_scalar', static=('dim',), diff=('input',), saves=(), node='IndexFillBackward0',
                        function=False, method=False)(_index_fill_body)
_index_fill_tensor = op('_index_fill_tensor', static=('dim',), diff=('input', 'value'), saves=(),
                        node='IndexFillBackward1', function=False, method=False)(_index_fill_body)


def _index_fill_checked(input, dim, index, value):
    _need_tensor('index_fill', 'input', 1, input)
    _need_tensor('index_fill', 'index', 3, index)
    dim = _dim(dim, input.ndim)
    if index.dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        o = _index_fill_tensor
    else:
        value = _scalar(value, input.dtype)
        o = _index_fill_scalar
    n = _nesize(input.shape, dim)
    _check_range(index, -n, n, _oob(dim, n, IndexError))
    return dim, value, o


@public('index_fill', method=True)
def index_fill(input, dim, index, value):
    dim, value, o = _index_fill_checked(input, dim, index, value)
    return dispatch.apply(o, (input, index, value), (dim,))


@method('index_fill_')
def index_fill_(self, dim, index, value):
    dim, value, o = _index_fill_checked(self, dim, index, value)
    return dispatch.apply_inplace(o, (self, index, value), (dim,))


# ---- masked_fill / masked_select / masked_scatter --------------------------------------

def _masked_fill_body(input, mask, value):
    return jnp.where(mask, _cast_to(jnp.asarray(value), input.dtype), input)


_masked_fill_scalar = op('_masked_fill_scalar', diff=('input',), saves=(), node='MaskedFillBackward0',
                         function=False, method=False)(_masked_fill_body)
_masked_fill_tensor = op('_masked_fill_tensor', diff=('input', 'value'), saves=(), node='MaskedFillBackward1',
                         function=False, method=False)(_masked_fill_body)


def _masked_fill_checked(input, mask, value):
    _need_tensor('masked_fill', 'input', 1, input)
    _need_tensor('masked_fill', 'mask', 2, mask)
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_MASK_CNAME.get(mask.dtype.name, mask.dtype.name)}")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        o = _masked_fill_tensor
    else:
        value = _scalar(value, input.dtype)
        o = _masked_fill_scalar
    _broadcast(mask.shape, input.shape)
    return value, o


@public('masked_fill', method=True)
def masked_fill(input, mask, value):
    value, o = _masked_fill_checked(input, mask, value)
    return dispatch.apply(o, (input, mask, value))


@method('masked_fill_')
def masked_fill_(self, mask, value):
    value, o = _masked_fill_checked(self, mask, value)
    return dispatch.apply_inplace(o, (self, mask, value))


@op('_flat_nonzero', static=('shape',), jit=False, differentiable=False, function=False, method=False)
def _flat_nonzero(mask, *, shape):
    m = np.broadcast_to(np.asarray(mask), shape)
    return _on_device_of(np.flatnonzero(m).astype(np.int64), mask)


@op('_masked_select', static=('shape',), diff=('input',), node='MaskedSelectBackward0', function=False, method=False)
def _masked_select(input, index, *, shape):
    return jnp.broadcast_to(input, shape).reshape(-1).at[index].get(mode='promise_in_bounds')


@public('masked_select', method=True)
def masked_select(input, mask, *, out=None):
    _need_tensor('masked_select', 'input', 1, input)
    _need_tensor('masked_select', 'mask', 2, mask)
    if mask.dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast(mask.shape, input.shape)
    idx = dispatch.apply(_flat_nonzero, (mask,), (shape,))
    return dispatch.apply(_masked_select, (input, idx), (shape,), out)


@op('_masked_scatter', diff=('input', 'source'), saves=(), node='MaskedScatterBackward0',
    function=False, method=False)
def _masked_scatter(input, mask, source):
    shape = jnp.broadcast_shapes(input.shape, mask.shape)
    m = jnp.broadcast_to(mask, shape).reshape(-1)
    x = jnp.broadcast_to(input, shape).reshape(-1)
    src = source.reshape(-1)
    if src.size == 0:
        return x.reshape(shape)
    pos = jnp.clip(jnp.cumsum(m, dtype=jnp.int64) - 1, 0, src.size - 1)
    return jnp.where(m, src[pos], x).reshape(shape)


@jax.jit
def _count_true(m):
    return jnp.sum(m, dtype=jnp.int64)


def _masked_scatter_checked(input, mask, source, inplace=False):
    _need_tensor('masked_scatter', 'input', 1, input)
    _need_tensor('masked_scatter', 'mask', 2, mask)
    _need_tensor('masked_scatter', 'source', 3, source)
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {_tname(mask.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_tname(input.dtype)} and {_tname(source.dtype)}")
    shape = _broadcast(mask.shape, input.shape)
    if inplace:
        _check_expand(mask.shape, input.shape, f"CPUBoolType{{{_shp(mask.shape)}}}")
    n = int(jax.device_get(_count_true(mask._value())))
    if n and n * (math.prod(shape) // max(mask.numel(), 1)) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return shape


@public('masked_scatter', method=True)
def masked_scatter(input, mask, source):
    _masked_scatter_checked(input, mask, source)
    return dispatch.apply(_masked_scatter, (input, mask, source))


@method('masked_scatter_')
def masked_scatter_(self, mask, source):
    _masked_scatter_checked(self, mask, source, inplace=True)
    return dispatch.apply_inplace(_masked_scatter, (self, mask, source))
