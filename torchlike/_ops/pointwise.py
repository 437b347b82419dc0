"""Elementwise ops: arithmetic, unary math, comparisons, logical and bitwise ops, special functions."""
from .. import _dtype as D
from .._engine.registry import op
from .._engine.jaxrt import jnp, lax


@op('add', promote='same', promote_args=('input', 'other'), diff=('input', 'other'), inplace=True, saves=())
def add(input, other, *, alpha=1):
    return input + other * alpha


@op('sub', promote='same', promote_args=('input', 'other'), diff=('input', 'other'), inplace=True, saves=(),
    aliases=('subtract',))
def sub(input, other, *, alpha=1):
    return input - other * alpha


@op('mul', promote='same', inplace=True, aliases=('multiply',))
def mul(input, other):
    return input * other


@op('div', promote='float', static=('rounding_mode',), inplace=True, aliases=('divide', 'true_divide'))
def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return input / other
    if rounding_mode == 'trunc':
        q = input / other if jnp.issubdtype(input.dtype, jnp.inexact) else lax.div(input, other)
        return jnp.trunc(q).astype(input.dtype) if jnp.issubdtype(input.dtype, jnp.inexact) else q
    return jnp.floor_divide(input, other)


@op('neg', inplace=True, saves=(), aliases=('negative',))
def neg(input):
    return -input


@op('exp', promote='float', inplace=True, saves='result')
def exp(input):
    return jnp.exp(input)
