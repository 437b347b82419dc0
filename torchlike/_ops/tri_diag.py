"""Triangles and diagonal copies: tril/triu, tril_indices/triu_indices, diag_embed, diag, diagflat,
block_diag. (The diagonal view, torch.diagonal, is in shape.py.)
"""
import builtins

from .. import _dtype as D
from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jnp, lax
from ._shape_args import _int
from .shape import ravel, _diag_dims, _check_t


def _tri_mask(shape, diagonal, lower):
    r = lax.broadcasted_iota(jnp.int64, shape[-2:], 0)
    c = lax.broadcasted_iota(jnp.int64, shape[-2:], 1)
    return (c - r <= diagonal) if lower else (c - r >= diagonal)


@op('tril', static=('diagonal',), saves=(), inplace=True)
def tril(input, diagonal=0):
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return jnp.where(_tri_mask(input.shape, diagonal, True), input, jnp.zeros((), input.dtype))


@op('triu', static=('diagonal',), saves=(), inplace=True)
def triu(input, diagonal=0):
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return jnp.where(_tri_mask(input.shape, diagonal, False), input, jnp.zeros((), input.dtype))


@op('_tri_indices', static=('row', 'col', 'offset', 'upper', 'dtype'), function=False, method=False,
    differentiable=False)
def _tri_indices(*, row, col, offset, upper, dtype):
    import numpy as np
    r, c = np.indices((row, col))
    m = (c - r >= offset) if upper else (c - r <= offset)
    return jnp.asarray(np.stack([r[m], c[m]]).reshape(2, -1), dtype.np)


def _tri_indices_impl(name, row, col, offset, dtype, device, layout, upper):
    row, col, offset = _int(row, name, 'row'), _int(col, name, 'col', 2), _int(offset, name, 'offset', 3)
    if dtype is None:
        dtype = D.int64
    if layout is not None and str(layout) != 'torch.strided':
        raise NotImplementedError(f"{name}(): only the strided layout is supported by torchlike")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype not in (D.int64, D.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dispatch._tname(dtype)}'")
    t = dispatch.apply(_tri_indices, (), (row, col, offset, upper, dtype))
    return t.to(device) if device is not None else t


@public('tril_indices')
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
    return _tri_indices_impl('tril_indices', row, col, offset, dtype, device, layout, False)


@public('triu_indices')
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
    return _tri_indices_impl('triu_indices', row, col, offset, dtype, device, layout, True)


@op('diag_embed', static=('offset', 'dim1', 'dim2'), saves=(), out=False)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    a, b = _diag_dims(input.ndim + 1, dim1, dim2)
    length = input.shape[-1]
    n = length + abs(offset)
    out = jnp.zeros(input.shape[:-1] + (n, n), input.dtype)
    i = jnp.arange(length, dtype=jnp.int64)
    out = out.at[..., i + builtins.max(-offset, 0), i + builtins.max(offset, 0)].set(input)
    return jnp.moveaxis(out, (-2, -1), (a, b))


@op('_diag_copy', static=('diagonal',), node='DiagonalBackward0_copy', saves=(), function=False, method=False)
def _diag_copy(input, *, diagonal):
    return jnp.diagonal(input, diagonal, 0, 1)


@op('_diag_embed2', static=('diagonal',), node='DiagEmbedBackward0', saves=(), function=False, method=False)
def _diag_embed2(input, *, diagonal):
    return diag_embed.fn(input, diagonal, 0, 1)


@public('diag', method=True)
def diag(input, diagonal=0, *, out=None):
    n = input.ndim
    if n not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")
    o = _diag_embed2 if n == 1 else _diag_copy
    return dispatch.apply(o, (input,), (_int(diagonal, 'diag', 'diagonal', 2),), out)


@public('diagflat', method=True)
def diagflat(input, offset=0):
    return dispatch.apply(_diag_embed2, (ravel(input),), (_int(offset, 'diagflat', 'offset', 2),))


@op('_block_diag', lists=('tensors',), promote='same', node='BlockDiagBackward0', saves=(), function=False,
    method=False)
def _block_diag(tensors):
    mats = []
    for i, a in enumerate(tensors):
        if a.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{a.ndim} dimensions")
        mats.append(a.reshape(1, -1) if a.ndim < 2 else a)
    rows = builtins.sum(m.shape[0] for m in mats)
    cols = builtins.sum(m.shape[1] for m in mats)
    out = jnp.zeros((rows, cols), mats[0].dtype)
    r = c = 0
    for m in mats:
        h, w = m.shape
        if h and w:
            out = lax.dynamic_update_slice(out, m, (r, c))
        r, c = r + h, c + w
    return out


@public('block_diag')
def block_diag(*tensors):
    ts = [_check_t(t, i) for i, t in enumerate(tensors)]
    if not ts:
        from . import creation
        return creation.zeros(1, 0)
    return dispatch.apply(_block_diag, (ts,))
