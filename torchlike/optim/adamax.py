"""torch.optim.Adamax: Adam with the infinity norm."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_adam_args, _use_grad_for_differentiable, _check_differentiable,
                        foreach_kernel, run_group, lerp, cast, f64)

__all__ = ['Adamax']


def _adamax_update(flags, p, g, st, hp):
    # torch's _single_tensor_adamax (non-capturable branch)
    maximize, has_wd = flags
    lr, beta1, beta2, eps, weight_decay = hp
    step_t, exp_avg, exp_inf = st
    if maximize:
        g = -g
    step_t = step_t + 1
    if has_wd:
        g = g + cast(weight_decay, p) * p
    exp_avg = lerp(exp_avg, g, 1 - beta1)
    exp_inf = jnp.maximum(exp_inf * cast(beta2, p), jnp.abs(g) + cast(eps, p))
    bias_correction = 1 - f64(beta1) ** f64(step_t)
    clr = f64(lr) / bias_correction
    p = p + (cast(-clr, p) * exp_avg) / exp_inf
    return p, (step_t, exp_avg, exp_inf)


_adamax_kernel = foreach_kernel(_adamax_update)


class Adamax(Optimizer):
    r"""Adamax (Kingma & Ba), as ``torch.optim.Adamax``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)
        _check_differentiable('Adamax', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'foreach': None, 'maximize': False, 'differentiable': False, 'capturable': False}
    _setstate_step_keys = ('step',)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        for group, params, keys in self._groups_to_step('Adamax', ('step', 'exp_avg', 'exp_inf')):
            beta1, beta2 = group['betas']
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0))
            run_group(_adamax_kernel, flags, self, params, keys,
                      (group['lr'], beta1, beta2, group['eps'], group['weight_decay']))
        return loss
