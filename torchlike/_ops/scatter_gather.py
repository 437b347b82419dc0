"""The gather/scatter family: gather, scatter/scatter_ (src, value, legacy reduce), scatter_add,
scatter_reduce, index_reduce, and the flat-index forms take, take_along_dim, put.

Index arguments are checked (dtype, shape, range) before the op runs, raising PyTorch's exception types
and messages; the check helpers live in indexing.py.
"""
import builtins

import numpy as np

from .. import _dtype as D
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .._engine.registry import op, public, method
from .._tensor import Tensor
from .indexing import (_tname, _shp, _need_tensor, _dim, _broadcast, _scalar, _check_range, _oob, _idx_ok, _ne,
                       _nesize, _cast_to)


# ---- gather / scatter ------------------------------------------------------------------

def _iota_index(index, dim):
    """The full index tuple of a scatter/gather along ``dim``: ``index`` there, iotas elsewhere."""
    return tuple(index if a == dim else lax.broadcasted_iota(index.dtype, index.shape, a)
                 for a in range(index.ndim))


def _at1(a):
    return a.reshape(1) if a.ndim == 0 else a


def _head(a, shape):
    """``a[:shape[0], :shape[1], ...]`` (src/input cut to the index's extent)."""
    if tuple(a.shape) == tuple(shape):
        return a
    return lax.slice(a, (0,) * a.ndim, tuple(shape))


@op('_gather', static=('dim',), diff=('input',), node='GatherBackward0', function=False, method=False)
def _gather(input, index, *, dim):
    oshape = index.shape
    if index.size == 0:
        return jnp.zeros(oshape, input.dtype)
    x, i = _at1(input), _at1(index)
    lim = tuple(x.shape[a] if a == dim else i.shape[a] for a in range(x.ndim))
    return jnp.take_along_axis(_head(x, lim), i, axis=dim, mode='clip').reshape(oshape)


def _gather_checks(input, dim, index, fname='gather'):
    _need_tensor(fname, 'input', 1, input)
    _need_tensor(fname, 'index', 3, index)
    dim = _dim(dim, input.ndim)
    if index.numel() and not _idx_ok(index):
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")
    if index.numel():
        if _ne(input.ndim) != _ne(index.ndim):
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        for d in range(_ne(input.ndim)):
            if d != dim and _nesize(index.shape, d) > _nesize(input.shape, d):
                raise RuntimeError(f"Size does not match at dimension {d} expected index {_shp(index.shape)} to be no "
                                   f"larger than self {_shp(input.shape)} apart from dimension {dim}")
        n = _nesize(input.shape, dim)
        _check_range(index, 0, n, _oob(dim, n))
    return dim


@public('gather', method=True)
def gather(input, dim, index, *, sparse_grad=False, out=None):
    if sparse_grad:
        raise NotImplementedError("gather(sparse_grad=True): sparse gradients are not supported by torchlike")
    dim = _gather_checks(input, dim, index)
    return dispatch.apply(_gather, (input, index), (dim,), out)


def _no_derivative(message):
    """Identity whose gradient raises torch's 'not implemented' error when a backward is built."""
    @jax.custom_vjp
    def f(y):
        return y

    def fwd(y):
        return y, None

    def bwd(_, g):
        raise RuntimeError(message)
    f.defvjp(fwd, bwd)
    return f


def _scatter_into(input, index, src, dim, how):
    shape = input.shape
    if index.size == 0:
        return input
    x, i = _at1(input), _at1(index)
    ref = x.at[_iota_index(i, dim)]
    if how == 'set':
        r = ref.set(src, mode='promise_in_bounds')
    elif how == 'add':
        r = ref.add(src, mode='promise_in_bounds')
    else:
        r = ref.multiply(src, mode='promise_in_bounds')
    return r.reshape(shape)


def _src_for(index, src, node):
    i = _at1(index)
    s = _at1(src)
    if tuple(s.shape) != tuple(i.shape):
        # torch's backward returns a gradient of the index's shape for src and its engine rejects it
        s = _no_derivative(f"Function {node} returned an invalid gradient at index 1 - got {_shp(index.shape)} but "
                           f"expected shape compatible with {_shp(src.shape)}")(s)
    return _head(s, i.shape)


@op('_scatter_src', static=('dim',), diff=('input', 'src'), saves=(), node='ScatterBackward0',
    function=False, method=False)
