"""Run-time state in one place: grad mode, inference mode, execution mode.

Grad mode is thread-local, as in PyTorch.
"""
import os
import threading

# The execution mode new threads start in (Note [Lazy execution]); set_execution_mode changes it.
_mode = os.environ.get('TORCHLIKE_MODE', 'lazy')
if _mode not in ('eager', 'lazy'):
    raise ValueError(f"TORCHLIKE_MODE must be 'eager' or 'lazy', got {_mode!r}")


def set_default_mode(mode):
    global _mode
    _mode = mode


class _State(threading.local):
    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.mode = _mode
        self.anomaly = False
        self.anomaly_check_nan = True
        self.modes = ()          # Note [Dispatch modes] (dispatch.py)


state = _State()
