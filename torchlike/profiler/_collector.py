"""Recording: the profiler's dispatch mode, user ranges, and the event source for compiled programs.

Note [Profiler recording]
While a profiler is recording, ``_mode`` sits on the dispatch-mode stack (Note [Dispatch modes]) and
times every registry op call: it reads the clock, runs the rest of the stack, then *blocks until the
results are computed* (``jax.block_until_ready`` on each output array) and reads the clock again. JAX
dispatch is asynchronous on accelerators, so without the block an op's row would show only the time to
enqueue it and the wait would land in whichever later op first reads a value. (torchlike's eager CPU
dispatch is synchronous already, Note [CPU dispatch], so there the block costs nothing.) The first call
of an op with new shapes includes its XLA compilation, which a user profiling a warm loop will not see
after the first step.

Rows are named as PyTorch names them (Note [Profiler names]); a backward node is two nested rows, the
engine's ``autograd::engine::evaluate_function: XBackward0`` and the node ``XBackward0``.

Backward fusion (Note [Fused backward]) is switched off while a profiler records: a fused backward is
one XLA program that never reaches dispatch, so with it on, a profiled training loop would show
per-node backward rows for its first two steps and none after. Profiling therefore measures the
node-by-node backward (``fused.enabled`` is off for the recording's duration).

Other sources of events call ``record_program(name, start_ns, end_ns)``: the lazy executor (one row per
compiled program it runs, timed by the caller) or any engine part that runs XLA code outside dispatch.

Recording is per thread, like PyTorch's legacy profiler: modes are thread-local, so ops run by other
threads are not recorded. One recording at a time: starting a second one raises RuntimeError (PyTorch
silently ends the outer session instead).
"""
import os
import sys
import threading
import time

from .._engine import dispatch, fused as _fused, lazy as _lazy
from .._engine.jaxrt import jax
from . import _names

_perf_ns = time.perf_counter_ns
USER_SCOPE = 7            # at::RecordScope::USER_SCOPE (record_function ranges)
BACKWARD_SCOPE = 1        # at::RecordScope::BACKWARD_FUNCTION


class RawEvent:
    __slots__ = ('name', 'start_ns', 'end_ns', 'thread', 'input_shapes', 'concrete_inputs', 'stack', 'scope',
                 'flops', 'cpu_mem', 'dev_mem', 'user', 'seq', 'cat')

    def __init__(self, name, start_ns, end_ns, thread, scope=0, user=False, cat='cpu_op'):
        self.name = name
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.thread = thread
        self.input_shapes = []
        self.concrete_inputs = []
        self.stack = []
        self.scope = scope
        self.flops = 0
        self.cpu_mem = 0
        self.dev_mem = 0
        self.user = user
        self.seq = -1
        self.cat = cat


class Session:
    """One recording window's options and events (a prepared profiler cycle)."""

    def __init__(self, record_shapes=False, with_stack=False, with_flops=False, profile_memory=False):
        self.record_shapes = record_shapes or with_flops      # FLOPs need the shapes, as in PyTorch
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.events = []
        self.collecting = True
        self.thread = threading.get_native_id()
        self.start_ns = 0
        self.end_ns = 0
        self.wall_start_ns = 0


_current = None               # the recording Session, or None


def current():
    return _current


def is_enabled():
    """True while a profiler records (the lazy executor can skip its timing otherwise)."""
    return _current is not None and _current.collecting


def start(session):
    global _current
    if _current is not None:
        raise RuntimeError('Profiler is already enabled: torchlike records one profiler session at a time')
    session.start_ns = _perf_ns()
    session.wall_start_ns = time.time_ns()
    _current = session
    dispatch.push_mode(_mode)
    _fused.enabled = False
    _lazy.observers.append(record_program)


def stop(session):
    global _current
    if _current is not session:
        return
    _fused.enabled = True
    if record_program in _lazy.observers:
        _lazy.observers.remove(record_program)
    dispatch.pop_mode(_mode)
    session.end_ns = _perf_ns()
    _current = None



