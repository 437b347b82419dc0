"""Reductions: sum, mean, prod, std/var, min/max family, median, mode, quantile, logsumexp, norm, all/any,
count_nonzero, cumulative ops, softmax/log_softmax, renorm.

Conventions (PyTorch's):
* ``dim`` is None (all dims), an int or a sequence of ints; negative dims wrap, out-of-range dims raise
  IndexError, repeated dims RuntimeError. The public wrappers normalise it to a sorted tuple (or None) so
  equivalent calls share one compiled program. ``dim=[]`` reduces everything (except all/any: no reduction).
* Output dtypes: integral/bool sums, products and cumulative sums are int64; mean/std/var need floating or
  complex input; std/var/norm of complex input are real; all/any return bool (uint8 for uint8 input).
* Index ties: argmax/argmin/max(dim)/min(dim) return the first occurrence (NaN counts as the extreme and
  its first occurrence wins); median returns the lower median; cummax/cummin the last occurrence.
* Gradients: max()/min()/median()/nanmedian() without dim spread the gradient evenly over the tied
  elements (torch's evenly_distribute_backward); amax/amin too (NaN slices give NaN, as torch); the
  (values, indices) forms send it to the selected index (values are gathered at the index).
* grad_fn names follow torch: SumBackward0 for sum() vs SumBackward1 for sum(dim), MaxBackward1 for max()
  vs MaxBackward0 for max(dim), ...; hence the private op variants below.
"""
import builtins
import math
import numbers
import operator
import warnings
from functools import partial

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._engine.registry import op, public, method
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from ._util import wrap_dim, wrap_dims
from .sorting import stable_argsort, take, top_k_indices, accept_numpy_kwargs

_bmax, _bmin, _bsum, _babs, _ball, _bany = builtins.max, builtins.min, builtins.sum, builtins.abs, builtins.all, \
    builtins.any
_INF = float('inf')
_UNSET = type('_Unset', (), {'__repr__': lambda self: 'None'})()    # "argument not given" (overload choice)


# ---- argument helpers ---------------------------------------------------------------------

def _is_tensor(x):
    return isinstance(x, dispatch.Tensor)


def _check_tensor(x, fname, pname='input', pos=1):
    if not _is_tensor(x):
        raise TypeError(f"{fname}(): argument '{pname}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _int(v, fname, pname='dim'):
    if isinstance(v, builtins.bool) or isinstance(v, float) or (_is_tensor(v) and v.dtype._cat != 1):
        raise TypeError(f"{fname}(): argument '{pname}' must be int, not {type(v).__name__}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{pname}' must be int, not {type(v).__name__}") from None


def _dims(dim, ndim, fname):
    """torch's ``dim`` (None / int / sequence) -> None (every dim) or a sorted tuple of wrapped dims."""
    if dim is None or dim is _UNSET:
        return None
    if isinstance(dim, (list, tuple)) or (_is_tensor(dim) and dim.ndim == 1):
        dims = tuple(_int(d, fname) for d in dim)
        if not dims:
            return None
        dims = wrap_dims(dims, ndim)
    else:
        dims = (wrap_dim(_int(dim, fname), ndim),)
    if ndim == 0:
        return None
    return tuple(sorted(dims))


def _one_dim(dim, ndim, fname):
    """A single reduction dim -> wrapped int (None for a 0-d input)."""
    d = wrap_dim(_int(dim, fname), ndim)
    return None if ndim == 0 else d


def _reduced_numel(shape, dims):
    if dims is None:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


def _float_in(x):
    return x.dtype.kind in 'fc'


def _upcast(x):
    """Half-precision inputs accumulate in float32 (as torch's CPU kernels); returns (x, result dtype)."""
    if x.dtype in (jnp.float16, jnp.bfloat16):
        return x.astype(jnp.float32), x.dtype
    return x, x.dtype


def _tname(dt):
    return dispatch._tname(dt)


def _keep(v, dims, ndim):
    """Re-insert reduced dims (size 1) into a reduction result computed with keepdims=False."""
    if dims is None:
        return v.reshape((1,) * ndim)
    return jnp.expand_dims(v, dims)


def _nonempty_dims(x, dims, fname):
    if x.size == 0:
        ds = range(x.ndim) if dims is None else dims
        for d in ds:
            if x.shape[d] == 0:
                raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")


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


# ---- sum / nansum / mean / nanmean / prod ---------------------------------------------------

@jax.custom_vjp
def _nan_to_zero(x):
    return jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), x)


def _nan_to_zero_fwd(x):
    return _nan_to_zero(x), jnp.isnan(x)


def _nan_to_zero_bwd(isnan, g):
    # torch's nansum backward is grad * ~isnan(input): a non-finite grad gives NaN at the NaN positions
    return (jnp.where(isnan, jnp.where(jnp.isfinite(g), jnp.zeros((), g.dtype), jnp.full((), jnp.nan, g.dtype)), g),)


_nan_to_zero.defvjp(_nan_to_zero_fwd, _nan_to_zero_bwd)


def _sum_impl(input, dim, keepdim, dtype, nan=False):
    x = input
    if dtype is not None:
        x = x.astype(dtype.np)
    elif x.dtype.kind in 'biu':
        x = x.astype(jnp.int64)
    if nan and x.dtype.kind == 'f':
        x = _nan_to_zero(x)
    x, rdt = _upcast(x)
    return jnp.sum(x, axis=dim, keepdims=keepdim).astype(rdt)


