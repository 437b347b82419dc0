"""torch.autocast: mixed-precision regions as a dispatch mode.

Note [Autocast]
Autocast state is thread-local, per device type (enabled flag, dtype), plus the cast cache flag and the
nesting depth, as in torch's C++ state. While any device type is enabled, ``_autocast_mode`` sits on
dispatch's mode stack (Note [Dispatch modes]); it looks the op up in that device type's policy table
(_policy.py) and casts the *eligible* tensor arguments (floating point, not float64, on that device
type) before the op runs. Casts are ordinary ``_to_dtype`` ops through dispatch.apply, so autograd
records ToCopyBackward0 and a float32 parameter's gradient arrives in float32, as in torch; the mode
sees its own casts again but ``_to_dtype`` has no policy, so re-entry is a plain pass-through.
As torch, a float32 leaf that requires grad (a parameter) is cast once per outermost region and the
lower-precision copy reused (``cache_enabled``); the cache is cleared when the outermost region exits.
Front ends that validate dtypes before dispatching (linalg, fft, quantile, stft, index_copy) take the policy
at their entry instead: ``autocast_entry`` (see _policy.py's note on front-end entries).
"""
import collections.abc
import functools
import threading
import warnings
import weakref

import numpy as np

from .. import _dtype as D
from .._device import device as _device, gpu_devices
from .._engine import dispatch
from .._engine.state import state as _engine_state
from . import _policy

__all__ = ['autocast', 'autocast_decorator', 'is_autocast_available', 'custom_fwd', 'custom_bwd', 'autocast_entry']

# device types with an autocast dispatch key in torch, and their default dtypes
_AVAILABLE = ('cpu', 'cuda', 'xpu', 'ipu', 'hpu', 'xla', 'mps', 'mtia', 'maia', 'privateuseone')
_DEFAULT_DTYPE = {'cpu': D.bfloat16, 'xla': D.bfloat16, 'hpu': D.bfloat16}


class _State(threading.local):
    def __init__(self):
        self.enabled = {}            # device type -> bool
        self.dtype = {}              # device type -> torch dtype
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}              # id(param) -> (weakref to param, its cast)
        self.active = ()             # ((device type, dtype, policy table, entry table), ...) of the enabled types


_st = _State()


def _device_type(device_type):
    """Validate a device-type string as torch does (the type of a device string)."""
    if not isinstance(device_type, str):
        raise TypeError(f"expected a device type string, not {type(device_type).__name__}")
    return _device(device_type).type


def is_autocast_available(device_type):
    """Whether autocast has a policy for ``device_type``."""
    return _device_type(device_type) in _AVAILABLE


# ---- state functions (torch.is_autocast_enabled, torch.set_autocast_dtype, ...) -----------------------

def is_autocast_enabled(device_type=None):
    """Autocast state of ``device_type`` (no argument: 'cuda', torch's legacy meaning)."""
    dt = 'cuda' if device_type is None else _device_type(device_type)
    return _st.enabled.get(dt, False)


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:          # legacy one-argument form: the CUDA flag
        device_type, enabled = 'cuda', device_type
    _st.enabled[_device_type(device_type)] = bool(enabled)
    _sync_mode()


def get_autocast_dtype(device_type):
    dt = _device_type(device_type)
    if dt not in _AVAILABLE:
        raise RuntimeError("unsupported scalarType")
    return _st.dtype.get(dt, _DEFAULT_DTYPE.get(dt, D.float16))


def set_autocast_dtype(device_type, dtype):
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    dt = _device_type(device_type)
    if dt not in _AVAILABLE:
        raise RuntimeError("unsupported scalarType")
    _st.dtype[dt] = dtype
    _sync_mode()


def is_autocast_cpu_enabled():
    return is_autocast_enabled('cpu')


def set_autocast_cpu_enabled(enabled):
    set_autocast_enabled('cpu', enabled)


def get_autocast_cpu_dtype():
    return get_autocast_dtype('cpu')


def set_autocast_cpu_dtype(dtype):
    set_autocast_dtype('cpu', dtype)


def get_autocast_gpu_dtype():
    return get_autocast_dtype('cuda')


def set_autocast_gpu_dtype(dtype):
    set_autocast_dtype('cuda', dtype)


