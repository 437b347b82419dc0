"""Special functions: the erf and gamma families, Bessel functions, and the ``torch.special`` namespace.

Torch-level ops (erf, erfc, erfinv, lgamma, digamma, polygamma, mvlgamma, i0, sinc) are registered in
the 'torch' namespace with methods and in-place variants; ``torch.special``-only ops are registered
with ``namespace='special'``; ``torch.special`` re-exports the torch-level ones under its own names
(expit = sigmoid, gammaln = lgamma, psi = digamma, multigammaln = mvlgamma, ...), see
torchlike/special/__init__.py. Bodies use jax.scipy.special where it matches torch's values.
"""
import functools
import math

import numpy as np

from .._engine.registry import public, PUBLIC
from .._engine.jaxrt import jax, jnp, lax
from .pointwise import pw, real_floats_only, need_tensor, grad_raises, _scalar_key, _bad_arg
from . import arithmetic  # noqa: F401  (registers xlogy, which torch.special aliases below)
from .._tensor import Tensor

S = jax.scipy.special


def _real_unary(name, f, kernel, **kw):
    def body(input):
        real_floats_only(kernel, input)
        return f(input)
    body.__name__ = name
    body.__doc__ = f'{name}(input, *, out=None): integer and bool inputs give the default float dtype.'
    return pw(name, promote='float', **kw)(body)


# ---- torch-level ---------------------------------------------------------------------------------

_real_unary('erf', S.erf, 'erf_vml_cpu', inplace=True, torch_inplace=True)
_real_unary('erfc', S.erfc, 'erfc_vml_cpu', inplace=True, torch_inplace=True)
_real_unary('erfinv', S.erfinv, 'erfinv_cpu', inplace=True)
_real_unary('lgamma', S.gammaln, 'lgamma_cpu', inplace=True)


# modified Bessel functions with torch's derivative formulas (jax's i0 derivative is wrong at 0)
@jax.custom_jvp
def _i0(x):
    return S.i0(x)


@_i0.defjvp
def _i0_jvp(p, t):
    x, = p
    return S.i0(x), S.i1(x) * t[0]


@jax.custom_jvp
def _i0e(x):
    return S.i0e(x)


@_i0e.defjvp
def _i0e_jvp(p, t):
    x, = p
    return S.i0e(x), (S.i1e(x) - jnp.sign(x) * S.i0e(x)) * t[0]


def _safe_inv(x):
    nz = x != 0
    return jnp.where(nz, 1 / jnp.where(nz, x, 1), 0)


@jax.custom_jvp
def _i1(x):
    return S.i1(x)


@_i1.defjvp
def _i1_jvp(p, t):
    x, = p
    d = jnp.where(x == 0, 0.5, S.i0(x) - S.i1(x) * _safe_inv(x))
    return S.i1(x), d.astype(x.dtype) * t[0]


@jax.custom_jvp
def _i1e(x):
    return S.i1e(x)


@_i1e.defjvp
def _i1e_jvp(p, t):
    x, = p
    d = jnp.where(x == 0, 0.5, S.i0e(x) - S.i1e(x) * (jnp.sign(x) + _safe_inv(x)))
    return S.i1e(x), d.astype(x.dtype) * t[0]


_real_unary('i0', _i0, 'i0_cpu', inplace=True, torch_inplace=True)


