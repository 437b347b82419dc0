"""Cumulative ops: cumsum/cumprod (and their in-place methods), cummax/cummin, logcumsumexp.

Conventions: see reduction.py. Besides those: cumsum/cumprod of integral/bool input are int64;
cummax/cummin return the last occurrence of a tie.
"""
from functools import partial

from .. import _dtype as D
from .. import return_types
from .._engine.registry import op, method
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from ._util import wrap_dim, inexact
from .sorting import take, accept_numpy_kwargs
from .reduction import _int, _tname, _upcast


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
    if not inexact(input.dtype):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_tname(D.from_np(input.dtype))}'")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0 or input.shape[d] == 0:
        return input
    x, rdt = _upcast(input)
    r = _lcse_scan(x, d) if jnp.iscomplexobj(x) else _lcse_real(x, d)
    return r.astype(rdt)


accept_numpy_kwargs(('cumsum', 'cumprod', 'cummax', 'cummin', 'logcumsumexp'))
