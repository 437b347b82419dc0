"""torch.gradient: finite differences along each requested dim, composed from slicing and arithmetic on tensors
(so autograd and lazy mode come for free), with ATen's formulas in ATen's order of operations: central
differences inside, one- or two-sided second-order differences at the edges, and numpy's non-uniform formulas
when the spacing is given as coordinates."""
import numbers

from .._engine.registry import public
from .._tensor import Tensor


def _sl(x, d, start, stop=None):
    idx = [slice(None)] * x.ndim
    idx[d] = slice(start, stop)
    return x[tuple(idx)]


def _uniform(x, d, h, edge_order):
    center = (_sl(x, d, 2) - _sl(x, d, 0, -2)) / h
    if edge_order == 1:
        pre = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / h
        app = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / h
    else:
        pre = (-1.5 * _sl(x, d, 0, 1) + 2 * _sl(x, d, 1, 2) - 0.5 * _sl(x, d, 2, 3)) / h
        app = (0.5 * _sl(x, d, -3, -2) - 2 * _sl(x, d, -2, -1) + 1.5 * _sl(x, d, -1)) / h
    return center / 2, pre, app


def _coordinates(x, d, coords, edge_order):
    shape = [1] * x.ndim
    shape[d] = -1
    dx = coords.diff(dim=0)
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _sl(x, d, 0, -2) + b * _sl(x, d, 1, -1) + c * _sl(x, d, 2)
    if edge_order == 1:
        pre = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / dx[0]
        app = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / dx[-1]
    else:
        h0, h1, hl, hl1 = dx[0], dx[1], dx[-1], dx[-2]
        pre = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * _sl(x, d, 0, 1) + (h0 + h1) / (h0 * h1) * _sl(x, d, 1, 2)
               + (-h0) / (h1 * (h0 + h1)) * _sl(x, d, 2, 3))
        app = (hl / (hl1 * (hl + hl1)) * _sl(x, d, -3, -2) - (hl + hl1) / (hl * hl1) * _sl(x, d, -2, -1)
               + (2 * hl + hl1) / (hl * (hl + hl1)) * _sl(x, d, -1))
    return center, pre, app


@public('gradient')
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    from .joining import cat
    from ._util import wrap_dim
    if not isinstance(input, Tensor):
        raise TypeError(f"gradient(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [wrap_dim(d, input.ndim) for d in dims]
    for d in set(dims):
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if spacing is None:
        spacing = 1
    if isinstance(spacing, (numbers.Number, Tensor)) and not (isinstance(spacing, Tensor) and spacing.ndim):
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if any(isinstance(h, Tensor) for h in spacing):     # torch's overloads: all scalars or all tensors
        for i, h in enumerate(spacing):
            if not isinstance(h, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(h).__name__}")
    if len(spacing) != len(dims):
        if dim is None:
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got a "
                               f"list of length {len(spacing)}")
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
                           f"and a dim argument of length {len(dims)}.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    out = []
    for d, h in zip(dims, spacing):
        if isinstance(h, Tensor) and h.ndim == 1:
            center, pre, app = _coordinates(input, d, h, edge_order)
        else:
            center, pre, app = _uniform(input, d, h.item() if isinstance(h, Tensor) else h, edge_order)
        out.append(cat([pre, center, app], dim=d))
    return tuple(out)
