"""torch.linalg norms: vector_norm, matrix_norm ('fro', 'nuc', +-1, +-2, +-inf), norm (chooses between them).

The vector p-norm kernel (with torch's masked backward at a zero norm) and the nuclear norm live in
reduction.py, where torch.norm uses them; this file adds the linalg signatures and the induced matrix norms.
"""
import math
import operator

from .._engine.registry import op, public
from .._engine import dispatch
from ..amp.autocast_mode import autocast_entry
from .._engine.jaxrt import jnp
from ._util import wrap_dims
from .linalg import sname
from .reduction import _vector_norm_call, _nuclear_norm, _norm_p, _check_tensor, _check_dtype_arg, _upcast, _real_np

_INF = math.inf


def _check_norm_dtype(x, dtype, fname):
    if x.dtype._cat < 2:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {sname(x.dtype)}")
    _check_dtype_arg(dtype, fname)


@public('vector_norm', namespace='linalg')
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    _check_tensor(x, 'linalg.vector_norm', 'x')
    _check_dtype_arg(dtype, 'linalg.vector_norm')
    p = _norm_p(ord)
    dim_list = [dim] if isinstance(dim, int) else dim
    return _vector_norm_call('linalg.vector_norm', x, p, dim_list, bool(keepdim), dtype, out)


@op('_linalg_matrix_norm', static=('ord', 'dim', 'keepdim', 'dtype'), node='LinalgMatrixNormBackward0',
    function=False, method=False)
def _linalg_matrix_norm(A, *, ord, dim, keepdim, dtype):
    x = A if dtype is None else A.astype(dtype.np)
    x, rdt = _upcast(x)
    d0, d1 = dim
    if abs(ord) == 2:
        m = jnp.moveaxis(x, (d0, d1), (-2, -1))
        s = jnp.linalg.svd(m, compute_uv=False)
        r = jnp.max(s, axis=-1) if ord > 0 else jnp.min(s, axis=-1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = jnp.expand_dims(r, d)
    else:
        red, pick = (d0, d1) if abs(ord) == 1 else (d1, d0)     # ord 1: max column sum; inf: max row sum
        s = jnp.sum(jnp.abs(x), axis=red, keepdims=True)
        r = jnp.max(s, axis=pick, keepdims=True) if ord > 0 else jnp.min(s, axis=pick, keepdims=True)
        if not keepdim:
            r = jnp.squeeze(r, axis=(d0, d1))
    return r.astype(_real_np(rdt))


def _matrix_dims(dim, ndim, fname):
    if not isinstance(dim, (list, tuple)) or len(dim) != 2:
        raise RuntimeError(f"{fname}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}"
                           if isinstance(dim, (list, tuple)) else f"{fname}: dim must be a 2-tuple.")
    d = wrap_dims(tuple(operator.index(v) for v in dim), ndim)
    if d[0] == d[1]:
        raise RuntimeError(f"{fname}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d


def _matrix_norm(A, ord, dim, keepdim, dtype, out, fname='linalg.matrix_norm'):
    # torch's order: the order, A's rank and dtype (no float16/bfloat16 for the SVD-based orders +-2 and 'nuc'),
    # the dims, then dtype=
    _check_tensor(A, fname, 'A')
    if isinstance(ord, str):
        if ord not in ('fro', 'nuc'):
            raise RuntimeError(f"{fname}: Order {ord} not supported.")
        o = ord
    else:
        o = _norm_p(ord)
        if o not in (1, -1, 2, -2, _INF, -_INF):
            raise RuntimeError(f"{fname}: Order {ord} not supported.")
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    _check_norm_dtype(A, dtype, fname)
    if o in ('nuc', 2, -2):
        from .linalg_decomp import check_lowp
        check_lowp(A, fname=fname)
    d = _matrix_dims(dim, A.ndim, fname)
    keepdim = bool(keepdim)
    if o == 'fro':
        return _vector_norm_call(fname, A, 2, list(d), keepdim, dtype, out)
    if o == 'nuc':
        return dispatch.apply(_nuclear_norm, (A,), (d, keepdim, dtype), out)
    if A.shape[d[0]] == 0 or A.shape[d[1]] == 0:
        raise NotImplementedError(f"torchlike: {fname} with ord={ord} of an empty matrix is not supported")
    return dispatch.apply(_linalg_matrix_norm, (A,), (o, d, keepdim, dtype), out)


@public('matrix_norm', namespace='linalg')
def matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    return _matrix_norm(A, ord, dim, keepdim, dtype, out)


@public('norm', namespace='linalg')
def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    _check_tensor(A, 'linalg.norm', 'A')
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    if (dim is not None and len(dim) == 2) or (dim is None and ord is not None and A.ndim == 2):
        return _matrix_norm(A, 'fro' if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype, out,
                            'linalg.matrix_norm')
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, but got '{ord}'"
                           if dim is not None else "linalg.norm: ord must be a number for vectors")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


@public('cond', namespace='linalg')
@autocast_entry('linalg_cond')
def cond(A, p=None, *, out=None):
    """torch's composite: sigma_max / sigma_min for p in (None, 2, -2); otherwise ||A|| * ||A^-1|| with the
    inverse of a singular matrix filled with inf."""
    from .linalg_decomp import check_matrix, check_square, inv_ex
    from .linalg_solve import _write_plain
    _check_tensor(A, 'linalg.cond', 'A')
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        check_matrix(A, 'linalg.cond')
        s = _svdvals(A)
        r = s[..., 0] / s[..., -1] if p is None or p > 0 else s[..., -1] / s[..., 0]
        return _write_plain(r, out)
    if not isinstance(p, str) and _norm_p(p) not in (1, -1, _INF, -_INF) or isinstance(p, str) and p not in ('fro',
                                                                                                            'nuc'):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    pname = p if isinstance(p, str) else (int(p) if float(p).is_integer() else p)
    check_square(A, f'linalg.cond(ord={pname})')
    if p == 'nuc' and A.numel() > 0:
        # torch: sum(s) * sum(1 / s) from the singular values (no inverse; a singular matrix gives inf)
        s = _svdvals(A)
        return _write_plain(s.sum(-1) * s.reciprocal().sum(-1), out)
    inverse, info = inv_ex(A)
    singular = info > 0
    inverse = inverse.masked_fill(singular.unsqueeze(-1).unsqueeze(-1), _INF)
    r = matrix_norm(A, p) * matrix_norm(inverse, p)
    if p != 'nuc':      # torch: singular -> inf (for 'nuc' the SVD of the inf-filled inverse gives nan)
        r = r.masked_fill(singular, _INF)
    return _write_plain(r, out)


def _svdvals(A):
    from .linalg_decomp import svdvals
    return svdvals(A)
