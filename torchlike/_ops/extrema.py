"""Extremes: max/min (all overloads), amax/amin, aminmax, argmax/argmin, and the evenly distributed gradient
among ties (torch's evenly_distribute_backward) that median/nanmedian in statistics.py share.

Conventions: see reduction.py. Besides those:
* Index ties: argmax/argmin/max(dim)/min(dim) return the first occurrence (NaN counts as the extreme and
  its first occurrence wins).
* Gradients: max()/min() without dim spread the gradient evenly over the tied elements; amax/amin too
  (NaN slices give NaN, as torch); the (values, indices) forms send it to the selected index (values
  are gathered at the index).
"""
import builtins
from functools import partial

from .. import return_types
from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from ._util import wrap_dim, wrap_dims
from .sorting import take, accept_numpy_kwargs
from .reduction import _UNSET, _is_tensor, _check_tensor, _one_dim, _tname, _keep, _nonempty_dims


# ---- evenly distributed gradient among ties (torch's evenly_distribute_backward) ----------

@jax.custom_vjp
def _pick_even(x, value):
    return value


def _pick_even_fwd(x, value):
    return value, (x, value)


def _pick_even_bwd(res, g):
    x, value = res
    if jnp.issubdtype(x.dtype, jnp.inexact):
        mask = jnp.where(jnp.isnan(value), jnp.isnan(x), x == value)
    else:
        mask = x == value
    cnt = jnp.sum(mask).astype(g.dtype)
    return jnp.where(mask, g / cnt, jnp.zeros((), g.dtype)).astype(x.dtype), jnp.zeros_like(value)


_pick_even.defvjp(_pick_even_fwd, _pick_even_bwd)


def _even(x, value):
    """``value`` (a full reduction selecting elements of x) whose gradient is spread evenly over its ties."""
    return _pick_even(x, lax.stop_gradient(value))


@partial(jax.custom_vjp, nondiff_argnums=(2, 3))
def _pick_scaled(x, value, dims, keepdim):
    return value


def _pick_scaled_fwd(x, value, dims, keepdim):
    return value, (x, value)


def _pick_scaled_bwd(dims, keepdim, res, g):
    # torch's amax/amin backward: (grad / count) * mask with mask = (input == result); a NaN result gives NaN
    x, value = res
    if not keepdim:
        value, g = _keep(value, dims, x.ndim), _keep(g, dims, x.ndim)
    mask = x == value
    q = g / jnp.sum(mask, axis=dims, keepdims=True).astype(g.dtype)
    # q * mask, spelled out: XLA rewrites multiplication by a 0/1 mask into a select, dropping 0 * inf = NaN
    gx = jnp.where(mask, q, jnp.where(jnp.isfinite(q), jnp.zeros((), g.dtype), jnp.full((), jnp.nan, g.dtype)))
    return gx.astype(x.dtype), jnp.zeros_like(res[1])


_pick_scaled.defvjp(_pick_scaled_fwd, _pick_scaled_bwd)


def _amax_like(x, value, dims, keepdim):
    """amax/amin ``value`` (reduced over ``dims``) with torch's gradient (evenly over ties, NaN for NaN)."""
    return _pick_scaled(x, lax.stop_gradient(value), dims, keepdim)


# ---- max / min / amax / amin / aminmax / argmax / argmin ----------------------------------

def _no_complex(x, fname, exc=RuntimeError, msg=None):
    if jnp.iscomplexobj(x):
        raise exc(msg or f"{fname}(): does not support complex input")


@op('_max_all', node='MaxBackward1', function=False, method=False)
def _max_all(input):
    return _even(input, jnp.max(input))


@op('_min_all', node='MinBackward1', function=False, method=False)
def _min_all(input):
    return _even(input, jnp.min(input))


def _arg_extreme(x, dim, keepdim, largest):
    """(values, first index) of the max/min along ``dim`` (None: 0-d input); NaN is the extreme."""
    if dim is None:
        return x, jnp.zeros((), jnp.int64)
    idx = (jnp.argmax if largest else jnp.argmin)(x, axis=dim, keepdims=True).astype(jnp.int64)
    vals = take(x, idx, dim)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, dim), jnp.squeeze(idx, dim)
    return vals, idx


@op('_max_dim', static=('dim', 'keepdim'), node='MaxBackward0', ret=return_types.max, function=False, method=False)
def _max_dim(input, *, dim, keepdim):
    return _arg_extreme(input, dim, keepdim, True)


@op('_min_dim', static=('dim', 'keepdim'), node='MinBackward0', ret=return_types.min, function=False, method=False)
def _min_dim(input, *, dim, keepdim):
    return _arg_extreme(input, dim, keepdim, False)


@op('_maximum_of', promote='same', node='MaximumBackward0', function=False, method=False)
def _maximum_of(input, other):
    return jnp.maximum(input, other)


@op('_minimum_of', promote='same', node='MinimumBackward0', function=False, method=False)
def _minimum_of(input, other):
    return jnp.minimum(input, other)


