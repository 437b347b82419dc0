"""torch.optim.Optimizer: param groups, per-parameter state, state_dict, hooks, and the fused group step.

Note [Fused group step]: every optimizer's update is a pure per-tensor JAX function written in the
operation order of torch's single-tensor implementation (``_single_tensor_adam`` ...), so values match
torch's CPU trajectory. ``foreach_kernel`` turns it into ONE ``jax.jit`` program over a whole param group
(lists of params, grads and state arrays in, new arrays out). Python-float hyperparameters (lr, betas,
eps, ...) are arguments of that program, not constants, so an LR schedule never recompiles; the jit
cache key is only the static flags (maximize, amsgrad, ...) and the lists' structure, shapes and dtypes.
Scalar terms (bias corrections, step sizes) are computed in float64 inside the program and cast to the
parameter dtype where torch passes a Python double into a float kernel. New values are written back
with ``Tensor._set_value_inplace``, so parameter versions and views behave as after torch's in-place ops,
and state tensors (``exp_avg``, ``step`` ...) stay the same Tensor objects a user may hold.
"""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .. import _dtype as D
from .._tensor import Tensor
from .._engine import dispatch, lazy as _lazy
from .._engine.jaxrt import jax, jnp, lax
from .._engine.state import state as _gstate
from ..autograd.grad_mode import enable_grad
from ..nn.modules._hooks import RemovableHandle

__all__ = ['Optimizer', 'register_optimizer_step_pre_hook', 'register_optimizer_step_post_hook']

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook):
    """Register a pre hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None or (args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register a post hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _use_grad_for_differentiable(func):
    """Run ``step`` with grad mode set to the optimizer's ``differentiable`` flag, as torch does."""
    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = _gstate.grad_enabled
        try:
            _gstate.grad_enabled = bool(self.defaults.get('differentiable', False))
            return func(self, *args, **kwargs)
        finally:
            _gstate.grad_enabled = prev
    return _use_grad


def _to_scalar(x):
    """A 1-element Tensor hyperparameter as a 0-dim Tensor; other values unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype(is_fused=None):
    if is_fused:
        return D.float32
    return D.float64 if D.get_default_dtype() is D.float64 else D.float32


def _device_dtype_check_for_fused(p, cuda_unsupported=False):
    if not p.is_floating_point():
        devices = ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia']
        if cuda_unsupported:
            devices.remove('cuda')
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of "
                           f"supported devices: {devices} but {p.dtype} and {p.device.type}")


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_adam_args(lr, eps, betas, weight_decay):
    """The argument checks of the Adam family (Adam, Adamax, NAdam, RAdam), in torch's order."""
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _check_fused(fused, foreach, differentiable):
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_differentiable(name, differentiable):
    if differentiable:
        raise NotImplementedError(f"torchlike.optim.{name}: differentiable=True (autograd through the optimizer "
                                  "step) is not supported; each step is one compiled, non-recorded program")


def _check_capturable(params, what='params and state_steps', supports_xla=True):
    # capturable=True promises CUDA-graph-safe steps; torch refuses it for params on other devices
    devices = ['cuda', 'xpu', 'hpu', 'privateuseone'] + (['xla'] if supports_xla else [])
    if not all(p.device.type in devices for p in params):
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


# ---- the fused group step (Note [Fused group step]) -------------------------------------------

def _as_real(a):
    return jnp.stack([jnp.real(a), jnp.imag(a)], axis=-1)


def _as_complex(a, dtype):
    return lax.complex(a[..., 0], a[..., 1]).astype(dtype)


