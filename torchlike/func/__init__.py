"""torch.func: functional_call (running a module with given parameters and buffers).

The function transforms of torch.func (grad, vmap, jacrev, ...) are not provided yet.
"""
from collections.abc import Sequence

__all__ = ['functional_call']


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers replaced by the given tensors.

    The module's own tensors are swapped out for the call and restored afterwards; autograd flows to the
    given tensors. ``parameter_and_buffer_dicts`` is a dict, or a sequence of dicts with disjoint keys.
    With ``tie_weights`` a tensor given for one name of a tied parameter is used for all of its names;
    with ``strict`` the given names must be exactly the module's parameter and buffer names.
    """
    from ..nn.utils.stateless import _functional_call
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated_keys = [k for k, n in counts.items() if n > 1]
        if repeated_keys:
            raise ValueError(f"{repeated_keys} appeared in multiple dictionaries; behavior of functional call is "
                             "ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
