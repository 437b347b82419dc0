"""skip_init: construct a module without running its parameter initialization's result into use."""
import inspect

__all__ = ['skip_init']


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls`` with parameters and buffers of unspecified value (torch: uninitialized memory).

    torch builds the module on the 'meta' device and calls ``to_empty``; torchlike has no meta device, so the
    module is built on the final device and then emptied with ``to_empty`` (its values are unspecified either way).
    """
    from ..modules.module import Module
    if not issubclass(module_cls, Module):
        raise RuntimeError(f'Expected a Module; got {module_cls}')
    if 'device' not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop('device', 'cpu')
    kwargs['device'] = final_device
    return module_cls(*args, **kwargs).to_empty(device=final_device)