def foreach_kernel(per_tensor):
    """One jitted program applying ``per_tensor(flags, p, g, states, hp) -> (p, states)`` to a whole group.

    Complex tensors are viewed as real (..., 2) arrays around the update, as torch's ``_view_as_real``.
    ``flags`` is static (hashable); ``hp`` is a tuple of hyperparameters passed as data.
    """
    def run(flags, params, grads, states, hp):
        new_p, new_s = [], [[] for _ in states]
        for i in range(len(params)):
            p, g = params[i], grads[i]
            st = tuple(s[i] for s in states)
            cplx = jnp.iscomplexobj(p)
            if cplx:
                pd = p.dtype
                # a missing state (SGD's first momentum buffer) is created from the param-shaped update
                kinds = tuple(s is None or jnp.iscomplexobj(s) for s in st)
                p, g = _as_real(p), _as_real(g)
                st = tuple(_as_real(s) if k and s is not None else s for s, k in zip(st, kinds))
            p2, st2 = per_tensor(flags, p, g, st, hp)
            if cplx:
                p2 = _as_complex(p2, pd)
                st2 = tuple(_as_complex(s, pd) if k else s for s, k in zip(st2, kinds))
            new_p.append(p2)
            for lst, s in zip(new_s, st2):
                lst.append(s)
        return new_p, new_s
    return jax.jit(run, static_argnums=(0,))


def _hp(x):
    """A hyperparameter as data for a compiled step: a Tensor's array, else a Python float (weak-typed)."""
    if isinstance(x, Tensor):
        return x.detach()._raw()
    return float(x)


def _new_state(arr):
    return dispatch.wrap(arr)


def run_group(kernel, flags, optimizer, params, keys, hp):
    """Run ``kernel`` over ``params`` (all with grads) and their state ``keys``; write new values back."""
    # torch creates no state entry for an optimizer without state (e.g. SGD without momentum)
    sts = [optimizer.state[p] for p in params] if keys else [{} for _ in params]
    lazy_on = _gstate.mode == 'lazy'
    get = Tensor._raw if lazy_on else Tensor._value
    arrays = [get(p) for p in params]
    grads = [get(p.grad) for p in params]
    states = [[get(st[k]) if st.get(k) is not None else None for st in sts] for k in keys]
    hps = tuple(_hp(h) for h in hp)
    if lazy_on:
        new_p, new_s = _record_group(kernel, flags, arrays, grads, states, hps)
    else:
        new_p, new_s = kernel(flags, arrays, grads, states, hps)
    for p, a in zip(params, new_p):
        p._set_value_inplace(a)
    for k, lst in zip(keys, new_s):
        for st, a in zip(sts, lst):
            if a is None:
                continue
            t = st.get(k)
            if t is None:
                st[k] = _new_state(a)
            else:
                t._set_value_inplace(a)


_flat_kernels = {}


def _record_group(kernel, flags, arrays, grads, states, hps):
    """The group update as one node of the lazy graph (Note [Lazy execution]): the kernel over flat arguments,
    returning the new params and the states it produced (a missing state may be created by the update)."""
    n = len(arrays)
    given = tuple(tuple(a is not None for a in lst) for lst in states)
    token = ('optim', kernel, flags, n, given, len(hps))
    entry = _flat_kernels.get(token)
    if entry is None:
        made = {}                 # which new states are arrays (known once traced)

        def flat(*xs):
            it = iter(xs)
            ps = [next(it) for _ in range(n)]
            gs = [next(it) for _ in range(n)]
            sts = [[next(it) if g else None for g in lst] for lst in given]
            h = tuple(next(it) for _ in range(len(hps)))
            new_p, new_s = kernel(flags, ps, gs, sts, h)
            made['mask'] = tuple(tuple(a is not None for a in lst) for lst in new_s)
            return tuple(new_p) + tuple(a for lst in new_s for a in lst if a is not None)
        entry = _flat_kernels[token] = (jax.jit(flat), made)
    fn, made = entry
    args = list(arrays) + list(grads) + [a for lst in states for a in lst if a is not None] + list(hps)
    out = _lazy.record(fn, token, args)
    out = out if type(out) is tuple else (out,)
    it = iter(out[n:])
    new_s = [[next(it) if m else None for m in lst] for lst in made['mask']]
    return list(out[:n]), new_s


