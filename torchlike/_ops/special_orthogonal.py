"""torch.special's orthogonal polynomials: chebyshev_polynomial_{t,u,v,w}, shifted_chebyshev_polynomial_{t,u,v,w},
hermite_polynomial_{h,he}, laguerre_polynomial_l and legendre_polynomial_p, each ``f(x, n)``.

Ports of the scalar kernels in ATen/native/Math.h. As in torch, ``x`` and ``n`` are promoted to one floating
dtype (integers -> the default float dtype) and the kernel runs in it; ``n`` is then truncated to an integer
(``static_cast<int64_t>``: nan, +-inf and values beyond int64 become INT64_MIN on x86, i.e. negative, and
every kernel returns 0 for negative n). The special cases (n < 0, |x| == 1 or x == 0 for the shifted ones,
n == 0, 1, the trigonometric closed forms used for |x| < 1 beyond a small n, Hermite's NaN above n = 128
(float32) / 512 (float64)) are selected per element with ``jnp.where``; the three-term recurrence is a
``lax.while_loop`` with a per-element mask (each element runs exactly torch's iterations, stopping, as torch
does, when its value turns nan), so the loop runs as long as the slowest element and elements served by a
closed form never extend it. One deliberate difference: for a nan x with n >= 2 the kernels other than
chebyshev_polynomial_t and the Hermite ones return an uninitialised variable in torch (undefined behaviour;
garbage such as 0.0 or a denormal); here they return nan. torch has no derivatives for these functions (their outputs never require
grad), hence ``differentiable=False``.
"""
from .._engine.jaxrt import jnp, lax
from .._tensor import Tensor
from .pointwise import pw
from .special_bessel import floats32_64_only

_I64_MIN = -(2 ** 63)


def _trunc_n(n):
    """C++'s static_cast<int64_t>(n) for a floating n on x86 (out of range / non-finite -> INT64_MIN)."""
    ok = jnp.isfinite(n) & (jnp.abs(n) < 2.0 ** 63)
    return jnp.where(ok, jnp.where(ok, n, 0).astype(jnp.int64), jnp.int64(_I64_MIN))


def _recur(x, n, first, last, p, q, step, run, nan_stop=True):
    """``for (k = first; k <= last && !isnan(q); k++) { r = step(k, p, q); p = q; q = r; }`` per element (only
    where ``run``); returns q (== r after at least one iteration; the initial q where none ran)."""
    dt = x.dtype
    act = run & (first <= last)
    if nan_stop:
        act = act & ~jnp.isnan(q)

    def cond(s):
        return jnp.any(s[-1])

    def body(s):
        k, p, q, act = s
        r = step(k.astype(dt), p, q)
        p, q = jnp.where(act, q, p), jnp.where(act, r, q)
        k = k + 1
        act = act & (k <= last)
        if nan_stop:
            act = act & ~jnp.isnan(q)
        return k, p, q, act
    return lax.while_loop(cond, body, (jnp.asarray(first, jnp.int64), p, q, act))[2]


def _sel(*pairs, default):
    """C's chain of early returns: the first (condition, value) that holds, else ``default``."""
    r = default
    for c, v in reversed(pairs):
        r = jnp.where(c, v, r)
    return r


def _f(ni, dt):
    return ni.astype(dt)


def _odd_sign(ni, v):
    return jnp.where(ni % 2 == 0, v, -v)


# ---- Chebyshev polynomials on [-1, 1] ------------------------------------------------------------

def chebyshev_t_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    ax = jnp.abs(x)
    fast = (ni > 6) & (ax < 1)
    sel = [(ni < 0, jnp.zeros_like(x)), (ax == 1, jnp.where((x > 0) | (ni % 2 == 0), one, -one)),
           (fast, jnp.cos(_f(ni, dt) * jnp.arccos(x))), (ni == 0, one), (ni == 1, x)]
    run = ~(sel[0][0] | sel[1][0] | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, x, lambda k, p, q: (x + x) * q - p, run)
    return _sel(*sel, default=rec)


def chebyshev_u_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    ax = jnp.abs(x)
    n1 = _f(ni + 1, dt)
    fast = (ni > 8) & (ax < 1)
    ac = jnp.arccos(x)
    s = jnp.sin(ac)
    closed = jnp.where(s != 0, jnp.sin(n1 * ac) / s, n1 * jnp.cos(n1 * ac) / x)
    sel = [(ni < 0, jnp.zeros_like(x)), (ax == 1, jnp.where((x > 0) | (ni % 2 == 0), n1, -n1)),
           (fast, closed), (ni == 0, one), (ni == 1, x + x)]
    run = ~(sel[0][0] | sel[1][0] | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, x + x, lambda k, p, q: (x + x) * q - p, run)
    return _sel(*sel, default=rec)


