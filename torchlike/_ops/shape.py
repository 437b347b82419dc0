"""Shape ops: views (view, reshape, transpose, permute, squeeze, select, narrow, expand, ...) and copies
(cat, stack, flip, roll, repeat, ...).

Every op that is a view in PyTorch is registered with ``view=True`` and an index-only body (see
Note [Views] in _engine/views.py): the body only moves elements, so re-applied to an int64 iota it
yields each view element's position in the base. Multi-output views (unbind, split, chunk,
tensor_split) return a tuple and pass ``ret=tuple`` so that a single output is still recorded as
element 0 of the tuple.

Overloaded or varargs front ends (``x.view(2, 3)`` / ``x.view((2, 3))``, ``torch.split`` with an int or
a list, ...) are hand-written public functions that normalise their arguments and call the ops.
"""
import builtins
import itertools
import math
import operator
import warnings

from .. import _dtype as D
from .._engine.registry import op, public, method
from .._engine import dispatch, views
from .._engine.jaxrt import jnp, lax
from .._tensor import Tensor, Size
from ._util import wrap_dim, wrap_dims


# ---- argument helpers ---------------------------------------------------------------------

def _int(v, fname, argname, pos=1):
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be int, "
                        f"not {type(v).__name__}") from None


def _int_seq(seq, fname, argname, pos=1):
    """A sequence of ints (tuple/list/Size/1-D int tensor) -> tuple of Python ints, TypeError as torch."""
    if isinstance(seq, Tensor):
        if seq.ndim > 1 or seq.dtype._cat > 1:
            raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, not Tensor")
        return tuple(int(v) for v in seq.tolist()) if seq.ndim else (int(seq.item()),)
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, "
                        f"not {type(seq).__name__}")
    out = []
    for i, s in enumerate(seq):
        try:
            out.append(operator.index(s))
        except TypeError:
            raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, but found "
                            f"element of type {type(s).__name__} at pos {i}") from None
    return tuple(out)


def _varargs_ints(args, kw, fname, argname):
    """Varargs int lists: f(2, 3), f((2, 3)), f([2, 3]), f(argname=(2, 3))."""
    if kw is not None:
        if args:
            raise TypeError(f"{fname}() got multiple values for argument '{argname}'")
        return _int_seq(kw, fname, argname)
    if len(args) == 1 and not isinstance(args[0], int) and not (
            isinstance(args[0], Tensor) and args[0].ndim == 0):
        try:
            operator.index(args[0])
        except TypeError:
            return _int_seq(args[0], fname, argname)
    return _int_seq(args, fname, argname)


def _int_or_seq(v, fname, argname, pos=1):
    """An int or a sequence of ints -> tuple (torch's IntArrayRef accepting a single int)."""
    if isinstance(v, (tuple, list)) or (isinstance(v, Tensor) and v.ndim == 1):
        return _int_seq(v, fname, argname, pos)
    return (_int(v, fname, argname, pos),)


