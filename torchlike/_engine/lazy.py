"""Lazy execution: ops record into a graph that runs as one jitted XLA program at a sync.

Note [Lazy execution]
In lazy mode (the default; eager is ``TORCHLIKE_MODE=eager``, ``torchlike.set_execution_mode('eager')`` or
``python -m torchlike --mode eager``) ``dispatch.apply`` does not run an op's compiled program:
it records a ``_Node`` (the program, its arguments) and hands back ``LazyArray`` outputs whose
shape and dtype come from ``jax.eval_shape``, cached per (op, static key, input avals). So
``.shape``/``.dtype`` never execute anything, and shape errors raise at the op as in eager mode
(the abstract evaluation traces the same body).

A *sync* runs every pending node that a live ``LazyArray`` still needs. Liveness is Python's own:
nodes refer to their producers (``_Node.args`` hold ``(node, index)`` pairs), never to the
``LazyArray`` objects, so a ``LazyArray`` is alive only while a Tensor, an autograd node's saved
values or user code holds it; weak references to the arrays made since the last sync give the
live set, which becomes the program's outputs. The program is keyed by its structure (each
node's program and where its arguments come from), the live outputs and the input avals, looked
up in a cache and compiled with ``jax.jit`` on a miss. Concrete arrays and Python scalars are
inputs, never constants: a learning rate that changes between steps, or new data, reuses the
program. After a sync no pending node remains alive (a node no live array needs can never be
needed again), so graphs are never re-run.

Sync points: ``Tensor._value()`` (every value read -- item, tolist, numpy, print, bool -- and the
few engine paths that need a concrete array), the end of ``optimizer.step()`` (a global step
post-hook: the natural step boundary), each batch a DataLoader hands out, an optimizer's construction
(the parameters' initialization runs then, so that the first step compiles the steady program),
``torchlike.sync()``, and a graph-size limit.

Ops registered unjitted are recorded too when their body traces abstractly (the identity that writes a
random fill); the others (data-dependent shapes: nonzero, masked_select, unique) run eagerly on
concrete inputs, forcing a sync only when an input is still pending. Host metadata (packed-sequence
lengths, fill values) is computed under ``lazy.now()``.

Index range checks of pending indices (``defer_check``: gather, embedding, cross_entropy's targets,
indexing with a computed index) cannot read the index without a sync inside the step; they record
the check as two more outputs of the step's program instead, and the sync that runs it raises eager
mode's exception (IndexError / RuntimeError, its message) once the program's outputs are assigned,
as CUDA reports a device-side assert at the next synchronizing call. Only a program with such checks
waits for its result at the sync; the op's result itself is the clamped gather XLA computes.

Random draws record their exact-size threefry program with (seed, offset) as Python-int inputs, so a
new step's dropout mask compiles nothing; the numbers equal eager mode's bucketed draws.

Donation: an input array that only the graph refers to (Python's reference count says so: a
parameter or optimizer state whose tensor now holds the pending update) is donated to the program
when an output of its shape and dtype can take its buffer; the output that replaced it in its tensor
gets it (``replaced``/``_pair_donations``), so XLA never has to copy a parameter the step still reads.

Recompile guard: each sync site (the user code line that caused it) may compile RECOMPILE_LIMIT
programs; past that it warns once, naming what changed (an input's shape, an op's attributes), and
runs its graphs op by op from then on.
"""
import os
import sys
import threading
import time
import warnings
import weakref

from .jaxrt import jax, jit, ArrayImpl as _ArrayImpl
from .state import state, set_default_mode

_lock = threading.RLock()
_MAX_NODES = 20000          # graph-size limit: a sync after this many recorded ops
_fresh = []                 # weak references to the LazyArrays recorded since the last sync
_count = [0]                # nodes recorded since the last sync
_seq = [0]
_shape_cache = {}           # (token, input signature) -> (multi, output avals)
_programs = {}              # program key -> jitted replay function
_checks = []                # (bad, first value, make_error): deferred index checks, live until their sync
_MAX_PROGRAMS = 512

