"""dispatch.apply: the one seam every op goes through (DESIGN invariant 3).

apply(op, dyn, static, out) does, in order:
  unwrap Tensors to arrays -> type promotion -> execution (a cached jitted program per
  (op, static attrs, compute dtype); jax.jit specialises on shapes/dtypes itself) -> wrap
  results -> autograd recording -> view bookkeeping -> out= handling.
Autocast and the lazy executor plug in here (later issues) without touching op bodies.

Note [Dispatch modes]
Features that must see every op call without changing op bodies (autocast, the profiler)
push a *mode* on ``state.modes``: a callable ``mode(op, dyn, static, out, call)`` that may
rewrite the arguments, time or skip the call, and runs the rest of the stack with
``call(dyn, static, out)``. With no mode pushed, apply costs one attribute test more.
Modes are thread-local, as autocast state is in PyTorch.
"""
import numbers

import numpy as np

from .. import _dtype as D
from .jaxrt import jax, jnp, ArrayImpl as _ArrayImpl
from .state import state
from . import lazy
from .lazy import LazyArray

Tensor = None          # set by torchlike._tensor (avoids an import cycle)
Node = None            # set by autograd
_record = None         # autograd.record
_with_residuals = None  # autograd.forward_with_residuals
_float_kinds = frozenset('fc')
_scalar_types = (bool, int, float, complex)


def static_arg(v):
    """Normalise a static (hashable) argument: lists -> tuples, 0-dim tensors -> Python numbers."""
    t = type(v)
    if t is int or t is bool or v is None or t is str or t is float:
        return v
    if t is list or t is tuple:
        return tuple(static_arg(x) for x in v)
    if isinstance(v, Tensor):
        if v.numel() == 1:
            return v.item()
        return tuple(v.tolist())
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray):
        return static_arg(v.tolist())
    if isinstance(v, (slice,)):
        return (v.start, v.stop, v.step)
    try:
        hash(v)
    except TypeError:
        raise TypeError(f'expected a hashable argument, got {type(v).__name__}')
    return v


# ---- promotion -------------------------------------------------------------------------

def result_dtype(args):
    """torch.result_type over a sequence of Tensors / Python numbers (None ignored)."""
    dims, zeros, scalars = [], [], []
    for a in args:
        if isinstance(a, Tensor):
            (dims if a.ndim else zeros).append(a.dtype)
        elif a is None:
            continue
        elif isinstance(a, (numbers.Number, np.bool_)):
            scalars.append(D.wrapped_scalar_dtype(a))
        elif hasattr(a, 'dtype'):      # a raw jax array handed in by the engine
            dims.append(D.from_np(a.dtype))
    return D.result_type_of(dims, zeros, scalars)


def _promote(op, leaves, mask):
    if len(leaves) == 1:
        a = leaves[0]
        if isinstance(a, Tensor):
            dt = a.dtype
        else:
            dt = result_dtype(leaves)
    else:
        first = leaves[0]
        dt = None
        if type(first) is Tensor and first.ndim:
            dt = first.dtype
            for a, m in zip(leaves, mask):
                if not m or a is first:
                    continue
                if type(a) is Tensor and a.ndim and a.dtype is dt:
                    continue
                dt = None
                break
        if dt is None:
            dt = result_dtype([a for a, m in zip(leaves, mask) if m])
    if op.promote == 'float' and dt is not None and dt._cat < 2:
        dt = D.state.default_dtype
    return dt


# ---- compiled programs -----------------------------------------------------------------

def _unflatten(leaves, struct):
    out, i = [], 0
    for n in struct:
        if n is None:
            out.append(leaves[i])
            i += 1
        else:
            out.append(list(leaves[i:i + n]))
            i += n
    return out


def forward_fn(op, static, cdtype, struct):
    """The pure function of the leaves for (op, static, cdtype, struct): casts, then the body."""
    kw = dict(zip(op.static_names, static))
    names = op.dyn_names
    npd = cdtype.np if cdtype is not None else None
    if struct is None:
        pmask = op.promote_mask
    else:
        pmask = []
        for n, m in zip(struct, op.promote_mask):
            pmask.extend([m] * (1 if n is None else n))
    fn = op.fn

    if op.varargs:
        def f(*leaves):
            return fn(*leaves, **kw)
        f.__name__ = op.name
        return f

    def f(*leaves):
        if npd is not None:
            leaves = [jnp.asarray(a, npd) if m and a is not None else a for a, m in zip(leaves, pmask)]
        dyn = leaves if struct is None else _unflatten(leaves, struct)
        return fn(**dict(zip(names, dyn)), **kw)
    f.__name__ = op.name
    return f


def compiled(op, key):
    f = op.cache.get(key)
    if f is None:
        f = forward_fn(op, *key)
        if op.jit:
            f = jax.jit(f)
        op.cache[key] = f
    return f


# ---- apply -----------------------------------------------------------------------------

def apply(op, dyn, static=(), out=None):
    if state.modes:
        return _through_modes(op, dyn, static, out, 0)
    return _apply(op, dyn, static, out)


def _through_modes(op, dyn, static, out, i):
    modes = state.modes
    if i >= len(modes):
        return _apply(op, dyn, static, out)
    return modes[i](op, dyn, static, out, lambda d, s, o: _through_modes(op, d, s, o, i + 1))


def push_mode(mode):
    state.modes = state.modes + (mode,)