def _tensor_list(tensors, fname):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def _varargs_tensors(tensors, fname):
    """f(a, b) or f([a, b]) -> list of tensors."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fname}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def _type_str(t):
    return f"torch.{dispatch._tname(t.dtype)}Tensor{{{list(t.shape)}}}"


def _slice_bounds(start, end, size):
    """ATen slice() normalisation of [start, end) on a dim of ``size``."""
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end


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
def view(self, *shape, size=None):
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
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


# Complex conjugate transposes are copies here (PyTorch's lazy conjugate bit has no index-only form).
@op('_conj_transpose', view=False, node='TransposeBackward0', saves=(), function=False, method=False, out=False)
def _conj_transpose(input):
    if input.ndim >= 2:
        input = jnp.swapaxes(input, -2, -1)
    return jnp.conj(input)


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
    if input.dtype.is_complex:
        return dispatch.apply(_conj_transpose, (input,))
    return input if n == 0 else transpose(input, -2, -1)


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


# ---- slicing views: narrow, select, unbind, split, chunk, tensor_split ------------------------

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


@op('_unbind', static=('dim',), view=True, node='UnbindBackward0', saves=(), ret=tuple, function=False,
    method=False)
def _unbind(input, *, dim):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    return tuple(lax.index_in_dim(input, i, d, keepdims=False) for i in range(input.shape[d]))


def _multi_views(outs):
    # PyTorch forbids in-place writes (with grad) to outputs of ops returning several views (and their views)
    for o in outs:
        o.__dict__['_multi_view'] = True
    return outs


@public('unbind', method=True)
def unbind(input, dim=0):
    return _multi_views(dispatch.apply(_unbind, (input,), (_int(dim, 'unbind', 'dim', 2),)))


def _split_pieces(input, bounds, d):
    return tuple(lax.slice_in_dim(input, a, b, 1, axis=d) for a, b in bounds)


def _split_bounds(size, split_size):
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    n = builtins.max((size + split_size - 1) // split_size, 1) if split_size else 1
    return tuple((i * split_size, builtins.min((i + 1) * split_size, size)) for i in range(n))


@op('_split', static=('split_size', 'dim'), view=True, node='SplitBackward0', saves=(), function=False,
    method=False, ret=tuple)
def _split(input, *, split_size, dim):
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, input.ndim)
    return _split_pieces(input, _split_bounds(input.shape[d], split_size), d)


@op('_split_with_sizes', static=('split_sizes', 'dim'), view=True, node='SplitWithSizesBackward0', saves=(),
    function=False, method=False, ret=tuple)
def _split_with_sizes(input, *, split_sizes, dim):
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d]
    for s in split_sizes:
        if s < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={list(split_sizes)}")
    if builtins.sum(split_sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={list(split_sizes)}")
    bounds, a = [], 0
    for s in split_sizes:
        bounds.append((a, a + s))
        a += s
    return _split_pieces(input, bounds, d)


@public('split')
def split(tensor, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, (tuple, list)):
        return _multi_views(dispatch.apply(_split_with_sizes, (tensor,), (
            _int_seq(split_size_or_sections, 'split', 'split_size', 2), _int(dim, 'split', 'dim', 3))))
    return _multi_views(dispatch.apply(_split, (tensor,), (_int(split_size_or_sections, 'split', 'split_size', 2),
                                                           _int(dim, 'split', 'dim', 3))))


@method('split')
def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


@public('split_with_sizes', method=True)
def split_with_sizes(input, split_sizes, dim=0):
    return _multi_views(dispatch.apply(_split_with_sizes, (input,), (
        _int_seq(split_sizes, 'split_with_sizes', 'split_sizes', 2), _int(dim, 'split_with_sizes', 'dim', 3))))


@public('chunk', method=True)
def chunk(input, chunks, dim=0):
    chunks = _int(chunks, 'chunk', 'chunks', 2)
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(_int(dim, 'chunk', 'dim', 3), input.ndim)
    size = input.shape[d]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        return _multi_views(dispatch.apply(_split_with_sizes, (input,), ((0,) * chunks, d)))
    return _multi_views(dispatch.apply(_split, (input,), (split_size, d)))


@op('_tensor_split', static=('bounds', 'dim'), view=True, node='SliceBackward0', saves=(), function=False,
    method=False, ret=tuple)
def _tensor_split(input, *, bounds, dim):
    return _split_pieces(input, bounds, dim)


def _tensor_split_impl(input, arg, dim, fname='tensor_split'):
    if input.ndim == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(_int(dim, fname, 'dim', 3), input.ndim)
    size = input.shape[d]
    if isinstance(arg, Tensor):
        if arg.dtype is not D.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{dispatch._tname(arg.dtype)}")
        if arg.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {arg.ndim} dims")
        arg = arg.item() if arg.ndim == 0 else tuple(arg.tolist())
    if isinstance(arg, (tuple, list)):
        idx = _int_seq(arg, fname, 'indices', 2)
        bounds, start = [], 0
        for end in idx:
            bounds.append(_slice_bounds(start, end, size))
            start = end
        bounds.append(_slice_bounds(start, size, size))
    else:
        sections = _int(arg, fname, 'sections', 2)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(size, sections)
        bounds, start = [], 0
        for i in range(sections):
            end = start + base + (1 if i < extra else 0)
            bounds.append((start, end))
            start = end
    return dispatch.apply(_tensor_split, (input,), (tuple(tuple(b) for b in bounds), d))


_MISSING = object()


@public('tensor_split', method=True)
def tensor_split(input, indices_or_sections=_MISSING, dim=0, *, sections=_MISSING, indices=_MISSING,
                 tensor_indices_or_sections=_MISSING):
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections) if v is not _MISSING]
    if len(given) != 1:
        raise TypeError("tensor_split() received an invalid combination of arguments: expected exactly one of "
                        "indices_or_sections, sections, indices, tensor_indices_or_sections")
    return _tensor_split_impl(input, given[0], dim)


def _xsplit(input, arg, dim, mindims, fname):
    if input.ndim < mindims:
        raise RuntimeError(f"torch.{fname} requires a tensor with at least {mindims} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if not isinstance(arg, (tuple, list)) and not (isinstance(arg, Tensor) and arg.ndim == 1):
        sections = _int(arg, fname, 'sections', 2)
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{fname} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
        arg = sections
    return _tensor_split_impl(input, arg, dim, fname)


@public('hsplit', method=True)
def hsplit(input, indices_or_sections):
    return _xsplit(input, indices_or_sections, 1 if input.ndim > 1 else 0, 1, 'hsplit')


@public('vsplit', method=True)
def vsplit(input, indices_or_sections):
    return _xsplit(input, indices_or_sections, 0, 2, 'vsplit')


@public('dsplit', method=True)
def dsplit(input, indices_or_sections):
    return _xsplit(input, indices_or_sections, 2, 3, 'dsplit')


# ---- diagonal, unfold, as_strided -------------------------------------------------------------

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


def _check_strided(size, stride, off, storage_numel, itemsize):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if 0 not in size:
        need = off + 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride))
        if need > storage_numel:
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
                               f"itemsize {itemsize} requiring a storage size of {need * itemsize} are out of bounds "
                               f"for storage of size {storage_numel * itemsize}")


@op('_as_strided', static=('size', 'stride', 'storage_offset'), view=True, node='AsStridedBackward0', saves=(),
    function=False, method=False)
def _as_strided(input, *, size, stride, storage_offset):
    # ``input`` is the storage: element i of the result reads flat position offset + sum(i_k * stride_k)
    idx = jnp.full(size, storage_offset, jnp.int64)
    for k, st in enumerate(stride):
        idx = idx + lax.broadcasted_iota(jnp.int64, size, k) * st
    return jnp.take(input.reshape(-1), idx, mode='clip')


class _Index:
    """A static gather index (numpy int64 array), hashable by content so it can key a compiled program."""
    __slots__ = ('a', '_h')

    def __init__(self, a):
        self.a = a
        self._h = hash((a.shape, a.tobytes()))

    def __hash__(self):
        return self._h

    def __eq__(self, other):
        return type(other) is _Index and self.a.shape == other.a.shape and bool((self.a == other.a).all())


@op('_as_strided_gather', static=('index',), view=True, node='AsStridedBackward0', saves=(), function=False,
    method=False)
def _as_strided_gather(input, *, index):
    return jnp.take(input.reshape(-1), jnp.asarray(index.a), mode='clip')


# ---- view geometry: the strides / storage offset PyTorch would report for a view ----------------------
#
# A base tensor is its own contiguous storage. A view's element positions in its root are an affine function of
# its index (every PyTorch view op is affine; reshapes that are not are copies, see reshape below), so three probes
# of the view chain (the first element, one step along each dim, the last element) give its strides and offset.
# The probe is one small compiled program per (chain, root shape), its result cached.

_GEOM_CACHE = {}


def _contiguous_strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= builtins.max(n, 1)
    return tuple(reversed(out))


def _probe(root_shape, root_dtype, chain, points):
    """Storage positions, in elements of the view's dtype, of the view's elements at ``points``."""
    import numpy as np
    from .._engine.jaxrt import jax
    pts = np.asarray(points, np.int64).reshape(len(points), -1)
    out = {}

    def f():
        p, dt = views.byte_offsets(root_shape, root_dtype, chain)
        out['itemsize'] = dt.itemsize
        return p[tuple(pts.T)] if pts.shape[1] else p.reshape(1)
    b = np.asarray(jax.jit(f)())
    return [int(q) // out['itemsize'] for q in b]


def view_geometry(t):
    """(strides, storage_offset) of ``t`` as PyTorch reports them; strides is None for a non-affine view."""
    shape = tuple(t.shape)
    if t._base is None:
        return _contiguous_strides(shape), 0
    key = (t._view, tuple(t._base.shape), t._base._value().dtype)
    g = _GEOM_CACHE.get(key)
    if g is None:
        g = _compute_geometry(t._base, t._view, shape)
        if len(_GEOM_CACHE) >= 4096:
            _GEOM_CACHE.clear()
        _GEOM_CACHE[key] = g
    return g


def _compute_geometry(root, chain, shape):
    if 0 in shape:
        return _contiguous_strides(shape), 0
    nd = len(shape)
    points = [(0,) * nd]
    for k in range(nd):
        if shape[k] > 1:
            points.append((0,) * k + (1,) + (0,) * (nd - k - 1))
    points.append(tuple(s - 1 for s in shape))
    pos = _probe(tuple(root.shape), root._value().dtype, chain, points)
    off = pos[0]
    strides = [0] * nd
    j, nxt = 1, 1
    steps = {}
    for k in range(nd):
        if shape[k] > 1:
            steps[k] = pos[j] - off
            j += 1
    for k in range(nd - 1, -1, -1):
        strides[k] = steps[k] if k in steps else nxt
        nxt = strides[k] * shape[k]
    last = off + builtins.sum((s - 1) * st for s, st in zip(shape, strides))
    if any(st < 0 for st in strides) or last != pos[-1]:
        return None, off
    return tuple(strides), off


def _view_positions(t):
    """numpy int64 array of t's shape: the flat position of each element of view ``t`` in its root (its storage)."""
    import numpy as np
    strides, off = view_geometry(t)
    shape = tuple(t.shape)
    if strides is None:
        from .._engine import views
        iota = lax.iota(jnp.int64, t._base.numel()).reshape(tuple(t._base.shape))
        return np.asarray(views.replay(iota, t._view))
    p = np.full(shape, off, np.int64)
    for k, st in enumerate(strides):
        p = p + np.arange(shape[k], dtype=np.int64).reshape((-1,) + (1,) * (len(shape) - k - 1)) * st
    return p