observers = []             # called as f(name, start_ns, end_ns) after each program run (the profiler)
_metrics = {'recorded_ops': 0, 'syncs': 0, 'compiles': 0, 'cache_hits': 0, 'compile_time_s': 0.0,
            'execute_time_s': 0.0, 'graph_nodes': 0, 'eager_fallbacks': 0}


class _Node:
    # sharding: where the program will run (its first array argument's placement, inherited through pending
    # arguments), kept so that ``tensor.device`` on a pending result needs no walk up the graph
    __slots__ = ('fn', 'token', 'args', 'seq', 'sharding', '__weakref__')


class LazyArray:
    """A pending array: shape and dtype known, values after the next sync."""
    # prev: id() of the concrete array this one replaces in a tensor (an in-place update), for donation
    __slots__ = ('node', 'idx', 'aval', 'value', 'prev', '__weakref__')

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self):
        return len(self.aval.shape)

    @property
    def size(self):
        n = 1
        for s in self.aval.shape:
            n *= s
        return n

    @property
    def weak_type(self):
        return self.aval.weak_type

    def devices(self):
        if self.value is not None:
            return self.value.devices()
        sh = self.node.sharding
        return sh.device_set if sh is not None else {jax.devices()[0]}

    def get(self):
        """The concrete array (syncs if still pending)."""
        v = self.value
        if v is None:
            sync()
            v = self.value
        return v

    def __array__(self, dtype=None, copy=None):
        import numpy as np
        a = np.asarray(self.get())
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        return f'LazyArray({self.aval}, pending={self.value is None})'


def concrete(a):
    return a.get() if type(a) is LazyArray else a


def replaced(old, new):
    """A tensor's array ``old`` is being replaced by ``new`` (an in-place update). When ``new`` is pending and
    ``old``'s buffer is donated at the sync, the program writes ``new`` into that buffer (see sync)."""
    if type(new) is LazyArray and new.value is None:
        if type(old) is LazyArray:
            old = old.value
        if old is not None:
            new.prev = id(old)


_PY_SCALARS = (bool, int, float, complex)


def _sig(a):
    t = type(a)
    if t is LazyArray:
        return a.aval
    if a is None:
        return None
    if t in _PY_SCALARS:
        return t
    return a.aval


def _abstract(a):
    t = type(a)
    if t is LazyArray:
        a = a.aval
    elif a is None or t in _PY_SCALARS:
        return a
    return jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)


def record(fn, token, args):
    """Record ``fn(*args)`` (a jitted, pure function identified by the hashable ``token``).

    Returns a LazyArray, or a tuple of them when ``fn`` returns a tuple/list."""
    with _lock:
        ins = []
        for a in args:
            if type(a) is LazyArray and a.value is not None:
                a = a.value
            ins.append(a)
        sig = (token, tuple(_sig(a) for a in ins))
        shp = _shape_cache.get(sig)
        if shp is None:
            out = jax.eval_shape(fn, *[_abstract(a) for a in ins])
            multi = type(out) is tuple or type(out) is list
            avals = tuple(out) if multi else (out,)
            if not all(o is None or isinstance(o, jax.ShapeDtypeStruct) for o in avals):
                shp = _shape_cache[sig] = (None, None)      # nested outputs: run eagerly
            else:
                shp = _shape_cache[sig] = (multi, avals)
        multi, avals = shp
        if avals is None:
            return fn(*[concrete(a) for a in ins])
        node = _Node()
        node.fn = fn
        node.token = token
        node.args = args = tuple((a.node, a.idx) if type(a) is LazyArray else a for a in ins)
        sh = None
        for a in args:
            if type(a) is tuple:
                sh = a[0].sharding
                break
            if a is not None and type(a) not in _PY_SCALARS:
                sh = getattr(a, 'sharding', None)       # (a host numpy argument has none)
                if sh is not None:
                    break
        node.sharding = sh
        _seq[0] += 1
        node.seq = _seq[0]
        outs = []
        for i, av in enumerate(avals):
            if av is None:          # (a None among a program's outputs: a sink without a gradient)
                outs.append(None)
                continue
            la = LazyArray()
            la.node, la.idx, la.aval, la.value, la.prev = node, i, av, None, None
            _fresh.append(weakref.ref(la))
            outs.append(la)
        _metrics['recorded_ops'] += 1
        _count[0] += 1
        if _count[0] >= _MAX_NODES:
            sync()
        return tuple(outs) if multi else outs[0]


