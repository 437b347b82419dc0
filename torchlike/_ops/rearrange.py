"""Copies that replicate or reorder elements: repeat, tile, repeat_interleave, flip/fliplr/flipud, roll,
rot90, and the grids built from several tensors: meshgrid, cartesian_prod, combinations.
"""
import builtins
import itertools
import warnings

from .. import _dtype as D
from .._engine.registry import op, public, method
from .._engine import dispatch
from .._engine.jaxrt import jnp
from .._tensor import Tensor
from ._util import wrap_dim, wrap_dims
from ._shape_args import _int, _int_seq, _varargs_ints, _varargs_tensors
from .shape import _view_to, _expand_raw, flatten
from .joining import stack


# ---- repeat / tile / repeat_interleave --------------------------------------------------------

@op('_repeat', static=('repeats',), node='RepeatBackward0', saves=(), function=False, method=False)
def _repeat(input, *, repeats):
    x = input.reshape((1,) * (len(repeats) - input.ndim) + input.shape)
    return jnp.tile(x, repeats)


def _repeat_impl(t, reps):
    if len(reps) < t.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    shape = (1,) * (len(reps) - t.ndim) + tuple(t.shape)
    out = [s * r for s, r in zip(shape, reps)]
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(o for o in out if o < 0)}: {out}")
    return dispatch.apply(_repeat, (t,), (tuple(reps),))


@method('repeat')
def repeat(self, *repeats, **kw):
    if kw and set(kw) != {'repeats'}:
        raise TypeError(f"repeat() got an unexpected keyword argument '{next(k for k in kw if k != 'repeats')}'")
    if not repeats and 'repeats' not in kw:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    return _repeat_impl(self, _varargs_ints(repeats, kw.get('repeats'), 'repeat', 'repeats'))


def _tile(t, dims):
    dims = (1,) * (t.ndim - len(dims)) + tuple(dims)
    return _repeat_impl(t, dims)


@public('tile')
def tile(input, dims):
    return _tile(input, _int_seq(dims, 'tile', 'dims', 2))


@method('tile')
def _tile_method(self, *dims, **kw):
    if kw and set(kw) != {'dims'}:
        raise TypeError(f"tile() got an unexpected keyword argument '{next(k for k in kw if k != 'dims')}'")
    return _tile(self, _varargs_ints(dims, kw.get('dims'), 'tile', 'dims'))


@op('_repeat_interleave_int', static=('repeats', 'dim'), node='ViewBackward0', saves=(), function=False,
    method=False)
def _repeat_interleave_int(input, *, repeats, dim):
    if dim is None:
        return jnp.repeat(input.reshape(-1), repeats)
    return jnp.repeat(input, repeats, axis=dim)


@op('_repeat_interleave_t', static=('dim', 'output_size'), diff=('input',), node='IndexSelectBackward0', saves=(),
    function=False, method=False)
def _repeat_interleave_t(input, repeats, *, dim, output_size):
    if dim is None:
        input, dim = input.reshape(-1), 0
    if repeats.ndim == 0 or repeats.shape[0] == 1:
        repeats = jnp.broadcast_to(repeats.reshape(-1), (input.shape[dim],))
    return jnp.repeat(input, repeats, axis=dim, total_repeat_length=output_size)


def _check_repeats_tensor(r):
    if r.dtype not in (D.int64, D.int32):
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{dispatch._tname(r.dtype)}'")
    if r.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")


