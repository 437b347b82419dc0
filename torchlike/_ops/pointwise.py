"""Elementwise ops: arithmetic, unary math, rounding, comparisons, logical and bitwise ops.

Special functions (erf/gamma/bessel families and the ``torch.special`` namespace) live in special.py.

Note [Pointwise front ends]
Every op here is one registry entry (``@pw``, a thin layer over ``registry.op``). On top of what
``@op`` generates, ``@pw`` adds the argument checks PyTorch's argument parser and kernels do before
computing anything, written into the generated function/method/in-place variants:
* ``tensors``: parameters that must be Tensors (TypeError as torch's parser; default the input);
* ``check`` / ``check_inplace``: a host-side check of the arguments (bool subtraction, integer
  division by zero, negative integer powers, dtype agreement, ...);
* ``out_check``: torch's stricter ``out=`` dtype rules for some ops (abs, floor, clamp, ... require
  exactly the result dtype; signbit a bool out);
* ``select`` + ``variants``: torch records a different autograd node for an overload with a Python
  scalar (``x ** 2`` is PowBackward0, ``2 ** x`` PowBackward2, ``x * 2`` saves nothing): ``select``
  picks a key from the arguments and ``variants`` maps it to (node name, saves) — a copy of the same
  op sharing its compiled programs — or to another op with the same signature.
Broadcast errors are raised by the bodies (``bc=True``) as torch's RuntimeError. Checks that only
need dtypes run inside the body at trace time (once per compiled program); dtype-dependent errors
use torch's exception types ('"abs_cpu" not implemented for \'Bool\'' is a NotImplementedError).
"""
import copy
import functools
import math

import numpy as np

from .. import _dtype as D, return_types
from .._engine import registry, dispatch
from .._engine.registry import op, public, method, PUBLIC, METHODS
from .._engine.jaxrt import jax, jnp, lax
from .._tensor import Tensor

# ---- the @pw front end ---------------------------------------------------------------------------


def _bad_arg(fname, arg, pos, value):
    raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(value).__name__}")


def _gen(o, fname, kind, tensors, check, check_inplace, pick, has_out, out_check=None):
    """Source-generate one variant ('function' | 'method' | 'inplace') of op ``o`` with its checks."""
    names = list(o.signature.parameters)
    first = None if kind == 'function' else 'self'
    argn = [first if (i == 0 and first) else n for i, n in enumerate(names)]
    extra = ('out=None',) if (kind == 'function' and has_out) else ()
    params = registry._param_src(o.signature, rename_first=first, extra_kw=extra)
    dyn, st = registry._call_src(o, first=first)
    lines = []
    for t in tensors:
        i = names.index(t)
        if first and i == 0:
            continue
        lines.append(f'    if not isinstance({argn[i]}, _T): _bad({fname!r}, {t!r}, {i + (first is None)}, {argn[i]})')
    allargs = ', '.join(argn)
    if check is not None:
        lines.append(f'    _check({allargs})')
    if kind == 'inplace' and check_inplace is not None:
        lines.append(f'    _check_inplace({allargs})')
    if kind == 'function' and has_out and out_check is not None:
        lines.append(f'    if out is not None: _out_check(out, {allargs})')
    target = '_op'
    if pick is not None:
        lines.append(f'    _o = _pick({allargs})')
        target = '_o'
    if kind == 'function':
        lines.append(f'    return _apply({target}, {dyn}, {st}{", out" if has_out else ""})')
    elif kind == 'method':
        lines.append(f'    return _apply({target}, {dyn}, {st})')
    else:
        lines.append(f'    return _apply_inplace({target}, {dyn}, {st})')
    src = f'def {fname}({params}):\n' + '\n'.join(lines) + '\n'
    g = registry._globals(o)
    g.update(_T=Tensor, _bad=_bad_arg, _check=check, _check_inplace=check_inplace, _pick=pick, _out_check=out_check)
    exec(src, g)
    f = g[fname]
    f.__doc__ = o.fn.__doc__
    f.__module__ = 'torchlike'
    return f


def _variant(o, node, saves):
    v = copy.copy(o)             # shares o.cache: same body, same compiled programs
    v.node_name = node
    v.saves = saves
    v.bwd_cache = {}
    return v


def _make_pick(o, select, variants):
    table = {None: o}
    for k, spec in variants.items():
        table[k] = spec if isinstance(spec, registry.Op) else _variant(o, *spec)

    def pick(*args):
        return table.get(select(*args), o)
    return pick


def _broadcast_error(a, b):
    """torch's message for shapes a, b that do not broadcast (None if they do)."""
    n = max(len(a), len(b))
    for i in range(n - 1, -1, -1):
        off = n - 1 - i
        da = a[len(a) - 1 - off] if off < len(a) else 1
        db = b[len(b) - 1 - off] if off < len(b) else 1
        if da != db and da != 1 and db != 1:
            return (f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
                    f"dimension {i}")
    return None


def check_broadcast(*xs):
    shape = None
    for x in xs:
        if x is None or isinstance(x, (bool, int, float, complex)):
            continue
        s = tuple(jnp.shape(x))
        if shape is None:
            shape = s
            continue
        msg = _broadcast_error(shape, s)
        if msg:
            raise RuntimeError(msg)
        shape = tuple(np.broadcast_shapes(shape, s))


def _with_bcast(fn, names):
    @functools.wraps(fn)
    def body(**kw):
        check_broadcast(*[kw[n] for n in names])
        return fn(**kw)
    return body


def pw(name, *, tensors=('input',), check=None, check_inplace=None, select=None, variants=None, bc=False,
       function=True, method=True, inplace=False, torch_inplace=False, aliases=(), method_aliases=None,
       namespace='torch', out=None, out_check=None, **kw):
    """Register an elementwise op (see Note [Pointwise front ends])."""
    def deco(fn):
        static = kw.get('static', ())
        body = fn
        if bc:
            import inspect
            dyn = [p for p in inspect.signature(fn).parameters if p not in static]
            body = _with_bcast(fn, dyn)
        o = op(name, function=False, method=False, inplace=False, namespace=namespace, **kw)(body)
        has_out = (not kw.get('view', False)) if out is None else out
        pick = _make_pick(o, select, variants or {}) if select is not None else None
        f = _gen(o, name, 'function', tensors, check, None, pick, has_out, out_check)
        o.function = f
        if function:
            for n in (name,) + tuple(aliases):
                PUBLIC.setdefault(namespace, {})[n] = f
        malias = tuple(aliases) if method_aliases is None else tuple(method_aliases)
        if method:
            m = _gen(o, name, 'method', tensors, check, None, pick, False)
            for n in (name,) + malias:
                METHODS[n] = m
        if inplace:
            mi = _gen(o, name + '_', 'inplace', tensors, check, check_inplace, pick, False)
            for n in (name,) + malias:
                METHODS[n + '_'] = mi
            if torch_inplace:
                for n in (name,) + tuple(aliases):
                    PUBLIC['torch'][n + '_'] = mi
        return o
    return deco


