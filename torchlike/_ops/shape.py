"""Shape ops that are views: view/reshape/flatten/unflatten, transposes and permutations, squeeze/unsqueeze,
expand/broadcast, narrow/select, diagonal, unfold, view_as_real/view_as_complex, atleast_1d/2d/3d.

Every op that is a view in PyTorch is registered with ``view=True`` and an index-only body (see
Note [Views] in _engine/views.py): the body only moves elements, so re-applied to an int64 iota it
yields each view element's position in the base.

Overloaded or varargs front ends (``x.view(2, 3)`` / ``x.view((2, 3))``, ...) are hand-written public
functions that normalise their arguments and call the ops.

The rest of the shape family: view_geometry.py (strides, storage offset, contiguity, as_strided),
joining.py (unbind/split/chunk/tensor_split, cat/stack), rearrange.py (repeat/tile, flip/roll/rot90,
meshgrid/cartesian_prod/combinations) and tri_diag.py (tril/triu, diag/diag_embed, block_diag).
"""
import builtins
import math
import operator
import warnings

from .. import _dtype as D
from .._engine.registry import op, public, method
from .._engine import dispatch, views
from .._engine.jaxrt import jnp, lax
from .._tensor import Tensor, Size
from ._util import wrap_dim, wrap_dims
from ._shape_args import _int, _int_seq, _varargs_ints, _int_or_seq, _type_str
from .view_geometry import _viewable, view_is_contiguous
# re-exported: _tensor.py, serialization.py, inplace_views.py and view_scatter.py reach these as shape.X
from .view_geometry import (view_geometry, view_storage_offset, has_internal_overlap,  # noqa: F401
                            _contiguous_strides, _as_strided, as_strided)


# ---- view / reshape -------------------------------------------------------------------------

def _infer_size(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = math.prod(s for s in shape if s != -1)
    if neg:
        if known == 0:
            if numel == 0:
                raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} because the "
                                   "unspecified dimension size -1 can be any value and is ambiguous")
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        if numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


@op('_view', static=('size',), view=True, node='ViewBackward0', saves=(), function=False, method=False)
def _view(input, *, size):
    return input.reshape(size)


def _view_to(t, size):
    return dispatch.apply(_view, (t,), (tuple(size),))


@op('_reshape_copy', static=('size',), node='UnsafeViewBackward0', saves=(), function=False, method=False)
def _reshape_copy(input, *, size):
    return input.reshape(size)


def _reshape_to(t, size):
    """PyTorch's reshape: a view when the strides allow one, else a copy."""
    size = tuple(size)
    if t._base is None or _viewable(t, size):
        return dispatch.apply(_view, (t,), (size,))
    return dispatch.apply(_reshape_copy, (t,), (size,))


_VIEW_ERR = ("view size is not compatible with input tensor's size and stride (at least one dimension spans across "
             "two contiguous subspaces). Use .reshape(...) instead.")


def _view_checked(t, size):
    size = tuple(size)
    if t._base is not None and not _viewable(t, size):
        raise RuntimeError(_VIEW_ERR)
    return dispatch.apply(_view, (t,), (size,))


@method('view')
def view(self, *shape, size=None, dtype=None):
    if dtype is not None:
        if shape or size is not None:
            raise TypeError("view() received an invalid combination of arguments - got both a size and a dtype")
        shape = (dtype,)
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        for flag, what in (('_conj_bit', 'conjugate view tensors'), ('_neg_bit', 'tensors with negative bit set')):
            if self.__dict__.get(flag, False):
                raise RuntimeError(f"torch.Tensor.view is not supported for {what} when converting to a different "
                                   "dtype.")
        if shape[0] is self.dtype:
            return _view_to(self, self.shape)
        from .view_dtype import view_dtype
        return dispatch.apply(view_dtype, (self,), (shape[0],))
    s = _varargs_ints(shape, size, 'view', 'size')
    return _view_checked(self, _infer_size(s, self.numel()))


@public('reshape')
def reshape(input, shape):
    s = _int_seq(shape, 'reshape', 'shape', 2)
    return _reshape_to(input, _infer_size(s, input.numel()))