def is_autocast_cache_enabled():
    return _st.cache_enabled


def set_autocast_cache_enabled(enabled):
    _st.cache_enabled = bool(enabled)


def autocast_increment_nesting():
    _st.nesting += 1
    return _st.nesting


def autocast_decrement_nesting():
    _st.nesting -= 1
    return _st.nesting


def clear_autocast_cache():
    _st.cache.clear()


# ---- the dispatch mode ---------------------------------------------------------------------------

def _sync_mode():
    """Keep ``_autocast_mode`` on the dispatch stack exactly while some device type is enabled."""
    active = tuple((dt, get_autocast_dtype(dt), _policy.table(dt), _policy.entry_table(dt))
                   for dt, on in _st.enabled.items() if on and dt in _AVAILABLE)
    _st.active = active
    on_stack = _autocast_mode in _engine_state.modes
    if active and not on_stack:
        dispatch.push_mode(_autocast_mode)
    elif not active and on_stack:
        dispatch.pop_mode(_autocast_mode)


def _tensor_device_type(t):
    # without GPUs every tensor is a CPU tensor: skip the device lookup, which reads the array
    return t.device.type if gpu_devices() else 'cpu'


def _eligible(a, dev):
    """torch's is_autocast_eligible: a floating tensor on ``dev`` that is not float64."""
    if not isinstance(a, dispatch.Tensor):
        return False
    dt = a.dtype
    return dt.is_floating_point and dt is not D.float64 and _tensor_device_type(a) == dev


def _cast(a, dev, to, lower):
    if not _eligible(a, dev) or a.dtype is to:
        return a
    if (lower and _st.cache_enabled and a.dtype is D.float32 and a.requires_grad and a._grad_fn is None
            and a._base is None and _engine_state.grad_enabled and _engine_state.mode != 'traced'):
        # as torch: a cast made under no_grad is not cached (it would carry no history into later uses); nor
        # one made while tracing (its tracer must not outlive the trace)
        hit = _st.cache.get(id(a))
        if hit is not None and hit[0]() is a and hit[1].dtype is to:
            return hit[1]
        r = dispatch.cast(a, to)
        _st.cache[id(a)] = (weakref.ref(a), r)
        return r
    return dispatch.cast(a, to)


def _map_args(dyn, lists, fn):
    out = []
    for i, a in enumerate(dyn):
        if i in lists:
            out.append([fn(x) for x in a])
        else:
            out.append(fn(a))
    return tuple(out)


def _leaves(dyn, lists):
    for i, a in enumerate(dyn):
        if i in lists:
            yield from a
        else:
            yield a


def _promote_type(dyn, lists, dev, lower):
    """torch's autocast promote_type / prioritize: the widest eligible floating dtype, float64 ignored."""
    cur = lower
    for a in _leaves(dyn, lists):
        if not _eligible(a, dev):
            continue
        nxt = a.dtype
        if cur is D.float32 or nxt is D.float32:
            cur = D.float32
        elif not (cur is lower and nxt is lower):
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return cur


def _first_eligible(dyn, lists, dev):
    first = next(iter(_leaves(dyn, lists)), None)
    return _eligible(first, dev)


def _autocast_mode(op, dyn, static, out, call):
    for dev, lower, table, _ in _st.active:
        kind = table.get(op.name)
        if kind is None:
            continue
        if not isinstance(kind, str):
            kind = kind(static, dyn)
            if kind is None:
                continue
        lists = op.lists
        if kind == 'lower':
            dyn = _map_args(dyn, lists, lambda a: _cast(a, dev, lower, True))
        elif kind == 'fp32':
            dyn = _map_args(dyn, lists, lambda a: _cast(a, dev, D.float32, False))
        elif kind == 'fp32_opt':
            # an explicit dtype= wins; otherwise the op runs as if called with dtype=float32
            explicit = 'dtype' in op.static_names and static[op.static_names.index('dtype')] is not None
            if not explicit and _first_eligible(dyn, lists, dev):
                dyn = _map_args(dyn, lists, lambda a: _cast(a, dev, D.float32, False))
        elif kind == 'promote':
            to = _promote_type(dyn, lists, dev, lower)
            dyn = _map_args(dyn, lists, lambda a: _cast(a, dev, to, False))
        elif kind == 'banned':
            raise RuntimeError(
                "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
                "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
                "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
                "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
                "safe to autocast.")
    return call(dyn, static, out)


