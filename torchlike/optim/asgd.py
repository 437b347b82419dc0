"""torch.optim.ASGD: averaged SGD (lambd, alpha, t0), weight decay, maximize."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_lr, _use_grad_for_differentiable, _check_differentiable,
                        _get_scalar_dtype, _to_scalar, _torch, foreach_kernel, run_group, cast, f64)

__all__ = ['ASGD']


def _asgd_update(flags, p, g, st, hp):
    # torch's _single_tensor_asgd (non-capturable branch); ``mu.item() != 1`` is selected as data
    maximize, has_wd = flags
    lr, lambd, alpha, t0, weight_decay = hp
    step_t, eta, mu, ax = st
    if maximize:
        g = -g
    step_t = step_t + 1
    if has_wd:
        g = g + cast(weight_decay, p) * p
    eta_value = f64(eta)
    p = p * cast(1 - lambd * eta_value, p)
    p = p + cast(-eta_value, p) * g
    ax = jnp.where(f64(mu) != 1, ax + (p - ax) * mu.astype(p.dtype), p)
    step = f64(step_t)
    eta = cast(lr / ((1 + lambd * lr * step) ** alpha), eta)
    mu = cast(1 / jnp.maximum(1.0, step - t0), mu)
    return p, (step_t, eta, mu, ax)


_asgd_kernel = foreach_kernel(_asgd_update)


# torch's _init_group: step and mu are counters, eta starts at the group's lr
_ASGD_INIT = {
    'step': lambda p, group: _torch().zeros((), dtype=_get_scalar_dtype()),
    'eta': lambda p, group: _torch().as_tensor(_to_scalar(group['lr']), dtype=_get_scalar_dtype()).clone().detach(),
    'mu': lambda p, group: _torch().ones((), dtype=_get_scalar_dtype()),
}


class ASGD(Optimizer):
    r"""Averaged stochastic gradient descent (Polyak & Juditsky), as ``torch.optim.ASGD``."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)
        _check_differentiable('ASGD', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'foreach': None, 'maximize': False, 'differentiable': False, 'capturable': False}
    _setstate_step_keys = ('step', 'eta', 'mu')

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        groups = self._groups_to_step('ASGD', ('step', 'eta', 'mu', 'ax'), init=_ASGD_INIT,
                                      capturable_what='params, mus, etas, and state_steps')
        for group, params, keys in groups:
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0))
            run_group(_asgd_kernel, flags, self, params, keys,
                      (group['lr'], group['lambd'], group['alpha'], group['t0'], group['weight_decay']))
        return loss