def chebyshev_v_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    ax = jnp.abs(x)
    n21 = _f(ni + ni + 1, dt)
    fast = (ni > 8) & (ax < 1)
    ac = jnp.arccos(x)
    closed = jnp.where(jnp.sin(ac / 2.0) != 1, jnp.cos((_f(ni, dt) + 0.5) * ac) / jnp.cos(ac / 2.0),
                       _odd_sign(ni, n21))
    sel = [(ni < 0, jnp.zeros_like(x)), (ax == 1, jnp.where(x > 0, one, _odd_sign(ni, n21))),
           (fast, closed), (ni == 0, one), (ni == 1, x + x - 1.0)]
    run = ~(sel[0][0] | sel[1][0] | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, x + x - 1.0, lambda k, p, q: (x + x) * q - p, run)
    return _sel(*sel, default=rec)


def chebyshev_w_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    ax = jnp.abs(x)
    n21 = _f(ni + ni + 1, dt)
    fast = (ni > 8) & (ax < 1)
    ac = jnp.arccos(x)
    at_one = jnp.where(x > 0, n21, _odd_sign(ni, one))
    closed = jnp.where(jnp.cos(ac / 2.0) != 1, jnp.sin((_f(ni, dt) + 0.5) * ac) / jnp.sin(ac / 2.0), at_one)
    sel = [(ni < 0, jnp.zeros_like(x)), (ax == 1, at_one), (fast, closed), (ni == 0, one), (ni == 1, x + x + 1.0)]
    run = ~(sel[0][0] | sel[1][0] | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, x + x + 1.0, lambda k, p, q: (x + x) * q - p, run)
    return _sel(*sel, default=rec)


# ---- shifted Chebyshev polynomials on [0, 1] (y = 2x - 1; the special cases test x itself) ----------

def shifted_chebyshev_t_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    y = x + x - 1.0
    fast = (ni > 6) & (jnp.abs(y) < 1)
    sel = [(ni < 0, jnp.zeros_like(x)), (x == 1, one), (x == 0, _odd_sign(ni, one)),
           (fast, jnp.cos(_f(ni, dt) * jnp.arccos(y))), (ni == 0, one), (ni == 1, y)]
    run = ~((ni < 0) | (x == 1) | (x == 0) | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, y, lambda k, p, q: (y + y) * q - p, run)
    return _sel(*sel, default=rec)


def shifted_chebyshev_u_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    y = x + x - 1.0
    n1 = _f(ni + 1, dt)
    fast = (ni > 6) & (jnp.abs(y) < 1)
    ac = jnp.arccos(y)
    s = jnp.sin(ac)
    closed = jnp.where(s != 0, jnp.sin(n1 * ac) / s, n1 * jnp.cos(n1 * ac) / y)
    sel = [(ni < 0, jnp.zeros_like(x)), (x == 1, n1), (x == 0, _odd_sign(ni, n1)),
           (fast, closed), (ni == 0, one), (ni == 1, y + y)]
    run = ~((ni < 0) | (x == 1) | (x == 0) | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, y + y, lambda k, p, q: (y + y) * q - p, run)
    return _sel(*sel, default=rec)


def shifted_chebyshev_v_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    y = x + x - 1.0
    n21 = _f(ni + ni + 1, dt)
    fast = (ni > 6) & (jnp.abs(y) < 1)
    ac = jnp.arccos(y)
    closed = jnp.where(jnp.sin(ac / 2.0) != 1, jnp.cos((_f(ni, dt) + 0.5) * ac) / jnp.cos(ac / 2.0),
                       _odd_sign(ni, n21))
    sel = [(ni < 0, jnp.zeros_like(x)), (x == 1, one), (x == 0, _odd_sign(ni, n21)),
           (fast, closed), (ni == 0, one), (ni == 1, y + y - 1.0)]
    run = ~((ni < 0) | (x == 1) | (x == 0) | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, y + y - 1.0, lambda k, p, q: (y + y) * q - p, run)
    return _sel(*sel, default=rec)


def shifted_chebyshev_w_value(x, ni):
    dt, one = x.dtype, jnp.ones_like(x)
    y = x + x - 1.0
    n21 = _f(ni + ni + 1, dt)
    fast = (ni > 4) & (jnp.abs(y) < 1)
    ac = jnp.arccos(y)
    closed = jnp.where(jnp.cos(ac / 2.0) != 1, jnp.sin((_f(ni, dt) + 0.5) * ac) / jnp.sin(ac / 2.0),
                       _odd_sign(ni, one))
    sel = [(ni < 0, jnp.zeros_like(x)), (x == 1, n21), (x == 0, _odd_sign(ni, one)),
           (fast, closed), (ni == 0, one), (ni == 1, y + y + 1.0)]
    run = ~((ni < 0) | (x == 1) | (x == 0) | fast | (ni <= 1))
    rec = _recur(x, ni, 2, ni, one, y + y + 1.0, lambda k, p, q: (y + y) * q - p, run)
    return _sel(*sel, default=rec)