@op('_sum', static=('dim', 'keepdim', 'dtype'), node='SumBackward0', saves=(), function=False, method=False)
def _sum(input, *, dim, keepdim, dtype):
    return _sum_impl(input, dim, keepdim, dtype)


@op('_sum_dim', static=('dim', 'keepdim', 'dtype'), node='SumBackward1', saves=(), function=False, method=False)
def _sum_dim(input, *, dim, keepdim, dtype):
    return _sum_impl(input, dim, keepdim, dtype)


def _check_dtype_arg(dtype, fname):
    if dtype is not None and not isinstance(dtype, D.dtype):
        raise TypeError(f"{fname}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")


@public('sum', method=True)
def sum_(input, dim=_UNSET, keepdim=False, *, dtype=None, out=None):
    _check_tensor(input, 'sum')
    _check_dtype_arg(dtype, 'sum')
    dims = _dims(dim, input.ndim, 'sum')
    o = _sum if (dim is _UNSET and not keepdim) else _sum_dim
    return dispatch.apply(o, (input,), (dims, builtins.bool(keepdim), dtype), out)


@op('_nansum', static=('dim', 'keepdim', 'dtype'), node='NansumBackward0', function=False, method=False)
def _nansum(input, *, dim, keepdim, dtype):
    return _sum_impl(input, dim, keepdim, dtype, nan=True)


@public('nansum', method=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    _check_tensor(input, 'nansum')
    _check_dtype_arg(dtype, 'nansum')
    if input.dtype.is_complex or (dtype is not None and dtype.is_complex):
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dims = _dims(dim, input.ndim, 'nansum')
    return dispatch.apply(_nansum, (input,), (dims, builtins.bool(keepdim), dtype), out)


def _mean_impl(input, dim, keepdim, dtype):
    x = input if dtype is None else input.astype(dtype.np)
    x, rdt = _upcast(x)
    return jnp.mean(x, axis=dim, keepdims=keepdim).astype(rdt)


@op('_mean', static=('dim', 'keepdim', 'dtype'), node='MeanBackward0', saves=(), function=False, method=False)
def _mean(input, *, dim, keepdim, dtype):
    return _mean_impl(input, dim, keepdim, dtype)


@op('_mean_dim', static=('dim', 'keepdim', 'dtype'), node='MeanBackward1', saves=(), function=False, method=False)
def _mean_dim(input, *, dim, keepdim, dtype):
    return _mean_impl(input, dim, keepdim, dtype)


def _check_float_dtype(input, dtype, fname):
    if dtype is not None:
        if dtype._cat < 2:
            raise RuntimeError(f"{fname}(): could not infer output dtype. Optional dtype must be either a floating "
                               f"point or complex dtype. Got: {_tname(dtype)}")
    elif input.dtype._cat < 2:
        raise RuntimeError(f"{fname}(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_tname(input.dtype)}")


@public('mean', method=True)
def mean(input, dim=_UNSET, keepdim=False, *, dtype=None, out=None):
    _check_tensor(input, 'mean')
    _check_dtype_arg(dtype, 'mean')
    _check_float_dtype(input, dtype, 'mean')
    dims = _dims(dim, input.ndim, 'mean')
    o = _mean if (dim is _UNSET and not keepdim) else _mean_dim
    return dispatch.apply(o, (input,), (dims, builtins.bool(keepdim), dtype), out)


@op('_nanmean', static=('dim', 'keepdim', 'dtype'), node='DivBackward0', function=False, method=False)
def _nanmean(input, *, dim, keepdim, dtype):
    s = _sum_impl(input, dim, keepdim, dtype, nan=True)
    cnt = jnp.sum(~jnp.isnan(input), axis=dim, keepdims=keepdim)
    return (s / cnt.astype(s.dtype)).astype(s.dtype)


@public('nanmean', method=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    _check_tensor(input, 'nanmean')
    _check_dtype_arg(dtype, 'nanmean')
    if input.dtype._cat < 2:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_tname(input.dtype)}")
    if input.dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dims = _dims(dim, input.ndim, 'nanmean')
    return dispatch.apply(_nanmean, (input,), (dims, builtins.bool(keepdim), dtype), out)


def _prod_impl(input, dim, keepdim, dtype):
    x = input
    if dtype is not None:
        x = x.astype(dtype.np)
    elif x.dtype.kind in 'biu':
        x = x.astype(jnp.int64)
    x, rdt = _upcast(x)
    return jnp.prod(x, axis=dim, keepdims=keepdim).astype(rdt)


@op('_prod', static=('dtype',), node='ProdBackward0', function=False, method=False)
def _prod(input, *, dtype):
    return _prod_impl(input, None, False, dtype)


@op('_prod_dim', static=('dim', 'keepdim', 'dtype'), node='ProdBackward1', function=False, method=False)
def _prod_dim(input, *, dim, keepdim, dtype):
    return _prod_impl(input, dim, keepdim, dtype)


@public('prod', method=True)
def prod(input, dim=_UNSET, keepdim=False, *, dtype=None, out=None):
    _check_tensor(input, 'prod')
    _check_dtype_arg(dtype, 'prod')
    if dim is _UNSET:
        if keepdim:
            raise TypeError("prod() received an invalid combination of arguments - got (keepdim=bool), but "
                            "expected one of: (Tensor input, *, torch.dtype dtype = None) or (Tensor input, int dim, "
                            "bool keepdim = False, *, torch.dtype dtype = None)")
        return dispatch.apply(_prod, (input,), (dtype,), out)
    if dim is None or isinstance(dim, (list, tuple)):
        raise TypeError(f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), but "
                        "expected one of: (Tensor input, *, torch.dtype dtype = None) or (Tensor input, int dim, "
                        "bool keepdim = False, *, torch.dtype dtype = None)")
    d = _one_dim(dim, input.ndim, 'prod')
    return dispatch.apply(_prod_dim, (input,), (None if d is None else (d,), builtins.bool(keepdim), dtype), out)