def _trigamma(x):
    """torch's calc_trigamma (reflection below 0.5, six recurrence steps, asymptotic series)."""
    sign = jnp.where(x < 0.5, -1.0, 1.0).astype(x.dtype)
    sin_pi_x = jnp.sin(jnp.asarray(math.pi, x.dtype) * x)
    result = jnp.where(x < 0.5, -(jnp.asarray(math.pi ** 2, x.dtype)) / (sin_pi_x * sin_pi_x), 0).astype(x.dtype)
    x = jnp.where(x < 0.5, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    result = result + (1 + 1 / (2 * x) + ixx * (1. / 6 - ixx * (1. / 30 - ixx * (1. / 42)))) / x
    return sign * result


# Hurwitz zeta as cephes (and torch) compute it: direct summation until the terms are below machine
# epsilon or a > 9, then the Euler-Maclaurin tail with A[i] = (2i+2)! / B_{2i+2}. Computed in float64.
_MACHEP = 1.11022302462515654042e-16


def _bernoulli_even(count):
    from fractions import Fraction
    B = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        B.append(-sum(math.comb(m + 1, k) * B[k] for k in range(m)) / (m + 1))
    return [B[2 * i + 2] for i in range(count)]


_ZETA_A = [float(math.factorial(2 * i + 2) / b) for i, b in enumerate(_bernoulli_even(12))]


def hurwitz_zeta(x, q):
    dt = jnp.result_type(x, q)
    x, q = jnp.broadcast_arrays(jnp.asarray(x, jnp.float64), jnp.asarray(q, jnp.float64))
    q_int = q == jnp.floor(q)
    invalid = (x <= 1) | ((q <= 0) & (q_int | (x != jnp.floor(x))))
    qv = jnp.where(invalid, 2.0, q)
    xv = jnp.where(invalid, 2.0, x)
    s0 = qv ** -xv

    def cond(st):
        return jnp.any(st[4])

    def body(st):
        i, a, b, s, active, early = st
        a2 = a + 1.0
        b2 = a2 ** -xv
        s2 = s + b2
        conv = jnp.abs(b2 / s2) < _MACHEP
        a, b, s = jnp.where(active, a2, a), jnp.where(active, b2, b), jnp.where(active, s2, s)
        early = early | (active & conv)
        i = i + 1
        active = active & ~conv & ((i < 9) | (a <= 9.0))
        return i, a, b, s, active, early
    zeros = jnp.zeros_like(s0)
    _, a, b, s, _, done = lax.while_loop(cond, body, (0, qv, zeros, s0, jnp.ones(s0.shape, bool),
                                                      jnp.zeros(s0.shape, bool)))
    w = a
    s = jnp.where(done, s, s + b * w / (xv - 1.0) - 0.5 * b)
    aa = jnp.ones_like(s)
    k = 0.0
    for i in range(12):
        aa = aa * (xv + k)
        b = b / w
        t = aa * b / _ZETA_A[i]
        s = jnp.where(done, s, s + t)
        done = done | (jnp.abs(t / s) < _MACHEP)
        k += 1.0
        aa = aa * (xv + k)
        b = b / w
        k += 1.0
    r = jnp.where(invalid | jnp.isnan(x) | jnp.isnan(q), jnp.nan, s)
    r = jnp.where(x == 1, jnp.inf, jnp.where(x < 1, jnp.nan, jnp.where((q <= 0) & q_int, jnp.inf, r)))
    return r.astype(dt)


def _polygamma_value(n, x):
    if n == 0:
        r = S.digamma(x)
        return jnp.where(x == 0, jnp.copysign(jnp.asarray(jnp.inf, x.dtype), -x), r)
    if n == 1:
        return _trigamma(x)
    c = (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1.0))
    return (c * hurwitz_zeta(jnp.asarray(n + 1.0, jnp.float64), x.astype(jnp.float64))).astype(x.dtype)


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def polygamma_(n, x):
    return _polygamma_value(n, x)


@polygamma_.defjvp
def _polygamma_jvp(n, p, t):
    x, = p
    return polygamma_(n, x), polygamma_(n + 1, x) * t[0]


def _digamma(x):
    return polygamma_(0, x)


_real_unary('digamma', _digamma, 'digamma_cpu', inplace=True)


@pw('sinc', promote='float', inplace=True, torch_inplace=True)
def sinc(input):
    return jnp.sinc(input)


@pw('_polygamma', static=('n',), promote='float', function=False, method=False, node='PolygammaBackward0')
def _polygamma(input, *, n):
    real_floats_only('polygamma_cpu', input)
    return polygamma_(n, input)


