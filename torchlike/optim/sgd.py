"""torch.optim.SGD: momentum, dampening, Nesterov, weight decay, maximize (see Note [Fused group step])."""
from .._engine.state import state as _gstate
from .._tensor import Tensor
from .optimizer import (Optimizer, _check_fused, _use_grad_for_differentiable, _check_differentiable,
                        _device_dtype_check_for_fused, foreach_kernel, run_group, cast)

__all__ = ['SGD']


def _sgd_update(flags, p, g, st, hp):
    # torch's _single_tensor_sgd, operation for operation
    maximize, has_wd, has_momentum, nesterov = flags
    lr, momentum, dampening, weight_decay = hp
    (buf,) = st if has_momentum else (None,)
    if maximize:
        g = -g
    if has_wd:
        g = g + cast(weight_decay, p) * p
    if has_momentum:
        if buf is None:
            buf = g
        else:
            buf = buf * cast(momentum, p) + cast(1 - dampening, p) * g
        g = g + cast(momentum, p) * buf if nesterov else buf
    p = p + cast(-lr, p) * g
    return p, ((buf,) if has_momentum else ())


_sgd_kernel = foreach_kernel(_sgd_update)


class SGD(Optimizer):
    r"""Stochastic gradient descent (optionally with momentum), as ``torch.optim.SGD``."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)
        _check_differentiable('SGD', differentiable)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': False}
    _setstate_step_keys = None

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        for group, params, _ in self._groups_to_step():
            if group['fused']:
                for p in params:
                    _device_dtype_check_for_fused(p)
            has_momentum = group['momentum'] != 0
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0), bool(has_momentum),
                     bool(group['nesterov']))
            if has_momentum and group['dampening'] == 0 and _gstate.mode == 'lazy':
                # a zero buffer gives torch's first update (0 * momentum + g is g), and the first step's
                # program is then the steady one (compiled once; without a buffer it is another program)
                for p in params:
                    st = self.state[p]
                    if st.get('momentum_buffer') is None:
                        st['momentum_buffer'] = self._new_state_entry('momentum_buffer', p, group)
            run_group(_sgd_kernel, flags, self, params, ('momentum_buffer',) if has_momentum else (),
                      (group['lr'], group['momentum'], group['dampening'], group['weight_decay']))
        return loss

