"""torch.optim.Adadelta: rho, eps, weight decay, maximize."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_lr, _use_grad_for_differentiable, _check_differentiable,
                        foreach_kernel, run_group, cast)

__all__ = ['Adadelta']


def _adadelta_update(flags, p, g, st, hp):
    # torch's _single_tensor_adadelta
    maximize, has_wd = flags
    lr, rho, eps, weight_decay = hp
    step_t, square_avg, acc_delta = st
    step_t = step_t + 1
    if maximize:
        g = -g
    if has_wd:
        g = g + cast(weight_decay, p) * p
    square_avg = square_avg * cast(rho, p) + (cast(1 - rho, p) * g) * g
    std = jnp.sqrt(square_avg + cast(eps, p))
    delta = jnp.sqrt(acc_delta + cast(eps, p))
    delta = (delta / std) * g
    acc_delta = acc_delta * cast(rho, p) + (cast(1 - rho, p) * delta) * delta
    p = p + cast(-lr, p) * delta
    return p, (step_t, square_avg, acc_delta)


_adadelta_kernel = foreach_kernel(_adadelta_update)


class Adadelta(Optimizer):
    r"""Adadelta (Zeiler), as ``torch.optim.Adadelta``."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)
        _check_differentiable('Adadelta', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'foreach': None, 'maximize': False, 'differentiable': False, 'capturable': False}
    _setstate_step_keys = ('step',)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        for group, params, keys in self._groups_to_step('Adadelta', ('step', 'square_avg', 'acc_delta'),
                                                        supports_xla=False):
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0))
            run_group(_adadelta_kernel, flags, self, params, keys,
                      (group['lr'], group['rho'], group['eps'], group['weight_decay']))
        return loss