_host_ops = set()            # tokens of unjitted ops whose bodies need concrete values
_jitted = {}
_HOST_ERRORS = (jax.errors.JAXTypeError, jax.errors.NonConcreteBooleanIndexError)


def record_or_run(fn, token, args):
    """An op registered unjitted (host-side work, or an identity not worth a program of its own): recorded
    like any op when its body traces abstractly, else run now on concrete inputs (a sync if one is pending)."""
    if token not in _host_ops:
        f = _jitted.get(token)
        if f is None:
            f = _jitted[token] = jax.jit(fn)
        try:
            return record(f, token, args)
        except _HOST_ERRORS:
            _host_ops.add(token)
    return fn(*[concrete(a) for a in args])


def call(fn, token, args):
    """``fn(*args)`` for an engine helper program: recorded in lazy mode, run now otherwise."""
    if state.mode == 'lazy':
        return record(fn, token, args)
    return fn(*[concrete(a) for a in args])


def defer_check(fn, token, args, make_error):
    """Record the check ``fn(*args) -> (bad, value)`` of a pending index; the sync that runs it raises
    ``make_error(value)`` when ``bad`` (Note [Lazy execution])."""
    bad, v = record(fn, token, args)
    _checks.append((bad, v, make_error))


def _raise_failed_checks():
    done = [c for c in _checks if c[0].value is not None]
    if not done:
        return
    _checks[:] = [c for c in _checks if c[0].value is None]
    for bad, v, make_error in done:
        if bool(bad.value):
            e = make_error(int(v.value))
            e.args = (f"{e.args[0] if e.args else ''} (an index of an op recorded in lazy mode; the error is "
                      "raised where its program ran, at this sync: TORCHLIKE_MODE=eager raises it at the op)",
                      *e.args[1:])
            raise e


def sync():
    """Run every pending op a live tensor still needs, as one compiled program."""
    with _lock:
        _sync()
        if _checks:
            _raise_failed_checks()


def _sync():
    with _lock:
        live = []
        for r in _fresh:
            la = r()
            if la is not None and la.value is None:
                live.append(la)
        _fresh.clear()
        _count[0] = 0
        if not live:
            return
        nodes = {}
        stack = [la.node for la in live]
        while stack:
            n = stack.pop()
            if n.seq in nodes:
                continue
            nodes[n.seq] = n
            for a in n.args:
                if type(a) is tuple:
                    stack.append(a[0])
        order = [nodes[s] for s in sorted(nodes)]
        pos = {n.seq: i for i, n in enumerate(order)}
        inputs, in_pos, in_sig, structure, uses = [], {}, [], [], []
        for n in order:
            refs = []
            for a in n.args:
                if type(a) is tuple:
                    refs.append((pos[a[0].seq], a[1]))
                elif a is None:
                    refs.append(None)
                else:
                    t = type(a)
                    if t in _PY_SCALARS:
                        i = len(inputs)
                        inputs.append(a)
                        in_sig.append(t)
                        uses.append(None)
                    else:
                        i = in_pos.get(id(a))
                        if i is None:
                            i = in_pos[id(a)] = len(inputs)
                            inputs.append(a)
                            in_sig.append(a.aval)
                            uses.append(0)
                        uses[i] += 1
                    refs.append(i)
            structure.append((n.token, tuple(refs)))
        outs, out_index = [], {}
        for la in live:
            k = (pos[la.node.seq], la.idx)
            if k not in out_index:
                out_index[k] = len(outs)
                outs.append(k)
        a = n = None            # loop variables would count as references in _donatable's refcounts
        out_avals = [None] * len(outs)
        for la in live:
            out_avals[out_index[(pos[la.node.seq], la.idx)]] = la.aval
        donate = _donatable(inputs, uses, out_avals)
        if donate:
            outs = _pair_donations(outs, live, pos, inputs, donate)
            out_index = {k: i for i, k in enumerate(outs)}
        key = (tuple(structure), tuple(outs), tuple(in_sig), donate)
        for i, a in enumerate(inputs):
            # jax compiles a program again for arrays committed to their device (a program's outputs, from_numpy)
            # after uncommitted ones (creation ops: a model's initial parameters); an uncommitted input gets a
            # committed alias of its buffer, so a first step runs the steady program (after the donation
            # analysis, which counts references to the original)
            if type(a) is _ArrayImpl and not a._committed:
                inputs[i] = jax.device_put(a, a.sharding)
        prog = _programs.get(key)
        t0 = time.perf_counter_ns()
        if prog is None and _guard(key):
            # this sync point recompiles too often: run its graphs op by op (each op's program is cached)
            _metrics['eager_fallbacks'] += 1
            res = _replay([n.fn for n in order], structure, outs)(*inputs)
            _metrics['execute_time_s'] += (time.perf_counter_ns() - t0) / 1e9
        elif prog is None:
            if len(_programs) >= _MAX_PROGRAMS:         # oldest first: a long run's early graphs rarely return
                del _programs[next(iter(_programs))]
            prog = _programs[key] = jit(_replay([n.fn for n in order], structure, outs), donate_argnums=donate)
            _metrics['compiles'] += 1
            res = prog(*inputs)
            _metrics['compile_time_s'] += (time.perf_counter_ns() - t0) / 1e9
        else:
            _metrics['cache_hits'] += 1
            res = prog(*inputs)
            _metrics['execute_time_s'] += (time.perf_counter_ns() - t0) / 1e9
        if observers:
            jax.block_until_ready(res)
            t1 = time.perf_counter_ns()
            for f in observers:
                f(f'lazy_graph[{len(order)} ops]', t0, t1)
        _metrics['syncs'] += 1
        _metrics['graph_nodes'] += len(order)
        for la in live:
            la.value = res[out_index[(pos[la.node.seq], la.idx)]]
            la.node = None


