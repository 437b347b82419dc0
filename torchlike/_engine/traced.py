"""Traced execution: the engine behind ``torch.compile``.

Note [Traced execution]
A compiled callable is run once per input signature with JAX tracers inside its argument Tensors,
under ``jax.make_jaxpr``; every op goes through ``dispatch.apply`` as in eager mode, so the jaxpr is the
whole function. What the function touches besides its arguments is found while tracing, not declared:
``Tensor._value`` and ``Tensor._set_value_inplace`` are swapped (only for the duration of the trace) for
versions that note every root tensor holding a concrete array -- a module's parameters and buffers, a
global tensor. Those arrays appear in the jaxpr as constants; matched by identity, they become the
program's inputs (so an optimizer update or a ``load_state_dict`` between calls is seen, never baked in),
and a root whose cell was rebound by an in-place op (BatchNorm's running stats) becomes an output that
is written back after each call. The default generator's offset is an input too (Note [Randomness is
explicit]): the traced ``Generator._next`` hands out ``offset + k`` as tracers, and after a call the
generator moves on by the number of draws, so Dropout masks differ per call exactly as in eager mode.

A program is cached per (argument structure, shapes, dtypes, requires_grad, non-tensor arguments, grad
mode, default dtype, generator seed, module training flags); before reuse, its captured tensors must be
alive with unchanged shapes and dtypes (else it is traced again). When gradients are needed the program
is one autograd node (``CompiledFunctionBackward``, as torch's AOTAutograd): its forward is
``jax.vjp`` of the whole program, jitted, its backward the jitted VJP -- one XLA program each way.
In lazy mode a compiled call is recorded instead of run: one node of the lazy graph for the forward (with
the VJP's residuals among its outputs, still pending) and one for the backward, so a step around a compiled
module is still one program per step.

What cannot be one program raises ``GraphBreak`` while tracing: a value read (``item``, ``bool``,
printing), data-dependent shapes, ``backward()`` or an optimizer step inside the function (gradients and
optimizer state escaping a trace are not lifted yet), a non-default Generator. ``torch.compile`` then
runs the function eagerly with a warning, or raises under ``fullgraph=True``.
"""
import weakref

import numpy as np

from .jaxrt import jax, jnp
from . import dispatch, lazy
from .lazy import LazyArray
from .state import state
from .. import _dtype as D

_Tracer = jax.core.Tracer
_Tensor = dispatch.Tensor
_tokens = __import__('itertools').count()


class GraphBreak(Exception):
    """The traced function cannot be one XLA program (see Note [Traced execution])."""


_active = []          # the _Recorder of the trace in progress (traces do not nest)
stats = {'traces': 0, 'calls': 0}


def is_tracing():
    return bool(_active)


class _Recorder:
    def __init__(self, seed, offset):
        self.roots = {}              # id(root) -> (root, its concrete array before the trace, version)
        self.seed = seed
        self.offset = offset         # tracer: the default generator's offset at entry
        self.draws = 0

    def note(self, root):
        if id(root) not in self.roots:
            v = root._v
            if type(v) is LazyArray:         # resolved by trace()'s sync; hold the concrete array
                v = root._v = v.get()
            if not isinstance(v, _Tracer):
                self.roots[id(root)] = (root, v, root._vc_obj()[0] if root._vc is not None else None)


def _root(t):
    return t if t._base is None else t._base


def _traced_value(self):
    _active[-1].note(_root(self))
    return _eager['_value'](self)


def _traced_set_value_inplace(self, arr, resize=False):
    _active[-1].note(_root(self))
    return _eager['_set_value_inplace'](self, arr, resize)


def _traced_materialize(self):
    v = _eager['_value'](self)
    if isinstance(v, _Tracer):
        raise GraphBreak("a tensor's value is read (item(), bool(), tolist(), printing, a data-dependent shape)")
    return v


def _traced_next(g):
    from .._ops import random as R
    rec = _active[-1]
    if g is not R.default_generator:
        raise GraphBreak("random numbers from a Generator other than the default one")
    k = rec.draws
    rec.draws += 1
    return rec.seed, rec.offset + k


_eager = {}