@method('reshape')
def _reshape_method(self, *shape, **kw):
    if kw and set(kw) != {'shape'}:
        raise TypeError(f"reshape() got an unexpected keyword argument '{next(k for k in kw if k != 'shape')}'")
    s = _varargs_ints(shape, kw.get('shape'), 'reshape', 'shape')
    return _reshape_to(self, _infer_size(s, self.numel()))


@method('view_as')
def view_as(self, other):
    return view(self, tuple(other.shape))


@method('reshape_as')
def reshape_as(self, other):
    return reshape(self, tuple(other.shape))


@public('flatten', method=True)
def flatten(input, start_dim=0, end_dim=-1):
    n = input.ndim
    s = wrap_dim(_int(start_dim, 'flatten', 'start_dim', 2), n)
    e = wrap_dim(_int(end_dim, 'flatten', 'end_dim', 3), n)
    if n == 0:
        return _view_to(input, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = tuple(input.shape)
    return _reshape_to(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


@public('ravel', method=True)
def ravel(input):
    if input._base is not None and not view_is_contiguous(input):
        input = input.clone()             # contiguous().view(-1), as PyTorch
    return _view_to(input, (input.numel(),))


@public('unflatten', method=True)
def unflatten(input, dim, sizes):
    n = input.ndim
    d = wrap_dim(_int(dim, 'unflatten', 'dim', 2), n)
    sizes = _int_seq(sizes, 'unflatten', 'sizes', 3)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = tuple(input.shape)
    cur = shape[d] if n else 1
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    try:
        sizes = _infer_size(sizes, cur)
    except RuntimeError:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({cur}) in the input tensor") from None
    return _view_checked(input, shape[:d] + sizes + shape[d + 1:])


# ---- transposes and permutations ---------------------------------------------------------------

@op('_permute', static=('dims',), view=True, node='PermuteBackward0', saves=(), function=False, method=False)
def _permute(input, *, dims):
    return jnp.transpose(input, dims)


def _permute_checked(input, dims):
    n = input.ndim
    if len(dims) != n:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}")
    w = tuple(wrap_dim(d, n) for d in dims)
    if len(set(w)) != len(w):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return dispatch.apply(_permute, (input,), (w,))


@public('permute')
def permute(input, dims):
    return _permute_checked(input, _int_seq(dims, 'permute', 'dims', 2))


@method('permute')
def _permute_method(self, *dims, **kw):
    if kw and set(kw) != {'dims'}:
        raise TypeError(f"permute() got an unexpected keyword argument '{next(k for k in kw if k != 'dims')}'")
    return _permute_checked(self, _varargs_ints(dims, kw.get('dims'), 'permute', 'dims'))


@op('transpose', static=('dim0', 'dim1'), view=True, saves=(), aliases=('swapdims',))
def transpose(input, dim0, dim1):
    n = input.ndim
    a, b = wrap_dim(dim0, n), wrap_dim(dim1, n)
    if n == 0:
        return input
    return jnp.swapaxes(input, a, b)


@public('swapaxes', method=True)
def swapaxes(input, axis0, axis1):
    return transpose(input, axis0, axis1)


@op('t', view=True, saves=())
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return input.T if input.ndim == 2 else input


def _mT(input, what):
    n = input.ndim
    if n == 0:
        return input
    if n < 2:
        raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of matrices. Got {n}-D tensor.")
    return transpose(input, -2, -1)


def _adjoint(input, what):
    n = input.ndim
    if 0 < n < 2:
        raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of matrices. Got {n}-D tensor.")
    t = input if n == 0 else transpose(input, -2, -1)
    return t.conj() if input.dtype.is_complex else t     # a conj view of the transpose, as torch


@public('adjoint', method=True)
def adjoint(input):
    return _adjoint(input, 'adjoint()')


def _T(self):
    n = self.ndim
    if n == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=2)
        return self
    if n != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                      "tensor.", UserWarning, stacklevel=2)
    return dispatch.apply(_permute, (self,), (tuple(range(n - 1, -1, -1)),))