# ---- std / var / std_mean / var_mean ------------------------------------------------------

def _safe_sqrt(v):
    """sqrt whose gradient at 0 is 0 (torch's std_backward masks result == 0)."""
    z = v == 0
    return jnp.where(z, jnp.zeros((), v.dtype), jnp.sqrt(jnp.where(z, jnp.ones((), v.dtype), v)))


def _var_impl(input, dim, correction, keepdim):
    x, rdt = _upcast(input)
    n = _reduced_numel(x.shape, dim)
    mu = jnp.mean(x, axis=dim, keepdims=True)
    d = x - mu
    sq = d.real * d.real + d.imag * d.imag if jnp.iscomplexobj(d) else d * d
    denom = jnp.asarray(_bmax(0, n - correction), sq.dtype)
    var = jnp.sum(sq, axis=dim, keepdims=keepdim) / denom
    return var, x, rdt


def _real_np(rdt):
    return jnp.float32 if rdt == jnp.complex64 else jnp.float64 if rdt == jnp.complex128 else rdt


@op('_var', static=('dim', 'correction', 'keepdim'), node='VarBackward0', function=False, method=False)
def _var(input, *, dim, correction, keepdim):
    v, _, rdt = _var_impl(input, dim, correction, keepdim)
    return v.astype(_real_np(rdt))


@op('_std', static=('dim', 'correction', 'keepdim'), node='StdBackward0', function=False, method=False)
def _std(input, *, dim, correction, keepdim):
    v, _, rdt = _var_impl(input, dim, correction, keepdim)
    return _safe_sqrt(v).astype(_real_np(rdt))


@op('_var_mean', static=('dim', 'correction', 'keepdim'), node='VarMeanBackward0', function=False, method=False)
def _var_mean(input, *, dim, correction, keepdim):
    v, x, rdt = _var_impl(input, dim, correction, keepdim)
    return v.astype(_real_np(rdt)), jnp.mean(x, axis=dim, keepdims=keepdim).astype(rdt)


@op('_std_mean', static=('dim', 'correction', 'keepdim'), node='StdMeanBackward0', function=False, method=False)
def _std_mean(input, *, dim, correction, keepdim):
    v, x, rdt = _var_impl(input, dim, correction, keepdim)
    return _safe_sqrt(v).astype(_real_np(rdt)), jnp.mean(x, axis=dim, keepdims=keepdim).astype(rdt)