def _swap_in():
    from .._ops import random as R
    T = _Tensor
    _eager.update(_value=T._value, _set_value_inplace=T._set_value_inplace, _materialize=T._materialize,
                  _next=R.Generator._next)
    T._value = _traced_value
    T._set_value_inplace = _traced_set_value_inplace
    T._materialize = _traced_materialize
    R.Generator._next = _traced_next


def _swap_out():
    from .._ops import random as R
    T = _Tensor
    T._value = _eager['_value']
    T._set_value_inplace = _eager['_set_value_inplace']
    T._materialize = _eager['_materialize']
    R.Generator._next = _eager['_next']


# ---- tracing ----------------------------------------------------------------------------

def _flatten(tree):
    return jax.tree_util.tree_flatten(tree, is_leaf=lambda x: isinstance(x, _Tensor))


class Program:
    """One traced signature: the jaxpr, its captured tensors, and the jitted runners."""

    def __init__(self, closed, ext, out_tree, out_kinds, mutated, draws):
        self.closed = closed
        self.ext = ext                  # [(const index, weakref(root), shape, dtype)]
        self.out_tree = out_tree
        self.out_kinds = out_kinds      # per output leaf: 'tensor' | ('static', value)
        self.mutated = mutated          # [weakref(root)]: roots written back after each call (dead: skipped)
        self.draws = draws
        self._run = None
        self._flat = None
        self.token = ('compiled', next(_tokens))     # never reused, unlike id(): lazy caches key on it

    def alive(self):
        for _, ref, shape, dtype in self.ext:
            t = ref()
            if t is None or t._v.shape != shape or t._v.dtype != dtype:
                return False
        return True

    def _eval(self, ext_arrays, in_arrays, offset):
        consts = list(self.closed.consts)
        for (i, *_), a in zip(self.ext, ext_arrays):
            consts[i] = a
        flat = jax.core.eval_jaxpr(self.closed.jaxpr, consts, *in_arrays, offset)
        n = len(flat) - len(self.mutated)
        return flat[:n], flat[n:]

    def run(self, ext_arrays, in_arrays, offset):
        if self._run is None:
            self._run = jax.jit(self._eval)
        return self._run(ext_arrays, in_arrays, offset)

    def record(self, ext_arrays, in_arrays, offset):
        """In lazy mode the whole compiled call is ONE node of the lazy graph (flat arrays in and out)."""
        if self._flat is None:
            n_ext, n_in = len(ext_arrays), len(in_arrays)

            def flat(*a):
                outs, new_state = self._eval(a[:n_ext], a[n_ext:n_ext + n_in], a[-1])
                return (*outs, *new_state)
            self._flat = jax.jit(flat)
        res = lazy.record(self._flat, self.token, (*ext_arrays, *in_arrays, int(offset)))
        n = len(res) - len(self.mutated)
        return list(res[:n]), list(res[n:])


def trace(fn, args, kwargs):
    """Trace ``fn(*args, **kwargs)`` into a Program (raises GraphBreak)."""
    from .._ops import random as R
    if _active:
        raise GraphBreak("a compiled function called inside another compiled function's trace")
    stats['traces'] += 1
    lazy.sync()           # pending lazy work runs first: the trace captures concrete arrays
    leaves, tree = _flatten((args, kwargs))
    tpos = [i for i, x in enumerate(leaves) if isinstance(x, _Tensor)]
    in_arrays = [leaves[i]._value() for i in tpos]
    gen = R.default_generator
    box = {}

    def body(arrays, offset):
        rec = _Recorder(R.signed_seed(gen._seed), offset)
        _active.append(rec)
        _swap_in()
        prev_mode = state.mode
        state.mode = 'traced'
        try:
            new = list(leaves)
            for i, a in zip(tpos, arrays):
                t = dispatch.wrap(a)
                src = leaves[i]
                if src.requires_grad:
                    t.requires_grad = True
                new[i] = t
            a2, k2 = jax.tree_util.tree_unflatten(tree, new)
            out = fn(*a2, **k2)
            mutated = [(r, r._v) for r, v0, _ in rec.roots.values() if r._v is not v0]
            oleaves, otree = _flatten(out)
            res = []
            kinds = []
            for x in oleaves:
                if isinstance(x, _Tensor):
                    res.append(_eager['_value'](x))
                    kinds.append('tensor')
                else:
                    kinds.append(('static', x))
            # weak references only: a tensor made inside the trace (torch.tensor(...)) must die with it, and
            # then stays a constant of the program instead of becoming an input
            box.update(otree=otree, kinds=kinds, draws=rec.draws, mutated=[weakref.ref(r) for r, _ in mutated])
            return res, [v for _, v in mutated]
        finally:
            state.mode = prev_mode
            _swap_out()
            _active.pop()
            for r, v0, vc in rec.roots.values():      # the trace leaves every captured tensor as it was
                r._v = v0
                if vc is not None:
                    r._vc_obj()[0] = vc
            box['roots'] = [(weakref.ref(r), id(v0)) for r, v0, _ in rec.roots.values()]
            rec.roots.clear()

    try:
        closed = jax.make_jaxpr(body)(in_arrays, jnp.asarray(gen._offset, jnp.int64))
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
            jax.errors.TracerIntegerConversionError, jax.errors.TracerBoolConversionError) as e:
        raise GraphBreak(f"a tensor's value is needed while tracing ({type(e).__name__})") from None
    by_id = {i: ref for ref, i in box['roots'] if ref() is not None}
    ext = [(i, by_id[id(c)], c.shape, c.dtype) for i, c in enumerate(closed.consts) if id(c) in by_id]
    return Program(closed, ext, box['otree'], box['kinds'], box['mutated'], box['draws'])


