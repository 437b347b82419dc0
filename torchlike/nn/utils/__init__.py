"""torch.nn.utils: gradient clipping, parameter/vector conversion, weight/spectral norm, parametrizations,
BatchNorm fusion, and the stateless (functional_call) machinery. ``rnn`` (packed sequences) joins when
torchlike/nn/utils/rnn.py exists."""
import importlib.util as _ilu

from . import parametrizations, parametrize, stateless  # noqa: F401
from .clip_grad import (clip_grads_with_norm_, get_total_norm, clip_grad_norm, clip_grad_norm_,  # noqa: F401
                        clip_grad_value_)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa
from .init import skip_init  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ['clip_grad_norm', 'clip_grad_norm_', 'clip_grads_with_norm_', 'clip_grad_value_', 'fuse_conv_bn_eval',
           'fuse_conv_bn_weights', 'fuse_linear_bn_eval', 'fuse_linear_bn_weights', 'get_total_norm',
           'parameters_to_vector', 'parametrizations', 'parametrize', 'remove_spectral_norm', 'remove_weight_norm',
           'skip_init', 'spectral_norm', 'stateless', 'vector_to_parameters', 'weight_norm']

if _ilu.find_spec(__name__ + '.rnn') is not None:
    from . import rnn  # noqa: F401
    __all__.append('rnn')
