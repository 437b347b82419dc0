"""Indexing: ``Tensor.__getitem__``/``__setitem__``, index_put/index_put_, nonzero/argwhere/nonzero_static,
the in-place writers ``copy_``/``fill_``/``zero_``, and the argument/range-check helpers shared with
scatter_gather.py (gather, scatter(_add/_reduce), index_reduce, take, take_along_dim, put) and
index_masked.py (index_select/add/copy/fill, masked_fill/select/scatter).

Note [Indexing]
``x[idx]`` is parsed (``_parse``) the way PyTorch's ``applySlicing`` does it: ints, slices, None, Ellipsis
and 0-dim integer tensors are *basic* and become ONE view op (slice + reshape: index-only, so writes through
it reach the base, Note [Views]); its node name is that of the last view torch would apply
(Select/Slice/Unsqueeze/AliasBackward0). When no gradient is being recorded the view's body passes the start
indices to its compiled program as data (``_slice_dyn``; in lazy mode inputs of the step's program), so
``x[i]`` over many ``i`` (data loading, nanoGPT's ``data[i:i + block]``) compiles once, not once per index.
Integer tensors, lists, numpy arrays, boolean masks and Python bools are *advanced*: they index the basic
view with one gather (``_index``, differentiable; repeated indices accumulate in the gradient). Advanced dims
go where torch puts them once the basic part has been applied (NumPy's rule: in place when the indexed dims
are adjacent, in front otherwise). Boolean masks have data-dependent shapes: they become integer indices on
the host (``nonzero``), so the gather and its gradient stay compiled programs. Out-of-range integer indices
are found with one small compiled reduction and raise torch's IndexError. In lazy mode the check of a pending
index is an output of the step's program, raised at its sync (Note [Lazy execution]).

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
from .._engine import lazy
from .._engine.lazy import LazyArray

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


def _first_oob_body(a, lo, hi, ignore=None):
    f = a.ravel().astype(jnp.int64)        # (uint8 targets compare with a negative ignore_index)
    bad = (f < lo) | (f >= hi)
    if ignore is not None:
        bad = bad & (f != ignore)
    i = jnp.argmax(bad)
    return bad[i], f[i]


_first_oob = jax.jit(_first_oob_body, static_argnames='ignore')
_first_oob_lazy = jax.jit(_first_oob_body)      # a step program's input: bounds and ignore index not static


def _check_range(idx, lo, hi, make_error, ignore=None):
    """Raise ``make_error(value)`` for the first element of ``idx`` outside [lo, hi) (other than ``ignore``).
    A pending index in lazy mode is checked by the program that computes it, and the error raised at its sync
    (``lazy.defer_check``, Note [Lazy execution]); a traced one under torch.compile is not checked (the
    program's gather clamps)."""
    if isinstance(idx, Tensor):
        idx = idx._raw()
    if type(idx) is LazyArray:
        if idx.value is None:
            if idx.size:
                lazy.defer_check(_first_oob_lazy, '_first_oob', (idx, lo, hi, ignore), make_error)
            return
        idx = idx.value
    if idx.size == 0 or isinstance(idx, jax.core.Tracer):
        return
    if isinstance(idx, np.ndarray) or next(iter(idx.devices())).platform == 'cpu':
        # values already in host memory: numpy reads them in place (a device program and its transfer cost
        # ~10x more, e.g. ~50 vs 5 us for a batch of 128 class targets)
        f = np.asarray(idx).ravel()
        bad = (f < lo) | (f >= hi)
        if ignore is not None:
            bad &= f != ignore
        if bad.any():
            raise make_error(int(f[np.argmax(bad)]))
        return
    bad, v = jax.device_get(_first_oob(idx, lo, hi, ignore))
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
_slice_programs = {}


def _lazy_slice(key, arrays):
    # in lazy mode the starts are inputs of the step's program, as they are data of the eager one
    starts, sizes, strides, shape = key[0][0]
    if starts is None:
        return None
    k = (sizes, strides, shape)
    f = _slice_programs.get(k)
    if f is None:
        f = _slice_programs[k] = jax.jit(lambda x, *st: _slice_dyn(x, st, sizes=sizes, strides=strides, shape=shape))
    return f, ('_slice_dyn', k), (arrays[0], *starts)


_VIEW_DYN = {k: op(f'_getitem_{k}_dyn', static=('spec',), view=True, saves=(), node=n, jit=False, function=False,
                   method=False, lazy_record=_lazy_slice)(_basic_dyn)
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
            arrays.append(obj._raw() if isinstance(obj, Tensor) else obj)
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
    shape = tuple(self.shape)
    spec, kind, adv, out = _parse(shape, index)
    if adv and spec is None:
        y = self
    else:
        y = _view(self, kind, spec or (None, None, None, out))
    if not adv:
        return y
    dims, arrays, check, _ = _prepare_adv(out, adv)
    arrays = _finish_adv(out, dims, arrays, check, self._raw())
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
    shape = tuple(self.shape)
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
            m = _on_device_of(m, target._raw())
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
    arrays = _finish_adv(tshape, dims, arrays, check, target._raw())
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


# ---- unravel_index (torch/functional.py's composite) --------------------------------------------

@public('unravel_index')
def unravel_index(indices, shape):
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.dtype._cat != 1:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, builtins.bool) or not isinstance(shape, (int, tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    shape = tuple(shape)
    if not all(d >= 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs, c = [], 1
    for d in reversed(shape[1:] + (1,)):
        c *= d
        coefs.append(c)
    coefs.reverse()
    from .creation import tensor
    res = indices.unsqueeze(-1).floor_divide(tensor(coefs, dtype=D.int64)) % tensor(shape, dtype=D.int64)
    return res.unbind(-1)
