"""torch.optim.Adam: amsgrad, weight decay (L2 or decoupled), maximize (see Note [Fused group step])."""
from .._tensor import Tensor
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_adam_args, _check_fused, _use_grad_for_differentiable, _check_differentiable, _to_scalar,
                        foreach_kernel, run_group, lerp, cast, f64)

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


def _adam_keys(group):
    return ('step', 'exp_avg', 'exp_avg_sq') + (('max_exp_avg_sq',) if group['amsgrad'] else ())


class Adam(Optimizer):
    r"""Adam (Kingma & Ba), as ``torch.optim.Adam``; ``decoupled_weight_decay=True`` is AdamW."""

    _name = 'Adam'

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        _check_adam_args(lr, eps, betas, weight_decay)
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
        _check_fused(fused, foreach, differentiable)
        _check_differentiable(self._name, differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'amsgrad': False, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'decoupled_weight_decay': False, 'fused': None}
    _setstate_step_keys = ('step',)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        for group, params, keys in self._groups_to_step(keys=_adam_keys):
            if group['foreach'] and isinstance(group['lr'], Tensor) and not group['capturable']:
                raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
            beta1, beta2 = group['betas']
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0),
                     bool(group['decoupled_weight_decay']), bool(group['amsgrad']))
            run_group(_adam_kernel, flags, self, params, keys,
                      (group['lr'], beta1, beta2, group['eps'], group['weight_decay']))
        return loss
