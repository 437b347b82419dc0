"""torch.amp.GradScaler: dynamic loss scaling, with torch's two kernels as registry ops.

``_amp_foreach_non_finite_check_and_unscale_`` multiplies every gradient of an optimizer by 1/scale and
sets ``found_inf`` when any of them holds an inf/NaN: ONE compiled program over the whole list (the
gradients may mix dtypes), written back in place. ``_amp_update_scale_`` is torch's CPU kernel: on a
found inf the scale is multiplied by ``backoff_factor`` and the growth tracker reset; otherwise after
``growth_interval`` consecutive clean steps it is multiplied by ``growth_factor`` (kept only if finite).
Factors are data, so changing them never recompiles. The class follows torch.amp.grad_scaler line by
line, so the stage errors (unscale_ twice, step twice) and the state_dict are torch's.
"""
import warnings
from collections import defaultdict
from enum import Enum

from .. import _dtype as D
from .._device import gpu_devices
from .._engine import dispatch
from .._engine.jaxrt import jnp
from .._engine.registry import PUBLIC, op

__all__ = ['OptState', 'GradScaler']


# ---- the kernels ------------------------------------------------------------------------------------

@op('_amp_unscale', lists=('grads',), function=False, method=False, differentiable=False, saves=())
def _amp_unscale(grads, found_inf, inv_scale):
    bad = jnp.zeros((), bool)
    out = []
    for g in grads:
        bad = bad | ~jnp.all(jnp.isfinite(g))
        # torch multiplies in the op-math type (float for half/bfloat16), then rounds to the grad's dtype
        w = jnp.float64 if g.dtype == jnp.float64 else jnp.float32
        out.append((g.astype(w) * inv_scale.astype(w)).astype(g.dtype))
    out.append(jnp.where(bad, jnp.ones((), found_inf.dtype), found_inf))
    return tuple(out)


