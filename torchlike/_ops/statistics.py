"""Statistics: std/var/std_mean/var_mean, median/nanmedian, mode, quantile/nanquantile, cov/corrcoef.

Conventions: see reduction.py. Besides those: median returns the lower median; median()/nanmedian()
without dim spread the gradient evenly over the tied elements (extrema._even); the (values, indices)
forms send it to the selected index.
"""
import builtins
import numbers
import warnings

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._engine.registry import op, public, PUBLIC
from .._engine import dispatch
from ..amp.autocast_mode import autocast_entry
from .._engine.jaxrt import jnp, lax
from ._util import wrap_dim
from .sorting import stable_argsort, take, top_k_indices, accept_numpy_kwargs
from .reduction import (_bmax, _UNSET, _is_tensor, _check_tensor, _dims, _one_dim, _reduced_numel, _float_in,
                        _upcast, _tname, _real_np)
from .extrema import _even


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


quantile = public('quantile', method=True)(autocast_entry('quantile')(_make_quantile('quantile', False)))
nanquantile = public('nanquantile', method=True)(autocast_entry('nanquantile')(_make_quantile('nanquantile', True)))


# ---- cov / corrcoef ------------------------------------------------------------------------
# Composites of ops, written as torch's aten/native/Correlation.cpp: so dtypes (integral input -> default float,
# float64 weights promote), gradients and the data-dependent checks (which sync, as torch's do) follow it.

def _tn(dt):
    return _tname(dt)


@public('cov', method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    from .creation import tensor
    _check_tensor(input, 'cov')
    if isinstance(correction, builtins.bool) or not isinstance(correction, numbers.Integral):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is D.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    # frequency weights must be integral, observation weights floating; both 1-D, one per observation, >= 0
    for name, wt, cat, kind in (('fweights', fweights, 1, 'integral'), ('aweights', aweights, 2, 'floating point')):
        if wt is None:
            continue
        _check_tensor(wt, 'cov', name)
        if wt.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{wt.ndim} dimensions")
        if wt.dtype._cat != cat:
            raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                               f"{_tn(wt.dtype)} dtype")
        if wt.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {wt.numel()} != {n}")
        if n and not builtins.bool(wt.min().ge(0).item()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = wt if w is None else w * wt
    w_sum = w.sum() if w is not None else tensor(n, dtype=D.int64)
    if w is not None and not builtins.bool(w_sum.ne(0).item()):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if builtins.bool(norm.le(0).item()):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.")
        norm = norm * 0
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t().conj())
    return c.true_divide(norm).squeeze()


@public('corrcoef', method=True)
def corrcoef(input):
    _check_tensor(input, 'corrcoef')
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c        # scalar covariance: nan for nan/inf/0, else 1
    d = c.diagonal()
    sd = (d.real if d.dtype.is_complex else d).sqrt()
    c = c / sd.view(-1, 1)
    c = c / sd.view(1, -1)
    if c.dtype.is_complex:  # the imaginary part is not clamped (numpy's behaviour)
        from .pointwise import real, imag
        return PUBLIC['torch']['complex'](real(c).clip(-1, 1), imag(c))
    return c.clip(-1, 1)


accept_numpy_kwargs(('std', 'var', 'std_mean', 'var_mean', 'median', 'nanmedian', 'mode', 'quantile',
                     'nanquantile'))