# ---- helpers for bodies and checks -------------------------------------------------------------

def tname(x):
    """torch's short type name ('Float', 'Long', ...) of an array or torch dtype."""
    d = x if isinstance(x, D.dtype) else D.from_np(x.dtype)
    return dispatch._tname(d)


def not_impl(kernel, x):
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{tname(x)}'")


def kind(x):
    return jnp.asarray(x).dtype.kind if not hasattr(x, 'dtype') else np.dtype(x.dtype).kind


def floats_only(kernel, *xs):
    for x in xs:
        if kind(x) not in 'fc':
            not_impl(kernel, x)


def real_floats_only(kernel, *xs):
    for x in xs:
        if kind(x) != 'f':
            not_impl(kernel, x)


def _is_bool(x):
    t = type(x)
    if t is bool:
        return True
    return isinstance(x, Tensor) and x.dtype is D.bool


def _integral(x):
    """x is an integral (or bool) Tensor or Python int/bool."""
    if isinstance(x, Tensor):
        return x.dtype._cat <= 1
    return type(x) in (bool, int) or isinstance(x, (np.integer, np.bool_))


def need_tensor(input, other, *rest):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"expected at least one Tensor argument, got {type(input).__name__} and "
                        f"{type(other).__name__}")


def zero_division_check(input, other, *rest):
    """Integer division by zero raises (torch's CPU kernels do; the check reads the divisor)."""
    if not (_integral(input) and _integral(other)) or (_is_bool(input) and _is_bool(other)):
        return
    if isinstance(other, Tensor):
        if not bool(jnp.all(other._value() != 0)):
            raise RuntimeError("ZeroDivisionError")
    elif other == 0:
        raise RuntimeError("ZeroDivisionError")


def _exact(out, want):
    if isinstance(out, Tensor) and out.dtype is not want:
        raise RuntimeError(f"Found dtype {tname(out.dtype)} but expected {tname(want)}")


def exact_out(out, input, *rest):
    """out= must have the input's dtype exactly (torch's 'Found dtype X but expected Y')."""
    _exact(out, input.dtype)


def exact_out_promoted(out, *args):
    """out= must have the promoted dtype of the (Tensor / number) arguments exactly."""
    _exact(out, dispatch.result_dtype([a for a in args if a is not None]))


def bool_out(name):
    def chk(out, *args):
        if isinstance(out, Tensor) and out.dtype is not D.bool:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return chk


def _scalar_key(*names):
    """select: a key naming which of the given positional args are not Tensors ('' when all are)."""
    def sel(*args):
        k = ''.join(n for n, a in zip(names, args) if not isinstance(a, Tensor))
        return k or None
    return sel


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def _nyi(x, msg, exc):
    return x


def _nyi_fwd(x, msg, exc):
    return x, None


def _nyi_bwd(msg, exc, res, g):
    raise exc(msg)


_nyi.defvjp(_nyi_fwd, _nyi_bwd)


def grad_raises(result, msg, *inputs, exc=RuntimeError):
    """``result``, whose backward through ``inputs`` raises ``exc(msg)`` (torch's not-implemented
    derivatives); the values are untouched."""
    never = jnp.zeros(jnp.shape(result), bool)
    for x in inputs:
        if x is not None and kind(x) in 'fc':
            result = jnp.where(never, _nyi(x, msg, exc).astype(result.dtype), result)
    return result


def where_clamp(x, lo, hi):
    """min(max(x, lo), hi) with torch's clamp gradient: x's gradient flows where lo <= x <= hi."""
    if lo is not None:
        x = jnp.where(x < lo, lo, x)
    if hi is not None:
        x = jnp.where(x > hi, hi, x)
    return x


# ---- arithmetic ------------------------------------------------------------------------------

def _alpha_checks(r, alpha):
    ak = kind(alpha)
    rk = r.dtype.kind
    if rk in 'biu' and ak in 'fc':
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if ak == 'b' and rk != 'b':
        raise RuntimeError("Boolean alpha only supported for Boolean results.")


@pw('add', promote='same', promote_args=('input', 'other'), diff=('input', 'other'), inplace=True, saves=(),
    tensors=(), bc=True)
def add(input, other, *, alpha=1):
    _alpha_checks(input, alpha)
    if input.dtype == jnp.bool_:
        return input | (other & (jnp.asarray(alpha) != 0))
    return input + other * alpha


def _sub_check(input, other, alpha=1):
    bi, bo = _is_bool(input), _is_bool(other)
    if bi and bo:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if bi or bo:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")


@pw('sub', promote='same', promote_args=('input', 'other'), diff=('input', 'other'), inplace=True, saves=(),
    aliases=('subtract',), tensors=(), check=_sub_check, bc=True,
    select=_scalar_key('i', 'o'), variants={'i': ('RsubBackward1', ())})
def sub(input, other, *, alpha=1):
    _alpha_checks(input, alpha)
    return input - other * alpha


@pw('rsub', promote='same', promote_args=('input', 'other'), diff=('input', 'other'), saves=(), method=False,
    check=_sub_check, bc=True, select=_scalar_key('i', 'o'), variants={'o': ('RsubBackward1', ())})
def rsub(input, other, *, alpha=1):
    _alpha_checks(input, alpha)
    return other - input * alpha


@pw('mul', promote='same', inplace=True, aliases=('multiply',), tensors=(), bc=True,
    select=lambda i, o: None if isinstance(i, Tensor) and isinstance(o, Tensor) else 's',
    variants={'s': ('MulBackward0', ())})
def mul(input, other):
    return input * other


def _floor_div(a, b):
    """torch's floor division (Python // semantics) for integer or floating arrays."""
    if a.dtype.kind in 'iu':
        q = lax.div(a, b)
        r = lax.rem(a, b)
        if a.dtype.kind == 'u':
            return q
        return jnp.where((r != 0) & ((r < 0) != (b < 0)), q - 1, q)
    mod = jnp.fmod(a, b)
    div = (a - mod) / b
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    fl = jnp.floor(div)
    fd = jnp.where(div != 0, fl + ((div - fl) > 0.5).astype(div.dtype), jnp.copysign(jnp.zeros_like(div), a / b))
    return jnp.where(b == 0, a / b, fd)


