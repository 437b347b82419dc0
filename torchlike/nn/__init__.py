"""torch.nn: Parameter, the Module system, layers, functional, init and utils.

Layers live one family per file in nn/modules (module.py holds Module itself); every public name a
file lists in ``__all__`` is re-exported here, so adding a layer file needs no edit elsewhere.
The functional ops are registry entries in torchlike/_ops/nn_*.py (namespace 'nn.functional').
"""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional, init, utils, parallel  # noqa: F401
from . import modules  # noqa: F401
from .parallel import DataParallel  # noqa: F401

__all__ = ['Parameter', 'Buffer', 'UninitializedParameter', 'UninitializedBuffer', 'functional', 'init',
           'utils', 'parallel', 'DataParallel'] + list(_modules_all)