def _scatter_src(input, index, src, *, dim):
    return _scatter_into(input, index, _src_for(index, src, 'ScatterBackward0'), dim, 'set')


@op('_scatter_value', static=('dim',), diff=('input',), saves=(), node='ScatterBackward1',
    function=False, method=False)
def _scatter_value(input, index, value, *, dim):
    return _scatter_into(input, index, _cast_to(jnp.asarray(value), input.dtype), dim, 'set')


_scatter_reduce_nograd = _no_derivative("derivative for aten::scatter is not implemented")


@op('_scatter_legacy_reduce', static=('dim', 'reduce'), diff=('input', 'src'), saves=(), node='NotImplemented',
    function=False, method=False)
def _scatter_legacy_reduce(input, index, src, *, dim, reduce):
    s = _cast_to(jnp.asarray(src), input.dtype)
    if s.ndim:
        s = _head(_at1(s), _at1(index).shape)
    return _scatter_reduce_nograd(_scatter_into(input, index, s, dim, 'add' if reduce == 'add' else 'mul'))


@op('_scatter_add', static=('dim',), diff=('input', 'src'), saves=(), node='ScatterAddBackward0',
    function=False, method=False)
def _scatter_add(input, index, src, *, dim):
    return _scatter_into(input, index, _src_for(index, src, 'ScatterAddBackward0'), dim, 'add')


def _scatter_checks(input, dim, index, src, fname='scatter'):
    dim = _dim(dim, input.ndim)
    if index.numel() and not _idx_ok(index):
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not input.dtype:
        raise RuntimeError(f"{fname}(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    if _ne(input.ndim) != _ne(index.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and _ne(src.ndim) != _ne(index.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    wrong = any(d != dim and _nesize(index.shape, d) > _nesize(input.shape, d) for d in range(_ne(input.ndim)))
    if src is not None:
        wrong = wrong or any(_nesize(index.shape, d) > _nesize(src.shape, d) for d in range(_ne(index.ndim)))
        if wrong:
            raise RuntimeError(f"Expected index {_shp(index.shape)} to be no larger than self {_shp(input.shape)} "
                               f"apart from dimension {dim} and to be no larger size than src {_shp(src.shape)}")
    elif wrong:
        raise RuntimeError(f"Expected index {_shp(index.shape)} to be no larger than self {_shp(input.shape)} "
                           f"apart from dimension {dim}")
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, _oob(dim, n))
    return dim


def _scatter_impl(input, dim, index, src, value, reduce, inplace, out=None):
    _need_tensor('scatter', 'input', 1, input)
    _need_tensor('scatter', 'index', 3, index)
    if src is not None and value is not None:
        raise TypeError("scatter(): pass either src or value, not both")
    v = src if src is not None else value
    if v is None:
        raise TypeError("scatter() missing required argument 'src' (or 'value')")
    is_t = isinstance(v, Tensor)
    if not is_t:
        v = _scalar(v, input.dtype)
    dim = _scatter_checks(input, dim, index, v if is_t else None)
    if reduce is not None:
        if reduce not in ('add', 'multiply'):
            raise RuntimeError("reduce argument must be either add or multiply.")
        o, dyn, st = _scatter_legacy_reduce, (input, index, v), (dim, reduce)
    elif is_t:
        o, dyn, st = _scatter_src, (input, index, v), (dim,)
    else:
        o, dyn, st = _scatter_value, (input, index, v), (dim,)
    if inplace:
        return dispatch.apply_inplace(o, dyn, st)
    return dispatch.apply(o, dyn, st, out)


@public('scatter', method=True)
def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    return _scatter_impl(input, dim, index, src, value, reduce, False, out)


@method('scatter_')
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    return _scatter_impl(self, dim, index, src, value, reduce, True)


def _scatter_add_checked(input, dim, index, src):
    _need_tensor('scatter_add', 'input', 1, input)
    _need_tensor('scatter_add', 'index', 3, index)
    _need_tensor('scatter_add', 'src', 4, src)
    return _scatter_checks(input, dim, index, src)


@public('scatter_add', method=True)
def scatter_add(input, dim, index, src, *, out=None):
    dim = _scatter_add_checked(input, dim, index, src)
    return dispatch.apply(_scatter_add, (input, index, src), (dim,), out)


