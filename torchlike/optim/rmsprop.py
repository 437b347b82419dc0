"""torch.optim.RMSprop: alpha, centered, momentum, weight decay, maximize."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_lr, _use_grad_for_differentiable, _check_differentiable,
                        foreach_kernel, run_group, lerp, cast)

__all__ = ['RMSprop']


def _rmsprop_update(flags, p, g, st, hp):
    # torch's _single_tensor_rmsprop
    maximize, has_wd, centered, has_momentum = flags
    lr, alpha, eps, weight_decay, momentum = hp
    st = list(st)
    step_t, square_avg = st[0], st[1]
    buf = st[2] if has_momentum else None
    grad_avg = st[-1] if centered else None
    if maximize:
        g = -g
    step_t = step_t + 1
    if has_wd:
        g = g + cast(weight_decay, p) * p
    square_avg = square_avg * cast(alpha, p) + (cast(1 - alpha, p) * g) * g
    if centered:
        grad_avg = lerp(grad_avg, g, 1 - alpha)
        avg = jnp.sqrt(square_avg + (-grad_avg) * grad_avg)
    else:
        avg = jnp.sqrt(square_avg)
    avg = avg + cast(eps, p)
    if has_momentum:
        buf = buf * cast(momentum, p) + g / avg
        p = p + cast(-lr, p) * buf
    else:
        p = p + (cast(-lr, p) * g) / avg
    return p, (step_t, square_avg) + ((buf,) if has_momentum else ()) + ((grad_avg,) if centered else ())


_rmsprop_kernel = foreach_kernel(_rmsprop_update)


def _rmsprop_keys(group):
    return (('step', 'square_avg') + (('momentum_buffer',) if group['momentum'] > 0 else ())
            + (('grad_avg',) if group['centered'] else ()))


class RMSprop(Optimizer):
    r"""RMSprop (Hinton), as ``torch.optim.RMSprop``."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)
        _check_differentiable('RMSprop', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'momentum': 0, 'centered': False, 'foreach': None, 'maximize': False, 'differentiable': False, 'capturable': False}
    _setstate_step_keys = ('step',)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        for group, params, keys in self._groups_to_step('RMSprop', _rmsprop_keys):
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0), bool(group['centered']),
                     bool(group['momentum'] > 0))
            run_group(_rmsprop_kernel, flags, self, params, keys,
                      (group['lr'], group['alpha'], group['eps'], group['weight_decay'], group['momentum']))
        return loss
