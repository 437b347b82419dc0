"""Run-time state in one place: grad mode, inference mode, execution mode.

Grad mode is thread-local, as in PyTorch.
"""
import threading


class _State(threading.local):
    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.mode = 'eager'
        self.anomaly = False
        self.anomaly_check_nan = True


state = _State()
