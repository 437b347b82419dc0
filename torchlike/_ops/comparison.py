"""Elementwise tests and comparisons: isclose/allclose/equal, isnan/isinf/isfinite/isposinf/isneginf/isreal,
nan_to_num, eq/ne/lt/le/gt/ge (and aliases), logical_and/or/xor/not and the bitwise ops.

Registered with ``@pw``: see Note [Pointwise front ends] in pointwise.py.
"""
from .._engine import dispatch
from ._util import inexact
from .._engine.registry import op, public
from .._engine.jaxrt import jnp, lax
from .._tensor import Tensor
from .pointwise import pw, _bad_arg, check_broadcast, tname, not_impl, need_tensor, exact_out, bool_out


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
    if equal_nan and inexact(input.dtype):
        close = close | (jnp.isnan(input) & jnp.isnan(other))
    if not inexact(input.dtype):
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
    return jnp.isnan(input) if inexact(input.dtype) else jnp.zeros(input.shape, jnp.bool_)


@pw('isinf', differentiable=False, out=False)
def isinf(input):
    return jnp.isinf(input) if inexact(input.dtype) else jnp.zeros(input.shape, jnp.bool_)


@pw('isfinite', differentiable=False, out=False)
def isfinite(input):
    return jnp.isfinite(input) if inexact(input.dtype) else jnp.ones(input.shape, jnp.bool_)


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