@method('scatter_add_')
def scatter_add_(self, dim, index, src):
    dim = _scatter_add_checked(self, dim, index, src)
    return dispatch.apply_inplace(_scatter_add, (self, index, src), (dim,))


# ---- scatter_reduce / index_reduce -----------------------------------------------------

def _lowest(dt):
    if dt == jnp.bool_:
        return False
    if jnp.issubdtype(dt, jnp.floating):
        return -jnp.inf
    return jnp.iinfo(dt).min


def _highest(dt):
    if dt == jnp.bool_:
        return True
    if jnp.issubdtype(dt, jnp.floating):
        return jnp.inf
    return jnp.iinfo(dt).max


@jax.custom_vjp
def _scatter_prod(base, pos, src):
    return base.at[pos].multiply(src, mode='promise_in_bounds')


def _scatter_prod_fwd(base, pos, src):
    return _scatter_prod(base, pos, src), (base, pos, src)


def _scatter_prod_bwd(res, g):
    # torch's scatter_reduce 'prod' backward: exclusive products, exact for zeros (no 0/0)
    base, pos, src = res
    one = jnp.ones_like(base)
    contrib = one.at[pos].multiply(src, mode='promise_in_bounds')         # product of the src at each slot
    zero = src == 0
    nzeros = jnp.zeros(base.shape, jnp.int32).at[pos].add(zero.astype(jnp.int32), mode='promise_in_bounds')
    nonzero_prod = one.at[pos].multiply(jnp.where(zero, 1, src), mode='promise_in_bounds')
    zp, npp = nzeros[pos], nonzero_prod[pos]
    safe = jnp.where(zero, 1, src)
    excl = jnp.where(zero, jnp.where(zp == 1, npp, 0), jnp.where(zp == 0, npp / safe, 0))
    gsrc = (g * base)[pos] * excl
    return g * contrib, None, gsrc.astype(src.dtype)


_scatter_prod.defvjp(_scatter_prod_fwd, _scatter_prod_bwd)


def _flat_pos(idx, shape, src_shape):
    """Flat positions (into ``shape``) of the full index tuple ``idx``."""
    if not shape:
        return jnp.zeros(src_shape, jnp.int64)
    strides = np.cumprod((1,) + tuple(shape[:0:-1]))[::-1]
    return sum(i.astype(jnp.int64) * int(st) for i, st in zip(idx, strides))


def _scatter_extremal_impl(x, pos, src, is_max, include_self):
    if is_max:
        base = x if include_self else x.at[pos].set(_lowest(x.dtype), mode='promise_in_bounds')
        return base.at[pos].max(src, mode='promise_in_bounds')
    base = x if include_self else x.at[pos].set(_highest(x.dtype), mode='promise_in_bounds')
    return base.at[pos].min(src, mode='promise_in_bounds')


_scatter_extremal = jax.custom_vjp(_scatter_extremal_impl, nondiff_argnums=(3, 4))


def _scatter_extremal_fwd(x, pos, src, is_max, include_self):
    r = _scatter_extremal_impl(x, pos, src, is_max, include_self)
    return r, (x, pos, src, r)


def _scatter_extremal_bwd(is_max, include_self, res, g):
    # torch's rule: the gradient is shared evenly by every self/src element equal to the result (self counts
    # in the tie even when include_self=False, and then gets nothing)
    x, pos, src, r = res
    value = r[pos]
    self_is = (x == r).astype(g.dtype)
    src_is = (src == value).astype(g.dtype)
    n = self_is.at[pos].add(src_is, mode='promise_in_bounds')
    gd = g / n
    gx = self_is * gd
    if not include_self:
        gx = gx.at[pos].set(0, mode='promise_in_bounds')
    return gx, None, (src_is * gd[pos]).astype(src.dtype)


_scatter_extremal.defvjp(_scatter_extremal_fwd, _scatter_extremal_bwd)