def _rounded_div(a, b, mode, kernel):
    if a.dtype == jnp.bool_:
        not_impl(kernel, a)
    if a.dtype.kind == 'c':
        not_impl(kernel, a)
    a, b = jnp.broadcast_arrays(a, b)
    if mode == 'trunc':
        r = lax.div(a, b) if a.dtype.kind in 'iu' else jnp.trunc(a / b)
    else:
        r = _floor_div(a, b)
    return r


def _div_check(input, other, rounding_mode=None):
    if rounding_mode is not None:
        if rounding_mode not in ('trunc', 'floor'):
            raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                               f"'{rounding_mode}'")
        zero_division_check(input, other)


@op('_div_mode', static=('rounding_mode',), promote='same', node='DivBackward2', saves=(), function=False,
    method=False)
def _div_mode(input, other, *, rounding_mode=None):
    check_broadcast(input, other)
    r = _rounded_div(input, other, rounding_mode, 'div_trunc_cpu' if rounding_mode == 'trunc' else 'div_floor_cpu')
    return lax.stop_gradient(r)


def _div_select(input, other, rounding_mode=None):
    if rounding_mode is not None:
        return 'mode'
    if not isinstance(input, Tensor):
        return 'rs'               # 2 / x is reciprocal(x) * 2 in torch
    if not isinstance(other, Tensor):
        return 's'
    return None


@pw('div', promote='float', static=('rounding_mode',), inplace=True, aliases=('divide',), tensors=(),
    check=_div_check, bc=True, select=_div_select,
    variants={'mode': _div_mode, 'rs': ('MulBackward0', ()), 's': ('DivBackward0', ())})
def div(input, other, *, rounding_mode=None):
    return input / other


def _rdiv(self, other):
    return PUBLIC['torch']['div'](other, self)


METHODS['__div__'] = lambda self, other: PUBLIC['torch']['div'](self, other)
METHODS['__rdiv__'] = _rdiv
METHODS['__idiv__'] = lambda self, other: METHODS['div_'](self, other)


@pw('true_divide', promote='float', inplace=True, tensors=(), bc=True, node='DivBackward0',
    select=lambda i, o: None if isinstance(i, Tensor) and isinstance(o, Tensor) else 's',
    variants={'s': ('DivBackward0', ())})
def true_divide(input, other):
    return input / other


@pw('floor_divide', promote='same', inplace=True, tensors=(), check=zero_division_check, bc=True,
    node='torch::autograd::NotImplemented')
def floor_divide(input, other):
    r = _rounded_div(input, other, 'floor', 'div_floor_cpu')
    return grad_raises(lax.stop_gradient(r), 'derivative for aten::floor_divide is not implemented', input, other)


def _rem_check(input, other):
    need_tensor(input, other)
    zero_division_check(input, other)


@pw('remainder', promote='same', inplace=True, tensors=(), check=_rem_check, bc=True, node='RemainderBackward1',
    select=lambda i, o: 's' if not isinstance(o, Tensor) else None, variants={'s': ('RemainderBackward0', 'inputs')})
def remainder(input, other):
    if input.dtype == jnp.bool_ or input.dtype.kind == 'c':
        not_impl('remainder_cpu', input)
    return jnp.remainder(input, other)


@pw('fmod', promote='same', inplace=True, check=zero_division_check, bc=True, node='FmodBackward1',
    select=lambda i, o: 's' if not isinstance(o, Tensor) else None, variants={'s': ('FmodBackward0', 'inputs')})
def fmod(input, other):
    if input.dtype == jnp.bool_ or input.dtype.kind == 'c':
        not_impl('fmod_cpu', input)
    return jnp.fmod(input, other)


# ---- powers ------------------------------------------------------------------------------------

def _ipow(a, b):
    """torch's integer power: repeated squaring; negative exponents give 1, +-1 or 0 as torch's powi."""
    a, b = jnp.broadcast_arrays(a, b)
    signed = a.dtype.kind == 'i'
    e = jnp.where(b < 0, jnp.zeros_like(b), b) if signed else b
    bits = a.dtype.itemsize * 8

    def step(_, s):
        r, base, e = s
        r = jnp.where((e & 1) == 1, r * base, r)
        return r, base * base, lax.shift_right_logical(e, jnp.ones_like(e))
    r, _, _ = lax.fori_loop(0, bits, step, (jnp.ones_like(a), a, e))
    if signed:
        odd = (b & 1) == 1
        neg = jnp.where(a == 1, jnp.ones_like(a),
                        jnp.where(a == -1, jnp.where(odd, -jnp.ones_like(a), jnp.ones_like(a)), jnp.zeros_like(a)))
        r = jnp.where(b < 0, neg, r)
    return r


@jax.custom_jvp
def _fpow(x, y):
    return jnp.power(x, y)


@_fpow.defjvp
def _fpow_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    ans = jnp.power(x, y)
    zero = jnp.zeros_like(ans)
    dx = jnp.where(y == 0, zero, y * jnp.power(x, y - 1))
    dy = jnp.where((x == 0) & (y >= 0), zero, ans * jnp.log(x))
    return ans, dx * tx + dy * ty


def power(x, y):
    k = x.dtype.kind
    if k in 'iu':
        return _ipow(x, y)
    if k == 'f':
        return _fpow(x, y)
    return jnp.power(x, y)


def _pow_check(input, exponent):
    need_tensor(input, exponent)
    if isinstance(exponent, Tensor) and exponent.dtype is D.bool and _is_bool(input):
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if (type(exponent) is int or isinstance(exponent, np.integer)) and exponent < 0 and _integral(input) \
            and isinstance(input, Tensor):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _pow_select(input, exponent):
    if not isinstance(input, Tensor):
        return 'b'
    if isinstance(exponent, Tensor):
        return 't'
    return None


_POW_VARIANTS = {'b': ('PowBackward2', 'inputs'), 't': ('PowBackward1', 'inputs')}


@pw('pow', promote='same', inplace=True, tensors=(), check=_pow_check, bc=True, node='PowBackward0',
    select=_pow_select, variants=_POW_VARIANTS)
def pow(input, exponent):
    if input.dtype == jnp.bool_:
        return input | ~exponent            # b ** True == b, b ** False == True
    return power(input, exponent)


def _float_power_dtype(input, exponent):
    c = any(isinstance(a, complex) or (isinstance(a, Tensor) and a.dtype.is_complex) for a in (input, exponent))
    return D.complex128 if c else D.float64


