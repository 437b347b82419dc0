"""Indexing: ``Tensor.__getitem__``/``__setitem__``, the gather/scatter family (gather, scatter(_add/_reduce),
index_select/add/copy/fill/put/reduce, masked_fill/select/scatter, take, take_along_dim, put), nonzero/argwhere,
and the in-place writers ``copy_``/``fill_``/``zero_``.

Note [Indexing]
``x[idx]`` is parsed (``_parse``) the way PyTorch's ``applySlicing`` does it: ints, slices, None, Ellipsis
and 0-dim integer tensors are *basic* and become ONE view op (slice + reshape: index-only, so writes through
it reach the base, Note [Views]); its node name is that of the last view torch would apply
(Select/Slice/Unsqueeze/AliasBackward0). When no gradient is being recorded the view's body passes the
start indices to its compiled program as data (``_slice_dyn``), so ``x[i]`` over many ``i`` (data loading)
compiles once, not once per index. Integer tensors, lists, numpy arrays, boolean masks and Python bools
are *advanced*: they index the basic view with one gather (``_index``, differentiable; repeated indices
accumulate in the gradient). Advanced dims go where torch puts them once the basic part has been applied
(NumPy's rule: in place when the indexed dims are adjacent, in front otherwise). Boolean masks have
data-dependent shapes: they become integer indices on the host (``nonzero``), so the gather and its
gradient stay compiled programs. Out-of-range integer indices are found with one small compiled reduction
and raise torch's IndexError.

``x[idx] = v``: basic-only indices are one in-place ``dynamic_update_slice`` (or strided scatter) of self
whose start indices are data (``_setitem_basic``, CopySlices); an index covering all of self is a
``fill_``/``copy_``. Otherwise ``index_put_`` on the basic view: one compiled scatter; a single boolean mask
with a one-element value is a ``where`` (torch's masked_fill dispatch) and needs no host sync at all.
"""
import builtins
import functools
import math
import numbers
import operator
import warnings

import numpy as np

from .. import _dtype as D
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .._engine.registry import op, public, method
from .._engine.state import state
from .._tensor import Tensor
from ._util import wrap_dim

_tname = dispatch._tname

# ---- small helpers -----------------------------------------------------------------------

_CNAME = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
          'int64': 'int64_t', 'int32': 'int', 'int16': 'int16_t', 'int8': 'int8_t', 'uint8': 'uint8_t',
          'uint16': 'uint16_t', 'uint32': 'uint32_t', 'uint64': 'uint64_t', 'bool': 'bool',
          'complex64': 'c10::complex<float>', 'complex128': 'c10::complex<double>'}
# the C type names torch prints for a mask dtype (masked_fill_'s message)
_MASK_CNAME = dict(_CNAME, int64='long int', int16='short int', int8='signed char', uint8='unsigned char')


def _shp(s):
    return '[' + ', '.join(str(int(v)) for v in s) + ']'


def _is_int(v):
    t = type(v)
    if t is int:
        return True
    if t is bool or isinstance(v, (bool, np.bool_)):
        return False
    return isinstance(v, (numbers.Integral, np.integer))


def _is_bool(v):
    return type(v) is bool or isinstance(v, np.bool_)


def _need_tensor(fname, name, pos, v):
    if not isinstance(v, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")


def _dim(dim, ndim):
    if not _is_int(dim):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    return wrap_dim(int(dim), ndim)


def _broadcast(a, b):
    """torch's broadcast of two shapes, with its RuntimeError."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a2 = (1,) * (n - len(a)) + a
    b2 = (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a2, b2)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
    return tuple(out)


def _can_broadcast_to(src, dst):
    src, dst = tuple(src), tuple(dst)
    if len(src) > len(dst):
        return False
    for s, d in zip(reversed(src), reversed(dst)):
        if s != 1 and s != d:
            return False
    return True


def _scalar(v, dt):
    """A Python scalar converted for a tensor of dtype ``dt``, with torch's overflow check."""
    if isinstance(v, np.generic):
        v = v.item()
    if not isinstance(v, (bool, int, float, complex)):
        raise TypeError(f"expected a number, got {type(v).__name__}")
    bad = False
    if dt is D.bool:
        return builtins.bool(v)
    if isinstance(v, complex):
        if dt._cat < 3:
            if v.imag != 0:
                bad = True
            v = v.real
        else:
            r = D.finfo(dt.to_real())
            bad = any(math.isfinite(p) and abs(p) > r.max for p in (v.real, v.imag))
    if not bad and dt._cat == 1:
        ii = np.iinfo(dt.np)
        if isinstance(v, float):
            bad = not (ii.min <= v <= ii.max)          # nan and inf fail too
        else:
            v = int(v)
            if ii.min == 0:        # unsigned: negative ints wrap (two's complement) as in torch
                bad = v > ii.max or (v < 0 and -v > ii.max)
            else:
                bad = not (ii.min <= v <= ii.max)
    elif not bad and dt._cat == 2:
        f = float(v)
        bad = math.isfinite(f) and abs(f) > D.finfo(dt).max
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_CNAME.get(dt.name, dt.name)} without overflow")
    if dt._cat == 2:
        return float(v)
    if dt._cat == 3:
        return complex(v)
    if dt._cat == 1 and isinstance(v, float):
        return int(v)
    return v


def _on_device_of(arr_np, like):
    """A host (numpy) array placed on the device of the jax array ``like``."""
    try:
        dev = next(iter(like.devices()))
    except Exception:
        return jnp.asarray(arr_np)
    return jax.device_put(arr_np, dev)


@jax.jit
def _first_oob(a, lo, hi):
    f = a.ravel()
    bad = (f < lo) | (f >= hi)
    i = jnp.argmax(bad)
    return bad[i], f[i]


def _check_range(idx, lo, hi, make_error):
    """Raise ``make_error(value)`` for the first element of ``idx`` outside [lo, hi) (one small sync)."""
    if isinstance(idx, Tensor):
        idx = idx._value()
    if idx.size == 0:
        return
    if isinstance(idx, np.ndarray):
        f = idx.ravel()
        bad = (f < lo) | (f >= hi)
        if bad.any():
            raise make_error(int(f[np.argmax(bad)]))
        return
    bad, v = jax.device_get(_first_oob(idx, lo, hi))
    if bad:
        raise make_error(int(v))


def _oob(dim, size, exc=RuntimeError, prefix=''):
    return lambda v: exc(f"{prefix}index {v} is out of bounds for dimension {dim} with size {size}")


def _idx_ok(index, allow32=True):
    dt = index.dtype
    return dt is D.int64 or (allow32 and dt is D.int32)


def _ne(n):
    """ensure_nonempty_dim / size: a 0-dim tensor counts as 1-dim of size 1."""
    return max(n, 1)


def _nesize(shape, d):
    return shape[d] if len(shape) else 1


# ---- nonzero ---------------------------------------------------------------------------

def _nonzero_np(a):
    return np.argwhere(np.asarray(a)).astype(np.int64)


@op('_nonzero', jit=False, differentiable=False, function=False, method=False)
def _nonzero(input):
    return _on_device_of(_nonzero_np(input), input)


@op('_nonzero_tuple', jit=False, differentiable=False, function=False, method=False)
def _nonzero_tuple(input):
    a = np.asarray(input)
    if a.ndim == 0:
        a = a.reshape(1)
    return tuple(_on_device_of(np.asarray(i, np.int64), input) for i in np.nonzero(a))


@public('nonzero', method=True)
def nonzero(input, *, out=None, as_tuple=False):
    _need_tensor('nonzero', 'input', 1, input)
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero(): as_tuple=True does not support out=")
        return dispatch.apply(_nonzero_tuple, (input,))
    return dispatch.apply(_nonzero, (input,), (), out)