# ---- the dispatch mode -----------------------------------------------------------------------------

def _block(res):
    # pending outputs in lazy mode are not waited for: the op's row is its recording time, and the program
    # that computes it gets its own row (Note [Lazy execution])
    for r in _outputs(res):
        v = r._raw()
        if type(v) is not _lazy.LazyArray:
            jax.block_until_ready(v)


def _outputs(res):
    T = dispatch.Tensor
    if isinstance(res, T):
        return (res,)
    if isinstance(res, (tuple, list)):
        return tuple(r for r in res if isinstance(r, T))
    return ()


def _is_inplace_call():
    # In-place calls (x.add_(y)) reach the modes through apply_inplace -> apply; the nearest
    # dispatch.apply frame above this one is the call being recorded.
    apply_code, inplace_code = dispatch.apply.__code__, dispatch.apply_inplace.__code__
    f = sys._getframe(2)
    for _ in range(32):
        if f is None:
            return False
        if f.f_code is apply_code:
            b = f.f_back
            return b is not None and b.f_code is inplace_code
        f = f.f_back
    return False


def _mode(op, dyn, static, out, call):
    s = _current
    if s is None or not s.collecting:
        return call(dyn, static, out)
    ta = _perf_ns()
    if _names.is_backward(op):
        node = _names.node_name(op, static)
        tb = _perf_ns()
        res = call(dyn, static, out)
        _block(res)
        tc = _perf_ns()
        thread = threading.get_native_id()
        outer = RawEvent(_names._ENGINE + node, ta, 0, thread)
        inner = RawEvent(node, tb, tc, thread, scope=BACKWARD_SCOPE)
        s.events.append(outer)
        s.events.append(inner)
        _annotate(s, inner, op, dyn, static, res)
        outer.stack = inner.stack
        outer.end_ns = _perf_ns()
        return res
    name = _names.forward_name(op, static)
    if _is_inplace_call():
        name += '_'
    tb = _perf_ns()
    res = call(dyn, static, out)
    _block(res)
    ev = RawEvent(name, tb, _perf_ns(), threading.get_native_id())
    s.events.append(ev)
    _annotate(s, ev, op, dyn, static, res)
    return res


def _annotate(s, ev, op, dyn, static, res):
    """Shapes, concrete scalar inputs, FLOPs, memory and stack, as the session asks."""
    if s.record_shapes:
        T = dispatch.Tensor
        shapes, concrete = [], []
        for a in dyn:
            if isinstance(a, T) or isinstance(a, jax.Array):       # backward ops take raw arrays
                shapes.append(list(a.shape))
                concrete.append(None)
            elif isinstance(a, (list, tuple)):          # a TensorList argument prints as [] in PyTorch
                shapes.append([])
                concrete.append(None)
            else:
                shapes.append([])
                concrete.append(a if a is None or isinstance(a, (bool, int, float, complex)) else None)
        for nm, v in zip(op.static_names, static):
            if nm == 'fname':         # the op's public name, which names the row rather than being an input
                continue
            shapes.append([])
            concrete.append(list(v) if isinstance(v, tuple) else v)
        ev.input_shapes = shapes
        ev.concrete_inputs = concrete
        if s.with_flops:
            ev.flops = _flops(ev.name, dyn, _outputs(res))
    if s.profile_memory:
        for t in _outputs(res):
            v = t._raw()
            nbytes = v.size * v.dtype.itemsize
            dev = next(iter(v.devices()), None) if hasattr(v, 'devices') else None
            if dev is None or dev.platform == 'cpu':
                ev.cpu_mem += nbytes
            else:
                ev.dev_mem += nbytes
    if s.with_stack:
        ev.stack = python_stack()


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _flops(name, dyn, outs):
    """PyTorch's FLOP formulas (torch/csrc/profiler/util.cpp computeFlops) for the ops it counts."""
    ts = [a for a in dyn if isinstance(a, (dispatch.Tensor, jax.Array))]
    if name in ('aten::mm', 'aten::matmul') and len(ts) == 2 and ts[0].ndim == 2 and ts[1].ndim == 2:
        (m, k), n = ts[0].shape, ts[1].shape[1]
        return 2 * m * k * n
    if name == 'aten::addmm' and len(ts) >= 3:
        (m, k), n = ts[1].shape, ts[2].shape[1]
        return 2 * m * k * n
    if name == 'aten::linear' and len(ts) >= 2:
        # PyTorch counts linear as its aten::addmm / aten::mm child; one row here carries that count
        x, w = ts[0], ts[1]
        return 2 * _prod(x.shape[:-1]) * x.shape[-1] * w.shape[0]
    if name in ('aten::bmm', 'aten::baddbmm') and len(ts) >= 2:
        a, b = ts[-2], ts[-1]
        bs, m, k = a.shape
        return 2 * bs * m * k * b.shape[2]
    if name == 'aten::conv2d' and len(ts) >= 2 and outs:
        x, w, o = ts[0], ts[1], outs[0]
        n = x.shape[0] if x.ndim == 4 else 1
        return 2 * n * o.shape[-2] * o.shape[-1] * _prod(w.shape)
    if name in ('aten::mul', 'aten::add') and outs:
        return outs[0].numel()
    return 0