def _float_power_inplace_check(self, exponent):
    want = _float_power_dtype(self, exponent)
    if self.dtype is not want:
        raise RuntimeError(f"the base given to float_power_ has dtype {tname(self.dtype)} but the operation's "
                           f"result requires dtype {tname(want)}")


def _float_power_out(out, input, exponent):
    want = _float_power_dtype(input, exponent)
    if isinstance(out, Tensor) and out.dtype is not want:
        raise RuntimeError(f"the output given to float_power has dtype {tname(out.dtype)} but the operation's "
                           f"result requires dtype {tname(want)}")


@pw('float_power', inplace=True, tensors=(), check=need_tensor, check_inplace=_float_power_inplace_check, bc=True,
    out_check=_float_power_out,
    node='PowBackward0', select=_pow_select, variants=_POW_VARIANTS)
def float_power(input, exponent):
    c = kind(input) == 'c' or kind(exponent) == 'c'
    dt = jnp.complex128 if c else jnp.float64
    return power(jnp.asarray(input, dt), jnp.asarray(exponent, dt))


@pw('square', inplace=True, torch_inplace=True, node='PowBackward0')
def square(input):
    if input.dtype == jnp.bool_:
        input = input.astype(jnp.int64)
    return input * input


# ---- unary math ------------------------------------------------------------------------------
# (name, jnp function, saves, torch.xxx_ exists, aliases, node)
_UNARY_FLOAT = (
    ('acos', jnp.arccos, 'inputs', True, ('arccos',), None),
    ('acosh', jnp.arccosh, 'inputs', True, ('arccosh',), None),
    ('asin', jnp.arcsin, 'inputs', True, ('arcsin',), None),
    ('asinh', jnp.arcsinh, 'inputs', True, ('arcsinh',), None),
    ('atan', jnp.arctan, 'inputs', True, ('arctan',), None),
    ('atanh', jnp.arctanh, 'inputs', True, ('arctanh',), None),
    ('sqrt', jnp.sqrt, 'result', True, (), None),
    ('rsqrt', lax.rsqrt, 'result', True, (), None),
    ('exp', jnp.exp, 'result', True, (), None),
    ('exp2', jnp.exp2, 'result', True, (), None),
    ('expm1', jnp.expm1, 'result', True, (), None),
    ('log', jnp.log, 'inputs', True, (), None),
    ('log2', jnp.log2, 'inputs', True, (), None),
    ('log10', jnp.log10, 'inputs', True, (), None),
    ('log1p', jnp.log1p, 'inputs', True, (), 'Log1PBackward0'),
    ('sin', jnp.sin, 'inputs', True, (), None),
    ('cos', jnp.cos, 'inputs', True, (), None),
    ('tan', jnp.tan, 'result', True, (), None),
    ('sinh', jnp.sinh, 'inputs', True, (), None),
    ('cosh', jnp.cosh, 'inputs', True, (), None),
    ('tanh', jnp.tanh, 'result', True, (), None),
    ('sigmoid', jax.nn.sigmoid, 'result', True, (), None),
    ('reciprocal', lambda x: 1 / x, 'result', True, (), None),
)


def _unary(name, f, saves, torch_inplace, aliases, node):
    def body(input):
        return f(input)
    body.__name__ = name
    body.__doc__ = f'torch.{name}(input, *, out=None): elementwise {name}; integer inputs give the default float dtype.'
    pw(name, promote='float', saves=saves, inplace=True, torch_inplace=torch_inplace, aliases=aliases, node=node)(body)


for _spec in _UNARY_FLOAT:
    _unary(*_spec)


@pw('deg2rad', promote='float', saves=(), inplace=True, torch_inplace=True, node='Deg2RadBackward0')
def deg2rad(input):
    return input * jnp.asarray(math.pi / 180, input.dtype)


@pw('rad2deg', promote='float', saves=(), inplace=True, torch_inplace=True, node='Rad2DegBackward0')
def rad2deg(input):
    return input * jnp.asarray(180 / math.pi, input.dtype)


@jax.custom_jvp
def _logit(x):
    return jnp.log(x / (1 - x))


@_logit.defjvp
def _logit_jvp(p, t):
    x, = p
    return _logit(x), t[0] / (x * (1 - x))


@pw('logit', promote='float', promote_args=('input',), diff=('input',), inplace=True, torch_inplace=True)
def logit(input, eps=None):
    if input.dtype.kind == 'c':
        not_impl('logit_cpu', input)
    if eps is not None:
        input = where_clamp(input, eps, 1 - eps)
    return _logit(input)


# ---- rounding, sign, abs -----------------------------------------------------------------------

def _rounding(name, f, kernel):
    def body(input):
        k = input.dtype.kind
        if k == 'b':
            not_impl(kernel, input)
        if k == 'c':
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        return input if k in 'iu' else f(input)
    body.__name__ = name
    body.__doc__ = f'torch.{name}(input, *, out=None): integer inputs are returned unchanged.'
    return body


pw('ceil', saves=(), inplace=True, torch_inplace=True, out_check=exact_out)(_rounding('ceil', jnp.ceil, 'ceil_vml_cpu'))
pw('floor', saves=(), inplace=True, torch_inplace=True, out_check=exact_out)(_rounding('floor', jnp.floor, 'floor_vml_cpu'))
pw('trunc', saves=(), inplace=True, torch_inplace=True, aliases=('fix',), out_check=exact_out)(_rounding('trunc', jnp.trunc,
                                                                                     'trunc_vml_cpu'))


@pw('round', static=('decimals',), saves=(), inplace=True, torch_inplace=True, out_check=exact_out,
    select=lambda input, decimals=None: None if decimals is None else 'd', variants={'d': ('RoundBackward1', ())})
def round(input, *, decimals=None):
    """torch.round(input, *, decimals=0): half to even; ``decimals`` rounds to 10**-decimals as torch."""
    k = input.dtype.kind
    if k == 'b' or (k in 'iu' and decimals is not None):
        not_impl('round_vml_cpu' if decimals is None else 'round_cpu', input)
    if k == 'c':
        raise NotImplementedError("round is not supported for complex inputs")
    if k in 'iu':
        return input
    if not decimals:
        return jnp.round(input)
    if decimals > 0:
        p = jnp.asarray(10.0 ** decimals, input.dtype)
        return jnp.round(input * p) / p
    p = jnp.asarray(10.0 ** -decimals, input.dtype)
    return jnp.round(input / p) * p


