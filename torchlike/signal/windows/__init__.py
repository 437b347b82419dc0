"""torch.signal.windows: window functions (registered in torchlike/_ops/windows.py under the registry
namespace 'signal.windows')."""
from ..._engine.registry import PUBLIC as _PUBLIC


def __getattr__(name):
    ns = _PUBLIC.get('signal.windows', {})
    if name in ns:
        return ns[name]
    raise AttributeError(f"module 'torchlike.signal.windows' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC.get('signal.windows', {})))


globals().update(_PUBLIC.get('signal.windows', {}))
