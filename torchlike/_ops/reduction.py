"""Reductions: sum, nansum, mean, nanmean, prod, logsumexp, norm/dist/renorm, all/any/count_nonzero,
softmax/log_softmax, and the argument helpers shared with the other reduction modules: extrema.py
(max/min/amax/amin/aminmax/argmax/argmin), statistics.py (std/var, median/mode, quantile) and
cumulative.py (cumsum/cumprod/cummax/cummin/logcumsumexp).

Conventions (PyTorch's; they hold in all four modules):
* ``dim`` is None (all dims), an int or a sequence of ints; negative dims wrap, out-of-range dims raise
  IndexError, repeated dims RuntimeError. The public wrappers normalise it to a sorted tuple (or None) so
  equivalent calls share one compiled program. ``dim=[]`` reduces everything (except all/any: no reduction).
* Output dtypes: integral/bool sums, products and cumulative sums are int64; mean/std/var need floating or
  complex input; std/var/norm of complex input are real; all/any return bool (uint8 for uint8 input).
* grad_fn names follow torch: SumBackward0 for sum() vs SumBackward1 for sum(dim), MaxBackward1 for max()
  vs MaxBackward0 for max(dim), ...; hence the private op variants.
"""
import builtins
import math
import numbers
import operator
from functools import partial

from .. import _dtype as D
from .._engine.registry import op, public, method
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from ._util import wrap_dim, wrap_dims, inexact
from .sorting import accept_numpy_kwargs

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
    return inexact(x.dtype)


def _upcast(x):
    """Half-precision inputs accumulate in float32 (as torch's CPU kernels); returns (x, result dtype)."""
    if x.dtype in (jnp.float16, jnp.bfloat16):
        return x.astype(jnp.float32), x.dtype
    return x, x.dtype


def _real_np(rdt):
    return jnp.float32 if rdt == jnp.complex64 else jnp.float64 if rdt == jnp.complex128 else rdt


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
                from .linalg_decomp import check_lowp       # (linalg imports this module)
                check_lowp(input, fname='linalg.matrix_norm')
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


# ---- softmax / log_softmax -----------------------------------------------------------------

def _softmax_in(fname, input, dim, dtype):
    if dtype is not None:
        input = input.astype(dtype.np)
    elif not inexact(input.dtype):
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


@method('sum_to_size')
def sum_to_size(self, *size):
    """Tensor.sum_to_size: sum the dims that ``size`` broadcasts over (the inverse of expand)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(_int(v, 'sum_to_size', 'size') for v in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or _bany(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        fmt = lambda v: '[' + ', '.join(map(str, v)) + ']'
        raise RuntimeError(f"size {{{fmt(size)}}} is not expandable to size {{{fmt(shape)}}}.")
    if size == shape:
        return self
    r = self
    if lead:
        r = r.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(size) if s == 1 and r.shape[i] != 1)
    if dims:
        r = r.sum(dims, keepdim=True)
    return r


accept_numpy_kwargs(('sum', 'nansum', 'mean', 'nanmean', 'prod', 'logsumexp', 'all', 'any', 'count_nonzero',
                     'softmax', 'log_softmax'))
