"""torch.compiler: the public face of torch.compile's machinery (see torchlike/_dynamo/eval_frame.py)."""
from .._dynamo.eval_frame import reset, disable, is_compiling, list_backends, compile as _compile  # noqa: F401

__all__ = ['compile', 'reset', 'disable', 'is_compiling', 'is_dynamo_compiling', 'list_backends']


def compile(*args, **kwargs):
    """torch.compiler.compile: same as torch.compile."""
    return _compile(*args, **kwargs)


def is_dynamo_compiling():
    return is_compiling()