def _n_check(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


@public('polygamma')
def polygamma(n, input, *, out=None):
    """torch.polygamma(n, input): the n-th derivative of digamma."""
    if not isinstance(input, Tensor):
        _bad_arg('polygamma', 'input', 2, input)
    _n_check(n)
    return _polygamma.function(input, n=n, out=out)


def _polygamma_method(self, n):
    _n_check(n)
    return _polygamma.function(self, n=n)


def _polygamma_inplace(self, n):
    from .._engine import dispatch
    _n_check(n)
    return dispatch.apply_inplace(_polygamma, (self,), (n,))


from .._engine.registry import METHODS  # noqa: E402
METHODS['polygamma'] = _polygamma_method
METHODS['polygamma_'] = _polygamma_inplace


def _p_check(input, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


@pw('mvlgamma', static=('p',), promote='float', inplace=True, check=_p_check)
def mvlgamma(input, p):
    """torch.mvlgamma(input, p): the multivariate log-gamma function of dimension p."""
    real_floats_only('mvlgamma_cpu', input)
    args = jnp.asarray(np.array([(-p / 2 + 0.5) + 0.5 * j for j in range(p)]), input.dtype)
    r = jnp.sum(S.gammaln(input[..., None] + args), axis=-1)
    return r + jnp.asarray(p * (p - 1) * math.log(math.pi) / 4, input.dtype)


# ---- torch.special only --------------------------------------------------------------------------

def _special_unary(name, f, node):
    return _real_unary(name, f, f'special_{name}_cpu', namespace='special', method=False, node=node)


_special_unary('erfcx', S.erfcx, 'SpecialErfcxBackward0')
_special_unary('ndtri', S.ndtri, 'SpecialNdtriBackward0')
_special_unary('log_ndtr', S.log_ndtr, 'SpecialLogNdtrBackward0')
_special_unary('i0e', _i0e, 'SpecialI0EBackward0')
_special_unary('i1', _i1, 'SpecialI1Backward0')
_special_unary('i1e', _i1e, 'SpecialI1EBackward0')
# torch's ndtr is the composite (1 + erf(x / sqrt 2)) * 0.5: same formula, same values, same node name
_special_unary('ndtr', lambda x: (1 + S.erf(x * jnp.asarray(math.sqrt(0.5), x.dtype))) * 0.5, 'MulBackward1')


@jax.custom_jvp
def _entr(x):
    r = jnp.where(x == 0, jnp.zeros_like(x), -x * jnp.log(x))
    return jnp.where(x < 0, jnp.asarray(-jnp.inf, x.dtype), r)


@_entr.defjvp
def _entr_jvp(p, t):
    x, = p
    return _entr(x), -(1 + jnp.log(x)) * t[0]


_special_unary('entr', _entr, 'SpecialEntrBackward0')


@jax.custom_jvp
def _xlog1py(x, y):
    r = jnp.where(x == 0, jnp.zeros_like(x), x * jnp.log1p(y))
    return jnp.where(jnp.isnan(y), y, r)


@_xlog1py.defjvp
def _xlog1py_jvp(p, t):
    x, y = p
    dx = jnp.where((x == 0) & (y == -1), jnp.zeros_like(x), jnp.log1p(y))
    return _xlog1py(x, y), dx * t[0] + x / (y + 1) * t[1]


@pw('xlog1py', namespace='special', method=False, promote='float', tensors=(), check=need_tensor, bc=True,
    node='SpecialXlog1PyBackward0', select=_scalar_key('i', 'o'),
    variants={'i': ('SpecialXlog1PyBackward1', 'inputs'), 'o': ('SpecialXlog1PyBackward2', 'inputs')})
def xlog1py(input, other):
    real_floats_only('special_xlog1py_cpu', input)
    return _xlog1py(input, other)


@jax.custom_jvp
def _zeta(x, q):
    return hurwitz_zeta(x, q)


@_zeta.defjvp
def _zeta_jvp(p, t):
    x, q = p
    return _zeta(x, q), -x * hurwitz_zeta(x + 1, q) * t[1]


@pw('zeta', namespace='special', method=False, promote='float', tensors=(), check=need_tensor, bc=True,
    node='SpecialZetaBackward0', select=_scalar_key('i', 'o'),
    variants={'i': ('SpecialZetaBackward1', 'inputs'), 'o': ('SpecialZetaBackward2', 'inputs')})
def zeta(input, other):
    """Hurwitz zeta function zeta(x, q)."""
    real_floats_only('special_zeta_cpu', input)
    r = _zeta(input, other)
    return grad_raises(r, "the derivative for 'zeta' is not implemented.", input, exc=NotImplementedError)


# Bessel functions of the first kind, orders 0 and 1, computed in float64: the power series for
# |x| <= 12 (cancellation costs at most ~4 digits there) and Hankel's asymptotic expansion beyond
# (its terms decrease monotonically up to k ~ 2|x| >= 24, so 24 terms are safe and below 1e-10).
_SERIES_TERMS = 36
_ASYMPTOTIC_TERMS = 24


def _hankel_coeffs(nu):
    mu = 4.0 * nu * nu
    a = [1.0]
    for k in range(1, _ASYMPTOTIC_TERMS):
        a.append(a[-1] * (mu - (2 * k - 1) ** 2) / (k * 8.0))
    return a


_HANKEL = {0: _hankel_coeffs(0), 1: _hankel_coeffs(1)}


def _bessel_j(x, nu):
    dt = x.dtype
    x = x.astype(jnp.float64)
    ax = jnp.abs(x)
    small = ax <= 12.0
    xs = jnp.where(small, x, 0.0)
    h = xs / 2
    h2 = h * h
    term = h if nu else jnp.ones_like(h)
    s = term
    for k in range(1, _SERIES_TERMS):
        term = term * (-h2) / (k * (k + nu))
        s = s + term
    xa = jnp.where(small, 13.0, ax)
    a = _HANKEL[nu]
    P = jnp.zeros_like(xa)
    Q = jnp.zeros_like(xa)
    inv = 1.0 / xa
    pw_ = jnp.ones_like(xa)
    for k in range(_ASYMPTOTIC_TERMS):
        c = a[k] * pw_
        if k % 2 == 0:
            P = P + (c if (k // 2) % 2 == 0 else -c)
        else:
            Q = Q + (c if (k // 2) % 2 == 0 else -c)
        pw_ = pw_ * inv
    w = xa - (nu * 0.5 + 0.25) * math.pi
    big = jnp.sqrt(2.0 / (math.pi * xa)) * (P * jnp.cos(w) - Q * jnp.sin(w))
    if nu == 1:
        big = jnp.where(x < 0, -big, big)
    r = jnp.where(small, s, big)             # cos(inf) is nan: +-inf give nan, as torch (cephes)
    if nu == 1:
        r = jnp.where(x == 0, x, r)          # keeps the sign of zero
    return r.astype(dt)


_real_unary('bessel_j0', lambda x: _bessel_j(x, 0), 'special_bessel_j0_cpu', namespace='special', method=False,
            differentiable=False)
_real_unary('bessel_j1', lambda x: _bessel_j(x, 1), 'special_bessel_j1_cpu', namespace='special', method=False,
            differentiable=False)


@public('round', namespace='special')
def _special_round(input, *, decimals=0, out=None):
    """torch.special.round(input, *, decimals=0)."""
    return PUBLIC['torch']['round'](input, decimals=decimals, out=out)


# torch.special names for torch-level functions (resolved now: all are registered above or in pointwise)
_ALIASES = {'expit': 'sigmoid', 'erf': 'erf', 'erfc': 'erfc', 'erfinv': 'erfinv', 'i0': 'i0', 'gammaln': 'lgamma',
            'digamma': 'digamma', 'psi': 'digamma', 'polygamma': 'polygamma', 'multigammaln': 'mvlgamma',
            'xlogy': 'xlogy', 'sinc': 'sinc', 'log1p': 'log1p', 'expm1': 'expm1', 'exp2': 'exp2',
            'logit': 'logit'}
for _k, _v in _ALIASES.items():
    PUBLIC['special'][_k] = PUBLIC['torch'][_v]

from .. import special as _special_namespace  # noqa: E402,F401  (makes torchlike.special available)
