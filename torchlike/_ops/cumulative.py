"""Cumulative ops: cumsum/cumprod (and their in-place methods), cummax/cummin, logcumsumexp; diff and the
trapezoid rule (trapezoid/trapz, cumulative_trapezoid).

Conventions: see reduction.py. Besides those: cumsum/cumprod of integral/bool input are int64;
cummax/cummin return the last occurrence of a tie.
"""
import builtins
from functools import partial

from .. import _dtype as D
from .. import return_types
from .._engine.registry import op, method, public
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from ._util import wrap_dim, inexact
from .sorting import take, accept_numpy_kwargs
from .reduction import _int, _tname, _upcast, _check_tensor, _is_tensor


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


# ---- diff ----------------------------------------------------------------------------------

@op('_diff', static=('n', 'dim'), promote='same', node='SubBackward0', saves=(), function=False, method=False,
    out=True)
def _diff(input, prepend, append, *, n, dim):
    parts = [p for p in (prepend, input, append) if p is not None]
    x = jnp.concatenate(parts, axis=dim) if len(parts) > 1 else input
    for _ in range(n):
        if x.shape[dim] == 0:
            break
        a, b = lax.slice_in_dim(x, 1, None, axis=dim), lax.slice_in_dim(x, 0, -1, axis=dim)
        x = (a != b) if x.dtype == jnp.bool_ else a - b     # torch uses logical_xor for bool
    return x


@public('diff', method=True)
def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    _check_tensor(input, 'diff')
    n, dim = _int(n, 'diff', 'n'), _int(dim, 'diff')
    for name, t in (('prepend', prepend), ('append', append)):
        if t is not None and not _is_tensor(t):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    for t in (prepend, append):
        if t is None:
            continue
        if t.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(input.ndim):
            if i != d and t.shape[i] != input.shape[i]:
                raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match that of input "
                                   f"except along the differencing dimension; input.size({i}) = {input.shape[i]}, "
                                   f"but got tensor.size({i}) = {t.shape[i]}")
    return dispatch.apply(_diff, (input, prepend, append), (n, d), out)


# ---- trapezoid rule -------------------------------------------------------------------------
# torch's formulas (aten/native/Integration.cpp): with sample spacing x,
#   trapezoid = ((y[1:] + y[:-1]) * diff(x)).sum(dim) / 2, with a scalar dx: (y.sum(dim) - (y[0] + y[-1]) / 2) * dx,
#   cumulative_trapezoid = ((y[1:] + y[:-1]) * diff(x)).cumsum(dim) / 2, with dx: (dx / 2 * (y[1:] + y[:-1])).cumsum.
# Integral inputs give the default float dtype (the final "/ 2." or "* 0.5"); the body computes in that dtype.

def _drop_last(a, dim):     # a[..., :-1, ...] (empty stays empty)
    return lax.slice_in_dim(a, 0, builtins.max(a.shape[dim] - 1, 0), axis=dim)


def _drop_first(a, dim):    # a[..., 1:, ...]
    return lax.slice_in_dim(a, builtins.min(1, a.shape[dim]), a.shape[dim], axis=dim)


@op('_trapezoid', static=('dim', 'cumulative', 'dtype'), node='DivBackward1', saves=(), function=False,
    method=False)
def _trapezoid(y, x, dx, *, dim, cumulative, dtype):
    y = y.astype(dtype.np)
    n = y.shape[dim]
    left, right = lax.slice_in_dim(y, 0, builtins.max(n - 1, 0), axis=dim), \
        lax.slice_in_dim(y, builtins.min(1, n), n, axis=dim)
    if x is None:
        dx = jnp.asarray(dx, jnp.float64)
        if cumulative:
            return jnp.cumsum((dx / 2 * (left + right)).astype(dtype.np), axis=dim)
        ends = lax.index_in_dim(y, 0, dim, False) + lax.index_in_dim(y, -1, dim, False)
        return ((jnp.sum(y, axis=dim) - ends * jnp.asarray(0.5, dtype.np)) * dx).astype(dtype.np)
    x = x.astype(dtype.np)
    if x.ndim == 1:
        x = x.reshape(tuple(x.shape[0] if i == dim else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        x = x.reshape((1,) * (y.ndim - x.ndim) + x.shape)
    dxs = _drop_first(x, dim) - _drop_last(x, dim)
    r = (left + right) * dxs
    r = jnp.cumsum(r, axis=dim) if cumulative else jnp.sum(r, axis=dim)
    return r / jnp.asarray(2, dtype.np)


def _trapezoid_front(fname, cumulative, y, x, dx, dim):
    _check_tensor(y, fname, 'y')
    if x is not None and dx is not None:
        raise TypeError(f"{fname}() received an invalid combination of arguments - got (Tensor, Tensor, dx=...), "
                        f"but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
                        f" * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    if x is not None:
        _check_tensor(x, fname, 'x', 2)
    dim = _int(dim, fname)
    if y.ndim == 0:
        if cumulative:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, y.ndim)
    if not cumulative and y.shape[d] == 0:
        from .creation import zeros
        return zeros(y.shape[:d] + y.shape[d + 1:], dtype=y.dtype)    # numpy's "0" for zero samples, y's dtype
    if x is None:
        if dx is None:
            dx = 1
        if y.dtype is D.bool:
            raise RuntimeError(f"{fname}: received a bool input for `y`, but bool is not supported")
        if isinstance(dx, (builtins.bool, complex)) or (_is_tensor(dx) and dx.dtype._cat in (0, 3)):
            raise RuntimeError(f"{fname}: Currently, we only support dx as a real number.")
        dt = y.dtype if y.dtype._cat >= 2 else D.state.default_dtype
        return dispatch.apply(_trapezoid, (y, None, float(dx)), (d, cumulative, dt))
    if y.dtype is D.bool or x.dtype is D.bool:
        raise RuntimeError(f"{fname}: received a bool input for `x` or `y`, but bool is not supported")
    if x.ndim == 1 and x.shape[0] != y.shape[d]:
        raise RuntimeError(f"{fname}: There must be one `x` value for each sample point")
    dt = dispatch.result_dtype([y, x])
    dt = dt if dt._cat >= 2 else D.state.default_dtype
    return dispatch.apply(_trapezoid, (y, x, None), (d, cumulative, dt))


@public('trapezoid')
def trapezoid(y, x=None, *, dx=None, dim=-1):
    return _trapezoid_front('trapezoid', False, y, x, dx, dim)


@public('trapz')
def trapz(y, x=None, *, dx=None, dim=-1):
    return _trapezoid_front('trapezoid', False, y, x, dx, dim)


@public('cumulative_trapezoid')
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    return _trapezoid_front('cumulative_trapezoid', True, y, x, dx, dim)


accept_numpy_kwargs(('cumsum', 'cumprod', 'cummax', 'cummin', 'logcumsumexp'))