@public('argwhere', method=True)
def argwhere(input):
    _need_tensor('argwhere', 'input', 1, input)
    return dispatch.apply(_nonzero, (input,))


@op('nonzero_static', static=('size', 'fill_value'), differentiable=False, out=True)
def nonzero_static(input, *, size, fill_value=-1):
    if input.ndim == 0:
        return jnp.full((size, 0), fill_value, jnp.int64)
    return jnp.argwhere(input, size=size, fill_value=fill_value).astype(jnp.int64)


# ---- copy_ / fill_ / zero_ -------------------------------------------------------------

def _cast_to(v, dtype):
    if jnp.iscomplexobj(v) and not jnp.issubdtype(dtype, jnp.complexfloating):
        v = jnp.real(v)
    return v.astype(dtype)


@op('_copy', function=False, method=False, saves=(), node='torch::autograd::CopyBackwards')
def _copy(input, src):
    s = jnp.asarray(src)
    if s.ndim > input.ndim:      # setitem strips leading 1s of the value (checked by the caller)
        s = s.reshape(s.shape[s.ndim - input.ndim:])
    return jnp.broadcast_to(_cast_to(s, input.dtype), input.shape)


@method('copy_')
def copy_(self, src, non_blocking=False):
    # non_blocking only allows an asynchronous host<->device copy in torch; values are the same either way
    if isinstance(src, Tensor):
        shape = _broadcast(self.shape, src.shape)
        if shape != tuple(self.shape):
            raise RuntimeError(f"output with shape {_shp(self.shape)} doesn't match the broadcast shape {_shp(shape)}")
        src_complex = src.dtype.is_complex
    elif isinstance(src, (bool, int, float, complex, np.number, np.bool_)):
        src = src.item() if isinstance(src, np.generic) else src
        src_complex = isinstance(src, complex)
    else:
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    if src_complex and not self.dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part")
    return dispatch.apply_inplace(_copy, (self, src))


def _fill_body(input, value):
    return jnp.broadcast_to(_cast_to(jnp.asarray(value), input.dtype), input.shape)


_fill_scalar = op('_fill_scalar', function=False, method=False, saves=(), node='FillBackward0')(_fill_body)
_fill_tensor = op('_fill_tensor', function=False, method=False, saves=(), node='FillBackward1')(_fill_body)
# torch names the in-place node after the overload: fill_.Scalar -> FillBackward2, fill_.Tensor -> FillBackward3
_fill_scalar_ = op('_fill_scalar_', function=False, method=False, saves=(), node='FillBackward2')(_fill_body)
_fill_tensor_ = op('_fill_tensor_', function=False, method=False, saves=(), node='FillBackward3')(_fill_body)


def _fill_args(self, value, fname):
    _need_tensor(fname, 'input', 1, self)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        return value, True
    return _scalar(value, self.dtype), False


@public('fill')
def fill(input, value):
    value, is_t = _fill_args(input, value, 'fill')
    return dispatch.apply(_fill_tensor if is_t else _fill_scalar, (input, value))


@public('fill_', method=True)
def fill_(input, value):
    value, is_t = _fill_args(input, value, 'fill_')
    return dispatch.apply_inplace(_fill_tensor_ if is_t else _fill_scalar_, (input, value))


@op('_zero', function=False, method=False, saves=(), node='ZeroBackward0')
def _zero(input):
    return jnp.zeros(input.shape, input.dtype)


@public('zero_', method=True)
def zero_(input):
    _need_tensor('zero_', 'input', 1, input)
    return dispatch.apply_inplace(_zero, (input,))


# ---- __getitem__ / __setitem__ ---------------------------------------------------------

# The basic view's spec is (starts, sizes, strides, out_shape): per input dim the first index, the extent
# covered ((length - 1) * step + 1; 1 for an int) and the step; then a reshape drops the int dims and adds
# the None dims. starts=None: a pure reshape.

def _basic(input, *, spec):
    starts, sizes, strides, shape = spec
    if starts is not None:
        input = lax.slice(input, starts, tuple(a + z for a, z in zip(starts, sizes)), strides)
    return input.reshape(shape)


@functools.partial(jax.jit, static_argnames=('sizes', 'strides', 'shape'))
def _slice_dyn(x, starts, *, sizes, strides, shape):
    # the starts are data: one compiled program per (shape, sizes, strides), whatever the index values
    if starts is not None:
        x = lax.dynamic_slice(x, starts, sizes)
        if any(st != 1 for st in strides):
            x = lax.slice(x, (0,) * x.ndim, x.shape, strides)
    return x.reshape(shape)


def _basic_dyn(input, *, spec):
    starts, sizes, strides, shape = spec
    return _slice_dyn(input, starts, sizes=sizes, strides=strides, shape=shape)


# One body, four node names: torch's grad_fn is the last view its slicing applies. Two flavours of each:
# compiled with the index baked in (differentiable use: its backward is compiled too), and an uncompiled
# one whose body calls ``_slice_dyn`` with the starts as data, so ``x[i]`` over many ``i`` without autograd
# (data loading) never compiles per index. Both are index-only, so writes through either reach the base.
_VIEW_NODES = (('select', 'SelectBackward0'), ('slice', 'SliceBackward0'), ('unsqueeze', 'UnsqueezeBackward0'),
               ('alias', 'AliasBackward0'))
_VIEW = {k: op(f'_getitem_{k}', static=('spec',), view=True, saves=(), node=n, function=False, method=False)(_basic)
         for k, n in _VIEW_NODES}
_VIEW_DYN = {k: op(f'_getitem_{k}_dyn', static=('spec',), view=True, saves=(), node=n, jit=False, function=False,
                   method=False)(_basic_dyn)
             for k, n in _VIEW_NODES}


def _view(self, kind, spec):
    table = _VIEW if (self.requires_grad and state.grad_enabled) else _VIEW_DYN
    return dispatch.apply(table[kind or 'alias'], (self,), (spec,))


def _adv_tuple(ndim, dims, indices):
    idx = [slice(None)] * ndim
    for d, i in zip(dims, indices):
        idx[d] = i
    return tuple(idx)


def _adv_shape(shape, dims, bshape):
    """Shape of ``x[idx]`` for advanced indices at ``dims`` broadcasting to ``bshape`` (torch/NumPy rule)."""
    dims = tuple(dims)
    rest_before = tuple(shape[:dims[0]])
    if dims == tuple(range(dims[0], dims[0] + len(dims))):
        return rest_before + tuple(bshape) + tuple(shape[dims[-1] + 1:])
    return tuple(bshape) + tuple(s for i, s in enumerate(shape) if i not in dims)


@op('_index', static=('dims',), lists=('indices',), diff=('input',), saves=(), node='IndexBackward0',
    function=False, method=False)
def _index(input, indices, *, dims):
    return input.at[_adv_tuple(input.ndim, dims, indices)].get(mode='promise_in_bounds')


def _strip1(shape):
    shape = tuple(shape)
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


@op('_index_put', static=('dims', 'accumulate'), lists=('indices',), diff=('input', 'values'), saves=(),
    node='IndexPutBackward0', function=False, method=False)
def _index_put(input, indices, values, *, dims, accumulate):
    idx = _adv_tuple(input.ndim, dims, indices)
    v = _cast_to(jnp.asarray(values), input.dtype)
    rnd = len(_adv_shape(input.shape, dims, np.broadcast_shapes(*(i.shape for i in indices))))
    if v.ndim > rnd:          # setitem strips the value's leading 1s (checked by the caller)
        v = v.reshape(v.shape[v.ndim - rnd:])
    ref = input.at[idx]
    return ref.add(v, mode='promise_in_bounds') if accumulate else ref.set(v, mode='promise_in_bounds')


