"""Functionalised views and writes through them (DESIGN invariant 5).

Note [Views]
JAX arrays are immutable. A view Tensor records its root (``_base``, the tensor that owns the
values) and a *chain*: the view ops, with their static keys, that take the root's array to the
view's. A view caches its array together with the root array it came from (``_src``); when the
root has been rebound by an in-place op, the view recomputes itself from the chain on its next
read. A write through a view (``row = m[1]; row.mul_(10)``) computes the view's new value and
scatters it into the root: the chain is applied to an iota of the root's shape, which yields,
for every element of the view, its flat position in the root; ``root.ravel().at[pos].set(new)``
is then exact for any dtype and any chain of index-only ops. Both programs are compiled once
per chain. With autograd on, the scatter is the op ``_copy_slices`` (PyTorch's CopySlices
node), so gradients route through the write like any other op.
"""
from .jaxrt import jax, jnp, lax
from .registry import op
from . import dispatch, lazy

DETACHING = {'detach'}
# flags a view passes on to views of it: outputs of multi-view ops (unbind/split) and views that may hold an
# element twice (expand); Tensor._check_inplace reads them
STICKY = ('_multi_view', '_may_overlap')


def root_and_chain(t):
    if t._base is None:
        return t, ()
    return t._base, t._view


def mark(o, key, inp, outs):
    root, chain = root_and_chain(inp)
    vc = inp._vc_obj()
    multi = len(outs) > 1 or o.ret is not None
    detached = o.name in DETACHING or inp.__dict__.get('_detached_view', False)
    sticky = [k for k in STICKY if inp.__dict__.get(k, False)]
    root.__dict__['_has_views'] = True      # in-place view ops (t_, squeeze_, ...) must not reshape this root
    for i, out in enumerate(outs):
        out._base = root
        out._view = chain + ((o, key, i if multi else None),)
        out._src = root._v
        out._vc = vc
        if detached:
            out.__dict__['_detached_view'] = True
        for k in sticky:
            out.__dict__[k] = True
    _mark_bits(o.name, inp, outs)


def _mark_bits(name, inp, outs):
    # torch's conj/neg bits (Note [Conjugate and negative bits] in _ops/pointwise.py): views keep them, conj
    # flips the conj bit, and the imaginary part of a conjugated tensor is read negated
    d = inp.__dict__
    conj, neg = d.get('_conj_bit', False), d.get('_neg_bit', False)
    if name == '_conj':
        conj = not conj
    elif name == '_imag':
        conj, neg = False, conj
    elif name == '_real':
        conj = neg = False
    if conj or neg:
        for out in outs:
            if conj:
                out.__dict__['_conj_bit'] = True
            if neg:
                out.__dict__['_neg_bit'] = True


def byte_offsets(root_shape, root_dtype, chain):
    """Byte offset in the root's storage of every element of the view, and the view's numpy dtype."""
    import numpy as np
    dt = np.dtype(root_dtype)
    n = 1
    for s in root_shape:
        n *= s
    p = lax.iota(jnp.int64, n).reshape(root_shape) * dt.itemsize
    for step in chain:
        r = REINTERPRET.get(step[0].name)
        if r is not None:
            p, dt = r[1](p, dt, step[1])
        else:
            p = _apply_chain(p, (step,))
    return p, dt


def _apply_chain(v, chain):
    for o, key, i in chain:
        v = dispatch.forward_fn(o, *key)(v)
        if i is not None:
            v = v[i]
    return v


_replay_cache = {}
_write_cache = {}


def replay(root_value, chain):
    f = _replay_cache.get(chain)
    if f is None:
        f = _replay_cache[chain] = jax.jit(lambda v: _apply_chain(v, chain))
    return lazy.call(f, ('replay', chain), (root_value,))


# Reinterpreting view steps (view(dtype), view_as_real/view_as_complex, .real/.imag) are not index-only: the
# same bytes read as another dtype. Each registers how to undo itself on a write and how it moves byte offsets
# (for strides): name -> (inverse(new_w, old_v) -> new_v, offsets(P, dtype, key) -> (P', new numpy dtype)).
REINTERPRET = {}


def reinterpreting(name, inverse, offsets):
    REINTERPRET[name] = (inverse, offsets)


def _write(base, new, chain):
    # With a reinterpreting step in the chain: write into its output, undo the step, and write that result
    # through the rest of the chain.
    for k in range(len(chain) - 1, -1, -1):
        r = REINTERPRET.get(chain[k][0].name)
        if r is not None:
            prefix = chain[:k]
            v = _apply_chain(base, prefix)
            w = _write(_apply_chain(v, chain[k:k + 1]), new, chain[k + 1:])
            return _write(base, r[0](w, v), prefix)
    n = 1
    for s in base.shape:
        n *= s
    idx = _apply_chain(lax.iota(jnp.int64, n).reshape(base.shape), chain)
    new = jnp.broadcast_to(jnp.asarray(new, base.dtype), idx.shape)
    return base.ravel().at[idx.ravel()].set(new.ravel()).reshape(base.shape)


def write(root_value, new_value, chain):
    f = _write_cache.get(chain)
    if f is None:
        f = _write_cache[chain] = jax.jit(lambda b, n: _write(b, n, chain))
    return lazy.call(f, ('write', chain), (root_value, new_value))


@op('_copy_slices', static=('chain',), node='torch::autograd::CopySlices', saves=(), function=False, method=False)
def _copy_slices(base, src, *, chain):
    return _write(base, src, chain)


@op('_view_replay', static=('chain',), node='AsStridedBackward0', saves=(), function=False, method=False)
def _view_replay(base, *, chain):
    return _apply_chain(base, chain)
