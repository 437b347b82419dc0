"""torch.optim.NAdam: Nesterov Adam with momentum decay, L2 or decoupled weight decay."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_adam_args, _use_grad_for_differentiable, _check_differentiable,
                        foreach_kernel, run_group, lerp, cast, f64)

__all__ = ['NAdam']


def _nadam_update(flags, p, g, st, hp):
    # torch's _single_tensor_nadam (non-capturable branch)
    maximize, has_wd, decoupled = flags
    lr, beta1, beta2, eps, weight_decay, momentum_decay = hp
    step_t, mu_product, exp_avg, exp_avg_sq = st
    if maximize:
        g = -g
    step_t = step_t + 1
    step = f64(step_t)
    bias_correction2 = 1 - f64(beta2) ** step
    if has_wd:
        if decoupled:
            p = p * cast(1 - lr * weight_decay, p)
        else:
            g = g + cast(weight_decay, p) * p
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
    mu_product = mu_product * cast(mu, mu_product)
    exp_avg = lerp(exp_avg, g, 1 - beta1)
    exp_avg_sq = exp_avg_sq * cast(beta2, p) + (cast(1 - beta2, p) * g) * g
    denom = jnp.sqrt(exp_avg_sq / cast(bias_correction2, p))
    mu_product_value = f64(mu_product)
    mu_product_next = mu_product_value * mu_next
    denom = denom + cast(eps, p)
    p = p + (cast(-lr * (1.0 - mu) / (1.0 - mu_product_value), p) * g) / denom
    p = p + (cast((-lr * mu_next) / (1.0 - mu_product_next), p) * exp_avg) / denom
    return p, (step_t, mu_product, exp_avg, exp_avg_sq)


_nadam_kernel = foreach_kernel(_nadam_update)


class NAdam(Optimizer):
    r"""NAdam (Dozat), as ``torch.optim.NAdam``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)
        _check_differentiable('NAdam', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'decoupled_weight_decay': False}
    _setstate_step_keys = ('step', 'mu_product')

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        groups = self._groups_to_step('NAdam', ('step', 'mu_product', 'exp_avg', 'exp_avg_sq'),
                                      init={'mu_product': lambda p, group: self._step_tensor(1.0)},
                                      capturable_what='params, mu_products and state_steps')
        for group, params, keys in groups:
            beta1, beta2 = group['betas']
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0),
                     bool(group['decoupled_weight_decay']))
            run_group(_nadam_kernel, flags, self, params, keys,
                      (group['lr'], beta1, beta2, group['eps'], group['weight_decay'], group['momentum_decay']))
        return loss