@op('_index_put_masked', static=('pos',), diff=('input', 'values'), saves=(), node='IndexPutBackward0',
    function=False, method=False)
def _index_put_masked(input, mask, values, *, pos):
    # torch's index_put_ dispatches a single boolean mask with a one-element value to masked_fill
    m = mask.astype(jnp.bool_).reshape((1,) * pos + mask.shape + (1,) * (input.ndim - pos - mask.ndim))
    v = _cast_to(jnp.asarray(values).reshape(()), input.dtype)
    return jnp.where(m, v, input)


def _treat_as_tuple(index):
    """torch's treatSequenceAsTuple (NumPy's old heuristic for non-tuple sequences)."""
    if isinstance(index, tuple):
        return True
    if isinstance(index, np.ndarray):
        if index.ndim == 0:
            return False
    elif not isinstance(index, (list, range)):
        return False
    if len(index) >= 32:
        return False
    for o in index:
        if isinstance(o, (Tensor, slice, list, tuple, range)) or o is None or o is Ellipsis:
            return True
        if isinstance(o, np.ndarray) and o.ndim > 0:
            return True
    return False


def _seq_to_index(seq):
    """A list / numpy index -> numpy array: bool or byte masks stay, everything else becomes int64 (torch)."""
    if isinstance(seq, np.ndarray):
        a = seq
    else:
        if any(isinstance(o, Tensor) for o in seq):
            seq = [o.tolist() if isinstance(o, Tensor) else o for o in seq]
        try:
            a = np.asarray(seq)
        except ValueError:
            raise ValueError("expected sequence of equal-length sequences in an index")
    if a.dtype == np.bool_ or (a.dtype == np.uint8 and isinstance(seq, np.ndarray)):
        return a
    if a.size == 0:
        return a.astype(np.int64)
    if a.dtype.kind not in 'iuf':
        raise TypeError(f"new(): invalid data type '{type(a.flat[0].item()).__name__}'")
    return a.astype(np.int64)


