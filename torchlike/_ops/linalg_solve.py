"""torch.linalg solvers and their relatives: solve(_ex), solve_triangular, lu_solve, cholesky_solve,
cholesky_inverse, pinv, matrix_rank, matrix_power, lstsq, and the linalg-namespace cross/vecdot/multi_dot.

Shapes follow torch: ``B`` may be a batch of vectors when ``B.ndim == A.ndim - 1`` (solve); batch dimensions
broadcast. Singular inputs raise LinAlgError through linalg_decomp.raise_info (one value read, as in torch).
"""
import numbers
from functools import partial
import warnings

import numpy as np

from .. import return_types
from .._engine.registry import op, public
from .._engine import dispatch
from ..amp.autocast_mode import autocast_entry
from .._engine.jaxrt import jax, jnp, lax
from ._util import wrap_dim
from .linalg import broadcast_shapes, _linalg_cross, sname, cname
from .linalg_decomp import (check_square, check_matrix, check_float, check_lowp, check_eps_dtype, raise_info,
                            lu_info, inv, _read_triangle)


def _bcast_batch(A, B):
    """Broadcast the batch dimensions of two (..., r, c) arrays."""
    batch = broadcast_shapes(A.shape[:-2], B.shape[:-2])
    return (jnp.broadcast_to(A, tuple(batch) + A.shape[-2:]), jnp.broadcast_to(B, tuple(batch) + B.shape[-2:]))


def _check_same_dtype(A, B, fname):
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{fname}: Expected A and B to have the same dtype, but found A of type "
                           f"{sname(A.dtype)} and B of type {sname(B.dtype)} instead")


# ---- solve ---------------------------------------------------------------------------------

@op('_linalg_solve_ex', static=('left', 'vec'), node='LinalgSolveExBackward0', nondiff_outputs=(1,),
    ret=return_types.linalg_solve_ex, function=False, method=False)
def _linalg_solve_ex(A, B, *, left, vec):
    if vec:
        B = B[..., None]
    if not left:                        # X A = B  <=>  A^T X^T = B^T
        A, B = jnp.swapaxes(A, -1, -2), jnp.swapaxes(B, -1, -2)
    A, B = _bcast_batch(A, B)
    X = jnp.linalg.solve(A, B)
    if not left:
        X = jnp.swapaxes(X, -1, -2)
    lu, _, _ = lax.linalg.lu(lax.stop_gradient(A))
    return (X[..., 0] if vec else X), lu_info(lu)


def _solve_args(A, B, left, fname):
    check_square(A, fname)
    check_float(B, fname, 'B')
    _check_same_dtype(A, B, fname)
    # torch treats B as a (batch of) vector(s) when B.ndim == 1 or B's shape is A's batch shape + (n,)
    vec = B.ndim == 1 or (left and B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    n = A.shape[-1]
    k = B.shape[-1] if vec else (B.shape[-2] if left else B.shape[-1])
    if k != n:
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{B.shape[-2] if B.ndim > 1 else B.shape[-1]}x{B.shape[-1] if B.ndim > 1 else 1})")
    return bool(left), bool(vec)


@public('solve_ex', namespace='linalg')
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    st = _solve_args(A, B, left, 'linalg.solve_ex')
    check_lowp(A, 'lu_cpu')
    r = dispatch.apply(_linalg_solve_ex, (A, B), st, out)
    if check_errors:
        raise_info(r[1], 'linalg.solve_ex', 'solve')
    return r


@public('solve', namespace='linalg')
@autocast_entry('linalg_solve')
def solve(A, B, *, left=True, out=None):
    st = _solve_args(A, B, left, 'linalg.solve')
    check_lowp(A, 'lu_cpu')
    r = dispatch.apply(_linalg_solve_ex, (A, B), st)
    raise_info(r[1], 'linalg.solve', 'solve')
    if out is not None:
        return dispatch._write_out(_linalg_solve_ex, (r[0],), out, True)
    return r[0]


# ---- triangular / lu / cholesky solves -------------------------------------------------------

