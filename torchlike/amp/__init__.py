"""torch.amp: autocast regions (autocast_mode.py, policies in _policy.py) and gradient scaling
(grad_scaler.py)."""
from .autocast_mode import (_enter_autocast, _exit_autocast, autocast, custom_bwd, custom_fwd,  # noqa: F401
                            is_autocast_available)
from . import autocast_mode, grad_scaler  # noqa: F401
from .grad_scaler import GradScaler

__all__ = ['autocast', 'custom_bwd', 'custom_fwd', 'is_autocast_available', 'GradScaler']
