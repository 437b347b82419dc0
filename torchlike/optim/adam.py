"""torch.optim.Adam: amsgrad, weight decay (L2 or decoupled), maximize (see Note [Fused group step])."""
from .._tensor import Tensor
from .._engine.jaxrt import jnp
from .optimizer import _check_capturable
from .optimizer import (Optimizer, _use_grad_for_differentiable, _check_differentiable, _to_scalar,
                        _device_dtype_check_for_fused, foreach_kernel, run_group,
                        lerp, cast, f64)

__all__ = ['Adam']


def _adam_update(flags, p, g, st, hp):
    # torch's _single_tensor_adam (non-capturable branch), operation for operation
    maximize, has_wd, decoupled, amsgrad = flags
    lr, beta1, beta2, eps, weight_decay = hp
    if amsgrad:
        step_t, exp_avg, exp_avg_sq, max_sq = st
    else:
        (step_t, exp_avg, exp_avg_sq), max_sq = st, None
    if maximize:
        g = -g
    step_t = step_t + 1
    if has_wd:
        if decoupled:
            p = p * cast(1 - lr * weight_decay, p)
        else:
            g = g + cast(weight_decay, p) * p
    exp_avg = lerp(exp_avg, g, 1 - beta1)
    exp_avg_sq = exp_avg_sq * cast(beta2, p) + (cast(1 - beta2, p) * g) * g
    step = f64(step_t)
    bias_correction1 = 1 - f64(beta1) ** step
    bias_correction2 = 1 - f64(beta2) ** step
    step_size = f64(lr) / bias_correction1
    bias_correction2_sqrt = jnp.sqrt(bias_correction2)
    if amsgrad:
        max_sq = jnp.maximum(max_sq, exp_avg_sq)
        denom = jnp.sqrt(max_sq) / cast(bias_correction2_sqrt, p) + cast(eps, p)
    else:
        denom = jnp.sqrt(exp_avg_sq) / cast(bias_correction2_sqrt, p) + cast(eps, p)
    p = p + (cast(-step_size, p) * exp_avg) / denom
    out = (step_t, exp_avg, exp_avg_sq) + ((max_sq,) if amsgrad else ())
    return p, out


_adam_kernel = foreach_kernel(_adam_update)


class Adam(Optimizer):
    r"""Adam (Kingma & Ba), as ``torch.optim.Adam``; ``decoupled_weight_decay=True`` is AdamW."""

    _name = 'Adam'

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        _check_differentiable(self._name, differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'amsgrad': False, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'decoupled_weight_decay': False, 'fused': None}
    _setstate_step_keys = ('step',)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        import torchlike as t
        for group in self.param_groups:
            params = self._params_with_grad(group)
            if not params:
                continue
            if group['capturable']:
                _check_capturable(params)
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    if group['fused']:
                        _device_dtype_check_for_fused(p)
                    state['step'] = self._step_tensor(0.0, fused=group['fused'])
                    state['exp_avg'] = t.zeros_like(p)
                    state['exp_avg_sq'] = t.zeros_like(p)
                    if group['amsgrad']:
                        state['max_exp_avg_sq'] = t.zeros_like(p)
            if group['foreach'] and isinstance(group['lr'], Tensor) and not group['capturable']:
                raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
            amsgrad = bool(group['amsgrad'])
            keys = ('step', 'exp_avg', 'exp_avg_sq') + (('max_exp_avg_sq',) if amsgrad else ())
            beta1, beta2 = group['betas']
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0),
                     bool(group['decoupled_weight_decay']), amsgrad)
            run_group(_adam_kernel, flags, self, params, keys,
                      (group['lr'], beta1, beta2, group['eps'], group['weight_decay']))
        return loss