def view_is_contiguous(t):
    """Tensor.is_contiguous() as PyTorch computes it from sizes and strides."""
    if t._base is None:
        return True
    shape = tuple(t.shape)
    if 0 in shape:
        return True
    strides, _ = view_geometry(t)
    if strides is None:
        return True
    expected = 1
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if st != expected:
                return False
            expected *= n
    return True


def _viewable(t, newshape):
    """Whether PyTorch's view() can express ``newshape`` on ``t``'s strides (ATen computeStride)."""
    if t._base is None:
        return True
    oldshape = tuple(t.shape)
    if not oldshape or 0 in oldshape:
        return True
    oldstride, _ = view_geometry(t)
    if oldstride is None:
        return True
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = view_numel = 1
    return view_d == -1


def view_storage_offset(t):
    """Tensor.storage_offset() of ``t`` (0 for a base tensor)."""
    return 0 if t._base is None else view_geometry(t)[1]


@public('as_strided', method=True)
def as_strided(input, size, stride, storage_offset=None):
    import numpy as np
    size = _int_seq(size, 'as_strided', 'size', 2)
    stride = _int_seq(stride, 'as_strided', 'stride', 3)
    isz = input.dtype.itemsize
    if input._base is None:
        off = 0 if storage_offset is None else _int(storage_offset, 'as_strided', 'storage_offset', 4)
        _check_strided(size, stride, off, input.numel(), isz)
        return _strided_flag(dispatch.apply(_as_strided, (input,), (size, stride, off)), size, stride)
    # A view: as in PyTorch, sizes/strides/offset address the storage, i.e. the root's elements.
    root = input._base
    pos = _view_positions(input).reshape(-1)
    if storage_offset is None:
        off = int(pos[0]) if pos.size else 0
    else:
        off = _int(storage_offset, 'as_strided', 'storage_offset', 4)
    _check_strided(size, stride, off, root.numel(), isz)
    q = np.full(size, off, np.int64)
    for k, st in enumerate(stride):
        q = q + np.arange(size[k], dtype=np.int64).reshape((-1,) + (1,) * (len(size) - k - 1)) * st
    if pos.size and (pos == pos[0] + np.arange(pos.size)).all():
        if q.size == 0 or (q.min() >= pos[0] and q.max() < pos[0] + pos.size):
            # the view is a contiguous run of the storage: the same strides on the view itself
            return _strided_flag(dispatch.apply(_as_strided, (input,), (size, stride, off - int(pos[0]))), size, stride)
    inv = np.full(root.numel(), -1, np.int64)
    inv[pos] = np.arange(pos.size, dtype=np.int64)
    j = inv[q] if q.size else q
    if (j >= 0).all():
        return _strided_flag(dispatch.apply(_as_strided_gather, (input,), (_Index(j),)), size, stride)
    from .._engine.state import state
    if state.grad_enabled and input.requires_grad:
        raise NotImplementedError("as_strided(): a result that reads storage outside the input view, with the input "
                                  "requiring grad, is not supported by torchlike")
    from . import core
    return _strided_flag(dispatch.apply(_as_strided, (core.detach(root),), (size, stride, off)), size, stride)