# ---- Python stacks (with_stack) --------------------------------------------------------------------

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HIDDEN = tuple(os.path.join(_PKG, d) for d in ('_engine', 'profiler')) + (
    os.path.join(_PKG, 'autograd', 'profiler'), os.path.join(_PKG, 'autograd', '__init__'),
    os.path.join(_PKG, '_tensor.py'))
_short = {}


def _short_path(fn):
    s = _short.get(fn)
    if s is None:
        s = fn
        best = ''
        for p in sys.path:
            if p and fn.startswith(p.rstrip(os.sep) + os.sep) and len(p) > len(best):
                best = p
        if best:
            s = fn[len(best.rstrip(os.sep)) + 1:]
        _short[fn] = s
    return s


def python_stack():
    """The caller's Python frames, innermost first, as PyTorch prints them ('file.py(12): fn'), without
    the engine's and the profiler's own frames (PyTorch's stacks stop at the C++ boundary too)."""
    out = []
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_HIDDEN):
            out.append(f'{_short_path(fn)}({f.f_lineno}): {f.f_code.co_name}')
        f = f.f_back
    return out


# ---- user ranges and external programs -------------------------------------------------------------

def begin_range(name):
    """Open a record_function range; returns a handle for end_range (None when nothing records)."""
    s = _current
    if s is None or not s.collecting:
        return None
    ev = RawEvent(name, _perf_ns(), 0, threading.get_native_id(), scope=USER_SCOPE, user=True,
                  cat='user_annotation')
    if s.with_stack:
        ev.stack = python_stack()
    s.events.append(ev)
    return (s, ev)


def end_range(handle):
    if handle is not None:
        handle[1].end_ns = _perf_ns()


def record_program(name, start_ns, end_ns, *, flops=0, input_shapes=None):
    """Record one run of a compiled program that did not go through dispatch (the lazy executor's graph,
    a fused step), named ``name``, between two ``time.perf_counter_ns()`` readings the caller took after
    the program's results were ready. Nothing happens when no profiler records."""
    s = _current
    if s is None or not s.collecting:
        return
    ev = RawEvent(name, start_ns, end_ns, threading.get_native_id(), cat='cpu_op')
    ev.flops = flops if s.with_flops else 0
    if s.record_shapes and input_shapes is not None:
        ev.input_shapes = [list(x) for x in input_shapes]
    if s.with_stack:
        ev.stack = python_stack()
    s.events.append(ev)