def _parse(shape, index):
    """-> (spec, kind, adv, out_shape). ``spec`` is the basic view's static spec (None: identity), ``kind``
    the torch view it ends with, ``adv`` the advanced indices [(result dim, 'int'|'mask'|'bool', obj)]."""
    ndim = len(shape)
    single = not (type(index) is tuple or _treat_as_tuple(index))
    items = (index,) if single else tuple(index)
    conv = []
    nspec = 0
    for it in items:
        if it is None or it is Ellipsis or _is_bool(it):
            conv.append(it)
        elif isinstance(it, Tensor):
            dt = it.dtype
            nspec += it.ndim if (dt is D.bool or dt is D.uint8) else 1
            conv.append(it)
        elif isinstance(it, slice) or _is_int(it):
            nspec += 1
            conv.append(it)
        elif isinstance(it, str):
            raise TypeError("new(): invalid data type 'str'")
        elif isinstance(it, (list, tuple, range, np.ndarray)):
            a = _seq_to_index(it)
            if a.ndim == 0:
                a = builtins.bool(a) if a.dtype == np.bool_ else int(a)
                nspec += 0 if _is_bool(a) else 1
            else:
                nspec += a.ndim if a.dtype in (np.bool_, np.uint8) else 1
            conv.append(a)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {type(it).__name__})")
    if nspec > ndim:
        if ndim == 0 and single:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    starts, sizes, strides, out, adv = [], [], [], [], []
    d = 0
    last = None

    def full(d):
        starts.append(0)
        sizes.append(shape[d])
        strides.append(1)
        out.append(shape[d])

    def select(i, d):
        n = shape[d]
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n}")
        i %= n
        starts.append(i)
        sizes.append(1)
        strides.append(1)

    for it in conv:
        if it is None:
            out.append(1)
            last = 'unsqueeze'
        elif it is Ellipsis:
            for _ in range(ndim - nspec):      # torch: every Ellipsis advances the dim by ndim - specified
                if d < ndim:
                    full(d)
                d += 1
        elif d >= ndim and not _is_bool(it):
            raise IndexError(f"too many indices for tensor of dimension {ndim}")
        elif _is_bool(it):
            adv.append((len(out), 'bool', builtins.bool(it)))
            out.append(1)
            last = 'unsqueeze'
        elif _is_int(it):
            select(operator.index(it), d)
            d += 1
            last = 'select'
        elif isinstance(it, slice):
            n = shape[d]
            step = 1 if it.step is None else operator.index(it.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            start, stop, _ = slice(it.start, it.stop, step).indices(n)
            length = max(0, -(-(stop - start) // step))
            starts.append(start)
            sizes.append((length - 1) * step + 1 if length else 0)
            strides.append(step)
            out.append(length)
            d += 1
            if single or not (start == 0 and stop == n and step == 1):
                last = 'slice'
        else:                                   # Tensor or numpy array
            is_t = isinstance(it, Tensor)
            dt = it.dtype if is_t else D.from_np(it.dtype)
            if dt is D.bool or dt is D.uint8:
                if it.ndim == 0:
                    adv.append((len(out), 'bool', builtins.bool(it.item())))
                    out.append(1)
                    last = 'unsqueeze'
                else:
                    adv.append((len(out), 'mask', it))
                    for _ in range(it.ndim):
                        full(d)
                        d += 1
            elif dt._cat == 1 and it.ndim == 0:
                select(int(it.item()), d)
                d += 1
                last = 'select'
            elif dt is D.int64 or dt is D.int32:
                adv.append((len(out), 'int', it))
                full(d)
                d += 1
            else:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    while d < ndim:
        full(d)
        d += 1
    out = tuple(out)
    sliced = any(a != 0 or z != n or st != 1 for a, z, st, n in zip(starts, sizes, strides, shape))
    if sliced:
        spec = (tuple(starts), tuple(sizes), tuple(strides), out)
    elif out != tuple(shape):
        spec = (None, None, None, out)
    else:
        spec = None
    return spec, last, adv, out


def _mask_indices(m):
    """Integer indices (numpy) of a boolean / byte mask, computed on the host."""
    if (m.dtype if isinstance(m, Tensor) else D.from_np(m.dtype)) is D.uint8:
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.")
    a = np.asarray(m._value() if isinstance(m, Tensor) else m)
    return [np.asarray(i, np.int64) for i in np.nonzero(a)]


def _check_mask_shape(mshape, vshape, r):
    for j, s in enumerate(mshape):
        if s != vshape[r + j]:
            raise IndexError(f"The shape of the mask {_shp(mshape)} at index {j} does not match the shape of the "
                             f"indexed tensor {_shp(vshape)} at index {r + j}")


def _prepare_adv(vshape, adv):
    """Advanced indices -> (dims, index arrays, which to range-check, broadcast shape)."""
    dims, arrays, check = [], [], []
    for r, kind, obj in adv:
        if kind == 'bool':
            dims.append(r)
            arrays.append(np.zeros((1 if obj else 0,), np.int64))
            check.append(False)
        elif kind == 'mask':
            _check_mask_shape(tuple(obj.shape), vshape, r)
            for j, a in enumerate(_mask_indices(obj)):
                dims.append(r + j)
                arrays.append(a)
                check.append(False)
        else:
            dims.append(r)
            arrays.append(obj._value() if isinstance(obj, Tensor) else obj)
            check.append(True)
    try:
        bshape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ', '.join(_shp(a.shape) for a in arrays))
    return dims, arrays, check, bshape


def _finish_adv(vshape, dims, arrays, check, like):
    """Range-check the integer indices (torch's IndexError) and put host indices on the device."""
    out = []
    for j, (d, a, c) in enumerate(zip(dims, arrays, check)):
        n = vshape[d]
        if c:
            _check_range(a, -n, n, _oob(j, n, IndexError))
        out.append(_on_device_of(a, like) if isinstance(a, np.ndarray) else a)
    return out


@method('__getitem__')
def __getitem__(self, index):
    shape = tuple(self._value().shape)
    spec, kind, adv, out = _parse(shape, index)
    if adv and spec is None:
        y = self
    else:
        y = _view(self, kind, spec or (None, None, None, out))
    if not adv:
        return y
    dims, arrays, check, _ = _prepare_adv(out, adv)
    arrays = _finish_adv(out, dims, arrays, check, self._value())
    return dispatch.apply(_index, (y, arrays), (tuple(dims),))


def _typename(v):
    t = type(v)
    return t.__name__ if t.__module__ == 'builtins' else f'{t.__module__}.{t.__name__}'


def _check_setitem_value(value, tshape):
    _check_expand(_strip1(value.shape), tshape, f"{value.type()}{{{_shp(value.shape)}}}", len(value.shape))


def _check_expand(s, tshape, what, what_ndim=None):
    """torch's expand(src -> tshape) checks, with its messages (``what`` names the source)."""
    s, tshape = tuple(s), tuple(tshape)
    if len(s) > len(tshape):
        raise RuntimeError(f"expand({what}, size={_shp(tshape)}): the number of sizes provided ({len(tshape)}) must "
                           f"be greater or equal to the number of dimensions in the tensor "
                           f"({len(s) if what_ndim is None else what_ndim})")
    off = len(tshape) - len(s)
    for i in reversed(range(len(s))):
        if s[i] != 1 and s[i] != tshape[off + i]:
            raise RuntimeError(f"The expanded size of the tensor ({tshape[off + i]}) must match the existing size "
                               f"({s[i]}) at non-singleton dimension {off + i}.  Target sizes: {_shp(tshape)}.  "
                               f"Tensor sizes: {_shp(s)}")


@method('__setitem__')
def __setitem__(self, index, value):
    dt = self.dtype
    is_t = isinstance(value, Tensor)
    if not is_t:
        if isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
            value = _scalar(value, dt)
        else:
            raise TypeError(f"can't assign a {_typename(value)} to a {self.type()}")
    if _is_bool(index):          # torch: a lone Python bool is basic here (False: nothing to write)
        if not index:
            return
        index = None
    shape = tuple(self._value().shape)
    spec, kind, adv, out = _parse(shape, index)
    if not adv:
        if is_t:
            _check_setitem_value(value, out)
        if spec is None:
            dispatch.apply_inplace(_copy if is_t else _fill_tensor_, (self, value))
        elif spec[0] is None:            # only None dims: the write covers all of self
            dispatch.apply_inplace(_copy_reshaped, (self, value), (out,))
        else:
            if state.grad_enabled and self._base is None and self.requires_grad and self._grad_fn is None:
                raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                                   "operation.")
            starts, sizes, strides, _ = spec
            dispatch.apply_inplace(_setitem_basic, (self, value, starts), (sizes, strides, out))
        return
    target = self if spec is None else _view(self, kind, spec)
    _index_put_into(target, out, adv, value, is_t, strip=True)


def _value_for(value, dtype, vshape):
    """A setitem value: cast, leading 1s dropped, broadcast to the view shape ``vshape``."""
    v = _cast_to(jnp.asarray(value), dtype)
    if v.ndim > len(vshape):
        v = v.reshape(v.shape[v.ndim - len(vshape):])
    return jnp.broadcast_to(v, vshape)


@op('_copy_reshaped', static=('vshape',), saves=(), node='torch::autograd::CopySlices', function=False, method=False)
def _copy_reshaped(input, value, *, vshape):
    return _value_for(value, input.dtype, vshape).reshape(input.shape)


@op('_setitem_basic', static=('sizes', 'strides', 'vshape'), lists=('starts',), diff=('input', 'value'), saves=(),
    node='torch::autograd::CopySlices', function=False, method=False)
def _setitem_basic(input, value, starts, *, sizes, strides, vshape):
    # ``x[basic] = v`` as one program whose index values are data (no compile per index)
    lens = tuple(-(-z // st) if z else 0 for z, st in zip(sizes, strides))
    v = _value_for(value, input.dtype, vshape).reshape(lens)
    starts = [jnp.asarray(a, jnp.int64) for a in starts]
    if all(st == 1 for st in strides):
        return lax.dynamic_update_slice(input, v, starts)
    idx = tuple(a + st * lax.broadcasted_iota(jnp.int64, lens, d) for d, (a, st) in enumerate(zip(starts, strides)))
    return input.at[idx].set(v, mode='promise_in_bounds')


def _index_put_into(target, tshape, adv, value, is_t, strip=False, accumulate=False, inplace=True):
    """index_put(_) of ``value`` at the advanced indices ``adv`` of ``target`` (shape ``tshape``)."""
    if not accumulate and len(adv) == 1 and adv[0][1] == 'mask' and (not is_t or value.numel() == 1):
        r, _, m = adv[0]
        _check_mask_shape(tuple(m.shape), tshape, r)
        if not isinstance(m, Tensor):
            m = _on_device_of(m, target._value())
        elif m.dtype is D.uint8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.")
        f = dispatch.apply_inplace if inplace else dispatch.apply
        return f(_index_put_masked, (target, m, value), (r,))
    dims, arrays, check, bshape = _prepare_adv(tshape, adv)
    rshape = _adv_shape(tshape, dims, bshape)
    if is_t:
        vs = _strip1(value.shape) if strip else tuple(value.shape)
        if not _can_broadcast_to(vs, rshape):
            raise RuntimeError(f"shape mismatch: value tensor of shape {_shp(vs)} cannot be broadcast to indexing "
                               f"result of shape {_shp(rshape)}")
        if value.dtype is not target.dtype:
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{_tname(target.dtype)} for the destination and {_tname(value.dtype)} for the source.")
    arrays = _finish_adv(tshape, dims, arrays, check, target._value())
    f = dispatch.apply_inplace if inplace else dispatch.apply
    return f(_index_put, (target, arrays, value), (tuple(dims), builtins.bool(accumulate)))


def _index_put_impl(self, indices, values, accumulate, inplace, fname, argno):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    _need_tensor(fname, 'values', argno, values)
    adv, n = [], 0
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument {argno - 2}, but got {type(t).__name__}")
        dt = t.dtype
        if dt is D.bool or dt is D.uint8:
            if t.ndim == 0:
                raise NotImplementedError(f"{fname}(): 0-dim boolean index tensors are not supported by torchlike")
            adv.append((n, 'mask', t))
            n += t.ndim
        elif dt is D.int64 or dt is D.int32:
            adv.append((n, 'int', t))
            n += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    shape = tuple(self.shape)
    if n > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {n})")
    if not adv:
        raise RuntimeError(f"{fname}(): expected at least one index tensor")
    return _index_put_into(self, shape, adv, values, True, accumulate=accumulate, inplace=inplace)


@public('index_put', method=True)
def index_put(input, indices, values, accumulate=False):
    return _index_put_impl(input, indices, values, accumulate, False, 'index_put', 2)


@public('index_put_', method=True)
def index_put_(input, indices, values, accumulate=False):
    return _index_put_impl(input, indices, values, accumulate, True, 'index_put_', 2)


# ---- gather / scatter ------------------------------------------------------------------

def _iota_index(index, dim):
    """The full index tuple of a scatter/gather along ``dim``: ``index`` there, iotas elsewhere."""
    return tuple(index if a == dim else lax.broadcasted_iota(index.dtype, index.shape, a)
                 for a in range(index.ndim))


def _at1(a):
    return a.reshape(1) if a.ndim == 0 else a


def _head(a, shape):
    """``a[:shape[0], :shape[1], ...]`` (src/input cut to the index's extent)."""
    if tuple(a.shape) == tuple(shape):
        return a
    return lax.slice(a, (0,) * a.ndim, tuple(shape))


@op('_gather', static=('dim',), diff=('input',), node='GatherBackward0', function=False, method=False)
def _gather(input, index, *, dim):
    oshape = index.shape
    if index.size == 0:
        return jnp.zeros(oshape, input.dtype)
    x, i = _at1(input), _at1(index)
    lim = tuple(x.shape[a] if a == dim else i.shape[a] for a in range(x.ndim))
    return jnp.take_along_axis(_head(x, lim), i, axis=dim, mode='clip').reshape(oshape)


def _gather_checks(input, dim, index, fname='gather'):
    _need_tensor(fname, 'input', 1, input)
    _need_tensor(fname, 'index', 3, index)
    dim = _dim(dim, input.ndim)
    if index.numel() and not _idx_ok(index):
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")
    if index.numel():
        if _ne(input.ndim) != _ne(index.ndim):
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        for d in range(_ne(input.ndim)):
            if d != dim and _nesize(index.shape, d) > _nesize(input.shape, d):
                raise RuntimeError(f"Size does not match at dimension {d} expected index {_shp(index.shape)} to be no "
                                   f"larger than self {_shp(input.shape)} apart from dimension {dim}")
        n = _nesize(input.shape, dim)
        _check_range(index, 0, n, _oob(dim, n))
    return dim


@public('gather', method=True)
def gather(input, dim, index, *, sparse_grad=False, out=None):
    if sparse_grad:
        raise NotImplementedError("gather(sparse_grad=True): sparse gradients are not supported by torchlike")
    dim = _gather_checks(input, dim, index)
    return dispatch.apply(_gather, (input, index), (dim,), out)


def _no_derivative(message):
    """Identity whose gradient raises torch's 'not implemented' error when a backward is built."""
    @jax.custom_vjp
    def f(y):
        return y

    def fwd(y):
        return y, None

    def bwd(_, g):
        raise RuntimeError(message)
    f.defvjp(fwd, bwd)
    return f


def _scatter_into(input, index, src, dim, how):
    shape = input.shape
    if index.size == 0:
        return input
    x, i = _at1(input), _at1(index)
    ref = x.at[_iota_index(i, dim)]
    if how == 'set':
        r = ref.set(src, mode='promise_in_bounds')
    elif how == 'add':
        r = ref.add(src, mode='promise_in_bounds')
    else:
        r = ref.multiply(src, mode='promise_in_bounds')
    return r.reshape(shape)


def _src_for(index, src, node):
    i = _at1(index)
    s = _at1(src)
    if tuple(s.shape) != tuple(i.shape):
        # torch's backward returns a gradient of the index's shape for src and its engine rejects it
        s = _no_derivative(f"Function {node} returned an invalid gradient at index 1 - got {_shp(index.shape)} but "
                           f"expected shape compatible with {_shp(src.shape)}")(s)
    return _head(s, i.shape)


@op('_scatter_src', static=('dim',), diff=('input', 'src'), saves=(), node='ScatterBackward0',
    function=False, method=False)
def _scatter_src(input, index, src, *, dim):
    return _scatter_into(input, index, _src_for(index, src, 'ScatterBackward0'), dim, 'set')


@op('_scatter_value', static=('dim',), diff=('input',), saves=(), node='ScatterBackward1',
    function=False, method=False)
def _scatter_value(input, index, value, *, dim):
    return _scatter_into(input, index, _cast_to(jnp.asarray(value), input.dtype), dim, 'set')


_scatter_reduce_nograd = _no_derivative("derivative for aten::scatter is not implemented")


@op('_scatter_legacy_reduce', static=('dim', 'reduce'), diff=('input', 'src'), saves=(), node='NotImplemented',
    function=False, method=False)
def _scatter_legacy_reduce(input, index, src, *, dim, reduce):
    s = _cast_to(jnp.asarray(src), input.dtype)
    if s.ndim:
        s = _head(_at1(s), _at1(index).shape)
    return _scatter_reduce_nograd(_scatter_into(input, index, s, dim, 'add' if reduce == 'add' else 'mul'))


@op('_scatter_add', static=('dim',), diff=('input', 'src'), saves=(), node='ScatterAddBackward0',
    function=False, method=False)
def _scatter_add(input, index, src, *, dim):
    return _scatter_into(input, index, _src_for(index, src, 'ScatterAddBackward0'), dim, 'add')


def _scatter_checks(input, dim, index, src, fname='scatter'):
    dim = _dim(dim, input.ndim)
    if index.numel() and not _idx_ok(index):
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype is not input.dtype:
        raise RuntimeError(f"{fname}(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    if _ne(input.ndim) != _ne(index.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and _ne(src.ndim) != _ne(index.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    wrong = any(d != dim and _nesize(index.shape, d) > _nesize(input.shape, d) for d in range(_ne(input.ndim)))
    if src is not None:
        wrong = wrong or any(_nesize(index.shape, d) > _nesize(src.shape, d) for d in range(_ne(index.ndim)))
        if wrong:
            raise RuntimeError(f"Expected index {_shp(index.shape)} to be no larger than self {_shp(input.shape)} "
                               f"apart from dimension {dim} and to be no larger size than src {_shp(src.shape)}")
    elif wrong:
        raise RuntimeError(f"Expected index {_shp(index.shape)} to be no larger than self {_shp(input.shape)} "
                           f"apart from dimension {dim}")
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, _oob(dim, n))
    return dim


def _scatter_impl(input, dim, index, src, value, reduce, inplace, out=None):
    _need_tensor('scatter', 'input', 1, input)
    _need_tensor('scatter', 'index', 3, index)
    if src is not None and value is not None:
        raise TypeError("scatter(): pass either src or value, not both")
    v = src if src is not None else value
    if v is None:
        raise TypeError("scatter() missing required argument 'src' (or 'value')")
    is_t = isinstance(v, Tensor)
    if not is_t:
        v = _scalar(v, input.dtype)
    dim = _scatter_checks(input, dim, index, v if is_t else None)
    if reduce is not None:
        if reduce not in ('add', 'multiply'):
            raise RuntimeError("reduce argument must be either add or multiply.")
        o, dyn, st = _scatter_legacy_reduce, (input, index, v), (dim, reduce)
    elif is_t:
        o, dyn, st = _scatter_src, (input, index, v), (dim,)
    else:
        o, dyn, st = _scatter_value, (input, index, v), (dim,)
    if inplace:
        return dispatch.apply_inplace(o, dyn, st)
    return dispatch.apply(o, dyn, st, out)


@public('scatter', method=True)
def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    return _scatter_impl(input, dim, index, src, value, reduce, False, out)


@method('scatter_')
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    return _scatter_impl(self, dim, index, src, value, reduce, True)


def _scatter_add_checked(input, dim, index, src):
    _need_tensor('scatter_add', 'input', 1, input)
    _need_tensor('scatter_add', 'index', 3, index)
    _need_tensor('scatter_add', 'src', 4, src)
    return _scatter_checks(input, dim, index, src)


@public('scatter_add', method=True)
def scatter_add(input, dim, index, src, *, out=None):
    dim = _scatter_add_checked(input, dim, index, src)
    return dispatch.apply(_scatter_add, (input, index, src), (dim,), out)


@method('scatter_add_')
def scatter_add_(self, dim, index, src):
    dim = _scatter_add_checked(self, dim, index, src)
    return dispatch.apply_inplace(_scatter_add, (self, index, src), (dim,))


# ---- scatter_reduce / index_reduce -----------------------------------------------------

def _lowest(dt):
    if dt == jnp.bool_:
        return False
    if jnp.issubdtype(dt, jnp.floating):
        return -jnp.inf
    return jnp.iinfo(dt).min


def _highest(dt):
    if dt == jnp.bool_:
        return True
    if jnp.issubdtype(dt, jnp.floating):
        return jnp.inf
    return jnp.iinfo(dt).max


@jax.custom_vjp
def _scatter_prod(base, pos, src):
    return base.at[pos].multiply(src, mode='promise_in_bounds')


def _scatter_prod_fwd(base, pos, src):
    return _scatter_prod(base, pos, src), (base, pos, src)


def _scatter_prod_bwd(res, g):
    # torch's scatter_reduce 'prod' backward: exclusive products, exact for zeros (no 0/0)
    base, pos, src = res
    one = jnp.ones_like(base)
    contrib = one.at[pos].multiply(src, mode='promise_in_bounds')         # product of the src at each slot
    zero = src == 0
    nzeros = jnp.zeros(base.shape, jnp.int32).at[pos].add(zero.astype(jnp.int32), mode='promise_in_bounds')
    nonzero_prod = one.at[pos].multiply(jnp.where(zero, 1, src), mode='promise_in_bounds')
    zp, npp = nzeros[pos], nonzero_prod[pos]
    safe = jnp.where(zero, 1, src)
    excl = jnp.where(zero, jnp.where(zp == 1, npp, 0), jnp.where(zp == 0, npp / safe, 0))
    gsrc = (g * base)[pos] * excl
    return g * contrib, None, gsrc.astype(src.dtype)


_scatter_prod.defvjp(_scatter_prod_fwd, _scatter_prod_bwd)


def _flat_pos(idx, shape, src_shape):
    """Flat positions (into ``shape``) of the full index tuple ``idx``."""
    if not shape:
        return jnp.zeros(src_shape, jnp.int64)
    strides = np.cumprod((1,) + tuple(shape[:0:-1]))[::-1]
    return sum(i.astype(jnp.int64) * int(st) for i, st in zip(idx, strides))


def _scatter_extremal_impl(x, pos, src, is_max, include_self):
    if is_max:
        base = x if include_self else x.at[pos].set(_lowest(x.dtype), mode='promise_in_bounds')
        return base.at[pos].max(src, mode='promise_in_bounds')
    base = x if include_self else x.at[pos].set(_highest(x.dtype), mode='promise_in_bounds')
    return base.at[pos].min(src, mode='promise_in_bounds')


_scatter_extremal = jax.custom_vjp(_scatter_extremal_impl, nondiff_argnums=(3, 4))


def _scatter_extremal_fwd(x, pos, src, is_max, include_self):
    r = _scatter_extremal_impl(x, pos, src, is_max, include_self)
    return r, (x, pos, src, r)


def _scatter_extremal_bwd(is_max, include_self, res, g):
    # torch's rule: the gradient is shared evenly by every self/src element equal to the result (self counts
    # in the tie even when include_self=False, and then gets nothing)
    x, pos, src, r = res
    value = r[pos]
    self_is = (x == r).astype(g.dtype)
    src_is = (src == value).astype(g.dtype)
    n = self_is.at[pos].add(src_is, mode='promise_in_bounds')
    gd = g / n
    gx = self_is * gd
    if not include_self:
        gx = gx.at[pos].set(0, mode='promise_in_bounds')
    return gx, None, (src_is * gd[pos]).astype(src.dtype)


_scatter_extremal.defvjp(_scatter_extremal_fwd, _scatter_extremal_bwd)


def _reduce_into(x, idx, src, reduce, include_self):
    """scatter_reduce of ``src`` into ``x`` at the full index tuple ``idx`` (shapes of ``src``)."""
    src = src.astype(x.dtype)
    if reduce == 'sum':
        base = x if include_self else x.at[idx].set(0, mode='promise_in_bounds')
        return base.at[idx].add(src, mode='promise_in_bounds')
    if reduce == 'prod':
        base = x if include_self else x.at[idx].set(1, mode='promise_in_bounds')
        pos = _flat_pos(idx, x.shape, src.shape)
        return _scatter_prod(base.ravel(), pos.ravel(), src.ravel()).reshape(x.shape)
    if reduce in ('amax', 'amin'):
        pos = _flat_pos(idx, x.shape, src.shape)
        return _scatter_extremal(x.ravel(), pos.ravel(), src.ravel(), reduce == 'amax',
                                 include_self).reshape(x.shape)
    # mean
    base = x if include_self else x.at[idx].set(0, mode='promise_in_bounds')
    s = base.at[idx].add(src, mode='promise_in_bounds')
    cnt = jnp.zeros(x.shape, jnp.int64).at[idx].add(1, mode='promise_in_bounds') + (1 if include_self else 0)
    cnt = jnp.maximum(cnt, 1).astype(x.dtype)
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return s / cnt
    return jnp.floor_divide(s, cnt)


@op('_scatter_reduce', static=('dim', 'reduce', 'include_self'), diff=('input', 'src'),
    node='ScatterReduceBackward0', function=False, method=False)
def _scatter_reduce(input, index, src, *, dim, reduce, include_self):
    shape = input.shape
    if index.size == 0:
        return input
    x, i = _at1(input), _at1(index)
    return _reduce_into(x, _iota_index(i, dim), _src_for(index, src, 'ScatterReduceBackward0'), reduce,
                        include_self).reshape(shape)


_SR = ('sum', 'prod', 'mean', 'amax', 'amin')


def _scatter_reduce_checked(input, dim, index, src, reduce):
    _need_tensor('scatter_reduce', 'input', 1, input)
    _need_tensor('scatter_reduce', 'index', 3, index)
    _need_tensor('scatter_reduce', 'src', 4, src)
    reduce = {'max': 'amax', 'min': 'amin'}.get(reduce, reduce)      # torch accepts the old names too
    if reduce not in _SR:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return _scatter_checks(input, dim, index, src), reduce


@public('scatter_reduce', method=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    dim, reduce = _scatter_reduce_checked(input, dim, index, src, reduce)
    return dispatch.apply(_scatter_reduce, (input, index, src), (dim, reduce, builtins.bool(include_self)), out)


@method('scatter_reduce_')
def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    dim, reduce = _scatter_reduce_checked(self, dim, index, src, reduce)
    return dispatch.apply_inplace(_scatter_reduce, (self, index, src), (dim, reduce, builtins.bool(include_self)))


def _along(index, dim, shape):
    """A 1-d index along ``dim``, as the full index tuple of a tensor of ``shape`` (index_add/copy/reduce)."""
    i = index.reshape(-1)
    bshape = tuple(shape)
    col = i.reshape(tuple(-1 if a == dim else 1 for a in range(len(bshape))))
    col = jnp.broadcast_to(col, bshape)
    return tuple(col if a == dim else lax.broadcasted_iota(i.dtype, bshape, a) for a in range(len(bshape)))


@op('_index_reduce', static=('dim', 'reduce', 'include_self'), diff=('input', 'source'), node='IndexReduceBackward0',
    function=False, method=False)
def _index_reduce(input, dim, index, source, reduce, *, include_self=True):
    shape = input.shape
    x, s = _at1(input), _at1(source)
    return _reduce_into(x, _along(index, dim, s.shape), s, reduce, include_self).reshape(shape)


def _index_func_checks(input, dim, index, source, func):
    """torch's index_func_meta_impl (index_add / index_reduce)."""
    dim = _dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"{func}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{_tname(index.dtype)} and size: {_shp(index.shape)}")
    if not _idx_ok(index):
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {_tname(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"{func}_(): self ({_tname(input.dtype)}) and source ({_tname(source.dtype)}) must have "
                           "the same scalar type")
    if not (dim == 0 or dim < source.ndim):
        raise IndexError(f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                         f"{source.ndim}")
    n_src = 1 if source.ndim == 0 else source.shape[dim]
    if index.numel() != n_src:
        raise RuntimeError(f"{func}_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({n_src}), for dim: {dim}")
    ss, cs = list(input.shape), list(source.shape)
    if source.ndim and input.ndim:
        del ss[dim]
        del cs[dim]
    if ss != cs:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {_shp(input.shape)} source.shape = {_shp(source.shape)}")
    return dim


_IR = ('prod', 'mean', 'amax', 'amin')


def _index_reduce_checked(input, dim, index, source, reduce):
    for nm, pos, v in (('input', 1, input), ('index', 3, index), ('source', 4, source)):
        _need_tensor('index_reduce', nm, pos, v)
    if reduce not in _IR:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim = _index_func_checks(input, dim, index, source, 'index_reduce')
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, lambda v: IndexError("index out of range in self"))
    return dim


@public('index_reduce', method=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    dim = _index_reduce_checked(input, dim, index, source, reduce)
    return dispatch.apply(_index_reduce, (input, index, source), (dim, reduce, builtins.bool(include_self)), out)


@method('index_reduce_')
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    dim = _index_reduce_checked(self, dim, index, source, reduce)
    return dispatch.apply_inplace(_index_reduce, (self, index, source), (dim, reduce, builtins.bool(include_self)))


# ---- index_select / index_add / index_copy / index_fill --------------------------------

@op('_index_select', static=('dim',), diff=('input',), saves=(), node='IndexSelectBackward0',
    function=False, method=False)
def _index_select(input, index, *, dim):
    i = index.reshape(-1)
    if input.ndim == 0:
        return input.reshape(1).at[i].get(mode='promise_in_bounds').reshape(())
    return jnp.take(input, i, axis=dim, mode='clip')


@public('index_select', method=True)
def index_select(input, dim, index, *, out=None):
    _need_tensor('index_select', 'input', 1, input)
    _need_tensor('index_select', 'index', 3, index)
    dim = _dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not _idx_ok(index):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    n = _nesize(input.shape, dim)
    if dim == 1 and input.ndim > 1:      # torch's CPU kernel for dim 1 has its own message
        err = lambda v: RuntimeError(f"INDICES element is out of DATA bounds, id={v} axis_dim={n}")  # noqa: E731
    else:
        err = lambda v: IndexError("index out of range in self")  # noqa: E731
    _check_range(index, 0, n, err)
    return dispatch.apply(_index_select, (input, index), (dim,), out)


def _dim_index(index, dim):
    return (slice(None),) * dim + (index.reshape(-1),)


@op('_index_add', static=('dim',), diff=('input', 'source'), saves=(), node='IndexAddBackward0',
    function=False, method=False)
def _index_add(input, index, source, alpha, *, dim):
    shape = input.shape
    x, s = _at1(input), _at1(source)
    s = s * jnp.asarray(alpha).astype(x.dtype)
    return x.at[_dim_index(index, dim)].add(s, mode='promise_in_bounds').reshape(shape)


def _index_add_checked(input, dim, index, source, alpha):
    for nm, pos, v in (('input', 1, input), ('index', 3, index), ('source', 4, source)):
        _need_tensor('index_add', nm, pos, v)
    dim = _index_func_checks(input, dim, index, source, 'index_add')
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, _oob(dim, n))
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    return dim, _scalar(alpha, input.dtype)


@public('index_add', method=True)
def index_add(input, dim, index, source, *, alpha=1, out=None):
    dim, alpha = _index_add_checked(input, dim, index, source, alpha)
    return dispatch.apply(_index_add, (input, index, source, alpha), (dim,), out)


@method('index_add_')
def index_add_(self, dim, index, source, *, alpha=1):
    dim, alpha = _index_add_checked(self, dim, index, source, alpha)
    return dispatch.apply_inplace(_index_add, (self, index, source, alpha), (dim,))


@op('_index_copy', static=('dim',), diff=('input', 'source'), saves=(), node='IndexCopyBackward0',
    function=False, method=False)
def _index_copy(input, index, source, *, dim):
    shape = input.shape
    x, s = _at1(input), _at1(source)
    return x.at[_dim_index(index, dim)].set(s, mode='promise_in_bounds').reshape(shape)


def _index_copy_checked(input, dim, index, source):
    for nm, pos, v in (('input', 1, input), ('index', 3, index), ('source', 4, source)):
        _need_tensor('index_copy', nm, pos, v)
    dim = _dim(dim, input.ndim)
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    ni = index.numel()
    if source.ndim == 0 and ni != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {ni})")
    if source.ndim != input.ndim and source.ndim != 0 and input.ndim != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if index.dtype is not D.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_tname(input.dtype)} and (source) {_tname(source.dtype)}")
    ss, cs = list(input.shape), list(source.shape)
    if ss:
        del ss[dim]
    if cs:
        del cs[dim]
    if ss != cs:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, ss))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, cs))} at dimension 0.")
    if source.ndim and ni != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({ni}) should be equal to source.size(dim) "
                         f"({source.shape[dim]})")
    n = _nesize(input.shape, dim)
    _check_range(index, 0, n, _oob(dim, n, IndexError, 'index_copy_(): '))
    return dim