def _var_args(fname, input, dim, unbiased, keepdim, correction):
    """Resolve torch's std/var overloads: (dim, *, correction, keepdim), (dim, unbiased, keepdim), (unbiased)."""
    _check_tensor(input, fname)
    if isinstance(dim, builtins.bool):            # std(x, True): the legacy (unbiased) overload
        if unbiased is not None:
            raise TypeError(f"{fname}() received an invalid combination of arguments - got (bool, bool)")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{fname}() received an invalid combination of arguments - got (correction=..., "
                        "unbiased=bool): pass either unbiased or correction")
    if correction is None:
        correction = 1 if (unbiased is None or unbiased) else 0
    elif _is_tensor(correction) or not isinstance(correction, numbers.Real):
        raise TypeError(f"{fname}(): argument 'correction' must be Number, not {type(correction).__name__}")
    if correction == int(correction):
        correction = int(correction)
    if input.dtype._cat < 2:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(dim, input.ndim, fname)
    n = _reduced_numel(tuple(input.shape), dims)
    if n - correction <= 0:
        base = fname.split('_')[0]
        warnings.warn(f"{base}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    return dims, correction, builtins.bool(keepdim)


def _make_var(name, o):
    def f(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        return dispatch.apply(o, (input,), _var_args(name, input, dim, unbiased, keepdim, correction), out)
    f.__name__ = f.__qualname__ = name
    return f


std = public('std', method=True)(_make_var('std', _std))
var = public('var', method=True)(_make_var('var', _var))
std_mean = public('std_mean')(_make_var('std_mean', _std_mean))
var_mean = public('var_mean')(_make_var('var_mean', _var_mean))


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


# ---- median / nanmedian / mode -------------------------------------------------------------

def _median_pos(x, axis, ignore_nan):
    """Position in the ascending (NaN-last) sorted order of the (nan)median along ``axis``, keepdims."""
    n = x.shape[axis]
    if jnp.issubdtype(x.dtype, jnp.inexact):
        nnan = jnp.sum(jnp.isnan(x), axis=axis, keepdims=True).astype(jnp.int64)
    else:
        nnan = jnp.zeros([1 if i == axis else s for i, s in enumerate(x.shape)], jnp.int64)
    if ignore_nan:
        c = n - nnan
        return jnp.where(c > 0, (c - 1) // 2, 0)           # all-NaN: the first NaN (C++ (c-1)/2 == 0)
    return jnp.where(nnan > 0, n - nnan, (n - 1) // 2)      # any NaN: the first NaN


def _median_index(x, axis, ignore_nan):
    """Index (keepdims) of the lower (nan)median along ``axis``; for median, the first NaN if there is one."""
    n = x.shape[axis]
    if ignore_nan:     # the rank depends on the data (count of NaN): full stable sort
        return take(stable_argsort(x, axis), _median_pos(x, axis, True), axis)
    k = (n - 1) // 2
    idx = lax.slice_in_dim(top_k_indices(x, k + 1, axis, False), k, k + 1, axis=axis)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        isn = jnp.isnan(x)
        first_nan = jnp.argmax(isn, axis=axis, keepdims=True).astype(jnp.int64)
        idx = jnp.where(jnp.any(isn, axis=axis, keepdims=True), first_nan, idx)
    return idx


def _median_all_impl(input, ignore_nan):
    x = input.ravel()
    if x.shape[0] == 0:
        return jnp.full((), jnp.nan, input.dtype if _float_in(input) else jnp.float32)
    v = take(x, _median_index(x, 0, ignore_nan), 0)[0]
    return _even(input, v)


def _median_dim_impl(input, dim, keepdim, ignore_nan):
    if dim is None:
        return input, jnp.zeros((), jnp.int64)
    idx = _median_index(input, dim, ignore_nan)
    vals = take(input, idx, dim)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, dim), jnp.squeeze(idx, dim)
    return vals, idx


@op('_median_all', node='MedianBackward0', function=False, method=False)
def _median_all(input):
    return _median_all_impl(input, False)


@op('_median_dim', static=('dim', 'keepdim'), node='MedianBackward1', ret=return_types.median, function=False,
    method=False)
def _median_dim(input, *, dim, keepdim):
    return _median_dim_impl(input, dim, keepdim, False)


@op('_nanmedian_all', node='NanmedianBackward0', function=False, method=False)
def _nanmedian_all(input):
    return _median_all_impl(input, True)


@op('_nanmedian_dim', static=('dim', 'keepdim'), node='NanmedianBackward1', ret=return_types.nanmedian,
    function=False, method=False)
def _nanmedian_dim(input, *, dim, keepdim):
    return _median_dim_impl(input, dim, keepdim, True)


def _make_median(fname, all_op, dim_op):
    def f(input, dim=_UNSET, keepdim=False, *, out=None):
        _check_tensor(input, fname)
        if input.dtype is D.bool or input.dtype.is_complex:
            raise NotImplementedError(f"\"{'nanmedian' if fname == 'nanmedian' else 'median'}_cpu\" not implemented "
                                      f"for '{_tname(input.dtype)}'")
        if dim is _UNSET or dim is None:
            return dispatch.apply(all_op, (input,), (), out)
        d = _one_dim(dim, input.ndim, fname)
        if d is not None and input.shape[d] == 0:
            raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
        return dispatch.apply(dim_op, (input,), (d, builtins.bool(keepdim)), out)
    f.__name__ = f.__qualname__ = fname
    return f


median = public('median', method=True)(_make_median('median', _median_all, _median_dim))
nanmedian = public('nanmedian', method=True)(_make_median('nanmedian', _nanmedian_all, _nanmedian_dim))


@op('mode', static=('dim', 'keepdim'), ret=return_types.mode)
def mode(input, dim=-1, keepdim=False):
    """Most frequent value (smallest among equally frequent ones) and the last index holding it."""
    if input.dtype.kind == 'c':
        raise NotImplementedError(f"\"mode_cpu\" not implemented for '{_tname(D.from_np(input.dtype))}'")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    n = input.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    perm = stable_argsort(input, d)
    s = take(input, perm, d)
    neq = lax.slice_in_dim(s, 1, n, axis=d) != lax.slice_in_dim(s, 0, n - 1, axis=d)
    ones = jnp.ones([1 if i == d else k for i, k in enumerate(s.shape)], bool)
    is_start = jnp.concatenate([ones, neq], axis=d)
    is_end = jnp.concatenate([neq, ones], axis=d)
    iota = lax.broadcasted_iota(jnp.int64, s.shape, d)
    start = lax.cummax(jnp.where(is_start, iota, 0), axis=d)
    score = jnp.where(is_end, iota - start + 1, 0)
    best = jnp.argmax(score, axis=d, keepdims=True).astype(jnp.int64)   # first (smallest value) longest run
    idx = take(perm, best, d)                                            # its last occurrence
    vals = take(input, idx, d)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, d), jnp.squeeze(idx, d)
    return vals, idx


# ---- quantile / nanquantile ----------------------------------------------------------------

_INTERPOLATIONS = ('linear', 'lower', 'higher', 'midpoint', 'nearest')


def _lerp(a, b, w):
    # torch's lerp: a + w * (b - a) for w < 0.5, else b - (b - a) * (1 - w)
    return jnp.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile_impl(input, q, dim, keepdim, interpolation, scalar_q, ignore_nan):
    x = input
    if dim is None:
        s = x.ravel()
        ax = 0
    else:
        s = jnp.moveaxis(x, dim, -1) if x.ndim else x.reshape(1)
        ax = s.ndim - 1
    s = take(s, stable_argsort(s, ax), ax)                  # sorted, NaN last
    n = s.shape[-1]
    qv = jnp.reshape(jnp.asarray(q, x.dtype), (-1,))         # (Q,)
    lead = s.shape[:-1]
    isnan = jnp.isnan(s)
    if ignore_nan:
        cnt = jnp.sum(~isnan, axis=-1, keepdims=True).astype(x.dtype)
        ranks = qv * (cnt - 1)
        ranks = jnp.where(ranks < 0, jnp.zeros((), x.dtype), ranks)
    else:
        last = n - 1
        ranks = jnp.where(jnp.any(isnan, axis=-1, keepdims=True), jnp.asarray(last, x.dtype),
                          qv * jnp.asarray(last, x.dtype))
    ranks = jnp.broadcast_to(ranks, lead + qv.shape)
    if interpolation == 'lower':
        ranks = jnp.floor(ranks)
    elif interpolation == 'higher':
        ranks = jnp.ceil(ranks)
    elif interpolation == 'nearest':
        ranks = jnp.round(ranks)                             # half to even, as torch.round
    below = lax.stop_gradient(ranks).astype(jnp.int64)
    res = take(s, below, s.ndim - 1)
    if interpolation in ('linear', 'midpoint'):
        w = jnp.full(ranks.shape, 0.5, x.dtype) if interpolation == 'midpoint' else ranks - below.astype(x.dtype)
        above = jnp.ceil(lax.stop_gradient(ranks)).astype(jnp.int64)
        res = _lerp(res, take(s, above, s.ndim - 1), w)
    # res: lead + (Q,) -> (Q,) + output shape
    res = jnp.moveaxis(res, -1, 0)
    if keepdim:
        if dim is None:
            res = res.reshape((res.shape[0],) + (1,) * x.ndim)
        elif x.ndim:
            res = jnp.expand_dims(res, dim + 1)
    if scalar_q:
        res = res[0]
    return res


@op('_quantile', static=('dim', 'keepdim', 'interpolation', 'scalar_q', 'ignore_nan'), node='SqueezeBackward4',
    function=False, method=False)
def _quantile(input, q, *, dim, keepdim, interpolation, scalar_q, ignore_nan):
    return _quantile_impl(input, q, dim, keepdim, interpolation, scalar_q, ignore_nan)


def _make_quantile(fname, ignore_nan):
    def f(input, q, dim=None, keepdim=False, *, interpolation='linear', out=None):
        _check_tensor(input, fname)
        if input.dtype not in (D.float32, D.float64):
            raise RuntimeError(f"{fname}() input tensor must be either float or double dtype")
        if input.numel() == 0:
            raise RuntimeError(f"{fname}() input tensor must be non-empty")
        if input.numel() > 16_000_000:
            raise RuntimeError(f"{fname}() input tensor is too large")
        if _is_tensor(q):
            if q.ndim > 1:
                raise RuntimeError(f"{fname}() q must be a scalar or 1D tensor")
            if q.dtype is not input.dtype:
                raise RuntimeError(f"{fname}() q tensor must be same dtype as the input tensor")
            qa = np.asarray(q._materialize())                                   # torch checks on host too
            if qa.size and not builtins.bool(((qa >= 0) & (qa <= 1)).all()):
                raise RuntimeError(f"{fname}() q values must be in the range [0, 1]")
            scalar_q = q.ndim == 0
        elif isinstance(q, numbers.Real) and not isinstance(q, builtins.bool):
            if not 0 <= q <= 1:
                raise RuntimeError(f"{fname}() q must be in the range [0, 1] but got {q}")
            scalar_q = True
        else:
            raise TypeError(f"{fname}() received an invalid combination of arguments - got (Tensor, "
                            f"{type(q).__name__}), but expected (Tensor input, Tensor q or float q, ...)")
        if interpolation not in _INTERPOLATIONS:
            raise RuntimeError(f"{fname}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                               f"but got {interpolation}")
        d = None if dim is None else _one_dim(dim, input.ndim, fname)
        if dim is not None and input.ndim == 0:
            d = 0
        return dispatch.apply(_quantile, (input, q), (d, builtins.bool(keepdim), interpolation, scalar_q, ignore_nan),
                              out)
    f.__name__ = f.__qualname__ = fname
    return f


quantile = public('quantile', method=True)(_make_quantile('quantile', False))
nanquantile = public('nanquantile', method=True)(_make_quantile('nanquantile', True))


# ---- logsumexp -----------------------------------------------------------------------------

@op('logsumexp', static=('dim', 'keepdim'), promote='float')
def logsumexp(input, dim, keepdim=False):
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {[1] * input.ndim}")
    dims = wrap_dims(dim, input.ndim)
    dims = None if input.ndim == 0 else tuple(sorted(dims))
    x, rdt = _upcast(input)
    if x.size == 0:
        return jnp.log(jnp.sum(jnp.exp(x), axis=dims, keepdims=keepdim)).astype(rdt)
    m = lax.stop_gradient(jnp.max(jnp.real(x), axis=dims, keepdims=True))
    m = jnp.where(jnp.abs(m) == jnp.inf, jnp.zeros((), m.dtype), m)
    r = jnp.log(jnp.sum(jnp.exp(x - m), axis=dims, keepdims=keepdim))
    ms = m if keepdim else (m.reshape(()) if dims is None else jnp.squeeze(m, dims))
    return (r + ms).astype(rdt)


# ---- norm / dist / renorm ------------------------------------------------------------------

def _pnorm_value(a, p, axes, keepdim):
    if p == _INF:
        return jnp.max(a, axis=axes, keepdims=keepdim)
    if p == -_INF:
        return jnp.min(a, axis=axes, keepdims=keepdim)
    if p == 0:
        return jnp.sum(a != 0, axis=axes, keepdims=keepdim).astype(a.dtype)
    if p == 1:
        return jnp.sum(a, axis=axes, keepdims=keepdim)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=axes, keepdims=keepdim))
    return jnp.sum(a ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)


@partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _pnorm(a, p, axes, keepdim):
    """p-norm of a non-negative real array (a = |x|), with torch's norm_backward (masked at zero norm)."""
    return _pnorm_value(a, p, axes, keepdim)


def _pnorm_fwd(a, p, axes, keepdim):
    n = _pnorm_value(a, p, axes, keepdim)
    return n, (a, n)


def _pnorm_bwd(p, axes, keepdim, res, g):
    a, n = res
    if not keepdim:
        n, g = _keep(n, axes, a.ndim), _keep(g, axes, a.ndim)
    zero = jnp.zeros((), a.dtype)
    sgn = jnp.sign(a)
    if p == 0:
        ga = jnp.zeros_like(a)
    elif p == 1:
        ga = sgn * g
    elif p == 2:
        ga = g * jnp.where(n == 0, zero, a / n)
    elif p in (_INF, -_INF):
        mask = (a == n) | jnp.isnan(a)
        ga = sgn * (g / jnp.sum(mask, axis=axes, keepdims=True).astype(a.dtype)) * mask
    elif p < 1:
        ga = sgn * jnp.where(a == 0, zero, a ** (p - 1)) * g * n ** (1 - p)
    elif p < 2:
        ga = sgn * a ** (p - 1) * jnp.where(n == 0, zero, g / n ** (p - 1))
    else:
        ga = a * a ** (p - 2) * jnp.where(n == 0, zero, g / n ** (p - 1))
    return (ga.astype(a.dtype),)


_pnorm.defvjp(_pnorm_fwd, _pnorm_bwd)


def _vector_norm_impl(x, p, dims, keepdim, dtype):
    if dtype is not None:
        x = x.astype(dtype.np)
    x, rdt = _upcast(x)
    a = jnp.abs(x)
    return _pnorm(a, p, dims, keepdim).astype(_real_np(rdt))


@op('_vector_norm', static=('p', 'dim', 'keepdim', 'dtype'), node='LinalgVectorNormBackward0', function=False,
    method=False)
def _vector_norm(input, *, p, dim, keepdim, dtype):
    return _vector_norm_impl(input, p, dim, keepdim, dtype)


@op('_nuclear_norm', static=('dim', 'keepdim', 'dtype'), node='SumBackward1', function=False, method=False)
def _nuclear_norm(input, *, dim, keepdim, dtype):
    x = input if dtype is None else input.astype(dtype.np)
    x, rdt = _upcast(x)
    m = jnp.moveaxis(x, dim, (-2, -1))
    r = jnp.sum(jnp.linalg.svd(m, compute_uv=False), axis=-1)
    if keepdim:
        r = jnp.expand_dims(r, dim)
    return r.astype(_real_np(rdt))


def _norm_p(p):
    if _is_tensor(p):
        p = p.item()
    if isinstance(p, builtins.bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"norm(): argument 'p' must be Number or str, not {type(p).__name__}")
    p = float(p)
    return int(p) if _babs(p) != _INF and p == int(p) else p


@public('norm', method=True)
def norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: 'fro' and numbers -> linalg.vector_norm; 'nuc' -> sum of singular values over 2 dims."""
    _check_tensor(input, 'norm')
    _check_dtype_arg(dtype, 'norm')
    keepdim = builtins.bool(keepdim)
    if isinstance(dim, (list, tuple)):
        dim_list = [_int(d, 'norm') for d in dim]
    elif dim is None:
        dim_list = None
    else:
        dim_list = [_int(dim, 'norm')]
    if isinstance(p, str):
        if p == 'fro' and (dim_list is None or len(dim_list) <= 2):
            p = 2
        else:
            if p not in ('fro', 'nuc'):
                raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
            dl = list(range(input.ndim)) if dim_list is None else dim_list
            if len(dl) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dl)}")
            if input.dtype._cat < 2:
                raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                                   f"{_tname(input.dtype)}")
            d = wrap_dims(tuple(dl), input.ndim)
            if p == 'fro':      # unreachable (len 2 handled above); kept for clarity
                p = 2
            else:
                return dispatch.apply(_nuclear_norm, (input,), (d, keepdim, dtype), out)
    p = 2 if p is None else _norm_p(p)
    return _vector_norm_call('linalg.vector_norm', input, p, dim_list, keepdim, dtype, out)


def _vector_norm_call(fname, input, p, dim_list, keepdim, dtype, out):
    if input.dtype._cat < 2:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {_tname(input.dtype)}")
    if dtype is not None and dtype._cat < 2:
        raise RuntimeError(f"{fname}: dtype should be floating point or complex, but got {_tname(dtype)}")
    dims = _dims(dim_list, input.ndim, 'norm')
    if p < 0 or p == _INF:
        if input.numel() == 0 and (dims is None or _bany(input.shape[d] == 0 for d in dims)):
            raise RuntimeError(f"{fname} cannot compute the {p} norm on an empty tensor because the operation does "
                               "not have an identity")
    return dispatch.apply(_vector_norm, (input,), (p, dims, keepdim, dtype), out)


@op('_dist', static=('p',), promote='same', node='DistBackward0', function=False, method=False)
def _dist(input, other, *, p):
    x, rdt = _upcast(input - other)
    return _pnorm(jnp.abs(x), p, None, False).astype(_real_np(rdt))


@public('dist', method=True)
def dist(input, other, p=2, *, out=None):
    _check_tensor(input, 'dist')
    _check_tensor(other, 'dist', 'other', 2)
    p = _norm_p(p)
    dt = dispatch.result_dtype([input, other])
    if dt._cat < 2:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_tname(dt)} instead.")
    try:
        shape = jnp.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({input.shape[-1]}) must match the size of tensor b "
                           f"({other.shape[-1]}) at non-singleton dimension") from None
    if (p < 0 or p == _INF) and math.prod(shape) == 0:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on an empty tensor because the operation "
                           "does not have an identity")
    return dispatch.apply(_dist, (input, other), (p,), out)


@op('_renorm', static=('p', 'dim'), node='RenormBackward0', diff=('input',), function=False, method=False)
def _renorm(input, maxnorm, *, p, dim):
    x, rdt = _upcast(input)
    axes = tuple(i for i in range(x.ndim) if i != dim)
    n = _pnorm(jnp.abs(x), p, axes, True)
    mx = jnp.asarray(maxnorm, n.dtype)
    factor = jnp.where(n > mx, mx / (n + jnp.asarray(1e-7, n.dtype)), jnp.ones((), n.dtype))
    return (x * factor).astype(rdt)


def _renorm_args(input, p, dim, maxnorm):
    _check_tensor(input, 'renorm')
    p = _norm_p(p)
    dim = _int(dim, 'renorm')
    if _is_tensor(maxnorm):
        maxnorm = maxnorm.item()
    if input.dtype._cat < 2:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_tname(input.dtype)}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    return maxnorm, (p, wrap_dim(dim, input.ndim))


@public('renorm', method=True)
def renorm(input, p, dim, maxnorm, *, out=None):
    maxnorm, st = _renorm_args(input, p, dim, maxnorm)
    return dispatch.apply(_renorm, (input, maxnorm), st, out)


@method('renorm_')
def renorm_(self, p, dim, maxnorm):
    maxnorm, st = _renorm_args(self, p, dim, maxnorm)
    return dispatch.apply_inplace(_renorm, (self, maxnorm), st)


# ---- all / any / count_nonzero -------------------------------------------------------------

def _allany(input, dim, keepdim, fn):
    if isinstance(dim, tuple) and len(dim) == 0:          # torch: dim=() reduces nothing for all/any
        r = input != 0
    else:
        dims = wrap_dims(dim, input.ndim) if not isinstance(dim, int) else (wrap_dim(dim, input.ndim),)
        dims = None if (dims is None or input.ndim == 0) else tuple(sorted(dims))
        r = fn(input != 0, axis=dims, keepdims=keepdim)
    return r.astype(jnp.uint8) if input.dtype == jnp.uint8 else r


@op('all', static=('dim', 'keepdim'), differentiable=False)
def all_(input, dim=None, keepdim=False):
    return _allany(input, dim, keepdim, jnp.all)


@op('any', static=('dim', 'keepdim'), differentiable=False)
def any_(input, dim=None, keepdim=False):
    return _allany(input, dim, keepdim, jnp.any)


@op('count_nonzero', static=('dim',), differentiable=False)
def count_nonzero(input, dim=None):
    dims = wrap_dims(dim, input.ndim) if not isinstance(dim, int) else (wrap_dim(dim, input.ndim),)
    dims = None if (not dims or input.ndim == 0) else tuple(sorted(dims))
    return jnp.sum(input != 0, axis=dims).astype(jnp.int64)


# ---- cumulative ops ------------------------------------------------------------------------

def _cum_dtype(x, dtype):
    if dtype is not None:
        return x.astype(dtype.np)
    if x.dtype.kind in 'biu':
        return x.astype(jnp.int64)
    return x


def _cum_acc(x):
    """torch's CPU cumulative kernels accumulate floats in double and round each output once."""
    if x.dtype in (jnp.float16, jnp.bfloat16, jnp.float32):
        return x.astype(jnp.float64), x.dtype
    if x.dtype == jnp.complex64:
        return x.astype(jnp.complex128), x.dtype
    return x, x.dtype


@op('cumsum', static=('dim', 'dtype'), saves=())
def cumsum(input, dim, *, dtype=None):
    d = wrap_dim(dim, input.ndim)
    x = _cum_dtype(input, dtype)
    if x.ndim == 0:
        return x
    x, rdt = _cum_acc(x)
    return jnp.cumsum(x, axis=d).astype(rdt)


@op('cumprod', static=('dim', 'dtype'))
def cumprod(input, dim, *, dtype=None):
    d = wrap_dim(dim, input.ndim)
    x = _cum_dtype(input, dtype)
    if x.ndim == 0:
        return x
    x, rdt = _cum_acc(x)
    return jnp.cumprod(x, axis=d).astype(rdt)


def _make_cum_inplace(name, o):
    def f(self, dim, *, dtype=None):
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {str(self.dtype)[6:]} and output tensor dtype "
                               f"{str(dtype)[6:]} should match")
        return dispatch.apply_inplace(o, (self,), (_int(dim, name), dtype))
    f.__name__ = f.__qualname__ = name + '_'
    method(name + '_')(f)
    return f


