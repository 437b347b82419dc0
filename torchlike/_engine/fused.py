"""Whole-graph backward: a hot graph's backward pass compiled as one XLA program.

Note [Fused backward]
The node-by-node engine (autograd.run_backward) pays one dispatch per node plus Python
bookkeeping; for small tensors that overhead, not the arithmetic, is the cost of a training
step. A training loop builds the same graph every iteration, so once a graph *structure* has
been seen ``HOT`` times, its entire backward (every node's VJP, the gradient sums at fan-in,
the zero cotangents of unused outputs, and the accumulation into each leaf's ``.grad``) is traced
into one jitted program, cached by that structure; jax.jit specialises it on shapes/dtypes. The
structure key is what the trace depends on beyond its argument avals: per node the op, its
static key, which inputs get grads and which outputs carry them, and where each gradient goes.

Only plain graphs are fused: every node a registry op with a jittable body, no hooks of any
kind, no retain_grad, no custom autograd.Function, no create_graph / autograd.grad / inputs= /
anomaly mode. Anything else (and every cold graph) takes the node-by-node engine, which
defines the semantics this must reproduce; the version checks and buffer release are the same.
"""
from .jaxrt import jax, jnp
from . import autograd as _ag
from . import dispatch

HOT = 2               # compile a graph's backward whole on its HOT-th sighting
_MAX_PROGS = 256
_counts = {}
_progs = {}
stats = {'runs': 0}   # fused backward passes run (tests check the fused path is really taken)


def _plain(node):
    return (node._pre_hooks is None and node._hooks is None and node._tensor_pre_hooks is None
            and node._retain_hooks is None)


def try_run(roots, retain_graph):
    """Run the backward of ``roots`` ([((node, nr), grad Tensor)]) fused if the graph is plain and hot.
    Returns False (having done nothing) when the node-by-node engine must run instead."""
    Node, Acc = _ag.Node, _ag.AccumulateGrad
    ops, sinks = [], []
    seen = set()
    stack = []
    for (n, _), _g in roots:
        if n not in seen:
            seen.add(n)
            stack.append(n)
    while stack:
        n = stack.pop()
        t = type(n)
        if t is Node:
            if n._released or n._fk is None or n._pre_hooks is not None or n._hooks is not None \
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
        ops.sort(key=_neg_seq)
    where = {}
    for i, n in enumerate(ops):
        where[n] = i
    for i, n in enumerate(sinks):
        where[n] = -1 - i
    flat = [g._value() for _, g in roots]
    rkey = tuple((where[n], nr) for (n, nr), _ in roots)
    nkey = []
    for n in ops:
        nf = n.next_functions
        nkey.append((n._fk, tuple(None if nf[s][0] is None else (where[nf[s][0]], nf[s][1]) for s in n._slots)))
        flat.extend(n.arrays)
    skey = []
    for s in sinks:
        v = s.variable
        old = v._grad
        if old is None:
            skey.append((v._v.shape, False))
        else:
            skey.append((v._v.shape, True))
            flat.append(old._value())
    key = (rkey, tuple(nkey), tuple(skey))
    prog = _progs.get(key)
    if prog is None:
        c = _counts.get(key, 0) + 1
        if c < HOT:
            if len(_counts) > 4 * _MAX_PROGS:
                _counts.clear()
            _counts[key] = c
            return False
        _counts.pop(key, None)
        if len(_progs) >= _MAX_PROGS:
            del _progs[next(iter(_progs))]
        prog = _progs[key] = jax.jit(_program(key))
    for n in ops:
        if n.versions or n.out_vcs:
            n._check_versions()
    new = prog(*flat)
    stats['runs'] += 1
    for s, g in zip(sinks, new):
        if g is None:
            continue
        v = s.variable
        if v._grad is None:
            v._grad = dispatch.wrap(g)
        else:
            v._grad._set_value_inplace(g)
    if not retain_graph:
        for n in ops:
            n.release()
    return True


def _neg_seq(n):
    return -n._seq


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
        for dest, nr in rkey:
            send(dest, nr, flat[pos])
            pos += 1
        for i, ((op, k, diff_idx, out_idx, narr, out_meta), edges) in enumerate(nkey):
            arrays = flat[pos:pos + narr]
            pos += narr
            b = bufs[i]
            cots = [b[j] if j in b else jnp.zeros(*out_meta[j]) for j in out_idx]
            res = _ag._vjp_body(op)(*arrays, *cots, key=k, diff_idx=diff_idx, out_idx=out_idx)
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