@public('index_copy', method=True)
def index_copy(input, dim, index, source, *, out=None):
    dim = _index_copy_checked(input, dim, index, source)
    return dispatch.apply(_index_copy, (input, index, source), (dim,), out)


@method('index_copy_')
def index_copy_(self, dim, index, source):
    dim = _index_copy_checked(self, dim, index, source)
    return dispatch.apply_inplace(_index_copy, (self, index, source), (dim,))


def _index_fill_body(input, index, value, *, dim):
    # a mask along dim (so a repeated index fills once: the value's gradient counts each slot once, as torch)
    shape = input.shape
    x = _at1(input)
    n = x.shape[dim]
    hit = jnp.zeros((n,), jnp.bool_).at[index.reshape(-1)].set(True, mode='promise_in_bounds')
    hit = hit.reshape(tuple(n if a == dim else 1 for a in range(x.ndim)))
    return jnp.where(hit, _cast_to(jnp.asarray(value), x.dtype), x).reshape(shape)


_index_fill_scalar = op('_index_fill_scalar', static=('dim',), diff=('input',), saves=(), node='IndexFillBackward0',
                        function=False, method=False)(_index_fill_body)
_index_fill_tensor = op('_index_fill_tensor', static=('dim',), diff=('input', 'value'), saves=(),
                        node='IndexFillBackward1', function=False, method=False)(_index_fill_body)


