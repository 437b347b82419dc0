"""torch.nn.functional.

The functions are registry entries (torchlike/_ops/nn_*.py, ``namespace='nn.functional'``) and
hand-written composites registered with ``@public(..., namespace='nn.functional')``; this module only
exposes that namespace, plus the torch-level ops torch.nn.functional re-exports under the same name.
"""
from .. import _ops  # noqa: F401  (registers every op)
from .._engine.registry import PUBLIC as _PUBLIC

# torch.nn.functional re-exports these torch-level functions unchanged.
_FROM_TORCH = ('relu', 'relu_', 'softmax', 'log_softmax', 'tanh', 'sigmoid', 'hardtanh', 'selu', 'celu',
               'rrelu', 'threshold', 'prelu', 'pdist', 'pixel_shuffle', 'pixel_unshuffle',
               'channel_shuffle', 'native_channel_shuffle', 'cosine_similarity', 'pairwise_distance',
               'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d',
               'conv_tbc', 'avg_pool1d', 'bilinear', 'hardshrink', 'softmin')


def _populate():
    g = globals()
    for n in _FROM_TORCH:
        if n in _PUBLIC.get('torch', {}) and n not in _PUBLIC.get('nn.functional', {}):
            g[n] = _PUBLIC['torch'][n]
    g.update(_PUBLIC.get('nn.functional', {}))


_populate()


def __getattr__(name):
    ns = _PUBLIC.get('nn.functional', {})
    if name in ns:
        return ns[name]
    raise AttributeError(f"module 'torchlike.nn.functional' has no attribute '{name}'")
