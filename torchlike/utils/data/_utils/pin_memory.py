"""torch.utils.data._utils.pin_memory: ``pin_memory=True`` applied to a batch (recursing as torch does into
mappings, namedtuples and sequences, and calling a custom batch type's own ``pin_memory()``).

torch pins in a background thread so the copy overlaps the next batch; JAX's runtime manages
page-locked staging memory itself and ``Tensor.pin_memory()`` returns the tensor, so the main thread
does this walk directly (a thread would only add a hand-off). Only called when an accelerator exists;
without one the DataLoader warns and skips it, as torch does.
"""
import collections
import copy

from ...._tensor import Tensor


def pin_memory(data, device=None):
    if isinstance(data, Tensor):
        return data.pin_memory()
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({k: pin_memory(sample, device) for k, sample in data.items()})
                return clone
            return type(data)({k: pin_memory(sample, device) for k, sample in data.items()})
        except TypeError:
            return {k: pin_memory(sample, device) for k, sample in data.items()}
    if isinstance(data, tuple):
        if hasattr(data, "_fields"):  # namedtuple
            return type(data)(*(pin_memory(sample, device) for sample in data))
        return type(data)(pin_memory(sample, device) for sample in data)
    if isinstance(data, collections.abc.Sequence):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, item in enumerate(data):
                    clone[i] = pin_memory(item, device)
                return clone
            return type(data)([pin_memory(sample, device) for sample in data])
        except TypeError:
            return [pin_memory(sample, device) for sample in data]
    return data
