"""Helpers shared by op families: dim wrapping with PyTorch's errors, dim-list normalisation."""
import ml_dtypes as _ml
import numpy as _np


def wrap_dim(dim, ndim):
    """A dim in [-n, n) -> [0, n); scalars accept -1/0 as torch does. IndexError as torch."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def wrap_dims(dim, ndim):
    """None/() -> None (all dims); int or sequence -> sorted-unique tuple of wrapped dims."""
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = (dim,)
    out = tuple(wrap_dim(d, ndim) for d in dim)
    if len(set(out)) != len(out):
        d = next(d for d in out if out.count(d) > 1)
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


_BF16 = _np.dtype(_ml.bfloat16)


def inexact(dt):
    """Floating or complex (numpy dtype of an array). numpy reports bfloat16 as kind 'V', so a test of
    ``dtype.kind in 'fc'`` would treat bfloat16 as non-floating."""
    return dt.kind in 'fc' or dt == _BF16
