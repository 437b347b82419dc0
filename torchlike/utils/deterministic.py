"""torch.utils.deterministic: ``fill_uninitialized_memory``, a module attribute backed by torchlike's flag state
(torchlike/_determinism.py), as torch backs it by its C++ global context."""
import sys
import types

from .. import _determinism


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self):
        """Whether to fill uninitialized memory with a known value when
        :meth:`torch.use_deterministic_algorithms()` is set to ``True``."""
        return _determinism.get_deterministic_fill_uninitialized_memory()

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode):
        _determinism.set_deterministic_fill_uninitialized_memory(mode)


sys.modules[__name__].__class__ = _Deterministic