def _minmax(fname, input, args, kwargs, out):
    _check_tensor(input, fname)
    kwargs = dict(kwargs)
    other = kwargs.pop('other', _UNSET)
    dim = kwargs.pop('dim', _UNSET)
    keepdim = kwargs.pop('keepdim', _UNSET)
    if kwargs:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    args = list(args)
    if args and _is_tensor(args[0]) and other is _UNSET and dim is _UNSET:
        other = args.pop(0)
    elif args and dim is _UNSET and other is _UNSET:
        dim = args.pop(0)
    if args and keepdim is _UNSET and dim is not _UNSET:
        keepdim = args.pop(0)
    if args:
        raise TypeError(f"{fname}() received an invalid combination of arguments - got {len(args) + 1} positional "
                        "arguments, but expected one of: (Tensor input), (Tensor input, Tensor other), "
                        "(Tensor input, int dim, bool keepdim = False)")
    largest = fname == 'max'
    if other is not _UNSET:
        if dim is not _UNSET or keepdim is not _UNSET or not _is_tensor(other):
            raise TypeError(f"{fname}() received an invalid combination of arguments - got (Tensor, "
                            f"{type(other).__name__}), but expected one of: (Tensor input), (Tensor input, Tensor "
                            "other), (Tensor input, int dim, bool keepdim = False)")
        if input.dtype.is_complex or other.dtype.is_complex:
            raise RuntimeError(f"{'maximum' if largest else 'minimum'}() not implemented for complex tensors.")
        return dispatch.apply(_maximum_of if largest else _minimum_of, (input, other), (), out)
    if dim is _UNSET:
        if keepdim is not _UNSET:
            raise TypeError(f"{fname}() received an invalid combination of arguments - got (keepdim=bool) without "
                            "dim")
        if input.dtype.is_complex:
            raise NotImplementedError(f"\"{fname}_all\" not implemented for '{_tname(input.dtype)}'")
        if input.numel() == 0:
            raise RuntimeError(f"{fname}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                               "the reduction dim with the 'dim' argument.")
        return dispatch.apply(_max_all if largest else _min_all, (input,), (), out)
    if isinstance(dim, (list, tuple)) or dim is None:
        raise TypeError(f"{fname}() received an invalid combination of arguments - got ({type(dim).__name__}), but "
                        "expected one of: (Tensor input), (Tensor input, Tensor other), (Tensor input, int dim, "
                        "bool keepdim = False)")
    d = _one_dim(dim, input.ndim, fname)
    if input.dtype.is_complex:
        raise RuntimeError(f"{fname}(): does not support complex input")
    if d is not None and input.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    keepdim = builtins.bool(keepdim) if keepdim is not _UNSET else False
    return dispatch.apply(_max_dim if largest else _min_dim, (input,), (d, keepdim), out)


@public('max', method=True)
def max_(input, *args, out=None, **kwargs):
    """torch.max(input) | torch.max(input, dim, keepdim=False) -> (values, indices) | torch.max(input, other)."""
    return _minmax('max', input, args, kwargs, out)


@public('min', method=True)
def min_(input, *args, out=None, **kwargs):
    """torch.min(input) | torch.min(input, dim, keepdim=False) -> (values, indices) | torch.min(input, other)."""
    return _minmax('min', input, args, kwargs, out)


def _amaxmin(fname, input, dim, keepdim, largest):
    kind = 'max' if largest else 'min'
    _no_complex(input, fname, NotImplementedError, f"\"{kind}_values_cpu\" not implemented for 'ComplexFloat'")
    dims = wrap_dims(dim, input.ndim) if not isinstance(dim, int) else (wrap_dim(dim, input.ndim),)
    dims = None if (not dims or input.ndim == 0) else tuple(sorted(dims))
    _nonempty_dims(input, dims, fname)
    return _amax_like(input, (jnp.max if largest else jnp.min)(input, axis=dims, keepdims=keepdim), dims, keepdim)


@op('amax', static=('dim', 'keepdim'))
def amax(input, dim=(), keepdim=False):
    return _amaxmin('amax', input, dim, keepdim, True)


@op('amin', static=('dim', 'keepdim'))
def amin(input, dim=(), keepdim=False):
    return _amaxmin('amin', input, dim, keepdim, False)


@op('aminmax', static=('dim', 'keepdim'), ret=return_types.aminmax)
def aminmax(input, *, dim=None, keepdim=False):
    _no_complex(input, 'aminmax', NotImplementedError, "\"aminmax_cpu\" not implemented for 'ComplexFloat'")
    if dim is None:
        if input.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        dims = None
    else:
        d = wrap_dim(dim, input.ndim)
        dims = None if input.ndim == 0 else (d,)
        if dims and input.shape[d] == 0:
            raise IndexError(f"aminmax(): Expected reduction dim {d} to have non-zero size.")
    return (_amax_like(input, jnp.min(input, axis=dims, keepdims=keepdim), dims, keepdim),
            _amax_like(input, jnp.max(input, axis=dims, keepdims=keepdim), dims, keepdim))


def _argext(fname, input, dim, keepdim, largest):
    if input.dtype == jnp.bool_:
        raise RuntimeError(f"{fname}(): does not support bool input")
    _no_complex(input, fname)
    if dim is None:
        if input.size == 0:
            raise IndexError(f"{fname}(): Expected reduction dim to be specified for input.numel() == 0.")
        r = (jnp.argmax if largest else jnp.argmin)(input.ravel()).astype(jnp.int64)
        return r.reshape((1,) * input.ndim) if keepdim else r
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return jnp.zeros((), jnp.int64)
    if input.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    return (jnp.argmax if largest else jnp.argmin)(input, axis=d, keepdims=keepdim).astype(jnp.int64)


@op('argmax', static=('dim', 'keepdim'), differentiable=False)
def argmax(input, dim=None, keepdim=False):
    return _argext('argmax', input, dim, keepdim, True)


@op('argmin', static=('dim', 'keepdim'), differentiable=False)
def argmin(input, dim=None, keepdim=False):
    return _argext('argmin', input, dim, keepdim, False)


accept_numpy_kwargs(('max', 'min', 'amax', 'amin', 'aminmax', 'argmax', 'argmin'))