def _reduce_into(x, idx, src, reduce, include_self):
    """scatter_reduce of ``src`` into ``x`` at the full index tuple ``idx`` (shapes of ``src``)."""
    src = src.astype(x.dtype)
    if reduce == 'sum':
        base = x if include_self else x.at[idx].set(0, mode='promise_in_bounds')
        return base.at[idx].add(src, mode='promise_in_bounds')
    if reduce == 'prod':
        base = x if include_self else x.at[idx].set(1, mode='promise_in_bounds')
        pos = _flat_pos(idx, x.shape, src.shape)
        return _scatter_prod(base.ravel(), pos.ravel(), src.ravel()).reshape(x.shape)
    if reduce in ('amax', 'amin'):
        pos = _flat_pos(idx, x.shape, src.shape)
        return _scatter_extremal(x.ravel(), pos.ravel(), src.ravel(), reduce == 'amax',
                                 include_self).reshape(x.shape)
    # mean
    base = x if include_self else x.at[idx].set(0, mode='promise_in_bounds')
    s = base.at[idx].add(src, mode='promise_in_bounds')
    cnt = jnp.zeros(x.shape, jnp.int64).at[idx].add(1, mode='promise_in_bounds') + (1 if include_self else 0)
    cnt = jnp.maximum(cnt, 1).astype(x.dtype)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return s / cnt
    return jnp.floor_divide(s, cnt)


@op('_scatter_reduce', static=('dim', 'reduce', 'include_self'), diff=('input', 'src'),
    node='ScatterReduceBackward0', function=False, method=False)
def _scatter_reduce(input, index, src, *, dim, reduce, include_self):
    shape = input.shape
    if index.size == 0:
        return input
    x, i = _at1(input), _at1(index)
    return _reduce_into(x, _iota_index(i, dim), _src_for(index, src, 'ScatterReduceBackward0'), reduce,
                        include_self).reshape(shape)


_SR = ('sum', 'prod', 'mean', 'amax', 'amin')


def _scatter_reduce_checked(input, dim, index, src, reduce):
    _need_tensor('scatter_reduce', 'input', 1, input)
    _need_tensor('scatter_reduce', 'index', 3, index)
    _need_tensor('scatter_reduce', 'src', 4, src)
    reduce = {'max': 'amax', 'min': 'amin'}.get(reduce, reduce)      # torch accepts the old names too
    if reduce not in _SR:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return _scatter_checks(input, dim, index, src), reduce


@public('scatter_reduce', method=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    dim, reduce = _scatter_reduce_checked(input, dim, index, src, reduce)
    return dispatch.apply(_scatter_reduce, (input, index, src), (dim, reduce, builtins.bool(include_self)), out)


@method('scatter_reduce_')
def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    dim, reduce = _scatter_reduce_checked(self, dim, index, src, reduce)
    return dispatch.apply_inplace(_scatter_reduce, (self, index, src), (dim, reduce, builtins.bool(include_self)))


def _along(index, dim, shape):
    """A 1-d index along ``dim``, as the full index tuple of a tensor of ``shape`` (index_add/copy/reduce)."""
    i = index.reshape(-1)
    bshape = tuple(shape)
    col = i.reshape(tuple(-1 if a == dim else 1 for a in range(len(bshape))))
    col = jnp.broadcast_to(col, bshape)
    return tuple(col if a == dim else lax.broadcasted_iota(i.dtype, bshape, a) for a in range(len(bshape)))


@op('_index_reduce', static=('dim', 'reduce', 'include_self'), diff=('input', 'source'), node='IndexReduceBackward0',
    function=False, method=False)
def _index_reduce(input, dim, index, source, reduce, *, include_self=True):
    shape = input.shape
    x, s = _at1(input), _at1(source)
    return _reduce_into(x, _along(index, dim, s.shape), s, reduce, include_self).reshape(shape)


def _index_func_checks(input, dim, index, source, func):
    """torch's index_func_meta_impl (index_add / index_reduce)."""
    dim = _dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"{func}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{_tname(index.dtype)} and size: {_shp(index.shape)}")
    if not _idx_ok(index):
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {_tname(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"{func}_(): self ({_tname(input.dtype)}) and source ({_tname(source.dtype)}) must have "
                           "the same scalar type")
    if not (dim == 0 or dim < source.ndim):
        raise IndexError(f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                         f"{source.ndim}")
    n_src = 1 if source.ndim == 0 else source.shape[dim]
    if index.numel() != n_src:
        raise RuntimeError(f"{func}_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({n_src}), for dim: {dim}")
    ss, cs = list(input.shape), list(source.shape)
    if source.ndim and input.ndim:
        del ss[dim]
        del cs[dim]
    if ss != cs:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {_shp(input.shape)} source.shape = {_shp(source.shape)}")
    return dim


_IR = ('prod', 'mean', 'amax', 'amin')


def _index_reduce_checked(input, dim, index, source, reduce):
    for nm, pos, v in (('input', 1, input), ('index', 3, index), ('source', 4, source)):
        _need_tensor('index_reduce', nm, pos, v)
    if reduce not in _IR:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim = _index_func_checks(input, dim, index, source, 'index_reduce')
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, lambda v: IndexError("index out of range in self"))
    return dim