def _donatable(inputs, uses, out_avals):
    """Inputs whose buffers the program may reuse for its outputs: arrays nothing outside this graph refers to
    (a parameter or optimizer state whose tensor now holds the pending update). Python's own reference count
    decides: the inputs list, each graph argument slot, and getrefcount's argument are the only references
    allowed. Anything else holding the array (a tensor, a view's source, saved values) keeps it."""
    if not DONATE:
        return ()
    free = {}           # outputs a donated buffer can become (XLA pairs them by shape and dtype)
    for av in out_avals:
        k = (av.shape, av.dtype)
        free[k] = free.get(k, 0) + 1
    out = []
    for i in range(len(inputs)):
        u = uses[i]
        if u is not None and sys.getrefcount(inputs[i]) <= u + 2:
            k = (inputs[i].shape, inputs[i].dtype)
            if free.get(k, 0):
                free[k] -= 1
                out.append(i)
    return tuple(out)


DONATE = os.environ.get('TORCHLIKE_DONATE', '1') != '0'


def _pair_donations(outs, live, pos, inputs, donate):
    """Order the outputs so that each donated input's buffer goes to the output that replaced it in its tensor.
    jax pairs donated inputs with outputs greedily (the first output of the same shape and dtype, in order); a
    parameter's buffer paired with, say, its gradient would make XLA copy the parameter before the forward reads
    it (measured on the MLP step: 30 copies of parameters and optimizer state, ~10% of the program)."""
    want = {id(inputs[i]): i for i in donate}
    by_out = {}
    for la in live:
        i = want.get(la.prev)
        if i is not None and la.shape == inputs[i].shape and la.dtype == inputs[i].dtype:
            by_out.setdefault((pos[la.node.seq], la.idx), i)
    if not by_out:
        return outs
    paired = sorted((k for k in outs if k in by_out), key=by_out.__getitem__)
    return paired + [k for k in outs if k not in by_out]


# ---- the recompile guard ------------------------------------------------------------------------