def _strided_flag(r, size, stride):
    if any(st == 0 and n > 1 for n, st in zip(size, stride)):
        r.__dict__['_may_overlap'] = True
    return r


def has_internal_overlap(t):
    """PyTorch's has_internal_overlap == YES: some dim of the view has stride 0 and size > 1."""
    strides, _ = view_geometry(t)
    return strides is not None and any(st == 0 and n > 1 for st, n in zip(strides, t.shape))


# ---- complex <-> real pairs: reinterpreting views (views.REINTERPRET) ------------------------

@op('view_as_real', view=True, saves=(), method=False, out=False)
def view_as_real(input):
    if not jnp.iscomplexobj(input):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1)


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


# ---- concatenation ----------------------------------------------------------------------------

def _is_legacy_empty(a):
    return a.ndim == 1 and a.shape[0] == 0


@op('_cat', static=('dim',), lists=('tensors',), promote='same', node='CatBackward0', saves=(), function=False,
    method=False)
def _cat(tensors, *, dim):
    ref = None
    for i, a in enumerate(tensors):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if ref is None and not _is_legacy_empty(a):
            ref = a
    if ref is None:
        return tensors[0]
    d = wrap_dim(dim, ref.ndim)
    keep = []
    for i, a in enumerate(tensors):
        if _is_legacy_empty(a):
            continue
        if a.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {a.ndim}")
        for k in range(a.ndim):
            if k != d and a.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref.shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
        keep.append(a)
    return jnp.concatenate(keep, axis=d) if len(keep) > 1 else keep[0]


