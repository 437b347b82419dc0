"""torch.signal.windows: window functions (registered in torchlike/_ops/windows.py under the registry
namespace 'signal.windows')."""
from ..._engine.registry import namespace_module as _namespace_module

_namespace_module('signal.windows', globals())