def _index_fill_checked(input, dim, index, value):
    _need_tensor('index_fill', 'input', 1, input)
    _need_tensor('index_fill', 'index', 3, index)
    dim = _dim(dim, input.ndim)
    if index.dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        o = _index_fill_tensor
    else:
        value = _scalar(value, input.dtype)
        o = _index_fill_scalar
    n = _nesize(input.shape, dim)
    _check_range(index, -n, n, _oob(dim, n, IndexError))
    return dim, value, o


@public('index_fill', method=True)
def index_fill(input, dim, index, value):
    dim, value, o = _index_fill_checked(input, dim, index, value)
    return dispatch.apply(o, (input, index, value), (dim,))


@method('index_fill_')
def index_fill_(self, dim, index, value):
    dim, value, o = _index_fill_checked(self, dim, index, value)
    return dispatch.apply_inplace(o, (self, index, value), (dim,))


# ---- masked_fill / masked_select / masked_scatter --------------------------------------

def _masked_fill_body(input, mask, value):
    return jnp.where(mask, _cast_to(jnp.asarray(value), input.dtype), input)


_masked_fill_scalar = op('_masked_fill_scalar', diff=('input',), saves=(), node='MaskedFillBackward0',
                         function=False, method=False)(_masked_fill_body)
_masked_fill_tensor = op('_masked_fill_tensor', diff=('input', 'value'), saves=(), node='MaskedFillBackward1',
                         function=False, method=False)(_masked_fill_body)