@public('repeat_interleave', method=True)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:                     # torch.repeat_interleave(repeats): repeats an arange
        r = input
        _check_repeats_tensor(r)
        if r.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        from . import creation
        return repeat_interleave(creation.arange(r.shape[0], dtype=r.dtype), r, 0, output_size=output_size)
    if dim is not None:
        dim = wrap_dim(_int(dim, 'repeat_interleave', 'dim', 3), input.ndim)
    size = input.shape[dim] if dim is not None else input.numel()
    if isinstance(repeats, Tensor):
        _check_repeats_tensor(repeats)
        rv = repeats.tolist()
        rv = [rv] if repeats.ndim == 0 else rv
        if len(rv) != 1 and len(rv) != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{len(rv)} and input.size({0 if dim is None else dim}) = {size}")
        if any(v < 0 for v in rv):
            raise RuntimeError("repeats can not be negative")
        total = builtins.sum(rv) * (size if len(rv) == 1 else 1)
        if output_size is not None and output_size != total:
            raise RuntimeError("allocated size does not match required size")
        return dispatch.apply(_repeat_interleave_t, (input, repeats), (dim, total))
    r = _int(repeats, 'repeat_interleave', 'repeats', 2)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    if output_size is not None and output_size != r * size:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {r * size} but got {output_size}")
    return dispatch.apply(_repeat_interleave_int, (input,), (r, dim))


# ---- flips, rolls, rotations ------------------------------------------------------------------

@op('_flip', static=('dims',), node='FlipBackward0', saves=(), function=False, method=False)
def _flip(input, *, dims):
    dims = wrap_dims(dims, input.ndim)
    if input.ndim == 0 or not dims:
        return input
    return jnp.flip(input, dims)


@public('flip')
def flip(input, dims):
    return dispatch.apply(_flip, (input,), (_int_seq(dims, 'flip', 'dims', 2),))


@method('flip')
def _flip_method(self, *dims, **kw):
    if kw and set(kw) != {'dims'}:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(k for k in kw if k != 'dims')}'")
    return dispatch.apply(_flip, (self,), (_varargs_ints(dims, kw.get('dims'), 'flip', 'dims'),))


@public('fliplr', method=True)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return dispatch.apply(_flip, (input,), ((1,),))


@public('flipud', method=True)
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return dispatch.apply(_flip, (input,), ((0,),))


@op('roll', static=('shifts', 'dims'), saves=(), out=False)
def roll(input, shifts, dims=None):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        if input.size == 0:
            return input
        return jnp.roll(input.reshape(-1), shifts[0]).reshape(input.shape)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(wrap_dim(d, input.ndim) for d in dims)
    if input.size == 0:
        return input
    return jnp.roll(input, shifts, dims)


@op('rot90', static=('k', 'dims'), saves=(), out=False)
def rot90(input, k=1, dims=(0, 1)):
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input.ndim
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    a, b = wrap_dim(dims[0], n), wrap_dim(dims[1], n)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k = k % 4
    if k == 0:
        return input
    return jnp.rot90(input, k, (a, b))


# ---- grids and combinatorics ------------------------------------------------------------------

@public('meshgrid')
def meshgrid(*tensors, indexing=None):
    ts = _varargs_tensors(tensors, 'meshgrid')
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = 'ij'
    if indexing not in ('ij', 'xy'):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in ts:
        if t.dtype is not ts[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != ts[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    swap = indexing == 'xy' and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    n = len(ts)
    outs = []
    for i, t in enumerate(ts):
        v = _view_to(t, tuple(shape[i] if j == i else 1 for j in range(n)))
        outs.append(_expand_raw(v, shape))
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


@public('cartesian_prod')
def cartesian_prod(*tensors):
    ts = _varargs_tensors(tensors, 'cartesian_prod')
    for t in ts:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(ts, indexing='ij')
    return stack([flatten(g) for g in grids], 1)


@op('_combinations', static=('r', 'with_replacement'), node='StackBackward0', saves=(), function=False,
    method=False)
def _combinations(input, *, r, with_replacement):
    import numpy as np
    n = input.shape[0]
    if r == 0:
        return jnp.zeros((0,), input.dtype)
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(gen(range(n), r)), dtype=np.int64).reshape(-1, r)
    return jnp.take(input, jnp.asarray(idx), axis=0, mode='clip')


@public('combinations')
def combinations(input, r=2, with_replacement=False):
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    r = _int(r, 'combinations', 'r', 2)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    return dispatch.apply(_combinations, (input,), (r, builtins.bool(with_replacement)))
