"""torch-level names that are not ops: grad-mode contexts, result_type, is_tensor, ..."""
from . import _dtype as D
from ._engine.state import state
from ._engine import dispatch
from ._tensor import Tensor
from ._tensor_str import set_printoptions
from ._ops.random import Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state, \
    default_generator
from .autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, \
    is_inference_mode_enabled

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode', 'is_grad_enabled',
           'is_inference_mode_enabled', 'result_type', 'is_tensor', 'is_floating_point', 'is_complex', 'numel',
           'is_storage', 'typename', 'get_default_device', 'set_default_device', 'is_nonzero', 'set_printoptions']
__all__ += ['Generator', 'manual_seed', 'seed', 'initial_seed', 'get_rng_state', 'set_rng_state',
            'default_generator']


def result_type(tensor1, tensor2):
    return dispatch.result_dtype([tensor1, tensor2])


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_storage(obj):
    return False


def is_floating_point(input):
    return input.dtype.is_floating_point


def is_complex(input):
    return input.dtype.is_complex


def is_nonzero(input):
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def numel(input):
    return input.numel()


def typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()
    return type(obj).__name__


def get_default_device():
    from ._device import CPU
    return CPU


def set_default_device(device):
    if device is not None and str(device) != 'cpu':
        raise NotImplementedError("torch.set_default_device(): only 'cpu' (JAX's default device) is supported")