def _tri_solve(A, B, upper, left, unit, trans=False, conj=False):
    A, B = _bcast_batch(A, B)
    return lax.linalg.triangular_solve(A, B, left_side=left, lower=not upper, transpose_a=trans, conjugate_a=conj,
                                       unit_diagonal=unit)


@op('_linalg_solve_triangular', static=('upper', 'left', 'unitriangular'), node='LinalgSolveTriangularBackward0',
    function=False, method=False)
def _linalg_solve_triangular(A, B, *, upper, left, unitriangular):
    A = jnp.triu(A) if upper else jnp.tril(A)
    return _tri_solve(A, B, upper, left, unitriangular)


@public('solve_triangular', namespace='linalg')
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    check_square(A, 'linalg.solve_triangular')
    check_matrix(B, 'linalg.solve_triangular', 'B')
    _check_same_dtype(A, B, 'linalg.solve_triangular')
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    check_lowp(A, 'triangular_solve_cpu')
    return dispatch.apply(_linalg_solve_triangular, (A, B), (bool(upper), bool(left), bool(unitriangular)), out)


@op('_linalg_lu_solve', static=('left', 'adjoint'), node='LinalgLuSolveBackward0', diff=('LU', 'B'),
    function=False, method=False)
def _linalg_lu_solve(LU, pivots, B, *, left, adjoint):
    n = LU.shape[-1]
    LU, B = _bcast_batch(LU, B)
    piv = jnp.broadcast_to(pivots, LU.shape[:-2] + pivots.shape[-1:]).astype(jnp.int32) - 1
    perm = lax.linalg.lu_pivots_to_permutation(piv, n)
    if not left:                         # X A = B  <=>  A^H X^H = B^H
        B = jnp.conj(jnp.swapaxes(B, -1, -2))
        adjoint = not adjoint
    if not adjoint:                      # A = P L U: X = U^-1 L^-1 P^T B
        pb = jnp.take_along_axis(B, perm[..., :, None], axis=-2)
        y = lax.linalg.triangular_solve(LU, pb, left_side=True, lower=True, unit_diagonal=True)
        X = lax.linalg.triangular_solve(LU, y, left_side=True, lower=False)
    else:                                # A^H = U^H L^H P^T: X = P L^-H U^-H B
        y = lax.linalg.triangular_solve(LU, B, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
        z = lax.linalg.triangular_solve(LU, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True,
                                        unit_diagonal=True)
        inv_perm = jnp.argsort(perm, axis=-1)
        X = jnp.take_along_axis(z, inv_perm[..., :, None], axis=-2)
    if not left:
        X = jnp.conj(jnp.swapaxes(X, -1, -2))
    return X


@public('lu_solve', namespace='linalg')
def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    check_square(LU, 'linalg.lu_solve', 'LU')
    check_matrix(B, 'linalg.lu_solve', 'B')
    _check_same_dtype(LU, B, 'linalg.lu_solve')
    if pivots.dtype.name != 'int32':
        raise RuntimeError("linalg.lu_solve: Expected pivots to be an int32 tensor")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    check_lowp(LU, 'linalg.lu_solve_cpu')
    return dispatch.apply(_linalg_lu_solve, (LU, pivots, B), (bool(left), bool(adjoint)), out)


@public('lu_solve', method=True)
@autocast_entry('lu_solve')
def lu_solve_legacy(input, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve (deprecated): linalg.lu_solve with the right-hand side first."""
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=3)  # + the autocast entry frame
    return lu_solve(LU_data, LU_pivots, input, out=out)


@op('_cholesky_solve', static=('upper',), node='CholeskySolveBackward0', function=False, method=False)
def _cholesky_solve(input, input2, *, upper):
    # potrs reads one triangle of the factor; torch's backward formula differentiates (L L^H)^-1 B in the whole
    # factor, so the value comes from the triangular solves and the gradient from the dense expression.
    L = jnp.conj(jnp.swapaxes(input2, -1, -2)) if upper else input2
    Lt, B = _bcast_batch(jnp.tril(L), input)
    y = _tri_solve(Lt, B, False, True, False)
    X = _tri_solve(Lt, y, False, True, False, trans=True, conj=True)
    Lf = jnp.broadcast_to(L, Lt.shape)
    dense = jnp.linalg.solve(Lf @ jnp.conj(jnp.swapaxes(Lf, -1, -2)), B)
    return lax.stop_gradient(X - dense) + dense


@public('cholesky_solve', method=True)
@autocast_entry('cholesky_solve')
def cholesky_solve(input, input2, upper=False, *, out=None):
    check_square(input2, 'linalg.cholesky_solve', 'A')
    check_matrix(input, 'linalg.cholesky_solve', 'B')
    if input.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {sname(input.dtype)} and A "
                           f"of type {sname(input2.dtype)} instead.")
    n = input2.shape[-1]
    if input.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b "
                           f"matrix is {input.shape[-2]} by {input.shape[-1]}")
    check_lowp(input, 'cholesky_solve_cpu')
    return dispatch.apply(_cholesky_solve, (input, input2), (bool(upper),), out)


@op('_cholesky_inverse', static=('upper',), node='CholeskyInverseBackward0', function=False, method=False)
def _cholesky_inverse(input, *, upper):
    # value from the triangle potri reads; gradient of the dense (L L^H)^-1 as torch's formula (see _cholesky_solve)
    L = jnp.conj(jnp.swapaxes(input, -1, -2)) if upper else input
    if L.shape[-1] == 0:
        return L
    Lt = jnp.tril(L)
    eye = jnp.broadcast_to(jnp.eye(L.shape[-1], dtype=L.dtype), L.shape)
    y = _tri_solve(Lt, eye, False, True, False)
    X = _tri_solve(Lt, y, False, True, False, trans=True, conj=True)
    dense = jnp.linalg.inv(L @ jnp.conj(jnp.swapaxes(L, -1, -2)))
    return lax.stop_gradient(X - dense) + dense


@public('cholesky_inverse', method=True)
@autocast_entry('cholesky_inverse')
def cholesky_inverse(input, upper=False, *, out=None):
    check_square(input, 'linalg.cholesky_inverse', 'input')
    check_lowp(input, 'cholesky_inverse_out_cpu')
    return dispatch.apply(_cholesky_inverse, (input,), (bool(upper),), out)


# ---- pinv / matrix_rank / matrix_power / lstsq ----------------------------------------------

def _tol(atol, rtol, fname):
    """torch's rule: both None -> rtol = eps * max(m, n); atol > 0 given alone -> rtol = 0."""
    vals = []
    for v in (atol, rtol):
        if v is not None and not isinstance(v, numbers.Real):
            if getattr(v, 'numel', lambda: 2)() != 1:
                raise NotImplementedError(f"torchlike: {fname} with a non-scalar atol/rtol tensor is not supported")
            v = float(v.item())
        vals.append(None if v is None else float(v))
    return tuple(vals)


def _cutoff(s, m, n, atol, rtol, dtype):
    smax = jnp.max(s, axis=-1, keepdims=True) if s.shape[-1] else jnp.zeros(s.shape[:-1] + (1,), s.dtype)
    if rtol is None:
        rtol = float(np.finfo(dtype).eps) * max(m, n) if (atol is None or atol <= 0) else 0.0
    return jnp.maximum(0.0 if atol is None else atol, rtol * smax)


@op('_linalg_pinv', static=('atol', 'rtol', 'hermitian', 'lower'), node='LinalgPinvBackward0', function=False,
    method=False)
def _linalg_pinv(A, *, atol, rtol, hermitian, lower=None):
    # jnp's pinv carries the constant-rank derivative formula torch's pinv_backward uses; torch's cutoff
    # max(atol, rtol * smax) becomes a per-matrix relative tolerance for it.
    m, n = A.shape[-2], A.shape[-1]
    if lower is not None:
        return _pinv_autocast(A, atol, rtol, hermitian, jnp.dtype(lower))
    if m == 0 or n == 0:
        return jnp.zeros(A.shape[:-2] + (n, m), A.dtype)
    eps = float(np.finfo(jnp.finfo(A.dtype).dtype).eps)
    if rtol is None:
        rtol = eps * max(m, n) if (atol is None or atol <= 0) else 0.0
    if hermitian:
        return _pinv_hermitian(A, atol, rtol)
    if atol is None:
        return jnp.linalg.pinv(A, rtol=rtol, hermitian=hermitian)
    s = jnp.linalg.svd(lax.stop_gradient(A), compute_uv=False)
    smax = jnp.max(s, axis=-1)
    r = jnp.where(smax > 0, jnp.maximum(atol / jnp.where(smax > 0, smax, 1), rtol), rtol)
    return jnp.linalg.pinv(A, rtol=r, hermitian=hermitian)


def _pinv_autocast(A, atol, rtol, hermitian, lower):
    """torch's pinv under autocast: its two float32 factors, V diag(1/s) and U^H (eigh's V diag(1/w) and V^H for
    ``hermitian``), rounded to ``lower`` and multiplied there (float32 accumulation, as torch's CPU gemm)."""
    from .linalg import matmul_acc
    m, n = A.shape[-2], A.shape[-1]
    if m == 0 or n == 0:
        return jnp.zeros(A.shape[:-2] + (n, m), lower)
    H = lambda x: jnp.conj(jnp.swapaxes(x, -1, -2))     # noqa: E731
    eps = float(np.finfo(np.float32).eps)
    if rtol is None:
        rtol = eps * max(m, n) if (atol is None or atol <= 0) else 0.0
    if hermitian:
        s, u = jnp.linalg.eigh(_read_triangle(A, False), UPLO='L', symmetrize_input=False)
        sa = jnp.abs(s)
        keep = sa > _cutoff(sa, m, n, atol, rtol, np.float32)
        left, right = u, H(u)
    else:
        u, s, vh = jnp.linalg.svd(A, full_matrices=False)
        keep = s > _cutoff(s, m, n, atol, rtol, np.float32)
        left, right = H(vh), H(u)
    sinv = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(A.dtype)
    return matmul_acc((left * sinv[..., None, :]).astype(lower), right.astype(lower))


def _pinv_hermitian_value(A, atol, rtol):
    m, n = A.shape[-2], A.shape[-1]
    w, v = jnp.linalg.eigh(_read_triangle(A, False), UPLO='L', symmetrize_input=False)   # LAPACK reads 'L'
    aw = jnp.abs(w)
    keep = aw > _cutoff(aw, m, n, atol, rtol, jnp.finfo(A.dtype).dtype)
    winv = jnp.where(keep, 1 / jnp.where(keep, w, 1), 0).astype(A.dtype)
    return (v * winv[..., None, :]) @ jnp.conj(jnp.swapaxes(v, -1, -2))


@partial(jax.custom_jvp, nondiff_argnums=(1, 2))
def _pinv_hermitian(A, atol, rtol):
    """pinv(hermitian=True): the value from eigh, the derivative torch's pinv_backward uses -- Golub-Pereyra's
    general formula evaluated at the input as given (not its Hermitian part)."""
    return _pinv_hermitian_value(A, atol, rtol)


@_pinv_hermitian.defjvp
def _pinv_hermitian_jvp(atol, rtol, primals, tangents):
    a, = primals
    da, = tangents
    p = _pinv_hermitian_value(a, atol, rtol)
    H = lambda x: jnp.conj(jnp.swapaxes(x, -1, -2))     # noqa: E731
    s = (p @ H(p)) @ H(da)
    t = (H(da) @ H(p)) @ p
    return p, -(p @ da) @ p + s - (s @ a) @ p + t - (p @ a) @ t


def _eps_tol_checks(A, atol, rtol):
    """torch's float overload (atol a number, rtol None) derives rtol from eps * max(m, n) before any check of
    A: A.size(-2) (IndexError below 2 dims), then _get_epsilon of A's dtype."""
    if isinstance(atol, numbers.Real) and rtol is None:
        if A.ndim < 2:
            if A.ndim == 0:
                raise IndexError("Dimension specified as -1 but tensor has no dimensions")
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
        check_eps_dtype(A)


@public('pinv', namespace='linalg')
def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    _eps_tol_checks(A, atol, rtol)
    if A.dtype.name not in ('float32', 'float64', 'complex64', 'complex128') or A.ndim < 2:
        raise RuntimeError(f"linalg.pinv({sname(A.dtype)}{{{list(A.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    atol, rtol = _tol(atol, rtol, 'linalg.pinv')
    lower = _autocast_lower(A)
    return dispatch.apply(_linalg_pinv, (A,), (atol, rtol, bool(hermitian), lower), out)


def _autocast_lower(A):
    """torch's pinv is not on an autocast list, so autocast reaches the matmul it ends with: the float32 factors
    are cast to the autocast dtype and multiplied there (the result has that dtype). The name of that dtype
    when it applies to A (a float32 tensor; float64 / complex are not cast), else None."""
    from ..amp.autocast_mode import _st, _eligible
    for dev, lower_dt, _, _ in _st.active:
        if A.dtype.name == 'float32' and _eligible(A, dev):
            return lower_dt.name
    return None


@public('pinverse', method=True)
@autocast_entry('pinverse')
def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


@op('_linalg_matrix_rank', static=('atol', 'rtol', 'hermitian'), function=False, method=False,
    differentiable=False)
def _linalg_matrix_rank(A, *, atol, rtol, hermitian):
    m, n = A.shape[-2], A.shape[-1]
    rdt = jnp.finfo(A.dtype).dtype
    s = jnp.abs(jnp.linalg.eigvalsh(A)) if hermitian else jnp.linalg.svd(A, compute_uv=False)
    return jnp.sum(s > _cutoff(s, m, n, atol, rtol, rdt), axis=-1).astype(jnp.int64)


@public('matrix_rank', namespace='linalg')
@autocast_entry('linalg_matrix_rank')
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    if tol is not None:     # torch's (input, tol, hermitian) overload: an absolute tolerance only
        if atol is not None or rtol is not None:
            raise TypeError("linalg_matrix_rank() received an invalid combination of arguments: tol with atol/rtol")
        atol, rtol = tol, 0.0
    check_matrix(A, 'torch.linalg.matrix_rank', 'input')
    if rtol is None:        # the default rtol (eps * max(m, n)) needs A's epsilon first
        check_eps_dtype(A)
    check_lowp(A, 'linalg_eigh_cpu' if hermitian else 'linalg_svd_cpu')
    atol, rtol = _tol(atol, rtol, 'linalg.matrix_rank')
    return dispatch.apply(_linalg_matrix_rank, (A,), (atol, rtol, bool(hermitian)), out)


@op('_linalg_matrix_power', static=('n',), node='LinalgMatrixPowerBackward0', function=False, method=False)
def _linalg_matrix_power(A, *, n):
    return jnp.linalg.matrix_power(A, n)


@public('matrix_power', namespace='linalg')
def linalg_matrix_power(A, n, *, out=None):
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        check_square(A, 'linalg.matrix_power')
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    n = int(n)
    if n < 0:     # linalg.inv checks A as torch's composite does (and, under autocast, casts it to float32)
        A, n = inv(A), -n
    return dispatch.apply(_linalg_matrix_power, (A,), (n,), out)


@public('matrix_power', method=True)
def matrix_power(input, n, *, out=None):
    return linalg_matrix_power(input, n, out=out)


@op('_linalg_lstsq', static=('rcond',), node='LinalgLstsqBackward0', nondiff_outputs=(2, 3), function=False,
    method=False)
def _linalg_lstsq(A, B, *, rcond):
    """The minimum-norm least-squares solution with singular values below rcond * smax dropped (what every
    LAPACK driver returns for inputs it handles: gels/gelsy via QR, gelsd/gelss via the SVD), the squared
    residual norms, the effective rank and the singular values; the public wrapper keeps the fields torch's
    driver fills."""
    m, n = A.shape[-2], A.shape[-1]
    A, B = _bcast_batch(A, B)
    rdt = jnp.finfo(A.dtype).dtype
    s = jnp.linalg.svd(lax.stop_gradient(A), compute_uv=False)
    keep = s > _cutoff(s, m, n, None, rcond, rdt)
    if m == 0 or n == 0:
        X = jnp.zeros(A.shape[:-2] + (n, B.shape[-1]), A.dtype)
    else:       # through jnp's pinv, whose derivative is torch's pinv_backward (torch's lstsq backward)
        rt = float(np.finfo(rdt).eps) * max(m, n) if rcond is None else rcond
        X = jnp.matmul(jnp.linalg.pinv(A, rtol=rt), B, precision=lax.Precision.HIGHEST)
    res = jnp.sum(jnp.abs(A @ X - B) ** 2, axis=-2)
    return X, res, jnp.sum(keep, axis=-1).astype(jnp.int64), s


@public('lstsq', namespace='linalg')
@autocast_entry('linalg_lstsq')
def lstsq(A, B, rcond=None, *, driver=None):
    check_matrix(A, 'torch.linalg.lstsq')
    check_float(B, 'torch.linalg.lstsq', 'B')
    if driver is None:
        driver = 'gelsy'        # torch's CPU default
    if driver not in ('gels', 'gelsy', 'gelsd', 'gelss'):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {sname(A.dtype)} and other's dtype {sname(B.dtype)}")
    vec = B.ndim == A.ndim - 1
    if (B.shape[-1] if vec else B.shape[-2]) != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if rcond is None:       # the default rcond (eps * max(m, n)) needs A's epsilon first
        check_eps_dtype(A)
    check_lowp(A, 'linalg_lstsq_cpu')
    if vec:
        B = B.unsqueeze(-1)
    rcond = None if rcond is None else float(rcond)
    X, res, rank, s = dispatch.apply(_linalg_lstsq, (A, B), (rcond,))
    if vec:
        X = X.squeeze(-1)      # (residuals keep the column dimension, as torch)
    from .creation import empty
    rdt = A.dtype.to_real()
    none = empty((0,), dtype=rdt)
    m, n = A.shape[-2], A.shape[-1]
    full_rank = driver == 'gels' or (driver != 'gelsy' and bool((rank == min(m, n)).all()))   # a value read
    # torch's residuals come from the differentiable node even when empty
    residuals = res if (m > n and full_rank and driver != 'gelsy') else res.reshape(-1)[:0]
    return return_types.linalg_lstsq((X, residuals, rank if driver != 'gels' else empty((0,), dtype=rank.dtype),
                                      s if driver in ('gelsd', 'gelss') else none))


# ---- cross / vecdot / multi_dot in the linalg namespace ----------------------------------------

@public('cross', namespace='linalg')
def linalg_cross(input, other, *, dim=-1, out=None):
    dim = wrap_dim(int(dim), max(input.ndim, other.ndim))
    return dispatch.apply(_linalg_cross, (input, other), (dim,), out)


@op('_linalg_vecdot', static=('dim',), promote=None, node='LinalgVecdotBackward0', function=False, method=False)
def _linalg_vecdot(x, y, *, dim):
    return jnp.sum(jnp.conj(x) * y, axis=dim)


@public('vecdot', namespace='linalg')
def vecdot(x, y, *, dim=-1, out=None):
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{sname(x.dtype)} and y of type {sname(y.dtype)} instead")
    nd = len(broadcast_shapes(x.shape, y.shape))
    return dispatch.apply(_linalg_vecdot, (x, y), (wrap_dim(int(dim), nd),), out)


@public('multi_dot', namespace='linalg')
def multi_dot(tensors, *, out=None):
    from .linalg import mm
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_vec, last_vec = tensors[0].ndim == 1, tensors[-1].ndim == 1
    ts = list(tensors)
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i, t in enumerate(ts):
        if t.ndim != 2:
            if i in (0, len(ts) - 1):
                raise RuntimeError(f"multi_dot(): the {'first' if i == 0 else 'last'} tensor must be 1D or 2D but "
                                   f"got {tensors[i].ndim}D")
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i in range(1, len(ts)):
        if ts[i].dtype is not ts[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{cname(ts[0].dtype)} and tensor {i} {cname(ts[i].dtype)}")
        if ts[i - 1].shape[1] != ts[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(ts[i - 1].shape)} and "
                               f"{list(ts[i].shape)} cannot be multiplied")
    r = ts[0]
    for t in ts[1:]:
        r = mm(r, t)
    if first_vec:
        r = r.squeeze(0)
    if last_vec:
        r = r.squeeze(-1)
    return _write_plain(r, out)


@public('matmul', namespace='linalg')
def linalg_matmul(input, other, *, out=None):
    """torch.linalg.matmul: an alias of torch.matmul."""
    from .linalg import matmul
    return matmul(input, other, out=out)


@public('diagonal', namespace='linalg')
def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    from .shape import diagonal
    return diagonal(A, offset, dim1, dim2)


@public('vander', namespace='linalg')
def vander(x, *, N=None):
    """Powers x^0 .. x^(N-1) along a new last dim: cumprod of [1, x, x, ...] (torch's own composite)."""
    from .joining import cat
    from .cumulative import cumprod
    if x.dtype.name in ('bool', 'float16', 'bfloat16'):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{sname(x.dtype)}")
    n = (x.shape[-1] if x.ndim else 0) if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.ndim == 0:     # torch treats a scalar as a 1-vector
        x = x.reshape(1)
    ones = x.new_ones(tuple(x.shape) + (1,))
    x = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,))
    return cumprod(cat([ones, x], -1), -1)


@public('tensorinv', namespace='linalg')
@autocast_entry('linalg_tensorinv')
def tensorinv(A, ind=2, *, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = tuple(A.shape[ind:]) + tuple(A.shape[:ind])
    rows = int(np.prod(A.shape[:ind]))
    cols = int(np.prod(A.shape[ind:]))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind])"
                           f", but got {cols} != {rows}")
    return _write_plain(inv(A.reshape(rows, cols)).reshape(out_shape), out)