def signature(args, kwargs):
    """The cache key of a call's arguments (GraphBreak for an unhashable non-tensor argument)."""
    leaves, tree = _flatten((args, kwargs))
    key = [tree]
    for x in leaves:
        if isinstance(x, _Tensor):
            v = x._value()
            key.append(('T', v.shape, v.dtype, x.requires_grad))
        else:
            try:
                hash(x)
            except TypeError:
                raise GraphBreak(f"an argument of type {type(x).__name__} is not hashable") from None
            key.append((type(x), x))
    from .._ops import random as R
    key.append((state.grad_enabled, D.state.default_dtype, R.default_generator._seed))
    return tuple(key)


# ---- running ----------------------------------------------------------------------------

def call(prog, args, kwargs):
    """Run a traced Program on the call's arguments: outputs as Tensors, captured state written back."""
    from .._ops import random as R
    stats['calls'] += 1
    leaves, _ = _flatten((args, kwargs))
    ins = [x for x in leaves if isinstance(x, _Tensor)]
    exts = [ref() for _, ref, _, _ in prog.ext]
    gen = R.default_generator
    offset = np.int64(gen._offset)
    need_grad = state.grad_enabled and (any(t.requires_grad for t in ins) or any(t.requires_grad for t in exts))
    if need_grad:
        outs, new_state = _CompiledFunction.apply(prog, offset, len(exts), *exts, *ins)
    elif state.mode == 'lazy' and (prog.out_kinds or prog.mutated):
        outs, new_state = prog.record([t._raw() for t in exts], [t._raw() for t in ins], offset)
        outs = [dispatch.wrap(o) for o in outs]
    else:
        outs, new_state = prog.run([t._value() for t in exts], [t._value() for t in ins], offset)
        outs = [dispatch.wrap(o) for o in outs]
    gen._offset += prog.draws
    for ref, v in zip(prog.mutated, new_state):
        t = ref()
        if t is not None:
            t._set_value_inplace(v, resize=True)
    it = iter(outs)
    res = [next(it) if k == 'tensor' else k[1] for k in prog.out_kinds]
    return jax.tree_util.tree_unflatten(prog.out_tree, res)