def _H(self):
    n = self.ndim
    if n > 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor. For batches of "
                           "matrices, consider using tensor.mH")
    if n == 1:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor.")
    return _adjoint(self, 'H')


setattr(Tensor, 'T', property(_T))
setattr(Tensor, 'mT', property(lambda self: _mT(self, 'mT')))
setattr(Tensor, 'H', property(_H))
setattr(Tensor, 'mH', property(lambda self: _adjoint(self, 'mH')))


def _dims_arg(v, fname, argname, pos):
    return _int_or_seq(v, fname, argname, pos)


@public('movedim', method=True, aliases=('moveaxis',))
def movedim(input, source, destination):
    n = input.ndim
    if isinstance(source, (tuple, list)) != isinstance(destination, (tuple, list)):
        raise TypeError(f"movedim() received an invalid combination of arguments - got ({type(source).__name__}, "
                        f"{type(destination).__name__}), but expected one of: (int source, int destination) or "
                        "(tuple of ints source, tuple of ints destination)")
    src = _dims_arg(source, 'movedim', 'source', 2)
    dst = _dims_arg(destination, 'movedim', 'destination', 3)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    ws = [wrap_dim(s, n) for s in src]
    wd = [wrap_dim(d, n) for d in dst]
    if len(set(ws)) != len(ws):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(wd)) != len(wd):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    perm = [-1] * n
    for s, d in zip(ws, wd):
        perm[d] = s
    rest = iter(i for i in range(n) if i not in ws)
    perm = tuple(p if p >= 0 else next(rest) for p in perm)
    return dispatch.apply(_permute, (input,), (perm,))


# ---- squeeze / unsqueeze --------------------------------------------------------------------

def _squeeze_body(input, dims):
    keep = tuple(s for i, s in enumerate(input.shape) if not (s == 1 and (dims is None or i in dims)))
    return input.reshape(keep)


@op('_squeeze', view=True, node='SqueezeBackward0', saves=(), function=False, method=False)
def _squeeze(input):
    return _squeeze_body(input, None)


@op('_squeeze_dim', static=('dim',), view=True, node='SqueezeBackward1', saves=(), function=False, method=False)
def _squeeze_dim(input, *, dim):
    return _squeeze_body(input, (wrap_dim(dim, input.ndim),))


@op('_squeeze_dims', static=('dims',), view=True, node='SqueezeBackward2', saves=(), function=False, method=False)
def _squeeze_dims(input, *, dims):
    return _squeeze_body(input, wrap_dims(dims, input.ndim))


@public('squeeze', method=True)
def squeeze(input, dim=None):
    if dim is None:
        return dispatch.apply(_squeeze, (input,))
    if isinstance(dim, (tuple, list)):
        return dispatch.apply(_squeeze_dims, (input,), (_int_seq(dim, 'squeeze', 'dim', 2),))
    return dispatch.apply(_squeeze_dim, (input,), (_int(dim, 'squeeze', 'dim', 2),))


@op('unsqueeze', static=('dim',), view=True, saves=())
def unsqueeze(input, dim):
    return jnp.expand_dims(input, wrap_dim(dim, input.ndim + 1))


# ---- expand ------------------------------------------------------------------------------------

@op('_expand', static=('size',), view=True, node='ExpandBackward0', saves=(), function=False, method=False)
def _expand(input, *, size):
    return jnp.broadcast_to(input, size)


def _expand_shape(t, sizes):
    shape = tuple(t.shape)
    n, nd = len(sizes), len(shape)
    if n < nd:
        raise RuntimeError(f"expand({_type_str(t)}, size={list(sizes)}): the number of sizes provided ({n}) must be "
                           f"greater or equal to the number of dimensions in the tensor ({nd})")
    out = []
    for i, s in enumerate(sizes):
        j = i - (n - nd)
        if j < 0:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
        else:
            cur = shape[j]
            if s == -1:
                s = cur
            elif cur != s and cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                                   f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                                   f"Tensor sizes: {list(shape)}")
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(sizes)}")
        out.append(s)
    return tuple(out)


