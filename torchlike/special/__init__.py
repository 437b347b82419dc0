"""torch.special: special functions (the ops are registered in torchlike/_ops/special.py, pointwise.py and arithmetic.py).

The namespace is ``registry.PUBLIC['special']``: ops registered with ``namespace='special'`` plus the
torch-level functions torch.special re-exports under its own names (expit, gammaln, psi, ...).
``logsumexp``, ``softmax`` and ``log_softmax`` resolve to the torch-level functions when those exist.
"""
from .._engine.registry import PUBLIC as _PUBLIC

_LATE_ALIASES = {'logsumexp': 'logsumexp', 'softmax': 'softmax', 'log_softmax': 'log_softmax'}


def __getattr__(name):
    ns = _PUBLIC.get('special', {})
    if name in ns:
        return ns[name]
    target = _LATE_ALIASES.get(name)
    if target is not None and target in _PUBLIC.get('torch', {}):
        return _PUBLIC['torch'][target]
    raise AttributeError(f"module 'torchlike.special' has no attribute '{name}'")


def __dir__():
    names = set(globals()) | set(_PUBLIC.get('special', {}))
    names |= {k for k, v in _LATE_ALIASES.items() if v in _PUBLIC.get('torch', {})}
    return sorted(names)


globals().update(_PUBLIC.get('special', {}))
