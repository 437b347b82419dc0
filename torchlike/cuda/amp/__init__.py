"""torch.cuda.amp: the deprecated CUDA spellings of torch.amp's autocast, custom_fwd/bwd and GradScaler."""
import functools
import warnings

from ...amp import autocast_mode as _am
from ...amp import grad_scaler as _gs
from ..._device import gpu_devices as _gpus
from ... import _dtype as _D

__all__ = ['amp_definitely_not_available', 'autocast', 'custom_bwd', 'custom_fwd', 'GradScaler']


def amp_definitely_not_available():
    return not _gpus()


def _deprecated(old, new):
    warnings.warn(f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use `torch.amp.{new}` instead.",
                  FutureWarning, stacklevel=3)


class autocast(_am.autocast):
    """``torch.cuda.amp.autocast(args...)`` is deprecated: use ``torch.amp.autocast('cuda', args...)``."""

    def __init__(self, enabled=True, dtype=_D.float16, cache_enabled=True):
        _deprecated('autocast', "autocast('cuda', args...)")
        super().__init__('cuda', enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    _deprecated('custom_fwd', "custom_fwd(args..., device_type='cuda')")
    return functools.partial(_am.custom_fwd, device_type='cuda')(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    _deprecated('custom_bwd', "custom_bwd(args..., device_type='cuda')")
    return functools.partial(_am.custom_bwd, device_type='cuda')(bwd)


class GradScaler(_gs.GradScaler):
    """``torch.cuda.amp.GradScaler(args...)`` is deprecated: use ``torch.amp.GradScaler('cuda', args...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _deprecated('GradScaler', "GradScaler('cuda', args...)")
        super().__init__('cuda', init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)