cumsum_ = _make_cum_inplace('cumsum', cumsum)
cumprod_ = _make_cum_inplace('cumprod', cumprod)


def _cum_extreme(fname, input, dim, largest):
    if input.dtype.kind == 'c':
        raise NotImplementedError(f"\"{fname}_cpu\" not implemented for '{_tname(D.from_np(input.dtype))}'")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    if input.shape[d] == 0:
        return input, jnp.zeros(input.shape, jnp.int64)
    inexact = jnp.issubdtype(input.dtype, jnp.inexact)

    def combine(a, b):
        (av, ai), (bv, bi) = a, b
        take_b = (bv >= av) if largest else (bv <= av)      # ties: the later index wins
        if inexact:
            take_b = jnp.isnan(bv) | (~jnp.isnan(av) & take_b)   # NaN sticks; a later NaN takes over
        return jnp.where(take_b, bv, av), jnp.where(take_b, bi, ai)

    iota = lax.broadcasted_iota(jnp.int64, input.shape, d)
    _, idx = lax.associative_scan(combine, (input, iota), axis=d)
    return take(input, idx, d), idx


@op('cummax', static=('dim',), ret=return_types.cummax)
def cummax(input, dim):
    return _cum_extreme('cummax', input, dim, True)


@op('cummin', static=('dim',), ret=return_types.cummin)
def cummin(input, dim):
    return _cum_extreme('cummin', input, dim, False)


