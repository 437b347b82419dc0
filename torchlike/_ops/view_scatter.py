"""The ``*_scatter`` ops: out-of-place writes of ``src`` into a view of ``input``.

``select_scatter``, ``slice_scatter``, ``diagonal_scatter`` and ``as_strided_scatter`` return a
copy of ``input`` with the view (select / slice / diagonal / as_strided) replaced by ``src``, which
is cast to input's dtype as torch does. Each body finds the view's flat positions by taking the
view of an iota of input's shape (the trick of Note [Views]) and scatters ``src`` there; the
backward (src's gradient = the view of the cotangent, input's = the cotangent with the view zeroed)
is the VJP of that scatter.
"""
from .._engine.registry import op
from .._engine.jaxrt import jnp
from ._util import wrap_dim
from . import shape


def _scatter(input, src, pos):
    if tuple(pos.shape) != tuple(src.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(pos.shape)}")
    flat = input.reshape(-1).at[pos.reshape(-1)].set(jnp.asarray(src).astype(input.dtype).reshape(-1))
    return flat.reshape(input.shape)


def _iota(input):
    return jnp.arange(input.size, dtype=jnp.int64).reshape(input.shape)


@op('select_scatter', static=('dim', 'index'), saves=())
def select_scatter(input, src, dim, index):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {dim}")
    return _scatter(input, src, jnp.take(_iota(input), index % n, axis=d))


@op('slice_scatter', static=('dim', 'start', 'end', 'step'), saves=())
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = wrap_dim(dim, input.ndim)
    idx = [slice(None)] * input.ndim
    idx[d] = slice(start, end, step)
    return _scatter(input, src, _iota(input)[tuple(idx)])


@op('diagonal_scatter', static=('offset', 'dim1', 'dim2'), saves=())
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return _scatter(input, src, shape.diagonal.fn(_iota(input), offset, dim1, dim2))


@op('as_strided_scatter', static=('size', 'stride', 'storage_offset'), saves=())
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    pos = shape._as_strided.fn(_iota(input), size=tuple(size), stride=tuple(stride),
                               storage_offset=storage_offset or 0)
    return _scatter(input, src, pos)
