"""torch.optim.Rprop: resilient backpropagation (etas, step_sizes), maximize."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_lr, _use_grad_for_differentiable, _check_differentiable,
                        _to_scalar, _torch, foreach_kernel, run_group, cast)

__all__ = ['Rprop']


def _rprop_update(flags, p, g, st, hp):
    # torch's _single_tensor_rprop
    (maximize,) = flags
    etaminus, etaplus, step_size_min, step_size_max = hp
    step_t, prev, step_size = st
    if maximize:
        g = -g
    step_t = step_t + 1
    sign = jnp.sign(g * prev)
    etaminus, etaplus = cast(etaminus, p), cast(etaplus, p)
    sign = jnp.where(sign > 0, etaplus, sign)
    sign = jnp.where(sign < 0, etaminus, sign)
    sign = jnp.where(sign == 0, jnp.ones_like(sign), sign)
    step_size = jnp.minimum(jnp.maximum(step_size * sign, cast(step_size_min, p)), cast(step_size_max, p))
    g = jnp.where(sign == etaminus, jnp.zeros_like(g), g)
    p = p + (-jnp.sign(g)) * step_size
    return p, (step_t, g, step_size)


_rprop_kernel = foreach_kernel(_rprop_update)


def _initial_step_size(p, group):
    t = _torch()
    lr = group['lr']
    if p.is_complex():
        return t.full_like(p.grad, complex(lr, lr))
    return t.full_like(p.grad, float(_to_scalar(lr)))


class Rprop(Optimizer):
    r"""Resilient backpropagation (Riedmiller & Braun), as ``torch.optim.Rprop``."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)
        _check_differentiable('Rprop', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'foreach': None, 'maximize': False, 'differentiable': False, 'capturable': False}
    _setstate_step_keys = ('step',)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        groups = self._groups_to_step('Rprop', ('step', 'prev', 'step_size'), init={'step_size': _initial_step_size})
        for group, params, keys in groups:
            etaminus, etaplus = group['etas']
            step_size_min, step_size_max = group['step_sizes']
            run_group(_rprop_kernel, (bool(group['maximize']),), self, params, keys,
                      (etaminus, etaplus, step_size_min, step_size_max))
        return loss
