"""torch.optim.RAdam: rectified Adam, L2 or decoupled weight decay."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_adam_args, _use_grad_for_differentiable, _check_differentiable,
                        foreach_kernel, run_group, lerp, cast, f64)

__all__ = ['RAdam']


def _radam_update(flags, p, g, st, hp):
    # torch's _single_tensor_radam (non-capturable branch); the rho_t > 5 test is data, selected per step
    maximize, has_wd, decoupled = flags
    lr, beta1, beta2, eps, weight_decay = hp
    step_t, exp_avg, exp_avg_sq = st
    if maximize:
        g = -g
    step_t = step_t + 1
    step = f64(step_t)
    if has_wd:
        if decoupled:
            p = p * cast(1 - lr * weight_decay, p)
        else:
            g = g + cast(weight_decay, p) * p
    exp_avg = lerp(exp_avg, g, 1 - beta1)
    exp_avg_sq = exp_avg_sq * cast(beta2, p) + (cast(1 - beta2, p) * g) * g
    beta1, beta2 = f64(beta1), f64(beta2)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    bias_corrected_exp_avg = exp_avg / cast(bias_correction1, p)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    rect = jnp.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    # torch's ``float / Tensor`` is ``tensor.reciprocal() * float``
    adaptive_lr = (1 / (jnp.sqrt(exp_avg_sq) + cast(eps, p))) * cast(jnp.sqrt(bias_correction2), p)
    base = bias_corrected_exp_avg * cast(lr, p)
    update = jnp.where(rho_t > 5.0, (base * adaptive_lr) * cast(rect, p), base)
    p = p - update
    return p, (step_t, exp_avg, exp_avg_sq)


_radam_kernel = foreach_kernel(_radam_update)


class RAdam(Optimizer):
    r"""RAdam (Liu et al.), as ``torch.optim.RAdam``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)
        _check_differentiable('RAdam', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'foreach': None, 'maximize': False, 'differentiable': False, 'decoupled_weight_decay': False, 'capturable': False}
    _setstate_step_keys = ('step',)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        for group, params, keys in self._groups_to_step('RAdam', ('step', 'exp_avg', 'exp_avg_sq')):
            beta1, beta2 = group['betas']
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0),
                     bool(group['decoupled_weight_decay']))
            run_group(_radam_kernel, flags, self, params, keys,
                      (group['lr'], beta1, beta2, group['eps'], group['weight_decay']))
        return loss
