"""Whole-graph backward: a hot graph's backward pass compiled as one XLA program.

Note [Fused backward]
The node-by-node engine (autograd.run_backward) pays one dispatch per node plus Python
bookkeeping; for small tensors that overhead, not the arithmetic, is the cost of a training
step. A training loop builds the same graph every iteration, so once a graph *structure* has
been seen ``HOT`` times, its entire backward (every node's VJP -- or the saved pullback of a node whose op
saved its residuals, Note [Saved residuals] --, the gradient sums at fan-in,
the zero cotangents of unused outputs, and the accumulation into each leaf's ``.grad``) is traced
into one jitted program, cached by that structure; jax.jit specialises it on shapes/dtypes. The
structure key is what the trace depends on beyond its argument avals: per node the op, its
static key, which inputs get grads and which outputs carry them, and where each gradient goes.

Only plain graphs are fused: every node a registry op with a jittable body, no hooks of any
kind, no retain_grad, no custom autograd.Function, no create_graph / autograd.grad / inputs= /
anomaly mode. Anything else (and every cold graph) takes the node-by-node engine, which
defines the semantics this must reproduce; the version checks and buffer release are the same.

In lazy mode the program is recorded as one node of the step's graph (no HOT threshold: recording it
costs no compile of its own), which saves the per-node Python of the node-by-node engine; the step's
program is the same XLA either way.
"""
import itertools

from .jaxrt import jax, jnp, jit
from .state import state
from . import autograd as _ag
from . import dispatch, lazy

HOT = 3               # compile a graph's backward whole on its HOT-th sighting (tests repeat graphs twice)
_MAX_PROGS = 256
_counts = {}
_progs = {}           # structure key -> (jitted program, its lazy-graph token)
_serial = itertools.count()
stats = {'runs': 0}   # fused backward passes run (tests check the fused path is really taken)


def _plain(node):
    return (node._pre_hooks is None and node._hooks is None and node._tensor_pre_hooks is None
            and node._retain_hooks is None)


enabled = True        # off while a profiler records (it reports the backward node by node)


def try_run(roots, retain_graph):
    """Run the backward of ``roots`` ([((node, nr), grad Tensor or None)]; None is the implicit ones
    gradient of a scalar) fused if the graph is plain and hot. Returns False (having done nothing) when
    the node-by-node engine must run instead."""
    if not enabled:
        return False
    lazy_mode = state.mode == 'lazy'
    Node, Acc = _ag.Node, _ag.AccumulateGrad
    ops, sinks = [], []
    stack = [n for (n, _), _g in roots]
    seen = set(stack)
    while stack:
        n = stack.pop()
        t = type(n)
        if t is Node:
            if n._fk is None or n._released or n._pre_hooks is not None or n._hooks is not None \
                    or n._tensor_pre_hooks is not None or n._retain_hooks is not None:
                return False
            ops.append(n)
        elif t is Acc:
            d = n.variable.__dict__
            if not _plain(n) or d.get('_leaf_hooks') or d.get('_post_acc_hooks'):
                return False
            sinks.append(n)
        else:
            return False
        for nxt, _ in n.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    # A node is created after the nodes of its inputs, so decreasing creation order is topological.
    if len(ops) > 1:
        ops.sort(key=_seq_of, reverse=True)
    where = {}
    i = 0
    for n in ops:
        where[n] = i
        i += 1
    i = -1
    for n in sinks:
        where[n] = i
        i -= 1
    flat = []
    rkey = []
    for (n, nr), g in roots:
        if g is None:
            rkey.append((where[n], nr, None))
        else:
            rkey.append((where[n], nr, 0))
            flat.append(g._raw())
    nkey = []
    for n in ops:
        nf = n.next_functions
        edges = []
        for s in n._slots:
            nxt, nr = nf[s]
            edges.append(None if nxt is None else (where[nxt], nr))
        nkey.append((n._fk, tuple(edges)))
        # (a node recorded in lazy mode may hold synced LazyArrays: unwrapped below)
        flat.extend(n.arrays if n.res is None else n.res)
    skey = []
    for s in sinks:
        v = s.variable
        old = v._grad
        if old is None:
            skey.append((v._v.shape, False))
        else:
            skey.append((v._v.shape, True))
            flat.append(old._raw())
    key = (tuple(rkey), tuple(nkey), tuple(skey))
    entry = _progs.get(key)
    if entry is None:
        c = _counts.get(key, 0) + 1
        if c < HOT and not lazy_mode:
            if len(_counts) > 4 * _MAX_PROGS:
                _counts.clear()
            _counts[key] = c
            return False
        _counts.pop(key, None)
        if len(_progs) >= _MAX_PROGS:
            del _progs[next(iter(_progs))]
        entry = _progs[key] = [jax.jit(_program(key)), ('fused_backward', next(_serial)), None]
    prog, token, top = entry
    for n in ops:
        if n.versions is not None:
            for _, t, vc, v in n.versions:
                if vc[0] != v:
                    n._check_versions()      # raises torch's message
        if n.out_vcs is not None:
            for _, vc, v in n.out_vcs:
                if vc[0] != v:
                    n._check_versions()
    if lazy_mode:       # one node of the step's graph instead of one per autograd node (less Python per step)
        new = lazy.record(prog, token, flat)
    else:
        # run at top level, so compiled with the engine's CPU options (a lazy step nests ``prog``, which
        # therefore has none: Note [CPU compile options])
        if top is None:
            top = entry[2] = jit(prog.__wrapped__)
        new = top(*[lazy.concrete(a) for a in flat])
    stats['runs'] += 1
    wrap = dispatch.wrap
    for s, g in zip(sinks, new):
        if g is not None:
            v = s.variable
            if v._grad is None:
                v._grad = wrap(g)
            else:
                v._grad._set_value_inplace(g)
    if not retain_graph:
        for n in ops:
            n.release()
    return True


def _seq_of(n):
    return n._seq


def _program(key):
    rkey, nkey, skey = key

    def prog(*flat):
        pos = 0
        bufs = [{} for _ in nkey]
        sbufs = [None] * len(skey)

        def send(dest, nr, g):
            if dest < 0:
                i = -1 - dest
                sbufs[i] = g if sbufs[i] is None else sbufs[i] + g
            else:
                b = bufs[dest]
                b[nr] = g if nr not in b else b[nr] + g
        for dest, nr, given in rkey:
            if given is None:        # the implicit gradient of a scalar root: ones of the root's shape
                a = nkey[dest][0][5][nr]
                send(dest, nr, jnp.ones(a.shape, a.dtype))
            else:
                send(dest, nr, flat[pos])
                pos += 1
        for i, ((op, k, diff_idx, out_idx, narr, out_meta), edges) in enumerate(nkey):
            arrays = flat[pos:pos + narr]
            pos += narr
            b = bufs[i]
            cots = [b[j] if j in b else jnp.zeros(out_meta[j].shape, out_meta[j].dtype) for j in out_idx]
            res = _ag.backward_body(op)(*arrays, *cots, key=k, diff_idx=diff_idx, out_idx=out_idx)
            for e, g in zip(edges, res):
                if e is not None:
                    send(e[0], e[1], g)
        out = []
        for s, (shape, has_old) in enumerate(skey):
            g = sbufs[s]
            if g is not None and g.shape != shape and g.size == 1:
                g = jnp.broadcast_to(g, shape)
            if has_old:
                old = flat[pos]
                pos += 1
                g = old if g is None else old + g
            out.append(g)
        return out
    return prog