def _masked_fill_checked(input, mask, value):
    _need_tensor('masked_fill', 'input', 1, input)
    _need_tensor('masked_fill', 'mask', 2, mask)
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_MASK_CNAME.get(mask.dtype.name, mask.dtype.name)}")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        o = _masked_fill_tensor
    else:
        value = _scalar(value, input.dtype)
        o = _masked_fill_scalar
    _broadcast(mask.shape, input.shape)
    return value, o


@public('masked_fill', method=True)
def masked_fill(input, mask, value):
    value, o = _masked_fill_checked(input, mask, value)
    return dispatch.apply(o, (input, mask, value))


@method('masked_fill_')
def masked_fill_(self, mask, value):
    value, o = _masked_fill_checked(self, mask, value)
    return dispatch.apply_inplace(o, (self, mask, value))


@op('_flat_nonzero', static=('shape',), jit=False, differentiable=False, function=False, method=False)
def _flat_nonzero(mask, *, shape):
    m = np.broadcast_to(np.asarray(mask), shape)
    return _on_device_of(np.flatnonzero(m).astype(np.int64), mask)


@op('_masked_select', static=('shape',), diff=('input',), node='MaskedSelectBackward0', function=False, method=False)
def _masked_select(input, index, *, shape):
    return jnp.broadcast_to(input, shape).reshape(-1).at[index].get(mode='promise_in_bounds')


