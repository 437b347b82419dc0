"""torch.optim.Adagrad: lr_decay, initial_accumulator_value, weight decay, maximize."""
from .._engine.jaxrt import jnp
from .optimizer import (Optimizer, _check_fused, _check_lr, _use_grad_for_differentiable, _check_differentiable,
                        _device_dtype_check_for_fused, foreach_kernel, run_group, cast, f64)

__all__ = ['Adagrad']


def _adagrad_update(flags, p, g, st, hp):
    # torch's _single_tensor_adagrad (dense branch)
    maximize, has_wd = flags
    lr, lr_decay, weight_decay, eps = hp
    step_t, state_sum = st
    step_t = step_t + 1
    step = f64(step_t)
    if maximize:
        g = -g
    if has_wd:
        g = g + cast(weight_decay, p) * p
    clr = f64(lr) / (1 + (step - 1) * lr_decay)
    state_sum = state_sum + g * g
    std = jnp.sqrt(state_sum) + cast(eps, p)
    p = p + (cast(-clr, p) * g) / std
    return p, (step_t, state_sum)


_adagrad_kernel = foreach_kernel(_adagrad_update)


class Adagrad(Optimizer):
    r"""Adagrad (Duchi et al.), as ``torch.optim.Adagrad``."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)
        _check_differentiable('Adagrad', differentiable)
        # torch creates Adagrad's state eagerly, for every parameter
        for group in self.param_groups:
            for p in group['params']:
                self._init_state(p, group)

    def _init_state(self, p, group):
        import torchlike as t
        state = self.state[p]
        state['step'] = self._step_tensor(0.0, fused=group['fused'])
        v = self.defaults['initial_accumulator_value']
        init_value = complex(v, v) if p.is_complex() else v
        state['sum'] = t.full_like(p, init_value)

    # read by Optimizer.__setstate__ (options missing from older pickles, and which state entries are tensors)
    _setstate_group_defaults = {'foreach': None, 'maximize': False, 'differentiable': False, 'fused': None}
    _setstate_step_keys = ('step',)

    def share_memory(self):
        # every state tensor already lives in one process-independent array; nothing to move
        pass

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = self._closure_loss(closure)
        for group, params, _ in self._groups_to_step():
            for p in params:
                if group['fused']:
                    _device_dtype_check_for_fused(p)
                if len(self.state[p]) == 0:
                    self._init_state(p, group)
            flags = (bool(group['maximize']), bool(group['weight_decay'] != 0))
            run_group(_adagrad_kernel, flags, self, params, ('step', 'sum'),
                      (group['lr'], group['lr_decay'], group['weight_decay'], group['eps']))
        return loss
