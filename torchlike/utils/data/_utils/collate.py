"""torch.utils.data._utils.collate: turning samples into batches (``default_collate``) and numpy data into
tensors (``default_convert``), with torch's output types, dtypes and errors.

Mirrors torch/utils/data/_utils/collate.py: the same recursion over mappings, namedtuples and sequences
(a tuple becomes a list, a mutable mapping or sequence is copied and updated so its type and extra
attributes survive), and the same extensible ``collate_fn_map`` registry (``collate(batch,
collate_fn_map=...)``; ``default_collate_fn_map`` may be updated in place). Python ints become an int64
tensor, floats a float64 tensor, numpy arrays and scalars keep their dtype, str and bytes stay lists.
"""
import collections
import contextlib
import copy
import re
from collections.abc import Callable

import torchlike as torch  # attribute access happens at call time, after torchlike has finished importing

from ...._tensor import Tensor

__all__ = ['collate', 'collate_float_fn', 'collate_int_fn', 'collate_numpy_array_fn', 'collate_numpy_scalar_fn',
           'collate_str_fn', 'collate_tensor_fn', 'default_collate', 'default_collate_err_msg_format',
           'default_collate_fn_map', 'default_convert', 'np_str_obj_array_pattern']

np_str_obj_array_pattern = re.compile(r"[SaUO]")   # numpy dtype kinds with no tensor form: bytes, str, object

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}"
)


def default_convert(data):
    """Convert each numpy array or numpy scalar in ``data`` (recursing into mappings, namedtuples and
    sequences) into a tensor; everything else is returned unchanged. The collate function of a DataLoader
    without automatic batching (``batch_size=None``)."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data        # an array of strings or objects has no tensor form
        return torch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                # a copy keeps the mapping's type and any extra attributes it has
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            # the mapping type supports neither copy()/update() nor construction from a dict
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as torch (backwards compatibility)
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            # e.g. range: neither copy()/__setitem__ nor construction from a list
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map: dict[type | tuple[type, ...], Callable] | None = None):
    """Collate a list of samples: by the function ``collate_fn_map`` gives for the first element's type
    (exact type first, then the first key it is an instance of, in insertion order), else by recursing
    into mappings, namedtuples and sequences. Each function is called as ``fn(batch,
    collate_fn_map=collate_fn_map)``."""
    elem = batch[0]
    elem_type = type(elem)

    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(elem) == elem_size for elem in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))  # read twice below when the clone fails
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]

    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    # torch stacks straight into shared memory inside a worker to save a copy; a torchlike batch crosses
    # to the main process by pickling (Note [DataLoader workers]), so a plain stack is the whole job.
    elem = batch[0]
    if elem.is_nested:
        raise RuntimeError(
            "Batches of nested tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately.")
    if elem.layout in {torch.sparse_coo, torch.sparse_csr, torch.sparse_bsr, torch.sparse_csc, torch.sparse_bsc}:
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately.")
    return torch.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return torch.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return torch.tensor(batch, dtype=torch.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return torch.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {Tensor: collate_tensor_fn}
with contextlib.suppress(ImportError):
    import numpy as np

    default_collate_fn_map[np.ndarray] = collate_numpy_array_fn           # np.memmap is a subclass
    default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn   # not str scalars
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn      # bools too (torch.tensor makes them a bool tensor)
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """Stack a list of samples into a batch with a new outer dimension: tensors are stacked, numpy arrays
    and scalars, ints (int64) and floats (float64) become tensors, str and bytes stay a list, and
    mappings, namedtuples and sequences are collated field by field (a tuple gives a list). The collate
    function of a DataLoader with automatic batching."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