@pw('frac', saves=(), inplace=True, torch_inplace=True, out_check=exact_out)
def frac(input):
    if input.dtype.kind not in 'f':
        not_impl('frac_cpu', input)
    return input - jnp.trunc(input)


def _sign(x):
    if x.dtype == jnp.bool_:
        return x
    if x.dtype.kind == 'u':
        return (x > 0).astype(x.dtype)
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


@pw('sign', saves=(), inplace=True, out_check=exact_out)
def sign(input):
    if input.dtype.kind == 'c':
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead.")
    return _sign(input)


@pw('sgn', inplace=True, out_check=exact_out)
def sgn(input):
    if input.dtype.kind == 'c':
        a = jnp.abs(input)
        nz = a != 0
        return jnp.where(nz, input / jnp.where(nz, a, 1).astype(input.dtype), jnp.zeros_like(input))
    return _sign(input)


@pw('signbit', differentiable=False, out_check=bool_out('signbit'))
def signbit(input):
    k = input.dtype.kind
    if k == 'c':
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if k == 'b' or k == 'u':
        return jnp.zeros(input.shape, jnp.bool_)
    if k == 'i':
        return input < 0
    return jnp.signbit(input)


@jax.custom_jvp
def _abs(x):
    return jnp.abs(x)


@_abs.defjvp
def _abs_jvp(p, t):
    x, = p
    tx, = t
    if jnp.iscomplexobj(x):
        a = jnp.abs(x)
        nz = a != 0
        s = jnp.where(nz, x / jnp.where(nz, a, 1).astype(x.dtype), 0)
        return a, jnp.real(jnp.conj(s) * tx)
    return jnp.abs(x), _sign(x) * tx


@pw('abs', inplace=True, torch_inplace=True, aliases=('absolute',),
    out_check=lambda out, input: _exact(out, input.dtype.to_real()))
def abs(input):
    k = input.dtype.kind
    if k == 'b':
        not_impl('abs_cpu', input)
    if k == 'u':
        return input
    if k == 'i':
        return jnp.abs(input)
    return _abs(input)


def _neg_check(input):
    if _is_bool(input):
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


@pw('neg', inplace=True, torch_inplace=True, saves=(), aliases=('negative',), check=_neg_check, out_check=exact_out)
def neg(input):
    return -input


@public('positive', method=True)
def positive(input):
    """torch.positive(input): returns ``input`` itself (bool tensors raise)."""
    if not isinstance(input, Tensor):
        _bad_arg('positive', 'input', 1, input)
    if input.dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@pw('relu', inplace=True, torch_inplace=True, saves='result', out=False)
def relu(input):
    k = input.dtype.kind
    if k == 'b':
        raise RuntimeError("Boolean inputs not supported for relu")
    if k == 'c':
        raise NotImplementedError("clamp is not supported for complex types")
    keep = input > 0
    if k == 'f':
        keep = keep | jnp.isnan(input)
    return jnp.where(keep, input, jnp.zeros_like(input))


@pw('angle', promote='float')
def angle(input):
    if input.dtype.kind == 'c':
        return jnp.angle(input)
    x = lax.stop_gradient(input)
    r = jnp.where(x < 0, jnp.asarray(math.pi, x.dtype), jnp.zeros_like(x))
    return jnp.where(jnp.isnan(x), x, r)


# ---- complex parts -------------------------------------------------------------------------------

@op('_conj', node='ConjBackward0', saves=(), function=False, method=False)
def _conj(input):
    return jnp.conj(input)


@public('conj', method=True)
def conj(input):
    """torch.conj: a real tensor is returned itself; a complex one is conjugated (a copy, no lazy conj bit)."""
    if not isinstance(input, Tensor):
        _bad_arg('conj', 'input', 1, input)
    return input if not input.dtype.is_complex else dispatch.apply(_conj, (input,))


@pw('conj_physical', node='ConjPhysicalBackward0', saves=(), function=False, method=False)
def _conj_physical(input):
    return jnp.conj(input)


@public('conj_physical', method=True)
def conj_physical(input, *, out=None):
    if not isinstance(input, Tensor):
        _bad_arg('conj_physical', 'input', 1, input)
    if out is None and not input.dtype.is_complex:
        return input
    exact_out(out, input)
    return dispatch.apply(_conj_physical, (input,), (), out)


@public('conj_physical_')
@method('conj_physical_')
def conj_physical_(self):
    if not self.dtype.is_complex:
        return self
    return dispatch.apply_inplace(_conj_physical, (self,))


@op('_real', view=True, node='RealBackward0', saves=(), function=False, method=False)
def _real(input):
    return jnp.real(input)


@op('_imag', view=True, node='ImagBackward0', saves=(), function=False, method=False)
def _imag(input):
    return jnp.imag(input)


@public('real')
def real(input):
    """torch.real: a real tensor is returned itself; the real part of a complex one is a view of it."""
    if not isinstance(input, Tensor):
        _bad_arg('real', 'input', 1, input)
    return input if not input.dtype.is_complex else dispatch.apply(_real, (input,))


@public('imag')
def imag(input):
    if not isinstance(input, Tensor):
        _bad_arg('imag', 'input', 1, input)
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return dispatch.apply(_imag, (input,))


method('real')(property(real))
method('imag')(property(imag))


def _no_lazy_bit(name):
    def f(input):
        if not isinstance(input, Tensor):
            _bad_arg(name, 'input', 1, input)
        return input
    f.__name__ = name
    f.__doc__ = (f'torch.{name}(input): torchlike materialises conj() and neg(), so no tensor carries a lazy '
                 'bit: returns ``input`` itself, as torch does for a tensor without the bit.')
    public(name, method=True)(f)


_no_lazy_bit('resolve_conj')
_no_lazy_bit('resolve_neg')


_FREXP_LAYOUT = {np.dtype(np.float16): (jnp.int16, 10, 31, 15), np.dtype(D.bfloat16.np): (jnp.int16, 7, 255, 127),
                 np.dtype(np.float32): (jnp.int32, 23, 255, 127), np.dtype(np.float64): (jnp.int64, 52, 2047, 1023)}


