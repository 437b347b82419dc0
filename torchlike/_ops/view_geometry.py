"""Where a view's elements sit in its storage: the strides and storage offset PyTorch would report
(view_geometry, view_storage_offset), is_contiguous, whether view() can express a new shape on them
(_viewable), internal overlap, and as_strided (which addresses that storage directly).
"""
import builtins

from .._engine.registry import op, public
from .._engine import dispatch, views
from .._engine.jaxrt import jnp, lax
from ._shape_args import _int, _int_seq


# ---- as_strided ops: the storage read at explicit sizes, strides and offset -------------------------

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
# its index (every PyTorch view op is affine; reshapes that are not are copies, see _reshape_to in shape.py), so
# three probes of the view chain (the first element, one step along each dim, the last element) give its strides
# and offset.
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
    with jax.ensure_compile_time_eval():      # (a constant: computed now also inside a torch.compile trace)
        b = np.asarray(jax.jit(f)())
    return [int(q) // out['itemsize'] for q in b]


def view_geometry(t):
    """(strides, storage_offset) of ``t`` as PyTorch reports them; strides is None for a non-affine view."""
    shape = tuple(t.shape)
    if t._base is None:
        return _contiguous_strides(shape), 0
    key = (t._view, tuple(t._base.shape), t._base._raw().dtype)
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
    pos = _probe(tuple(root.shape), root._raw().dtype, chain, points)
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