@public('masked_select', method=True)
def masked_select(input, mask, *, out=None):
    _need_tensor('masked_select', 'input', 1, input)
    _need_tensor('masked_select', 'mask', 2, mask)
    if mask.dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast(mask.shape, input.shape)
    idx = dispatch.apply(_flat_nonzero, (mask,), (shape,))
    return dispatch.apply(_masked_select, (input, idx), (shape,), out)


@op('_masked_scatter', diff=('input', 'source'), saves=(), node='MaskedScatterBackward0',
    function=False, method=False)
def _masked_scatter(input, mask, source):
    shape = jnp.broadcast_shapes(input.shape, mask.shape)
    m = jnp.broadcast_to(mask, shape).reshape(-1)
    x = jnp.broadcast_to(input, shape).reshape(-1)
    src = source.reshape(-1)
    if src.size == 0:
        return x.reshape(shape)
    pos = jnp.clip(jnp.cumsum(m, dtype=jnp.int64) - 1, 0, src.size - 1)
    return jnp.where(m, src[pos], x).reshape(shape)


@jax.jit
def _count_true(m):
    return jnp.sum(m, dtype=jnp.int64)


def _masked_scatter_checked(input, mask, source, inplace=False):
    _need_tensor('masked_scatter', 'input', 1, input)
    _need_tensor('masked_scatter', 'mask', 2, mask)
    _need_tensor('masked_scatter', 'source', 3, source)
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {_tname(mask.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_tname(input.dtype)} and {_tname(source.dtype)}")
    shape = _broadcast(mask.shape, input.shape)
    if inplace:
        _check_expand(mask.shape, input.shape, f"CPUBoolType{{{_shp(mask.shape)}}}")
    n = int(jax.device_get(_count_true(mask._value())))
    if n and n * (math.prod(shape) // max(mask.numel(), 1)) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return shape


@public('masked_scatter', method=True)
def masked_scatter(input, mask, source):
    _masked_scatter_checked(input, mask, source)
    return dispatch.apply(_masked_scatter, (input, mask, source))


@method('masked_scatter_')
def masked_scatter_(self, mask, source):
    _masked_scatter_checked(self, mask, source, inplace=True)
    return dispatch.apply_inplace(_masked_scatter, (self, mask, source))


# ---- take / take_along_dim / put -------------------------------------------------------

@op('_take', diff=('input',), node='TakeBackward0', function=False, method=False)
def _take(input, index):
    return input.reshape(-1).at[index].get(mode='promise_in_bounds')


def _flat_oob(n):
    return lambda v: IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements.")


@public('take', method=True)
def take(input, index, *, out=None):
    _need_tensor('take', 'input', 1, input)
    _need_tensor('take', 'index', 2, index)
    if index.dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    _check_range(index, -n, n, _flat_oob(n))
    return dispatch.apply(_take, (input, index), (), out)


@op('_take_along_dim', static=('dim',), diff=('input',), node='GatherBackward0', function=False, method=False)
def _take_along_dim(input, indices, *, dim):
    if dim is None:
        return input.reshape(-1)[indices.reshape(-1)]
    shape = jnp.broadcast_shapes(tuple(1 if a == dim else s for a, s in enumerate(input.shape)),
                                 tuple(1 if a == dim else s for a, s in enumerate(indices.shape)))
    x = jnp.broadcast_to(input, tuple(input.shape[a] if a == dim else s for a, s in enumerate(shape)))
    i = jnp.broadcast_to(indices, tuple(indices.shape[a] if a == dim else s for a, s in enumerate(shape)))
    if x.shape[dim]:
        i = jnp.mod(i, x.shape[dim])      # torch wraps indices along dim (Python-style modulo)
    return jnp.take_along_axis(x, i, axis=dim, mode='clip')


@public('take_along_dim', method=True)
def take_along_dim(input, indices, dim=None, *, out=None):
    _need_tensor('take_along_dim', 'input', 1, input)
    _need_tensor('take_along_dim', 'indices', 2, indices)
    if indices.dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_tname(indices.dtype)}")
    if dim is None:
        n = input.numel()
        _check_range(indices, 0, n, _oob(0, n))
        return dispatch.apply(_take_along_dim, (input, indices), (None,), out)
    dim = _dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    a = tuple(1 if k == dim else s for k, s in enumerate(input.shape))
    b = tuple(1 if k == dim else s for k, s in enumerate(indices.shape))
    _broadcast(a, b)
    if _nesize(input.shape, dim) == 0 and indices.numel():
        raise RuntimeError("ZeroDivisionError")
    return dispatch.apply(_take_along_dim, (input, indices), (dim,), out)


@op('_put', static=('accumulate',), diff=('input', 'source'), saves=(), node='PutBackward0',
    function=False, method=False)
def _put(input, index, source, *, accumulate):
    ref = input.reshape(-1).at[index.reshape(-1)]
    s = source.reshape(-1)
    r = ref.add(s, mode='promise_in_bounds') if accumulate else ref.set(s, mode='promise_in_bounds')
    return r.reshape(input.shape)


def _put_checked(input, index, source):
    for nm, pos, v in (('input', 1, input), ('index', 2, index), ('source', 3, source)):
        _need_tensor('put_', nm, pos, v)
    if index.dtype is not D.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_tname(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_tname(input.dtype)} and source.dtype = {_tname(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    _check_range(index, -n, n, _flat_oob(n))


@public('put', method=True)
def put(input, index, source, accumulate=False):
    _put_checked(input, index, source)
    return dispatch.apply(_put, (input, index, source), (builtins.bool(accumulate),))


@method('put_')
def put_(self, index, source, accumulate=False):
    _put_checked(self, index, source)
    return dispatch.apply_inplace(_put, (self, index, source), (builtins.bool(accumulate),))