@public('cat', aliases=('concat',))
def cat(tensors, dim=0, *, out=None):
    tensors = _tensor_list(tensors, 'cat')
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return dispatch.apply(_cat, (tensors,), (_int(dim, 'cat', 'dim', 2),), out)


@public('concatenate')
def concatenate(tensors, axis=0, out=None, *, dim=None):
    return cat(tensors, axis if dim is None else dim, out=out)


@op('_stack', static=('dim',), lists=('tensors',), promote='same', node='StackBackward0', saves=(),
    function=False, method=False)
def _stack(tensors, *, dim):
    ref = tensors[0]
    for i, a in enumerate(tensors):
        if a.shape != ref.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref.shape)} at entry 0 "
                               f"and {list(a.shape)} at entry {i}")
    return jnp.stack(tensors, axis=wrap_dim(dim, ref.ndim + 1))


@public('stack')
def stack(tensors, dim=0, *, out=None):
    tensors = _tensor_list(tensors, 'stack')
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return dispatch.apply(_stack, (tensors,), (_int(dim, 'stack', 'dim', 2),), out)


@public('hstack')
def hstack(tensors, *, out=None):
    ts = atleast_1d(_tensor_list(tensors, 'hstack'))
    if not ts:
        raise RuntimeError("hstack expects a non-empty TensorList")
    return cat(ts, 0 if ts[0].ndim == 1 else 1, out=out)


@public('vstack', aliases=('row_stack',))
def vstack(tensors, *, out=None):
    ts = atleast_2d(_tensor_list(tensors, 'vstack'))
    if not ts:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat(ts, 0, out=out)


@public('dstack')
def dstack(tensors, *, out=None):
    ts = atleast_3d(_tensor_list(tensors, 'dstack'))
    if not ts:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat(ts, 2, out=out)


@public('column_stack')
def column_stack(tensors, *, out=None):
    ts = _tensor_list(tensors, 'column_stack')
    if not ts:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    ts = [_view_to(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in ts]
    return cat(ts, 1, out=out)


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


# ---- triangles and diagonals ------------------------------------------------------------------

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