def _overlapping(r, t):
    # a result holding some element of ``t`` more than once (stride-0 dims): in-place writes to it raise
    if r.numel() > t.numel():
        r.__dict__['_may_overlap'] = True
    return r


def _expand_raw(t, shape):
    return _overlapping(dispatch.apply(_expand, (t,), (shape,)), t)


def _expand_to(t, sizes):
    return _expand_raw(t, _expand_shape(t, sizes))


@method('expand')
def expand(self, *sizes, size=None):
    return _expand_to(self, _varargs_ints(sizes, size, 'expand', 'size'))


@method('expand_as')
def expand_as(self, other):
    return _expand_to(self, tuple(other.shape))


@public('broadcast_to', method=True)
def broadcast_to(input, size):
    return _expand_to(input, _int_seq(size, 'broadcast_to', 'size', 2))


def _broadcast_pair(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
    return tuple(out)


@public('broadcast_tensors')
def broadcast_tensors(*tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    if not tensors:
        return ()
    shape = ()
    for t in tensors:
        shape = _broadcast_pair(shape, tuple(t.shape))
    return tuple(t if tuple(t.shape) == shape else _expand_raw(t, shape) for t in tensors)


@public('broadcast_shapes')
def broadcast_shapes(*shapes):
    norm, orig = [], []
    for s in shapes:
        if s is None:
            continue
        orig.append(s)
        if isinstance(s, (tuple, list)):
            norm.append(tuple(operator.index(v) for v in s))
        else:
            try:
                norm.append((operator.index(s),))
            except TypeError:
                raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}") \
                    from None
    if not norm:
        return Size(())
    common = [1] * builtins.max(len(s) for s in norm)
    for k, s in enumerate(norm):
        for idx in range(-1, -1 - len(s), -1):
            if s[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if s[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = s[idx]
            if s[idx] == 1:
                continue
            if common[idx] != s[idx]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[idx]} at {idx}! Mismatching "
                                   f"argument at index {k} had {orig[k] if isinstance(orig[k], (tuple, list)) else s}; "
                                   f"but expected shape should be broadcastable to {common}")
    return Size(common)


# ---- slicing views: narrow, select (unbind/split/chunk/tensor_split: joining.py) -------------

@op('_slice', static=('dim', 'start', 'stop'), view=True, node='SliceBackward0', saves=(), function=False,
    method=False)
def _slice(input, *, dim, start, stop):
    return lax.slice_in_dim(input, start, stop, 1, axis=dim)


def _narrow_bounds(input, dim, start, length, fname='narrow'):
    if input.ndim == 0:
        raise RuntimeError(f"{fname}() cannot be applied to a 0-dim tensor.")
    start = _int(start, fname, 'start', 3)
    length = _int(length, fname, 'length', 4)
    if length < 0:
        raise RuntimeError(f"{fname}(): length must be non-negative.")
    d = wrap_dim(_int(dim, fname, 'dim', 2), input.ndim)
    cur = input.shape[d]
    if not -cur <= start <= cur:
        raise IndexError(f"start out of range (expected to be in range of [{-cur}, {cur}], but got {start})")
    if start < 0:
        start += cur
    if start > cur - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({cur}).")
    return d, start, start + length


@public('narrow', method=True)
def narrow(input, dim, start, length):
    return dispatch.apply(_slice, (input,), _narrow_bounds(input, dim, start, length))


@op('_narrow_copy', static=('dim', 'start', 'stop'), node='NarrowCopyBackward0', saves=(), function=False,
    method=False, out=True)
def _narrow_copy(input, *, dim, start, stop):
    return lax.slice_in_dim(input, start, stop, 1, axis=dim)


@public('narrow_copy', method=True)
def narrow_copy(input, dim, start, length, *, out=None):
    return dispatch.apply(_narrow_copy, (input,), _narrow_bounds(input, dim, start, length), out)


@op('select', static=('dim', 'index'), view=True, saves=())
def select(input, dim, index):
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {dim}")
    return lax.index_in_dim(input, index % n, d, keepdims=False)


# ---- diagonal, unfold ---------------------------------------------------------------------------

def _diag_dims(ndim, dim1, dim2):
    a, b = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return a, b


@op('diagonal', static=('offset', 'dim1', 'dim2'), view=True, saves=())
def diagonal(input, offset=0, dim1=0, dim2=1):
    a, b = _diag_dims(input.ndim, dim1, dim2)
    return jnp.diagonal(input, offset, a, b)


@op('unfold', static=('dimension', 'size', 'step'), view=True, saves=(), function=False)
def unfold(input, dimension, size, step):
    n = input.ndim
    d = wrap_dim(dimension, n)
    length = input.shape[d] if n else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if n == 0:
        return jnp.take(input.reshape(1), jnp.arange(size, dtype=jnp.int64), mode='clip')
    count = (length - size) // step + 1
    idx = (lax.broadcasted_iota(jnp.int64, (count, size), 0) * step
           + lax.broadcasted_iota(jnp.int64, (count, size), 1)).reshape(-1)
    g = jnp.take(input, idx, axis=d, mode='clip')
    g = g.reshape(input.shape[:d] + (count, size) + input.shape[d + 1:])
    return jnp.moveaxis(g, d + 1, -1)


# ---- complex <-> real pairs: reinterpreting views (views.REINTERPRET) ------------------------

@op('view_as_real', view=True, saves=(), function=False, method=False, out=False)
def _view_as_real(input):
    if not jnp.iscomplexobj(input):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1)


