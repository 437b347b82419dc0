"""Splitting and joining along a dim: unbind, split/split_with_sizes, chunk, tensor_split, hsplit/vsplit/dsplit
(multi-output views), and cat/concat/concatenate, stack, hstack/vstack/row_stack/dstack/column_stack (copies).

Multi-output views return a tuple and pass ``ret=tuple`` so that a single output is still recorded as
element 0 of the tuple (Note [Views] in _engine/views.py).
"""
import builtins

from .. import _dtype as D
from .._engine.registry import op, public, method
from .._engine import dispatch
from .._engine.jaxrt import jnp, lax
from .._tensor import Tensor
from ._util import wrap_dim
from ._shape_args import _int, _int_seq, _tensor_list, _slice_bounds
from .shape import _view_to, atleast_1d, atleast_2d, atleast_3d


# ---- splitting views: unbind, split, chunk, tensor_split, hsplit/vsplit/dsplit --------------------

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


# torch.unsafe_split & co. skip the view tracking (the outputs are not views: UnsafeSplitBackward0); here they are
# the split pieces copied, which is what they are observably.
def _unsafe(name, fn, node):
    from .shape import _copy_of_view

    def f(input, *args, **kwargs):
        return tuple(dispatch.apply(_copy_of_view, (p,), (node,)) for p in fn(input, *args, **kwargs))
    f.__name__ = f.__qualname__ = name
    public(name, method=True)(f)
    return f


unsafe_split = _unsafe('unsafe_split', lambda input, split_size, dim=0: split(input, split_size, dim),
                       'UnsafeSplitBackward0')
unsafe_chunk = _unsafe('unsafe_chunk', chunk, 'UnsafeSplitBackward0')
unsafe_split_with_sizes = _unsafe('unsafe_split_with_sizes', split_with_sizes, 'UnsafeSplitWithSizesBackward0')


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