@public('tensorsolve', namespace='linalg')
@autocast_entry('linalg_tensorsolve')
def tensorsolve(A, B, dims=None, *, out=None):
    if dims is not None:
        from .shape import movedim
        dims = [wrap_dim(int(d), A.ndim) for d in dims]
        A = movedim(A, dims, list(range(A.ndim - len(dims), A.ndim)))
    res_shape = tuple(A.shape[B.ndim:])
    rows = int(np.prod(B.shape))
    cols = int(np.prod(res_shape))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return _write_plain(solve(A.reshape(rows, cols), B.reshape(rows)).reshape(res_shape), out)


if not hasattr(return_types, 'triangular_solve'):
    return_types.triangular_solve = return_types._make('triangular_solve', ('solution', 'cloned_coefficient'))


@op('_triangular_solve', static=('upper', 'transpose', 'unitriangular'), node='TriangularSolveBackward0',
    ret=return_types.triangular_solve, function=False, method=False)
def _triangular_solve(input, A, *, upper, transpose, unitriangular):
    At = jnp.triu(A) if upper else jnp.tril(A)
    X = _tri_solve(At, input, upper, True, unitriangular, trans=transpose)
    return X, jnp.broadcast_to(A, X.shape[:-2] + A.shape[-2:])


@public('triangular_solve', method=True)
@autocast_entry('triangular_solve')
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=3)  # + the autocast entry frame
    check_square(A, 'torch.triangular_solve', 'A')
    check_matrix(input, 'torch.triangular_solve', 'B')
    _check_same_dtype(A, input, 'torch.triangular_solve')
    if input.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"torch.triangular_solve: Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-1]} by {A.shape[-1]} but each b matrix is {input.shape[-2]} by "
                           f"{input.shape[-1]}")
    check_lowp(A, 'triangular_solve_cpu')
    return dispatch.apply(_triangular_solve, (input, A), (bool(upper), bool(transpose), bool(unitriangular)), out)


def _write_plain(r, out):
    """out= for a composite's result (copy with a cast, as the generated out= variants do)."""
    if out is None:
        return r
    out._set_value_inplace(r._value().astype(out._value().dtype), resize=True)
    return out
