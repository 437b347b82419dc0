"""torch._dynamo: the pieces of dynamo's namespace that scripts touch; torch.compile itself lives in
eval_frame.py (engine: torchlike/_engine/traced.py)."""
from . import config, exc  # noqa: F401
from .eval_frame import OptimizedModule, reset, disable, is_compiling, list_backends  # noqa: F401

__all__ = ['config', 'exc', 'OptimizedModule', 'reset', 'disable', 'is_compiling', 'list_backends']