def _frexp_bits(x):
    """frexp on the bit pattern: exact for subnormals, which XLA's CPU arithmetic flushes to zero."""
    it, mbits, emax, bias = _FREXP_LAYOUT[np.dtype(x.dtype)]
    nbits = np.dtype(it).itemsize * 8
    b = lax.bitcast_convert_type(x, it)
    ab = b & ((1 << (nbits - 1)) - 1)
    sign = b ^ ab
    ef = ab >> mbits
    mf = ab & ((1 << mbits) - 1)
    lz = lax.clz(mf) - (nbits - mbits)            # leading zeros of a subnormal's fraction field
    sub = (ef == 0) & (mf != 0)
    frac = jnp.where(sub, (mf << (lz + 1)) & ((1 << mbits) - 1), mf)
    e = jnp.where(sub, 1 - lz - bias, ef - (bias - 1))
    m = lax.bitcast_convert_type(sign | ((bias - 1) << mbits) | frac, x.dtype)
    special = (ab == 0) | (ef == emax)
    return jnp.where(special, x, m), jnp.where(special, 0, e).astype(jnp.int32)


@jax.custom_jvp
def _frexp(x):
    return _frexp_bits(x)


@_frexp.defjvp
def _frexp_jvp(p, t):
    m, e = _frexp_bits(p[0])
    return (m, e), (t[0] / jnp.exp2(e.astype(m.dtype)), np.zeros(e.shape, jax.dtypes.float0))


def _frexp_check(input):
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")


@pw('frexp', check=_frexp_check, ret=return_types.frexp, node='FrexpBackward0')
def frexp(input):
    return _frexp(input)


# ---- binary math -------------------------------------------------------------------------------

def _no_complex(name, x):
    if x.dtype.kind == 'c':
        raise RuntimeError(f"{name} not implemented for complex tensors.")


@pw('maximum', promote='same', tensors=('input', 'other'), bc=True)
def maximum(input, other):
    _no_complex('maximum', input)
    return jnp.maximum(input, other)


@pw('minimum', promote='same', tensors=('input', 'other'), bc=True)
def minimum(input, other):
    _no_complex('minimum', input)
    return jnp.minimum(input, other)


@pw('fmax', promote='same', tensors=('input', 'other'), bc=True)
def fmax(input, other):
    _no_complex('fmax', input)
    if input.dtype.kind != 'f':
        return jnp.maximum(input, other)
    return jnp.where((input >= other) | jnp.isnan(other), input, other)


@pw('fmin', promote='same', tensors=('input', 'other'), bc=True)
def fmin(input, other):
    _no_complex('fmin', input)
    if input.dtype.kind != 'f':
        return jnp.minimum(input, other)
    return jnp.where((input <= other) | jnp.isnan(other), input, other)


@jax.custom_jvp
def _hypot(x, y):
    return jnp.hypot(x, y)


@_hypot.defjvp
def _hypot_jvp(p, t):
    x, y = p
    r = jnp.hypot(x, y)
    return r, (x * t[0] + y * t[1]) / r


@pw('hypot', promote='same', tensors=('input', 'other'), bc=True, inplace=True)
def hypot(input, other):
    real_floats_only('hypot_cpu', input)
    return _hypot(input, other)


@pw('atan2', promote='float', tensors=('input', 'other'), bc=True, inplace=True, aliases=('arctan2',))
def atan2(input, other):
    real_floats_only('atan2_cpu', input)
    return jnp.arctan2(input, other)


@pw('logaddexp', promote='same', tensors=('input', 'other'), bc=True)
def logaddexp(input, other):
    floats_only('logaddexp_cpu', input)
    return jnp.logaddexp(input, other)


@pw('logaddexp2', promote='same', tensors=('input', 'other'), bc=True)
def logaddexp2(input, other):
    real_floats_only('logaddexp2_cpu', input)
    return jnp.logaddexp2(input, other)


@jax.custom_jvp
def xlogy_(x, y):
    """x * log(y), 0 where x == 0 (unless y is nan), with torch's gradients."""
    r = jnp.where(x == 0, jnp.zeros_like(x), x * jnp.log(y))
    return jnp.where(jnp.isnan(y), y, r)


@xlogy_.defjvp
def _xlogy_jvp(p, t):
    x, y = p
    dx = jnp.where((x == 0) & (y == 0), jnp.zeros_like(x), jnp.log(y))
    return xlogy_(x, y), dx * t[0] + (x / y) * t[1]


_XLOGY_VARIANTS = {'i': ('XlogyBackward1', 'inputs'), 'o': ('XlogyBackward2', 'inputs')}


@pw('xlogy', promote='float', tensors=(), check=need_tensor, bc=True, inplace=True, torch_inplace=True,
    select=_scalar_key('i', 'o'), variants=_XLOGY_VARIANTS)
def xlogy(input, other):
    real_floats_only('xlogy_cpu', input)
    return xlogy_(input, other)


@jax.custom_jvp
def _copysign(x, y):
    return jnp.copysign(x, y)


@_copysign.defjvp
def _copysign_jvp(p, t):
    x, y = p
    r = jnp.copysign(x, y)
    nz = x != 0
    ratio = jnp.where(nz, r / jnp.where(nz, x, 1), jnp.zeros_like(r))
    return r, ratio * t[0]


@pw('copysign', promote='float', bc=True, inplace=True, node='CopysignBackward0',
    select=_scalar_key('i', 'o'), variants={'o': ('CopysignBackward1', 'inputs')})
def copysign(input, other):
    real_floats_only('copysign_cpu', input)
    return _copysign(input, other)


@jax.custom_jvp
def _nextafter(x, y):
    return jnp.nextafter(x, y)


@_nextafter.defjvp
def _nextafter_jvp(p, t):
    x, y = p
    r = jnp.nextafter(x, y)
    return r, jnp.where(x == y, jnp.zeros_like(r), jnp.broadcast_to(t[0], r.shape))   # torch: zero where x == y


@pw('nextafter', promote='same', tensors=('input', 'other'), bc=True, inplace=True)
def nextafter(input, other):
    real_floats_only('nextafter_cpu', input)
    return _nextafter(input, other)


@pw('ldexp', promote='float', tensors=('input', 'other'), bc=True, inplace=True, torch_inplace=True)
def ldexp(input, other):
    return input * jnp.power(jnp.asarray(2, input.dtype), other)


def _same_dtype_check(name):
    def chk(input, other):
        if input.dtype is not other.dtype:
            raise RuntimeError(f"{name} is not yet implemented for tensors with different dtypes.")
    return chk


@pw('heaviside', tensors=('input', 'values'), check=_same_dtype_check('heaviside'), bc=True, inplace=True,
    out_check=lambda out, input, values: _same_dtype_check('heaviside')(input, out),
    node='torch::autograd::NotImplemented')
def heaviside(input, values):
    if input.dtype.kind == 'c':
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    r = jnp.where(input == 0, values, (input > 0).astype(input.dtype))
    return grad_raises(lax.stop_gradient(r), 'derivative for aten::heaviside is not implemented', input, values)