@public('view_as_real')
def view_as_real(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"view_as_real(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.__dict__.get('_conj_bit', False):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    return dispatch.apply(_view_as_real, (input,))


@op('view_as_complex', view=True, saves=(), method=False, out=False)
def view_as_complex(input):
    dt = D.from_np(input.dtype)
    if dt not in (D.float32, D.float64, D.float16):
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {dispatch._tname(dt)}")
    if dt is D.float16:
        raise NotImplementedError("view_as_complex(): complex32 (ComplexHalf) is not supported by torchlike")
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return lax.complex(input[..., 0], input[..., 1])


def _real_dtype(dt):
    import numpy as np
    return np.dtype(f'f{np.dtype(dt).itemsize // 2}')


def _as_real_offsets(p, dt, key):
    return jnp.stack([p, p + dt.itemsize // 2], axis=-1), _real_dtype(dt)


def _as_complex_offsets(p, dt, key):
    import numpy as np
    return p[..., 0], np.dtype(f'c{dt.itemsize * 2}')


views.reinterpreting('view_as_real', lambda w, v: lax.complex(w[..., 0], w[..., 1]).astype(v.dtype), _as_real_offsets)
views.reinterpreting('view_as_complex', lambda w, v: jnp.stack([jnp.real(w), jnp.imag(w)], -1).astype(v.dtype),
                     _as_complex_offsets)
views.reinterpreting('_real', lambda w, v: lax.complex(w.astype(jnp.real(v).dtype), jnp.imag(v)),
                     lambda p, dt, key: (p, _real_dtype(dt)))
views.reinterpreting('_imag', lambda w, v: lax.complex(jnp.real(v), w.astype(jnp.imag(v).dtype)),
                     lambda p, dt, key: (p + dt.itemsize // 2, _real_dtype(dt)))


# ---- atleast_1d / atleast_2d / atleast_3d -----------------------------------------------------

def _atleast(tensors, fn):
    if len(tensors) == 1:
        a = tensors[0]
        if isinstance(a, Tensor):
            return fn(a)
        if isinstance(a, (tuple, list)):
            return tuple(fn(_check_t(t, i)) for i, t in enumerate(a))
    return tuple(fn(_check_t(t, i)) for i, t in enumerate(tensors))


def _check_t(t, i):
    if not isinstance(t, Tensor):
        raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return t


def _a1(t):
    return _view_to(t, (1,)) if t.ndim == 0 else t


def _a2(t):
    if t.ndim == 0:
        return _view_to(t, (1, 1))
    return unsqueeze(t, 0) if t.ndim == 1 else t


def _a3(t):
    n = t.ndim
    if n == 0:
        return _view_to(t, (1, 1, 1))
    if n == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if n == 2 else t


@public('atleast_1d')
def atleast_1d(*tensors):
    return _atleast(tensors, _a1)


@public('atleast_2d')
def atleast_2d(*tensors):
    return _atleast(tensors, _a2)


@public('atleast_3d')
def atleast_3d(*tensors):
    return _atleast(tensors, _a3)


# ---- *_copy variants of the view ops ----------------------------------------------------------
# torch.expand_copy & co.: the view op's result as a fresh tensor (not a view, contiguous), with the view's
# gradient; torch names the node '<ViewNode>_copy'. One table, one copying op: the view is taken, then copied
# by ``_copy_of_view`` whose node name is the static attribute.

@op('_copy_of_view', static=('node',), node=lambda node: node, saves=(), function=False, method=False, out=True)
def _copy_of_view(input, *, node):
    return jnp.array(input, copy=True)


def _copy_fn(name, view_fn, node):
    def f(input, *args, out=None, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        r = view_fn(input, *args, **kwargs)
        if isinstance(r, Tensor):
            return dispatch.apply(_copy_of_view, (r,), (node,), out)
        if out is not None and len(out) != len(r):
            raise RuntimeError(f"{name}: expected out to have {len(r)} tensors, but got {len(out)}")
        return tuple(dispatch.apply(_copy_of_view, (p,), (node,), None if out is None else out[i])
                     for i, p in enumerate(r))
    f.__name__ = f.__qualname__ = name
    return f


def _expand_for_copy(input, size, *, implicit=False):
    return input.expand(size)


def _alias(input):
    return dispatch.apply(_view, (input,), (tuple(input.shape),))


def _view_for_copy(input, *size, dtype=None):
    if dtype is not None or (len(size) == 1 and isinstance(size[0], D.dtype)):
        raise NotImplementedError("torch.view_copy(input, dtype) is not supported by torchlike")
    return input.view(*size)


def _as_strided_for_copy(input, size, stride, storage_offset=None):
    from .view_geometry import as_strided
    return as_strided(input, size, stride, storage_offset)


def _split_with_sizes_for_copy(input, split_sizes, dim=0):
    from .joining import split_with_sizes
    return split_with_sizes(input, split_sizes, dim)


def _unbind_for_copy(input, dim=0):
    from .joining import unbind
    return unbind(input, dim)


for _n, _f, _node in (
        ('expand_copy', _expand_for_copy, 'ExpandBackward0_copy'),
        ('diagonal_copy', lambda input, *a, **k: input.diagonal(*a, **k), 'DiagonalBackward0_copy'),
        ('alias_copy', _alias, 'AliasBackward0_copy'),
        ('view_copy', _view_for_copy, 'ViewBackward0_copy'),
        ('permute_copy', lambda input, dims: permute(input, dims), 'PermuteBackward0_copy'),
        ('split_with_sizes_copy', _split_with_sizes_for_copy, 'SplitWithSizesBackward0_copy'),
        ('unbind_copy', _unbind_for_copy, 'UnbindBackward0_copy'),
        ('unfold_copy', lambda input, dimension, size, step: input.unfold(dimension, size, step),
         'UnfoldBackward0_copy'),
        ('squeeze_copy', lambda input, *a, **k: squeeze(input, *a, **k), 'SqueezeBackward0_copy'),
        ('unsqueeze_copy', lambda input, dim: input.unsqueeze(dim), 'UnsqueezeBackward0_copy'),
        ('transpose_copy', lambda input, dim0, dim1: input.transpose(dim0, dim1), 'TransposeBackward0_copy'),
        ('t_copy', lambda input: input.t(), 'TBackward0_copy'),
        ('as_strided_copy', _as_strided_for_copy, 'AsStridedBackward0_copy')):
    public(_n)(_copy_fn(_n, _f, _node))