def _make_grad_fns(prog, n_ext, diff_pos):
    """jitted (forward with VJP residuals, backward) of the program w.r.t. the tensors at ``diff_pos``."""
    def split(arrays, offset):
        return arrays[:n_ext], arrays[n_ext:], offset

    def fwd(arrays, offset):
        def f(*d):
            full = list(arrays)
            for p, a in zip(diff_pos, d):
                full[p] = a
            outs, new_state = prog._eval(*split(full, offset))
            diff = [o for o in outs if o.dtype.kind in 'fc' or jnp.issubdtype(o.dtype, jnp.inexact)]
            return diff, (outs, new_state)
        diff_outs, vjp, (outs, new_state) = jax.vjp(f, *[arrays[p] for p in diff_pos], has_aux=True)
        return outs, new_state, vjp

    def bwd(vjp, cts):
        return vjp(cts)

    # lazy mode: the same two programs over flat arrays, so each is one node of the lazy graph; the VJP's
    # residuals travel as pending arrays between them
    box = {}

    def fwd_flat(*a):
        outs, new_state, vjp = fwd(list(a[:-1]), a[-1])
        leaves, box['vjp_tree'] = jax.tree_util.tree_flatten(vjp)
        box['n'] = (len(outs), len(new_state))
        return (*outs, *new_state, *leaves)

    def bwd_flat(*a):
        k = box['vjp_tree'].num_leaves
        return tuple(jax.tree_util.tree_unflatten(box['vjp_tree'], a[:k])(list(a[k:])))
    return jax.jit(fwd), jax.jit(bwd), (jax.jit(fwd_flat), jax.jit(bwd_flat), box, next(_tokens))


def _load_function_class():
    from ..autograd.function import Function

    class CompiledFunction(Function):
        """The autograd node of a compiled call (torch's AOTAutograd names it the same)."""

        @staticmethod
        def forward(ctx, prog, offset, n_ext, *tensors):
            diff_pos = tuple(i for i, t in enumerate(tensors) if t.requires_grad)
            key = (n_ext, diff_pos)
            fns = prog.__dict__.setdefault('_grad_fns', {}).get(key)
            if fns is None:
                fns = prog._grad_fns[key] = _make_grad_fns(prog, n_ext, diff_pos)
            # the VJP's residuals are saved tensors of the node, freed after the backward as torch's AOTAutograd
            # frees its own (held by the node instead, a lazy step's sync made them outputs of its program while
            # the loss lived: copies of parameters and activations, ~10% of the MLP's step)
            if state.mode == 'lazy':
                ffwd, fbwd, box, tok = fns[2]
                res = lazy.record(ffwd, ('compiled_fwd', tok), (*[t._raw() for t in tensors], int(offset)))
                n_out, n_state = box['n']
                outs, new_state = list(res[:n_out]), list(res[n_out:n_out + n_state])
                residuals = res[n_out + n_state:]
                ctx._bwd = lambda saved, cts: lazy.record(fbwd, ('compiled_bwd', tok), (*saved, *cts))
                ctx._tree = None        # (the residuals travel in the lazy graph, flat)
            else:
                outs, new_state, vjp = fns[0]([t._value() for t in tensors], offset)
                residuals, ctx._tree = jax.tree_util.tree_flatten(vjp)
                ctx._bwd = fns[1]
            ctx.save_for_backward(*[dispatch.wrap(r) for r in residuals])
            ctx._diff_pos = diff_pos
            ctx._n = len(tensors)
            outs = [dispatch.wrap(o) for o in outs]
            ctx._diff_out = [i for i, o in enumerate(outs) if o.dtype.is_floating_point or o.dtype.is_complex]
            ctx.mark_non_differentiable(*[o for i, o in enumerate(outs) if i not in ctx._diff_out])
            _side[0] = new_state
            return (*outs,)

        @staticmethod
        def backward(ctx, *grads):
            saved = [t._raw() for t in ctx.saved_tensors]
            if ctx._tree is None:
                gs = ctx._bwd(saved, [grads[i]._raw() for i in ctx._diff_out])
            else:
                gs = ctx._bwd(jax.tree_util.tree_unflatten(ctx._tree, saved), [grads[i]._value() for i in ctx._diff_out])
            res = [None] * ctx._n
            for p, g in zip(ctx._diff_pos, gs):
                res[p] = dispatch.wrap(g)
            return (None, None, None, *res)

    return CompiledFunction


_side = [()]      # CompiledFunction.forward leaves the call's new captured state here


class _CF:
    cls = None

    @classmethod
    def apply(cls, prog, offset, n_ext, *tensors):
        if cls.cls is None:
            cls.cls = _load_function_class()
        outs = cls.cls.apply(prog, offset, n_ext, *tensors)
        new_state, _side[0] = _side[0], ()
        return list(outs if isinstance(outs, tuple) else (outs,)), new_state


_CompiledFunction = _CF