# ---- front-end entries ---------------------------------------------------------------------------

def autocast_entry(name):
    """Decorator for the front end of ATen op ``name`` that checks dtypes before it dispatches: under autocast
    its tensor arguments get the op's policy (_policy.entry_table) before the checks run, and the body runs
    with autocast suspended, as torch's autocast wrapper excludes the Autocast key around the kernel it calls
    (a float32 linalg op's inner products stay float32). The out= forms are separate ATen overloads that torch
    does not list, so a call with ``out`` runs untouched."""
    def deco(fn):
        @functools.wraps(fn)
        def entry(*args, **kwargs):
            if not _st.active or kwargs.get('out') is not None:
                return fn(*args, **kwargs)
            return _entry_call(name, fn, args, kwargs)
        return entry
    return deco


def _map_tensors(v, fn):
    """``fn`` on a tensor argument, or on the tensors of a list/tuple argument; other values unchanged."""
    if isinstance(v, dispatch.Tensor):
        return fn(v)
    if type(v) in (list, tuple):
        return type(v)(fn(x) if isinstance(x, dispatch.Tensor) else x for x in v)
    return v


def _tensor_leaves(values):
    for v in values:
        if isinstance(v, dispatch.Tensor):
            yield v
        elif type(v) in (list, tuple):
            yield from (x for x in v if isinstance(x, dispatch.Tensor))


def _entry_call(name, fn, args, kwargs):
    listed = False
    for dev, lower, _, entries in _st.active:
        kind = entries.get(name)
        if kind is None:
            continue
        listed = True
        if kind == 'fp32':
            to = D.float32
        else:   # 'promote'
            to = _promote_type(tuple(_tensor_leaves(args + tuple(kwargs.values()))), (), dev, lower)
        cast = lambda a: _cast(a, dev, to, False)  # noqa: E731
        args = tuple(_map_tensors(a, cast) for a in args)
        kwargs = {k: _map_tensors(v, cast) for k, v in kwargs.items()}
    if not listed:
        return fn(*args, **kwargs)
    active, _st.active = _st.active, ()     # the body runs with autocast off, as torch's wrapper
    try:
        return fn(*args, **kwargs)
    finally:
        _st.active = active


# ---- torch.autocast ----------------------------------------------------------------------------

def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """Context manager / decorator running its region in mixed precision (see torch.autocast).

    Ops listed by torch for ``device_type`` run in ``dtype`` (default: bfloat16 on CPU, float16 on CUDA)
    or in float32; other ops run in their inputs' dtype. ``enabled=False`` opens a region with autocast off.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if self.device == 'cuda':
                if not gpu_devices():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                                  stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in (D.bfloat16, D.float16):
                name = self.device.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        _st.enabled[_device_type(self.device)] = bool(self._enabled)
        _st.dtype[_device_type(self.device)] = self.fast_dtype
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        _sync_mode()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        _st.enabled[_device_type(self.device)] = self.prev
        _st.dtype[_device_type(self.device)] = self.prev_fastdtype
        set_autocast_cache_enabled(self.prev_cache_enabled)
        _sync_mode()
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                            f"Did you mean to use autocast as a context manager? For example:\n"
                            f"    with torch.autocast(device_type=...):\n"
                            f"        output = model(input)")
        return autocast_decorator(self, func)


def _enter_autocast(*vals):
    mode = autocast(*vals)
    mode.__enter__()
    return mode


def _exit_autocast(mode):
    mode.__exit__(None, None, None)


# ---- custom autograd Functions under autocast ------------------------------------------------------

def _cast_value(value, device_type, dtype):
    """Cast the eligible tensors in a (nested) argument structure, as torch.amp.autocast_mode._cast."""
    if isinstance(value, dispatch.Tensor):
        ok = value.is_floating_point() and value.device.type == device_type and value.dtype is not D.float64
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast_value(k, device_type, dtype): _cast_value(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        it = (_cast_value(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom autograd Function's ``forward`` (see torch.amp.custom_fwd)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_value(args, device_type, cast_inputs),
                           **_cast_value(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom autograd Function's ``backward``: runs it with the forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
