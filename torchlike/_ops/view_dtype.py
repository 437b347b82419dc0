"""``Tensor.view(dtype)``: the same bytes read as another dtype.

A reinterpreting view op (views.REINTERPRET): writes through it reach the base, the bitcast undone. When the element sizes differ the last dimension
absorbs the ratio, as in torch. Not differentiable (torch's result has no grad_fn either).
"""
import numpy as np

from .. import _dtype as D
from .._engine.registry import op
from .._engine import views
from .._engine.jaxrt import jnp, lax
from .pointwise import tname


def bitcast(x, dt):
    """Reinterpret the bytes of array ``x`` as numpy dtype ``dt`` (the last dimension scales)."""
    src, dst = np.dtype(x.dtype), np.dtype(dt)
    if src == dst:
        return x
    if src.kind == 'c':                       # complex -> interleaved (real, imag) floats first
        x = jnp.stack([jnp.real(x), jnp.imag(x)], -1).reshape(*x.shape[:-1], x.shape[-1] * 2)
        return bitcast(x, dt)
    if dst.kind == 'c':
        f = bitcast(x, np.dtype(f'f{dst.itemsize // 2}'))
        f = f.reshape(*f.shape[:-1], f.shape[-1] // 2, 2)
        return lax.complex(f[..., 0], f[..., 1])
    if src == np.bool_:
        x, src = x.astype(jnp.uint8), np.dtype(np.uint8)
    if dst == np.bool_:
        return bitcast(x, np.uint8) != 0
    if src.itemsize == dst.itemsize:
        return lax.bitcast_convert_type(x, dst)
    if src.itemsize > dst.itemsize:
        r = lax.bitcast_convert_type(x, dst)
        return r.reshape(*x.shape[:-1], x.shape[-1] * (src.itemsize // dst.itemsize))
    k = dst.itemsize // src.itemsize
    return lax.bitcast_convert_type(x.reshape(*x.shape[:-1], x.shape[-1] // k, k), dst)


@op('_view_dtype', static=('dtype',), view=True, differentiable=False, function=False, method=False)
def view_dtype(input, *, dtype):
    src, dst = D.from_np(input.dtype), dtype
    if src.itemsize != dst.itemsize:
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {tname(src)} as {tname(dst)} (different element sizes)")
        if dst.itemsize > src.itemsize and input.shape[-1] % (dst.itemsize // src.itemsize):
            raise RuntimeError(f"self.size(-1) must be divisible by {dst.itemsize // src.itemsize} to view "
                               f"{tname(src)} as {tname(dst)} (different element sizes), but got {input.shape[-1]}")
    return bitcast(input, dst.np)


def _offsets(p, dt, key):
    dst = np.dtype(key[0][0].np)
    a, b = dt.itemsize, dst.itemsize
    if a > b:          # each element splits into a // b smaller ones
        k = a // b
        p = (p[..., None] + jnp.arange(k, dtype=jnp.int64) * b).reshape(*p.shape[:-1], p.shape[-1] * k)
    elif a < b:        # groups of b // a elements merge; the group starts at its first element
        p = p[..., ::b // a]
    return p, dst


views.reinterpreting('_view_dtype', lambda w, v: bitcast(w, v.dtype), _offsets)