@public('index_reduce', method=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    dim = _index_reduce_checked(input, dim, index, source, reduce)
    return dispatch.apply(_index_reduce, (input, index, source), (dim, reduce, builtins.bool(include_self)), out)


@method('index_reduce_')
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    dim = _index_reduce_checked(self, dim, index, source, reduce)
    return dispatch.apply_inplace(_index_reduce, (self, index, source), (dim, reduce, builtins.bool(include_self)))


# ---- take / take_along_dim / put -------------------------------------------------------

@op('_take', diff=('input',), node='TakeBackward0', function=False, method=False)
def _take(input, index):
    return input.reshape(-1).at[index].get(mode='promise_in_bounds')


def _flat_oob(n):
    return lambda v: IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements.")


@public('take', method=True)
def take(input, index, *, out=None):
    _need_tensor('take', 'input', 1, input)
    _need_tensor('take', 'index', 2, index)
    if index.dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    _check_range(index, -n, n, _flat_oob(n))
    return dispatch.apply(_take, (input, index), (), out)


@op('_take_along_dim', static=('dim',), diff=('input',), node='GatherBackward0', function=False, method=False)
def _take_along_dim(input, indices, *, dim):
    if dim is None:
        return input.reshape(-1)[indices.reshape(-1)]
    shape = jnp.broadcast_shapes(tuple(1 if a == dim else s for a, s in enumerate(input.shape)),
                                 tuple(1 if a == dim else s for a, s in enumerate(indices.shape)))
    x = jnp.broadcast_to(input, tuple(input.shape[a] if a == dim else s for a, s in enumerate(shape)))
    i = jnp.broadcast_to(indices, tuple(indices.shape[a] if a == dim else s for a, s in enumerate(shape)))
    if x.shape[dim]:
        i = jnp.mod(i, x.shape[dim])      # torch wraps indices along dim (Python-style modulo)
    return jnp.take_along_axis(x, i, axis=dim, mode='clip')


@public('take_along_dim', method=True)
def take_along_dim(input, indices, dim=None, *, out=None):
    _need_tensor('take_along_dim', 'input', 1, input)
    _need_tensor('take_along_dim', 'indices', 2, indices)
    if indices.dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_tname(indices.dtype)}")
    if dim is None:
        n = input.numel()
        _check_range(indices, 0, n, _oob(0, n))
        return dispatch.apply(_take_along_dim, (input, indices), (None,), out)
    dim = _dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    a = tuple(1 if k == dim else s for k, s in enumerate(input.shape))
    b = tuple(1 if k == dim else s for k, s in enumerate(indices.shape))
    _broadcast(a, b)
    if _nesize(input.shape, dim) == 0 and indices.numel():
        raise RuntimeError("ZeroDivisionError")
    return dispatch.apply(_take_along_dim, (input, indices), (dim,), out)


@op('_put', static=('accumulate',), diff=('input', 'source'), saves=(), node='PutBackward0',
    function=False, method=False)
def _put(input, index, source, *, accumulate):
    ref = input.reshape(-1).at[index.reshape(-1)]
    s = source.reshape(-1)
    r = ref.add(s, mode='promise_in_bounds') if accumulate else ref.set(s, mode='promise_in_bounds')
    return r.reshape(input.shape)


def _put_checked(input, index, source):
    for nm, pos, v in (('input', 1, input), ('index', 2, index), ('source', 3, source)):
        _need_tensor('put_', nm, pos, v)
    if index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_tname(input.dtype)} and source.dtype = {_tname(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    _check_range(index, -n, n, _flat_oob(n))


@public('put', method=True)
def put(input, index, source, accumulate=False):
    _put_checked(input, index, source)
    return dispatch.apply(_put, (input, index, source), (builtins.bool(accumulate),))


@method('put_')
def put_(self, index, source, accumulate=False):
    _put_checked(self, index, source)
    return dispatch.apply_inplace(_put, (self, index, source), (builtins.bool(accumulate),))