def _int_binary(name, f):
    def body(input, other):
        if input.dtype.kind not in 'iu':
            not_impl(f'{name}_cpu', input)
        return f(input, other)
    body.__name__ = name
    pw(name, promote='same', tensors=('input', 'other'), bc=True, inplace=True, torch_inplace=True,
       differentiable=False)(body)


_int_binary('gcd', jnp.gcd)
_int_binary('lcm', jnp.lcm)


# ---- clamp, lerp, addcmul/addcdiv, where ---------------------------------------------------------

def _int_bound_check(input, *bounds):
    if input.dtype._cat != 1:
        return
    info = np.iinfo(input.dtype.np)
    for b in bounds:
        if type(b) is int and not info.min <= b <= info.max:
            raise RuntimeError(f"value cannot be converted to type {input.dtype.np.name}_t without overflow")


def _clamp_check(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _int_bound_check(input, min, max)


def _clamp_body(input, lo, hi):
    k = input.dtype.kind
    if k == 'c':
        raise NotImplementedError("clamp is not supported for complex types")
    r = where_clamp(input, lo, hi)
    if k == 'f':
        for b in (lo, hi):
            if b is not None:
                r = jnp.where(jnp.isnan(b), b, r)
    return r


def _all_tensors(*bounds):
    return all(isinstance(b, Tensor) for b in bounds if b is not None)


@pw('clamp', promote='same', check=_clamp_check, bc=True, inplace=True, torch_inplace=True, aliases=('clip',),
    out_check=exact_out_promoted,
    node='ClampBackward1', select=lambda i, lo=None, hi=None: 't' if _all_tensors(lo, hi) else None,
    variants={'t': ('ClampBackward0', 'inputs')})
def clamp(input, min=None, max=None):
    return _clamp_body(input, min, max)


@pw('clamp_min', promote='same', check=lambda i, m: _int_bound_check(i, m), bc=True, inplace=True, out_check=exact_out_promoted,
    torch_inplace=True, select=lambda i, m: 't' if isinstance(m, Tensor) else None,
    variants={'t': ('ClampMinBackward1', 'inputs')})
def clamp_min(input, min):
    return _clamp_body(input, min, None)


@pw('clamp_max', promote='same', check=lambda i, m: _int_bound_check(i, m), bc=True, inplace=True, out_check=exact_out_promoted,
    torch_inplace=True, select=lambda i, m: 't' if isinstance(m, Tensor) else None,
    variants={'t': ('ClampMaxBackward1', 'inputs')})
def clamp_max(input, max):
    return _clamp_body(input, None, max)


_DT_C_NAMES = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
               'int64': 'long int', 'int32': 'int', 'int16': 'short int', 'int8': 'signed char',
               'uint8': 'unsigned char', 'bool': 'bool', 'complex64': 'c10::complex<float>',
               'complex128': 'c10::complex<double>'}


def _lerp_check(input, end, weight):
    for nm, t in (('end', end), ('weight', weight)):
        if isinstance(t, Tensor) and t.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {_DT_C_NAMES.get(input.dtype.name, input.dtype.name)} for `{nm}` but "
                               f"got dtype {_DT_C_NAMES.get(t.dtype.name, t.dtype.name)}")


@pw('lerp', tensors=('input', 'end'), check=_lerp_check, bc=True, inplace=True, saves=(),
    select=lambda i, e, w: 't' if isinstance(w, Tensor) else None, variants={'t': ('LerpBackward1', 'inputs')})
def lerp(input, end, weight):
    if input.dtype.kind not in 'fc':
        not_impl('lerp_kernel_tensor' if jnp.ndim(weight) and kind(weight) else 'lerp_kernel_scalar', input)
    w = jnp.asarray(weight, input.dtype)
    d = end - input
    return jnp.where(jnp.abs(w) < 0.5, input + w * d, end - d * (1 - w))


@pw('addcmul', promote='same', promote_args=('input', 'tensor1', 'tensor2'), diff=('input', 'tensor1', 'tensor2'),
    tensors=('input', 'tensor1', 'tensor2'), bc=True, inplace=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    k = input.dtype.kind
    if k == 'b':
        not_impl('addcmul_cpu_out', input)
    if k in 'iu':
        value = jnp.asarray(value).astype(input.dtype)
    return input + value * tensor1 * tensor2


def _addcdiv_check(input, tensor1, tensor2, value=1):
    if tensor1.dtype._cat <= 1 and tensor2.dtype._cat <= 1:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
            "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
            "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")


