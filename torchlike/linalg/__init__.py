"""torch.linalg: linear algebra (registered in torchlike/_ops/linalg_*.py under the registry namespace
'linalg'; LinAlgError is defined in linalg_decomp.py)."""
from .._engine.registry import namespace_module as _namespace_module
from .._ops.linalg_decomp import LinAlgError  # noqa: F401

_namespace_module('linalg', globals())