@op('_amp_update_scale', function=False, method=False, differentiable=False, saves=())
def _amp_update_scale(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    s = scale.astype(jnp.float64)                 # float * double in ATen's kernel, stored back as float
    backed = (s * backoff_factor).astype(scale.dtype)
    grown = (s * growth_factor).astype(scale.dtype)
    successful = growth_tracker + 1
    at_interval = successful == growth_interval
    found = found_inf != 0
    new_scale = jnp.where(found, backed, jnp.where(at_interval & jnp.isfinite(grown), grown, scale))
    zero = jnp.zeros((), growth_tracker.dtype)
    new_tracker = jnp.where(found | at_interval, zero, successful.astype(growth_tracker.dtype))
    return new_scale, new_tracker


def _need(t, name, cond, msg):
    if not isinstance(t, dispatch.Tensor):
        raise TypeError(f"{name}(): expected a Tensor, not {type(t).__name__}")
    if not cond(t):
        raise RuntimeError(msg)


def _amp_foreach_non_finite_check_and_unscale_(self, found_inf, inv_scale):
    """torch._amp_foreach_non_finite_check_and_unscale_: unscale ``self`` (a list of grads) in place."""
    fname = '_amp_foreach_non_finite_check_and_unscale_'
    _need(inv_scale, fname, lambda t: t.numel() == 1, "inv_scale must be a 1-element tensor.")
    _need(found_inf, fname, lambda t: t.numel() == 1, "found_inf must be a 1-element tensor.")
    _need(inv_scale, fname, lambda t: t.dtype is D.float32, "inv_scale must be a float tensor.")
    _need(found_inf, fname, lambda t: t.dtype is D.float32, "found_inf must be a float tensor.")
    grads = list(self)
    if not grads:
        return
    for g in grads:
        _need(g, fname, lambda t: t.dtype.is_floating_point, "Expected a floating-point tensor")
    res = dispatch.apply(_amp_unscale, (grads, found_inf, inv_scale))
    for g, r in zip(grads, res[:-1]):
        g._set_value_inplace(r._raw())            # (pending in lazy mode: no sync here)
    found_inf._set_value_inplace(res[-1]._raw())


def _amp_update_scale_(self, growth_tracker, found_inf, scale_growth_factor, scale_backoff_factor,
                       growth_interval):
    """torch._amp_update_scale_: update the scale (``self``) and growth tracker in place; returns ``self``."""
    fname = '_amp_update_scale_'
    _need(growth_tracker, fname, lambda t: t.dtype is D.int32, "growth_tracker must be an int tensor.")
    _need(self, fname, lambda t: t.dtype is D.float32, "current_scale must be a float tensor.")
    _need(found_inf, fname, lambda t: t.dtype is D.float32, "found_inf must be a float tensor.")
    s, g = dispatch.apply(_amp_update_scale, (self, growth_tracker, found_inf, float(scale_growth_factor),
                                              float(scale_backoff_factor), int(growth_interval)))
    self._set_value_inplace(s._raw())
    growth_tracker._set_value_inplace(g._raw())
    return self


# ---- GradScaler ------------------------------------------------------------------------------------

class _MultiDeviceReplicator:
    """Lazily serves copies of a tensor to requested devices (cached per device)."""

    def __init__(self, master_tensor):
        self.master = master_tensor
        self._per_device_tensors = {}

    def get(self, device):
        retval = self._per_device_tensors.get(device, None)
        if retval is None:
            retval = self.master.to(device=device, non_blocking=True, copy=True)
            self._per_device_tensors[device] = retval
        return retval


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _full(value, dtype, device):
    return PUBLIC['torch']['full']((), value, dtype=dtype, device=device)


class GradScaler:
    """Scales the loss so that low-precision gradients do not underflow, and unscales them before the step.

    ``scale(loss)`` multiplies by the current scale; ``step(optimizer)`` unscales the gradients and runs
    ``optimizer.step()`` unless one of them is inf/NaN; ``update()`` backs the scale off after a skipped
    step and grows it after ``growth_interval`` clean ones. See torch.amp.GradScaler.
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda":
            if enabled and not gpu_devices():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return (self._scale, self._growth_tracker)

    def _lazy_init_scale_growth_tracker(self, dev):
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        self._scale = _full(self._init_scale, D.float32, dev)
        self._growth_tracker = _full(self._init_growth_tracker, D.int32, dev)

    def scale(self, outputs):
        """Multiply a tensor (or a nested list/tuple of tensors) by the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, dispatch.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)

        stash = []

        def apply_scale(val):
            if isinstance(val, dispatch.Tensor):
                if len(stash) == 0:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    stash.append(_MultiDeviceReplicator(self._scale))
                return val * stash[0].get(val.device)
            if isinstance(val, (list, tuple)):
                return type(val)(map(apply_scale, val))
            if hasattr(val, '__iter__'):
                return map(apply_scale, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        per_device_inv_scale = _MultiDeviceReplicator(inv_scale)
        per_device_found_inf = _MultiDeviceReplicator(found_inf)
        per_device_grads = defaultdict(list)       # one fused check per device (dtypes may mix in it)
        from ..autograd.grad_mode import no_grad
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, dispatch.Tensor):
                        raise AssertionError(f"expected param to be torch.Tensor, got {type(param).__name__}")
                    if param.grad is None:
                        continue
                    if (not allow_fp16) and param.grad.dtype is D.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if getattr(param.grad, 'is_sparse', False):
                        raise NotImplementedError("GradScaler: sparse gradients are not supported by torchlike")
                    per_device_grads[param.grad.device].append(param.grad)
            for device, grads in per_device_grads.items():
                _amp_foreach_non_finite_check_and_unscale_(grads, per_device_found_inf.get(device),
                                                           per_device_inv_scale.get(device))
        return per_device_found_inf._per_device_tensors

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale (at most once per optimizer between updates)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        elif optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _full(0.0, D.float32, self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        return retval

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless ``unscale_`` was called) and run ``optimizer.step()`` if no gradient is inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            raise NotImplementedError("GradScaler.step: optimizers with _step_supports_amp_scaling (fused "
                                      "in-kernel unscaling) are not supported by torchlike")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Update the scale: back off after a skipped step, grow after ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=_scale.device, non_blocking=True)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            if len(found_infs) > 1:
                for i in range(1, len(found_infs)):
                    found_inf_combined += found_infs[i]
            _amp_update_scale_(_scale, _growth_tracker, found_inf_combined, self._growth_factor,
                               self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            scale = self._get_scale_async()
            return self._init_scale if scale is None else scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker ({} when disabled)."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer):
        _scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = _full(1.0, D.float32, _scale.device)
        found_inf = _full(0.0, D.float32, _scale.device)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = \
            self._unscale_grads_(optimizer, dummy_inv_scale, found_inf, True)
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