def _log_add_exp(x, y):
    """torch's _log_add_exp_helper (real parts order complex values)."""
    xr, yr = jnp.real(x), jnp.real(y)
    ynan = jnp.isnan(yr)
    y_is_max = ynan | (yr > xr)
    mx = jnp.where(y_is_max, y, x)
    mn = jnp.where(y_is_max, x, y)
    mnr, mxr = jnp.real(mn), jnp.real(mx)
    regular = (mnr != mxr) | jnp.isfinite(mnr)
    safe_diff = jnp.where(regular, mn - mx, jnp.zeros((), mn.dtype))
    return jnp.where(regular, jnp.log1p(jnp.exp(safe_diff)) + mx, x)


def _lcse_scan(x, axis):
    # torch's CPU kernel accumulates in double (acc_type<float, false>) and rounds each output once
    acc = jnp.complex128 if jnp.iscomplexobj(x) else jnp.float64
    return lax.associative_scan(_log_add_exp, x.astype(acc), axis=axis).astype(x.dtype)


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def _lcse_real(x, axis):
    return _lcse_scan(x, axis)


def _lcse_real_fwd(x, axis):
    r = _lcse_scan(x, axis)
    return r, (x, r)


def _lcse_real_bwd(axis, res, g):
    # torch's logcumsumexp_backward (real case): split the gradient by sign and accumulate in log space
    x, r = res
    low = jnp.asarray(jnp.finfo(g.dtype).min, g.dtype)
    log_abs = jnp.log(jnp.abs(g))
    rev = lambda v: jnp.flip(_lcse_scan(jnp.flip(v, axis), axis), axis)
    pos = jnp.exp(rev(jnp.where(g > 0, log_abs, low) - r) + x)
    neg = jnp.exp(rev(jnp.where(g < 0, log_abs, low) - r) + x)
    return (pos - neg,)