def pop_mode(mode):
    """Remove ``mode`` (the innermost occurrence) from the stack."""
    modes = list(state.modes)
    for i in range(len(modes) - 1, -1, -1):
        if modes[i] is mode:
            del modes[i]
            break
    state.modes = tuple(modes)


def _apply(op, dyn, static=(), out=None):
    if op.lists:
        leaves, struct = [], []
        for i, a in enumerate(dyn):
            if i in op.lists:
                a = list(a)
                leaves.extend(a)
                struct.append(len(a))
            else:
                leaves.append(a)
                struct.append(None)
        struct = tuple(struct)
    else:
        leaves, struct = dyn, None
    arrays = []
    grad = False
    grad_on = state.grad_enabled
    lazy_on = state.mode == 'lazy'
    for a in leaves:
        if isinstance(a, Tensor):
            arrays.append(a._raw() if lazy_on else a._value())
            if grad_on and a.requires_grad:
                grad = True
        elif a is None or type(a) in _scalar_types or type(a) is _ArrayImpl:
            arrays.append(a)
        elif type(a) is LazyArray:         # saved values handed back by the autograd engine
            arrays.append(a if lazy_on else a.get())
        elif isinstance(a, jax.Array):
            arrays.append(a)
        elif isinstance(a, (numbers.Number, np.bool_)):
            arrays.append(a.item() if hasattr(a, 'item') else a)
        else:
            raise TypeError(f"{op.name}(): argument must be Tensor or number, not {type(a).__name__}")
    if op.promote is not None:
        if struct is None:
            cdtype = _promote(op, leaves, op.promote_mask)
        else:
            mask = []
            for n, m in zip(struct, op.promote_mask):
                mask.extend([m] * (1 if n is None else n))
            cdtype = _promote(op, leaves, mask)
    else:
        cdtype = None
    key = (static, cdtype, struct)
    f = op.cache.get(key)
    if f is None:
        f = compiled(op, key)
    saved = None
    if grad and op.residuals:       # Note [Saved residuals]
        saved = _with_residuals(op, key, leaves, arrays, lazy_on)
    if saved is not None:
        res, saved = saved
    elif lazy_on:         # Note [Lazy execution]
        rec = op.lazy_record(key, arrays) if op.lazy_record is not None else None
        if rec is not None:
            res = lazy.record(*rec)
        elif op.jit:
            res = lazy.record(f, (op, key), arrays)
        else:
            res = lazy.record_or_run(f, (op, key), arrays)
    else:
        res = f(*arrays)
    if type(res) is tuple or type(res) is list:
        outs = tuple(_wrap(r) for r in res)
        single = False
    else:
        outs = (_wrap(res),)
        single = True
    if grad:
        _record(op, key, leaves, arrays, outs, saved)
    if op.view:
        _mark_views(op, key, leaves[0], outs)
    if out is not None:
        return _write_out(op, outs, out, single)
    if single:
        return outs[0]
    if op.ret is not None:
        return op.ret(outs)
    return outs


_onew = object.__new__


def _wrap(arr):
    t = _onew(Tensor)
    t._v = arr
    t._base = None
    t._grad_fn = None
    t.requires_grad = False
    t._vc = None
    return t


def wrap(arr):
    return _wrap(arr)


def _mark_views(op, key, inp, outs):
    from . import views
    views.mark(op, key, inp, outs)


def _write_out(op, outs, out, single):
    targets = (out,) if single else tuple(out)
    if len(targets) != len(outs):
        raise RuntimeError(f'{op.name}(): expected {len(outs)} out tensors, got {len(targets)}')
    for t, r in zip(targets, outs):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op.name}(): argument 'out' must be Tensor, not {type(t).__name__}")
        if state.grad_enabled and (t.requires_grad or r.requires_grad):
            raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        if r.dtype is not t.dtype:
            if not D.can_cast(r.dtype, t.dtype):
                raise RuntimeError(f"result type {_tname(r.dtype)} can't be cast to the desired output type {_tname(t.dtype)}")
            r = cast(r, t.dtype)
        t._set_value_inplace(r._raw(), resize=True)      # (pending in lazy mode: no sync per out= call)
    if single:
        return out
    if op.ret is not None:
        return op.ret(targets)
    return tuple(targets)


def _tname(d):
    return {'float32': 'Float', 'float64': 'Double', 'int64': 'Long', 'int32': 'Int', 'int16': 'Short',
            'int8': 'Char', 'uint8': 'Byte', 'bool': 'Bool', 'float16': 'Half', 'bfloat16': 'BFloat16',
            'complex64': 'ComplexFloat', 'complex128': 'ComplexDouble'}.get(d.name, d.name)


def cast(t, dtype):
    from .. import _ops
    return _ops.core.to_dtype_op(t, dtype)


def apply_inplace(op, dyn, static=()):
    self = dyn[0]
    if not isinstance(self, Tensor):
        raise TypeError(f'{op.name}_(): expected a Tensor')
    self._check_inplace()
    r = apply(op, dyn, static)
    if op.ret is not None or type(r) is tuple:
        r = r[0]
    if r.dtype is not self.dtype:
        if not D.can_cast(r.dtype, self.dtype):
            raise RuntimeError(f"result type {_tname(r.dtype)} can't be cast to the desired output type {_tname(self.dtype)}")
        r = cast(r, self.dtype)
    if r.shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(r.shape)}")
    self._commit_inplace(r)
    return self
