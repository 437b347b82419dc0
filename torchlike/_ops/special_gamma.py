"""The regularized incomplete gamma functions: torch.igamma / torch.igammac (+ methods and in-place forms) and
their torch.special names gammainc / gammaincc.

torch differentiates them in ``other`` (x) only; the derivative in ``input`` (a) raises NotImplementedError at
backward, as torch's. Both arguments must be tensors (a Python number is a TypeError in torch)."""
from .._engine.jaxrt import jax, jnp
from .._engine.registry import PUBLIC
from .pointwise import pw, grad_raises, real_floats_only


def _torch_edges(core, a, x, lower):
    """torch's calc_igamma/calc_igammac special cases, checked in its order before the series: x < 0 or a < 0
    -> NaN; a == 0 -> the limit for x > 0 (else NaN); x == 0 -> 0 (1 for the upper); a = inf -> NaN for x = inf,
    else 0 (1); x = inf -> 1 (0). (So a NaN a still gives 0/1 at x == 0 or inf, as torch.)"""
    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)     # values at x -> inf, at x == 0
    nan = jnp.nan
    r = jnp.where(jnp.isinf(x), one, core)
    r = jnp.where(jnp.isinf(a), jnp.where(jnp.isinf(x), nan, zero), r)
    r = jnp.where(x == 0, zero, r)
    r = jnp.where(a == 0, jnp.where(x > 0, one, nan), r)
    return jnp.where((x < 0) | (a < 0), nan, r).astype(core.dtype)


def _igamma(a, x):
    return _torch_edges(jax.scipy.special.gammainc(a, x), a, x, True)


def _igammac(a, x):
    return _torch_edges(jax.scipy.special.gammaincc(a, x), a, x, False)


def _register(name, fn, node, special_name):
    def body(input, other):
        real_floats_only(f'{name}_cpu', input, other)
        return grad_raises(fn(input, other), f"the derivative for '{name}: input' is not implemented.", input,
                           exc=NotImplementedError)
    body.__name__ = name
    pw(name, promote='same', tensors=('input', 'other'), bc=True, inplace=True, node=node)(body)
    # torch.special's name is the same function (same node), as the other aliases in special.py
    PUBLIC.setdefault('special', {})[special_name] = PUBLIC['torch'][name]


_register('igamma', _igamma, 'IgammaBackward0', 'gammainc')
_register('igammac', _igammac, 'IgammacBackward0', 'gammaincc')