_lcse_real.defvjp(_lcse_real_fwd, _lcse_real_bwd)


@op('logcumsumexp', static=('dim',))
def logcumsumexp(input, dim):
    if input.dtype.kind not in 'fc':
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_tname(D.from_np(input.dtype))}'")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0 or input.shape[d] == 0:
        return input
    x, rdt = _upcast(input)
    r = _lcse_scan(x, d) if jnp.iscomplexobj(x) else _lcse_real(x, d)
    return r.astype(rdt)


# ---- softmax / log_softmax -----------------------------------------------------------------

def _softmax_in(fname, input, dim, dtype):
    if dtype is not None:
        input = input.astype(dtype.np)
    elif input.dtype.kind not in 'fc':
        kernel = 'softmax_lastdim_kernel_impl' if fname == 'softmax' else 'log_softmax_lastdim_kernel_impl'
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(D.from_np(input.dtype))}'")
    d = wrap_dim(dim, input.ndim)
    x, rdt = _upcast(input)
    return x, (None if input.ndim == 0 else d), rdt


@op('softmax', static=('dim', 'dtype'), saves='result')
def softmax(input, dim, dtype=None):
    x, d, rdt = _softmax_in('softmax', input, dim, dtype)
    if x.size == 0:
        return x.astype(rdt)
    m = lax.stop_gradient(jnp.max(jnp.real(x), axis=d, keepdims=True))
    e = jnp.exp(x - m)
    return (e / jnp.sum(e, axis=d, keepdims=True)).astype(rdt)


@op('log_softmax', static=('dim', 'dtype'), saves='result')
def log_softmax(input, dim, dtype=None):
    x, d, rdt = _softmax_in('log_softmax', input, dim, dtype)
    if x.size == 0:
        return x.astype(rdt)
    m = lax.stop_gradient(jnp.max(jnp.real(x), axis=d, keepdims=True))
    s = x - m
    return (s - jnp.log(jnp.sum(jnp.exp(s), axis=d, keepdims=True))).astype(rdt)


accept_numpy_kwargs(('sum', 'nansum', 'mean', 'nanmean', 'prod', 'std', 'var', 'std_mean', 'var_mean', 'max', 'min',
                     'amax', 'amin', 'aminmax', 'argmax', 'argmin', 'median', 'nanmedian', 'mode', 'quantile',
                     'nanquantile', 'logsumexp', 'all', 'any', 'count_nonzero', 'cumsum', 'cumprod', 'cummax',
                     'cummin', 'logcumsumexp', 'softmax', 'log_softmax'))
