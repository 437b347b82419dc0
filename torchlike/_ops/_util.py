"""Helpers shared by op families: dim wrapping with PyTorch's errors, dim-list normalisation."""


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
