"""torch.nn.parallel: DataParallel over one device (a transparent wrapper); several devices come later.

DataParallel keeps the wrapped module as ``.module`` (so its state_dict keys gain the ``module.``
prefix, as torch's). With no accelerator, as in torch, it simply calls the module; with one device it
moves the module and the tensor inputs there. Splitting a batch over several devices (torch's
scatter/replicate/gather) and DistributedDataParallel are not implemented yet and raise
NotImplementedError naming themselves.
"""
from itertools import chain

from ..._tensor import Tensor
from ..modules.module import Module

__all__ = ['DataParallel', 'DistributedDataParallel', 'data_parallel']


def _device_ids(device_ids):
    from ... import cuda
    if not cuda.is_available():
        return None
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    return [cuda._get_device_index(x, True) for x in device_ids]


def _check_single(device_ids, what):
    if len(device_ids) > 1:
        raise NotImplementedError(f"{what} over {len(device_ids)} devices (device_ids={device_ids}) is not "
                                  "supported by torchlike yet; pass one device_id")


def _to_device(obj, device):
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple):
        return tuple(_to_device(o, device) for o in obj)
    if isinstance(obj, list):
        return [_to_device(o, device) for o in obj]
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def _check_module_device(module, device):
    for t in chain(module.parameters(), module.buffers()):
        if t.device != device:
            raise RuntimeError(f"module must have its parameters and buffers on device {device} (device_ids[0]) but "
                               f"found one of them on device: {t.device}")


class DataParallel(Module):
    r"""Implements data parallelism at the module level (here: over one device, see the module docstring)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        from ..._device import device as _device
        ids = _device_ids(device_ids)
        if ids is None:
            self.module = module
            self.device_ids = []
            return
        if not ids:
            raise RuntimeError("no available devices were found")
        _check_single(ids, 'DataParallel')
        self.dim = dim
        self.module = module
        self.device_ids = ids
        self.output_device = ids[0] if output_device is None else _device_ids([output_device])[0]
        self.src_device_obj = _device('cuda', ids[0])
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_module_device(self.module, self.src_device_obj)
        inputs = _to_device(inputs, self.src_device_obj)
        kwargs = _to_device(kwargs, self.src_device_obj)
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Evaluate ``module(input)`` with DataParallel's placement (one device here)."""
    from ..._device import device as _device
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    module_kwargs = module_kwargs or {}
    ids = _device_ids(device_ids)
    if ids is None:
        raise RuntimeError("device type could not be determined")
    if not ids:
        raise RuntimeError("no available devices were found")
    _check_single(ids, 'data_parallel')
    dev = _device('cuda', ids[0])
    _check_module_device(module, dev)
    return module(*_to_device(inputs, dev), **_to_device(module_kwargs, dev))


class DistributedDataParallel(Module):
    """Not implemented yet: raises NotImplementedError."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.nn.parallel.DistributedDataParallel is not supported by torchlike yet")
