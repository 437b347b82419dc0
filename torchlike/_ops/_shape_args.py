"""Argument parsing shared by the shape-op modules (shape, view_geometry, joining, rearrange, tri_diag):
ints, int sequences (one sequence or varargs), tensor lists and slice bounds, raising PyTorch's TypeError
messages for arguments of the wrong type.
"""
import operator

from .._engine import dispatch
from .._tensor import Tensor


def _int(v, fname, argname, pos=1):
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be int, "
                        f"not {type(v).__name__}") from None


def _int_seq(seq, fname, argname, pos=1):
    """A sequence of ints (tuple/list/Size/1-D int tensor) -> tuple of Python ints, TypeError as torch."""
    if isinstance(seq, Tensor):
        if seq.ndim > 1 or seq.dtype._cat > 1:
            raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, not Tensor")
        return tuple(int(v) for v in seq.tolist()) if seq.ndim else (int(seq.item()),)
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, "
                        f"not {type(seq).__name__}")
    out = []
    for i, s in enumerate(seq):
        try:
            out.append(operator.index(s))
        except TypeError:
            raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, but found "
                            f"element of type {type(s).__name__} at pos {i}") from None
    return tuple(out)


def _varargs_ints(args, kw, fname, argname):
    """Varargs int lists: f(2, 3), f((2, 3)), f([2, 3]), f(argname=(2, 3))."""
    if kw is not None:
        if args:
            raise TypeError(f"{fname}() got multiple values for argument '{argname}'")
        return _int_seq(kw, fname, argname)
    if len(args) == 1 and not isinstance(args[0], int) and not (
            isinstance(args[0], Tensor) and args[0].ndim == 0):
        try:
            operator.index(args[0])
        except TypeError:
            return _int_seq(args[0], fname, argname)
    return _int_seq(args, fname, argname)


def _int_or_seq(v, fname, argname, pos=1):
    """An int or a sequence of ints -> tuple (torch's IntArrayRef accepting a single int)."""
    if isinstance(v, (tuple, list)) or (isinstance(v, Tensor) and v.ndim == 1):
        return _int_seq(v, fname, argname, pos)
    return (_int(v, fname, argname, pos),)


def _tensor_list(tensors, fname):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def _varargs_tensors(tensors, fname):
    """f(a, b) or f([a, b]) -> list of tensors."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fname}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def _type_str(t):
    return f"torch.{dispatch._tname(t.dtype)}Tensor{{{list(t.shape)}}}"


def _slice_bounds(start, end, size):
    """ATen slice() normalisation of [start, end) on a dim of ``size``."""
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end