RECOMPILE_LIMIT = int(os.environ.get('TORCHLIKE_RECOMPILE_LIMIT', '16'))
_sites = {}             # sync site (file, line) -> [programs compiled there, last key, eager fallback?]
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _site():
    """The user code location that caused the sync (the first frame outside torchlike)."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else ('<torchlike>', 0)


def _guard(key):
    """Count a new program at this sync site; past RECOMPILE_LIMIT warn once, naming what changed, and tell
    the caller to run this site's graphs op by op from now on."""
    site = _site()
    entry = _sites.get(site)
    if entry is None:
        entry = _sites[site] = [0, None, False]
    if entry[2]:
        return True
    entry[0] += 1
    last, entry[1] = entry[1], key
    if entry[0] <= RECOMPILE_LIMIT:
        return False
    entry[2] = True
    # attributed to the user's line that synced (the optimizer step, a value read), not to the engine
    warnings.warn_explicit(f"torchlike lazy mode: the sync at {site[0]}:{site[1]} compiled {entry[0] - 1} different "
                           f"programs; {_what_changed(last, key)}. This sync point now runs op by op (eager speed) "
                           "instead of compiling again; keep shapes and Python-level attributes stable between steps "
                           "to avoid it.", UserWarning, site[0], site[1])
    return True


def _what_changed(old, new):
    if old is None:
        return 'its graph changed'
    (s0, o0, i0, _), (s1, o1, i1, _) = old, new
    if s0 == s1 and o0 == o1 and len(i0) == len(i1):
        for k, (a, b) in enumerate(zip(i0, i1)):
            if a != b:
                return f'last change: input {k} was {_aval_str(a)}, now {_aval_str(b)}'
    for k, (a, b) in enumerate(zip(s0, s1)):
        if a != b:
            return f'last change: op {k} of the graph was {_token_str(a[0])}, now {_token_str(b[0])}'
    if len(s0) != len(s1):
        return f'last change: the graph had {len(s0)} ops, now {len(s1)}'
    return 'last change: which tensors are alive at the sync'


def _aval_str(a):
    return a.__name__ if isinstance(a, type) else str(a)


def _token_str(token):
    if type(token) is tuple and token and hasattr(token[0], 'name'):
        return f'{token[0].name}{token[1][0]!r}'
    return repr(token)[:80]


def _replay(fns, structure, outs):
    def run(*inputs):
        env = []
        for fn, (_, refs) in zip(fns, structure):
            args = []
            for r in refs:
                if type(r) is int:
                    args.append(inputs[r])
                elif r is None:
                    args.append(None)
                else:
                    args.append(env[r[0]][r[1]])
            res = fn(*args)
            env.append(tuple(res) if type(res) in (tuple, list) else (res,))
        return [env[p][i] for p, i in outs]
    return run


class mode:
    """``with lazy.mode('lazy'):`` runs a region in the given mode on this thread (a mode that is not lazy
    leaves traced execution alone); leaving the lazy mode region does not sync by itself."""
    __slots__ = ('want', 'prev')

    def __init__(self, want):
        self.want = want

    def __enter__(self):
        self.prev = state.mode
        if self.prev != 'traced':
            state.mode = self.want

    def __exit__(self, *exc):
        state.mode = self.prev


def now():
    """``with lazy.now():`` runs ops at once whatever the mode: engine-internal host-side work (a fill
    value converted on the host) that would otherwise record and immediately force a one-op graph."""
    return mode('eager')


# ---- the public surface: mode selection, sync, metrics -------------------------------------------

_MODES = ('eager', 'lazy')


def set_execution_mode(mode):
    """Select 'eager' (op by op) or 'lazy' (recorded, compiled at syncs) execution."""
    if mode not in _MODES:
        raise ValueError(f"execution mode must be one of {_MODES}, got {mode!r}")
    if state.mode == 'lazy' and mode != 'lazy':
        sync()
    state.mode = mode
    set_default_mode(mode)


def get_execution_mode():
    return state.mode


def metrics():
    """Counters since start (or the last reset): compiles, cache hits, syncs, recorded ops, graph nodes run,
    eager fallbacks, and seconds: ``compile_time_s`` covers a new program's tracing, compiling and first
    run; ``execute_time_s`` the calls of cached programs (their run time on the CPU, where jaxrt turns
    asynchronous dispatch off; on an accelerator only their dispatch, and a value read waits for them)."""
    return dict(_metrics)


def reset_metrics():
    for k in _metrics:
        _metrics[k] = 0.0 if k.endswith('_s') else 0


def _step_boundary(optimizer, args, kwargs):
    if state.mode == 'lazy':
        sync()