# ---- Hermite, Laguerre, Legendre -----------------------------------------------------------------

def _hermite_limit(dt):
    return 128 if jnp.dtype(dt) == jnp.dtype(jnp.float32) else 512


def hermite_h_value(x, ni):
    one = jnp.ones_like(x)
    over = ni > _hermite_limit(x.dtype)
    sel = [(ni < 0, jnp.zeros_like(x)), (ni == 0, one), (ni == 1, x + x), (over, jnp.full_like(x, jnp.nan))]
    run = ~((ni <= 1) | over)
    # torch's loop: for (k = 2; k < n + n; k += 2) r = (x + x) * q - k * p; here j = k / 2 = 1 .. n - 1
    rec = _recur(x, ni, 1, ni - 1, one, x + x, lambda j, p, q: (x + x) * q - (j + j) * p, run, nan_stop=False)
    return _sel(*sel, default=rec)


def hermite_he_value(x, ni):
    one = jnp.ones_like(x)
    over = ni > _hermite_limit(x.dtype)
    sel = [(ni < 0, jnp.zeros_like(x)), (ni == 0, one), (ni == 1, x), (over, jnp.full_like(x, jnp.nan))]
    run = ~((ni <= 1) | over)
    rec = _recur(x, ni, 1, ni - 1, one, x, lambda k, p, q: x * q - k * p, run, nan_stop=False)
    return _sel(*sel, default=rec)


def laguerre_l_value(x, ni):
    one = jnp.ones_like(x)
    sel = [(ni < 0, jnp.zeros_like(x)), (jnp.abs(x) == 0, one), (ni == 0, one), (ni == 1, 1.0 - x)]
    run = ~((ni <= 1) | (x == 0))
    rec = _recur(x, ni, 1, ni - 1, one, 1.0 - x, lambda k, p, q: (((k + k) + (1.0 - x)) * q - k * p) / (k + 1), run)
    return _sel(*sel, default=rec)


def legendre_p_value(x, ni):
    one = jnp.ones_like(x)
    ax1 = jnp.abs(x) == 1
    sel = [(ni < 0, jnp.zeros_like(x)), (ax1, jnp.where((x > 0) | (ni % 2 == 0), one, -one)),
           (ni == 0, one), (ni == 1, x)]
    run = ~((ni <= 1) | ax1)
    rec = _recur(x, ni, 1, ni - 1, one, x, lambda k, p, q: ((k + k + 1) * x * q - k * p) / (k + 1), run)
    return _sel(*sel, default=rec)


# ---- registry entries ----------------------------------------------------------------------------

def _need_tensor(name):
    def check(x, n):
        if not isinstance(x, Tensor) and not isinstance(n, Tensor):
            raise TypeError(
                f"special_{name}() received an invalid combination of arguments - got "
                f"({type(x).__name__}, {type(n).__name__}), but expected one of:\n"
                f" * (Tensor x, Tensor n, *, Tensor out = None)\n"
                f" * (Number x, Tensor n, *, Tensor out = None)\n"
                f" * (Tensor x, Number n, *, Tensor out = None)\n")
    return check


def _register(name, f):
    kernel = f'{name}_cpu'

    def body(x, n):
        floats32_64_only(kernel, x)
        x, n = jnp.broadcast_arrays(x, n)
        return f(x, _trunc_n(n))
    body.__name__ = name
    body.__doc__ = (f'torch.special.{name}(x, n, *, out=None): x and n are promoted to one floating dtype '
                    f'(integers -> the default float dtype), n is truncated to an integer; not differentiable.')
    return pw(name, tensors=(), check=_need_tensor(name), bc=True, promote='float', namespace='special',
              method=False, differentiable=False)(body)


for _name, _f_ in (('chebyshev_polynomial_t', chebyshev_t_value), ('chebyshev_polynomial_u', chebyshev_u_value),
                   ('chebyshev_polynomial_v', chebyshev_v_value), ('chebyshev_polynomial_w', chebyshev_w_value),
                   ('shifted_chebyshev_polynomial_t', shifted_chebyshev_t_value),
                   ('shifted_chebyshev_polynomial_u', shifted_chebyshev_u_value),
                   ('shifted_chebyshev_polynomial_v', shifted_chebyshev_v_value),
                   ('shifted_chebyshev_polynomial_w', shifted_chebyshev_w_value),
                   ('hermite_polynomial_h', hermite_h_value), ('hermite_polynomial_he', hermite_he_value),
                   ('laguerre_polynomial_l', laguerre_l_value), ('legendre_polynomial_p', legendre_p_value)):
    _register(_name, _f_)