def lerp(start, end, w):
    """torch's CPU lerp: ``start + w*(end-start)`` when |w| < 0.5, else ``end - (end-start)*(1-w)``."""
    w = w.astype(start.dtype) if hasattr(w, 'astype') else jnp.asarray(w, start.dtype)
    small = jnp.abs(w) < 0.5
    d = end - start
    c = jnp.where(small, w, -(1 - w))
    return jnp.where(small, start, end) + c * d


def cast(x, like):
    """A float64 scalar term as the parameter's dtype (torch casts its Python double Scalar the same way)."""
    return jnp.asarray(x).astype(like.dtype)


def f64(x):
    return jnp.asarray(x).astype(jnp.float64)


# ---- Optimizer ----------------------------------------------------------------------------------

def _torch():
    import torchlike
    return torchlike


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of :class:`torch.Tensor` s or :class:`dict` s.
        defaults (dict): default values of optimization options (used when a parameter group doesn't specify them).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _torch().typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{'params': param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        self._warned_capturable_if_run_uncaptured = True
        if _gstate.mode == 'lazy':
            # the parameters are built: their pending initialization runs now, as a program of its own, so that
            # the first step's program is the steady one (compiled once, not once with the init and once without)
            _lazy.sync()

    def __getstate__(self):
        return {'defaults': self.defaults, 'state': self.state, 'param_groups': self.param_groups}

    _setstate_group_defaults = {}
    _setstate_step_keys = None

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ('_optimizer_step_pre_hooks', '_optimizer_step_post_hooks', '_optimizer_state_dict_pre_hooks',
                     '_optimizer_state_dict_post_hooks', '_optimizer_load_state_dict_pre_hooks',
                     '_optimizer_load_state_dict_post_hooks'):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault('differentiable', False)
        # each optimizer names the group options older pickles may lack and its tensor-valued state entries
        for group in self.param_groups:
            for k, v in self._setstate_group_defaults.items():
                group.setdefault(k, v)
        if self._setstate_step_keys is not None:
            _step_tensors_to_tensor(self, keys=self._setstate_step_keys)

    def __repr__(self):
        format_string = self.__class__.__name__ + ' ('
        for i, group in enumerate(self.param_groups):
            format_string += '\n'
            format_string += f'Parameter Group {i}\n'
            for key in sorted(group.keys()):
                if key != 'params':
                    format_string += f'    {key}: {group[key]}\n'
        format_string += ')'
        return format_string

    # -- step hooks ---------------------------------------------------------------------------
    @staticmethod
    def profile_hook_step(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            if _gstate.mode == 'traced':
                from .._engine.traced import GraphBreak
                raise GraphBreak("optimizer.step() inside a compiled function (optimizer state is not lifted yet)")
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
            out = func(*args, **kwargs)
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self):
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        hooked = getattr(self.__class__.step, 'hooked', None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state_dict ---------------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}`` as in torch."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != 'params'}
            param_mappings.update({id(p): i for i, p in enumerate(group['params'], start_index)
                                   if id(p) not in param_mappings})
            packed['params'] = [param_mappings[id(p)] for p in group['params']]
            start_index += len(packed['params'])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {'state': packed_state, 'param_groups': param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg['params']:
                fused = pg.get('fused', False)
                capturable = pg.get('capturable', False)
                break
        if key == 'step':
            if capturable or fused:
                return value.to(dtype=D.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict['param_groups'])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g['params']) != len(s['params']) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g['params'] for g in saved_groups),
                          chain.from_iterable(g['params'] for g in groups)))

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id, param_groups, key)
            if isinstance(value, dict):
                return {k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            if isinstance(value, (list, tuple)) and not isinstance(value, str):
                return type(value)(_cast(param, v, param_id=param_id, param_groups=param_groups) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict['state'].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict['param_groups'])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group['params'] = group['params']
            if 'param_names' in group and 'param_names' not in new_group:
                new_group['param_names'] = group['param_names']
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({'state': state, 'param_groups': param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # -- grads and groups ---------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized Tensors (to None by default)."""
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        g = p.grad
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()             # as torch; an op, so it stays on g's device (and pending in lazy mode)

    def step(self, closure=None):
        raise NotImplementedError

    def _closure_loss(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def add_param_group(self, param_group):
        """Add a param group to the Optimizer's ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group['params']
        if isinstance(params, Tensor):
            param_group['params'] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group['params'] = list(params)
        tensors, names = [], []
        for param in param_group['params']:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group['params'] = tensors
        if len(names) != 0:
            if len(names) == len(tensors):
                param_group['param_names'] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for param in param_group['params']:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _torch().typename(param))
            if not self.defaults.get('differentiable', None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group['params']
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group['params']))
            if ('param_names' in param_group) != ('param_names' in group):
                txt = 'with names' if 'param_names' in param_group else 'without names'
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not param_set.isdisjoint(set(param_group['params'])):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- helpers shared by the optimizers ---------------------------------------------------------
    def _params_with_grad(self, group, name=None):
        out = []
        for p in group['params']:
            if p.grad is not None:
                if name is not None and getattr(p.grad, 'is_sparse', False):
                    raise RuntimeError(f"{name} does not support sparse gradients")
                out.append(p)
        return out

    def _step_tensor(self, value=0.0, fused=False):
        t = _torch()
        return t.tensor(value, dtype=_get_scalar_dtype(is_fused=fused))

    def _groups_to_step(self, name=None, keys=(), init=None, capturable_what='params and state_steps',
                        supports_xla=True):
        """Torch's per-group step scaffolding (``_init_group``): yield ``(group, params, keys)`` for each group
        with gradients, where ``params`` are its params with a grad (``name`` rejects sparse grads for the
        optimizers that do) and ``keys`` its state entries, in state_dict order (a callable: ``keys(group)``,
        for options that add entries). ``capturable`` is checked on the params. A param with no state yet gets
        every key: ``init[key](p, group)`` where given, else ``step`` a zero step counter and the rest zeros
        like the param (after the fused dtype check, for optimizers with ``fused``)."""
        init = init or {}
        for group in self.param_groups:
            params = self._params_with_grad(group, name)
            if not params:
                continue
            if group.get('capturable'):
                _check_capturable(params, capturable_what, supports_xla)
            group_keys = keys(group) if callable(keys) else keys
            for p in params if group_keys else ():     # (self.state[p] would create an empty entry)
                state = self.state[p]
                if len(state) == 0:
                    if group.get('fused'):
                        _device_dtype_check_for_fused(p)
                    for k in group_keys:
                        state[k] = init[k](p, group) if k in init else self._new_state_entry(k, p, group)
            yield group, params, group_keys

    def _new_state_entry(self, key, p, group):
        if key == 'step':
            return self._step_tensor(0.0, fused=group.get('fused'))
        if _gstate.mode == 'lazy' and p.is_contiguous():
            # concrete zeros (their shape is all they take from p): an input of the first step's program like the
            # state of every later step, so that the first step compiles the steady program
            with _lazy.now():
                return _torch().zeros(p.shape, dtype=p.dtype, device=p.device)
        return _torch().zeros_like(p)


def _step_tensors_to_tensor(optimizer, keys=('step',), fused_key='fused', capturable_key='capturable'):
    """``__setstate__`` support: old checkpoints stored ``step`` as a Python number; torch makes it a Tensor."""
    t = _torch()
    for group in optimizer.param_groups:
        fused = group.get(fused_key, False)
        for p in group['params']:
            p_state = optimizer.state.get(p, [])
            if len(p_state) != 0:
                for k in keys:
                    if k in p_state and not isinstance(p_state[k], Tensor):
                        p_state[k] = t.tensor(float(p_state[k]), dtype=_get_scalar_dtype(
                            is_fused=fused if (group.get(capturable_key) or fused) else None))