@pw('addcdiv', promote='same', promote_args=('input', 'tensor1', 'tensor2'), diff=('input', 'tensor1', 'tensor2'),
    tensors=('input', 'tensor1', 'tensor2'), check=_addcdiv_check, bc=True, inplace=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    return input + value * tensor1 / tensor2


@op('_where', promote='same', promote_args=('input', 'other'), diff=('input', 'other'), saves=(),
    node='WhereBackward0', function=False, method=False)
def _where(condition, input, other):
    check_broadcast(condition, input, other)
    return jnp.where(condition, input, other)


@public('where')
def where(condition, input=None, other=None, *, out=None):
    """torch.where(condition, input, other) / torch.where(condition) (= nonzero(condition, as_tuple=True))."""
    if not isinstance(condition, Tensor):
        _bad_arg('where', 'condition', 1, condition)
    if input is None and other is None:
        if out is not None:
            raise TypeError("where(): the one-argument form takes no out=")
        return PUBLIC['torch']['nonzero'](condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() missing required argument 'input' or 'other'")
    if condition.dtype is not D.bool and condition.dtype is not D.uint8:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{tname(condition.dtype)}")
    if out is not None:
        for i, (n, t) in enumerate((('input', input), ('other', other))):
            if not isinstance(t, Tensor):
                _bad_arg('where', n, i + 2, t)
        want = dispatch.result_dtype([input, other])
        if isinstance(out, Tensor) and out.dtype is not want:
            raise RuntimeError(f"Expected out type to be {tname(want)} but got {tname(out.dtype)}")
    return dispatch.apply(_where, (condition, input, other), (), out)


@method('where')
def _where_method(self, condition, other):
    return where(condition, self, other)


# ---- closeness and equality ----------------------------------------------------------------------

def _isclose_check(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{tname(input.dtype)} did not match {tname(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")


def _isclose(input, other, rtol, atol, equal_nan):
    check_broadcast(input, other)
    close = input == other
    if equal_nan and input.dtype.kind in 'fc':
        close = close | (jnp.isnan(input) & jnp.isnan(other))
    if input.dtype.kind not in 'fc':
        input, other = input.astype(jnp.float64), other.astype(jnp.float64)
    allowed = atol + jnp.abs(rtol * other)
    actual = jnp.abs(input - other)
    return close | (jnp.isfinite(actual) & (actual <= allowed))


@pw('isclose', static=('equal_nan',), tensors=('input', 'other'), check=_isclose_check, differentiable=False,
    out=False)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _isclose(input, other, rtol, atol, equal_nan)


@op('_allclose', static=('equal_nan',), differentiable=False, function=False, method=False)
def _allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return jnp.all(_isclose(input, other, rtol, atol, equal_nan))


@public('allclose', method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.allclose: a Python bool."""
    for i, (n, t) in enumerate((('input', input), ('other', other))):
        if not isinstance(t, Tensor):
            _bad_arg('allclose', n, i + 1, t)
    _isclose_check(input, other, rtol, atol, equal_nan)
    return bool(dispatch.apply(_allclose, (input, other, rtol, atol), (bool(equal_nan),)).item())


@op('_equal', promote='same', differentiable=False, function=False, method=False)
def _equal(input, other):
    return jnp.all(input == other)


@public('equal', method=True)
def equal(input, other):
    """torch.equal: True if same shape and elements (after type promotion); a Python bool."""
    for i, (n, t) in enumerate((('input', input), ('other', other))):
        if not isinstance(t, Tensor):
            _bad_arg('equal', n, i + 1, t)
    if input.shape != other.shape:
        return False
    return bool(dispatch.apply(_equal, (input, other)).item())


# ---- classification ------------------------------------------------------------------------------

@pw('isnan', differentiable=False, out=False)
def isnan(input):
    return jnp.isnan(input) if input.dtype.kind in 'fc' else jnp.zeros(input.shape, jnp.bool_)


@pw('isinf', differentiable=False, out=False)
def isinf(input):
    return jnp.isinf(input) if input.dtype.kind in 'fc' else jnp.zeros(input.shape, jnp.bool_)


@pw('isfinite', differentiable=False, out=False)
def isfinite(input):
    return jnp.isfinite(input) if input.dtype.kind in 'fc' else jnp.ones(input.shape, jnp.bool_)


def _signed_inf(name, pos):
    def body(input):
        k = input.dtype.kind
        if k == 'c':
            raise RuntimeError(f"{name} does not support complex inputs.")
        if k != 'f':
            return jnp.zeros(input.shape, jnp.bool_)
        return input == (jnp.inf if pos else -jnp.inf)
    body.__name__ = name
    pw(name, differentiable=False, out_check=bool_out(name))(body)


_signed_inf('isposinf', True)
_signed_inf('isneginf', False)


@pw('isreal', differentiable=False, out=False)
def isreal(input):
    if input.dtype.kind == 'c':
        return jnp.imag(input) == 0
    return jnp.ones(input.shape, jnp.bool_)


def _nan_to_num_out(out, input, *rest):
    if isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {tname(out.dtype)} should be same as input: "
                           f"{tname(input.dtype)}")


@pw('nan_to_num', inplace=True, torch_inplace=True, diff=('input',), out_check=_nan_to_num_out)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    k = input.dtype.kind
    if k == 'c':
        f = lambda v: nan_to_num.fn(v, nan, posinf, neginf)  # noqa: E731
        return lax.complex(f(jnp.real(input)), f(jnp.imag(input)))
    if k != 'f':
        return input
    fi = jnp.finfo(input.dtype)
    pos = fi.max if posinf is None else posinf
    neg = fi.min if neginf is None else neginf
    r = jnp.where(input == jnp.inf, jnp.asarray(pos, input.dtype), input)
    r = jnp.where(input == -jnp.inf, jnp.asarray(neg, input.dtype), r)
    return jnp.where(jnp.isnan(input), jnp.asarray(nan, input.dtype), r)


# ---- comparisons, logical and bitwise ops -----------------------------------------------------

def _comparison(name, f, ordered, aliases):
    def body(input, other):
        if ordered and input.dtype.kind == 'c':
            not_impl(f'{name}_cpu', input)
        return f(input, other)
    body.__name__ = name
    body.__doc__ = f'torch.{name}(input, other, *, out=None): elementwise comparison after type promotion (bool).'
    pw(name, promote='same', bc=True, inplace=True, differentiable=False, aliases=aliases)(body)


for _n, _f, _o, _a in (('eq', jnp.equal, False, ()), ('ne', jnp.not_equal, False, ('not_equal',)),
                       ('lt', jnp.less, True, ('less',)), ('le', jnp.less_equal, True, ('less_equal',)),
                       ('gt', jnp.greater, True, ('greater',)), ('ge', jnp.greater_equal, True, ('greater_equal',))):
    _comparison(_n, _f, _o, _a)


def _logical(name, f):
    def body(input, other):
        return f(input != 0, other != 0)
    body.__name__ = name
    pw(name, tensors=('input', 'other'), bc=True, inplace=True, differentiable=False)(body)


_logical('logical_and', jnp.logical_and)
_logical('logical_or', jnp.logical_or)
_logical('logical_xor', jnp.logical_xor)


@pw('logical_not', inplace=True, differentiable=False)
def logical_not(input):
    return input == 0


def _bitwise(name, f, kernel, bools):
    def body(input, other):
        k = input.dtype.kind
        if k in 'fc' or (k == 'b' and not bools):
            not_impl(kernel, input)
        return f(input, other)
    body.__name__ = name
    pw(name, promote='same', tensors=(), check=need_tensor, bc=True, inplace=True, differentiable=False)(body)


_bitwise('bitwise_and', jnp.bitwise_and, 'bitwise_and_cpu', True)
_bitwise('bitwise_or', jnp.bitwise_or, 'bitwise_or_cpu', True)
_bitwise('bitwise_xor', jnp.bitwise_xor, 'bitwise_xor_cpu', True)
_bitwise('bitwise_left_shift', jnp.left_shift, 'lshift_cpu', False)
_bitwise('bitwise_right_shift', jnp.right_shift, 'rshift_cpu', False)


@pw('bitwise_not', inplace=True, differentiable=False, out_check=exact_out)
def bitwise_not(input):
    k = input.dtype.kind
    if k in 'fc':
        not_impl('bitwise_not_cpu', input)
    return jnp.logical_not(input) if k == 'b' else jnp.bitwise_not(input)
