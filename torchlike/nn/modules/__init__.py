"""torch.nn.modules: one family of layers per file; each file's ``__all__`` is re-exported here and
by torch.nn (so a new layer file needs no edit elsewhere). module.py (Module) loads first."""
import importlib
import pkgutil

from .module import Module  # noqa: F401

__all__ = ['Module']
for _m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _m.startswith('_') or _m == 'module':
        continue
    _mod = importlib.import_module(f'{__name__}.{_m}')
    globals()[_m] = _mod
    for _n in getattr(_mod, '__all__', ()):
        globals()[_n] = getattr(_mod, _n)
        __all__.append(_n)
