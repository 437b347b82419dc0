"""Elementwise arithmetic: add/sub/rsub/mul/div/true_divide/floor_divide/remainder/fmod, powers (pow,
float_power, square), binary math (maximum/minimum, fmax/fmin, hypot, atan2, logaddexp(2), xlogy,
copysign, nextafter, ldexp, heaviside, gcd/lcm), clamp/clamp_min/clamp_max, lerp, addcmul/addcdiv, where.

Registered with ``@pw``: see Note [Pointwise front ends] in pointwise.py.
"""
import numpy as np

from .. import _dtype as D
from ._util import inexact
from .._engine import dispatch
from .._engine.registry import op, public, method, PUBLIC, METHODS
from .._engine.jaxrt import jax, jnp, lax
from .._tensor import Tensor
from .pointwise import (pw, _bad_arg, check_broadcast, tname, not_impl, kind, floats_only, real_floats_only,
                        _is_bool, _integral, need_tensor, zero_division_check, exact_out_promoted, _scalar_key,
                        grad_raises, where_clamp)


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
    variants={'s': ('MulBackward0', {'input': ('other',), 'other': ('input',)})})   # saves the scalar operand
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
    variants={'mode': _div_mode, 'rs': ('MulBackward0', ('input',)), 's': ('DivBackward0', ('other',))})
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
    if not inexact(input.dtype):
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
