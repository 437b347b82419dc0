"""parameters_to_vector / vector_to_parameters."""
from ..._tensor import Tensor

__all__ = ['parameters_to_vector', 'vector_to_parameters']


def _check_param_device(param, old_param_device):
    # -1 stands for "not on an accelerator"; mixing devices is unsupported, as in torch
    if old_param_device is None:
        return param.get_device() if param.device.type == 'cuda' else -1
    if param.device.type == 'cuda':
        warn = param.get_device() != old_param_device
    else:
        warn = old_param_device != -1
    if warn:
        raise TypeError('Found two parameters on different devices, this is currently not supported.')
    return old_param_device


def parameters_to_vector(parameters):
    """Flatten an iterable of parameters into one 1-D tensor (differentiable)."""
    import torchlike
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return torchlike.cat(vec)


def vector_to_parameters(vec, parameters):
    """Copy slices of the 1-D tensor ``vec`` into the ``.data`` of each parameter."""
    if not isinstance(vec, Tensor):
        raise TypeError(f'expected torch.Tensor, but got: {type(vec).__name__}')
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
