"""torch.linalg factorizations: det/slogdet, inv(_ex), cholesky(_ex), qr, eigh/eigvalsh, eig/eigvals, svd/svdvals,
lu/lu_factor, matrix_exp, householder_product, and the torch-level det/logdet/slogdet/inverse/matrix_exp/svd.

Each op is a pure JAX function; gradients are the registry's automatic VJP. Singular / non-positive-definite
inputs: the ``_ex`` forms return LAPACK's ``info`` (computed inside the program); the plain forms read it
back and raise ``torch.linalg.LinAlgError`` with torch's message -- a sync point, exactly where torch has one.
"""
import math
import warnings

import numpy as np

from .. import return_types
from .._engine.registry import op, public, PUBLIC
from .._engine import dispatch
from ..amp.autocast_mode import autocast_entry
from .._engine.jaxrt import jax, jnp, lax
from .linalg import sname, _not_impl


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): a RuntimeError raised for singular / non-PD inputs."""


LinAlgError.__name__ = LinAlgError.__qualname__ = '_LinAlgError'
LinAlgError.__module__ = 'torch._C'
PUBLIC.setdefault('linalg', {})['LinAlgError'] = LinAlgError

# torch.return_types entries for the linalg ops (return_types.py holds the older ones; same factory).
for _n, _f in (('linalg_inv_ex', ('inverse', 'info')), ('linalg_solve_ex', ('result', 'info')),
               ('linalg_cholesky_ex', ('L', 'info')), ('linalg_slogdet', ('sign', 'logabsdet')),
               ('linalg_qr', ('Q', 'R')), ('linalg_eigh', ('eigenvalues', 'eigenvectors')),
               ('linalg_eig', ('eigenvalues', 'eigenvectors')), ('linalg_svd', ('U', 'S', 'Vh')),
               ('linalg_lstsq', ('solution', 'residuals', 'rank', 'singular_values')),
               ('linalg_lu_factor', ('LU', 'pivots')), ('linalg_lu_factor_ex', ('LU', 'pivots', 'info')),
               ('linalg_lu', ('P', 'L', 'U'))):
    if not hasattr(return_types, _n):
        setattr(return_types, _n, return_types._make(_n, _f))


# ---- argument checks (run on the Tensor before dispatch: torch's messages) --------------------

def check_float(x, fname, arg='A'):
    if x.dtype._cat < 2:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {sname(x.dtype)}")


def is_lowp(x):
    return x.dtype._cat == 2 and x.dtype.itemsize == 2


def check_lowp(x, kernel=None, fname=None):
    """torch's CPU linalg has no float16 / bfloat16 kernels, and says so in one of two ways (each front end
    names its own, checked against torch in test_linalg_extra.py):
    - ``kernel``: the function dispatches on the dtype only when its kernel runs, after every argument check,
      and raises NotImplementedError naming the kernel (``"lu_cpu" not implemented for 'BFloat16'``);
    - ``fname``: the function rejects the dtype itself with a RuntimeError (linalg.inv, slogdet, ...).
    So each front end calls this after its own argument checks, where torch's kernel (or check) runs."""
    if is_lowp(x):
        if kernel is not None:
            raise _not_impl(kernel, x.dtype)
        raise RuntimeError(f"{fname}: Low precision dtypes not supported. Got {sname(x.dtype)}")


def check_eps_dtype(x):
    """torch's _get_epsilon, reached by the default tolerances of pinv(atol=float) / matrix_rank / lstsq
    before their kernels: only float and double (or their complex forms) have one."""
    if x.dtype.name not in ('float32', 'float64', 'complex64', 'complex128'):
        raise RuntimeError("This function doesn't handle types other than float and double")


def check_matrix(x, fname, arg='A'):
    if x.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {arg} must have at least 2 dimensions.")
    check_float(x, fname, arg)


def check_square(x, fname, arg='A'):
    check_matrix(x, fname, arg)
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{fname}: {arg} must be batches of square matrices, but they are {x.shape[-2]} by "
                           f"{x.shape[-1]} matrices")


def raise_info(info, fname, kind):
    """Read ``info`` (a sync point, as in torch) and raise LinAlgError for the first failing batch element."""
    v = np.asarray(info._value()).reshape(-1)
    bad = np.nonzero(v)[0]
    if bad.size == 0:
        return
    i = int(bad[0])
    k = int(v[i])
    where = f"(Batch element {i}): " if info.ndim > 0 else ""
    if kind == 'lu_factor':       # torch raises a plain RuntimeError here, 0-based index
        raise RuntimeError(f"{fname}: {where}U[{k - 1},{k - 1}] is zero and using it on lu_solve would result in a "
                           "division by zero. If you still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    if kind == 'solve':
        msg = "The solver failed because the input matrix is singular."
        fname = 'torch.' + fname
    elif kind == 'lu':
        msg = (f"The diagonal element {k} is zero, the inversion could not be completed because the input matrix "
               "is singular.")
    else:
        msg = ("The factorization could not be completed because the input is not positive-definite (the leading "
               f"minor of order {k} is not positive-definite).")
    raise LinAlgError(f"{fname}: {where}{msg}")


def write_outs(op, results, out, ret):
    """out= for a public form that returns fewer outputs than its op (lu_factor, ldl_factor drop ``info``):
    each tensor is written as a single out, and the tuple comes back as the public named tuple."""
    out = tuple(out)
    if len(out) != len(results):
        raise RuntimeError(f'{op.name}(): expected {len(results)} out tensors, got {len(out)}')
    for t, r in zip(out, results):
        dispatch._write_out(op, (r,), t, True)
    return ret(out)


def lu_info(lu):
    """LAPACK getrf's info: 1-based index of the first zero pivot of U, 0 when none."""
    d = jnp.diagonal(lu, axis1=-2, axis2=-1)
    if d.shape[-1] == 0:
        return jnp.zeros(d.shape[:-1], jnp.int32)
    z = d == 0
    first = jnp.argmax(z, axis=-1).astype(jnp.int32) + 1
    return jnp.where(jnp.any(z, axis=-1), first, 0).astype(jnp.int32)


def _hermitian_from(a, upper):
    """The Hermitian matrix that LAPACK sees when it reads only one triangle of ``a`` (real diagonal)."""
    t = jnp.triu(a) if upper else jnp.tril(a)
    s = jnp.triu(a, 1) if upper else jnp.tril(a, -1)
    h = t + jnp.conj(jnp.swapaxes(s, -1, -2))
    if jnp.iscomplexobj(a):
        d = jnp.imag(jnp.diagonal(a, axis1=-2, axis2=-1))
        h = h - 1j * d[..., :, None] * jnp.eye(a.shape[-1], dtype=a.dtype)
    return h


def _read_triangle(a, upper):
    """``_hermitian_from`` for the value, but the gradient of a function of the full Hermitian input.

    torch's eigh/cholesky backward formulas return a Hermitian gradient (as if both triangles were read),
    so the gradient path goes through (A + A^H) / 2 while the value uses only the triangle LAPACK reads
    (bit for bit: sym - stop_gradient(sym) is exactly zero)."""
    sym = (a + jnp.conj(jnp.swapaxes(a, -1, -2))) / 2
    return _hermitian_from(lax.stop_gradient(a), upper) + (sym - lax.stop_gradient(sym))


def _chol_info(h):
    """potrf's info for Hermitian ``h``: 1-based order of the first non-positive leading minor (0 when PD).

    Unblocked symmetric elimination: pivot k is the Schur complement's (k, k) entry."""
    n = h.shape[-1]
    idx = jnp.arange(n)

    def body(k, carry):
        m, info = carry
        d = jnp.real(m[..., k, k])
        bad = ~(d > 0)
        info = jnp.where((info == 0) & bad, k + 1, info)
        col = m[..., :, k]
        safe = jnp.where(bad, 1, d).astype(m.dtype)
        upd = col[..., :, None] * jnp.conj(col)[..., None, :] / safe[..., None, None]
        mask = (idx > k)[:, None] & (idx > k)[None, :]
        m = jnp.where(mask, m - upd, m)
        return m, info

    _, info = lax.fori_loop(0, n, body, (h, jnp.zeros(h.shape[:-2], jnp.int32)))
    return info


# ---- det / slogdet ------------------------------------------------------------------------

@op('_linalg_det', node='LinalgDetBackward0', function=False, method=False)
def _linalg_det(A):
    if A.shape[-1] == 0:            # the empty product (jnp's det has no gradient rule for it)
        return jnp.ones(A.shape[:-2], A.dtype)
    return jnp.linalg.det(A)


@op('_linalg_slogdet', node='LinalgSlogdetBackward0', ret=return_types.linalg_slogdet, function=False, method=False)
def _linalg_slogdet(A):
    s, l = jnp.linalg.slogdet(A)
    return s.astype(A.dtype), l


@op('_logdet', node='LogdetBackward0', function=False, method=False)
def _logdet(A):
    s, l = jnp.linalg.slogdet(A)
    if jnp.iscomplexobj(A):
        return jnp.log(s.astype(A.dtype)) + l
    return jnp.where(s < 0, jnp.nan, l).astype(A.dtype)


@public('det', namespace='linalg')
def linalg_det(A, *, out=None):
    check_square(A, 'linalg.det')
    check_lowp(A, 'lu_cpu')
    return dispatch.apply(_linalg_det, (A,), (), out)


@public('det', method=True)
def det(input):
    check_square(input, 'linalg.det')
    check_lowp(input, 'lu_cpu')
    return dispatch.apply(_linalg_det, (input,), ())


@public('slogdet', namespace='linalg')
def linalg_slogdet(A, *, out=None):
    check_square(A, 'linalg.slogdet')
    check_lowp(A, fname='linalg.slogdet')
    return dispatch.apply(_linalg_slogdet, (A,), (), out)


@public('slogdet', method=True)
def slogdet(input):
    check_square(input, 'linalg.slogdet')
    check_lowp(input, fname='linalg.slogdet')
    r = dispatch.apply(_linalg_slogdet, (input,), ())
    return return_types.slogdet(tuple(r))


@public('logdet', method=True)
def logdet(input):
    check_square(input, 'logdet')
    check_lowp(input, fname='logdet')
    return dispatch.apply(_logdet, (input,), ())


# ---- inverse -------------------------------------------------------------------------------

@op('_linalg_inv_ex', node='LinalgInvExBackward0', nondiff_outputs=(1,), ret=return_types.linalg_inv_ex,
    function=False, method=False)
def _linalg_inv_ex(A):
    if A.shape[-1] == 0:
        return A, jnp.zeros(A.shape[:-2], jnp.int32)
    lu, _, _ = lax.linalg.lu(lax.stop_gradient(A))
    return jnp.linalg.inv(A), lu_info(lu)


@public('inv_ex', namespace='linalg')
@autocast_entry('linalg_inv_ex')
def inv_ex(A, *, check_errors=False, out=None):
    check_square(A, 'linalg.inv')
    check_lowp(A, fname='linalg.inv')
    r = dispatch.apply(_linalg_inv_ex, (A,), (), out)
    if check_errors:
        raise_info(r[1], 'linalg.inv_ex', 'lu')
    return r


@public('inv', namespace='linalg')
@autocast_entry('linalg_inv')
def inv(A, *, out=None):
    check_square(A, 'linalg.inv')
    check_lowp(A, fname='linalg.inv')
    r = dispatch.apply(_linalg_inv_ex, (A,), ())
    raise_info(r[1], 'linalg.inv', 'lu')
    if out is not None:
        return dispatch._write_out(_linalg_inv_ex, (r[0],), out, True)
    return r[0]


@public('inverse', method=True)
@autocast_entry('inverse')
def inverse(input, *, out=None):
    return inv(input, out=out)


# ---- cholesky ------------------------------------------------------------------------------

@op('_linalg_cholesky_ex', static=('upper',), node='LinalgCholeskyExBackward0', nondiff_outputs=(1,),
    ret=return_types.linalg_cholesky_ex, function=False, method=False)
def _linalg_cholesky_ex(A, *, upper):
    if A.shape[-1] == 0:
        return A, jnp.zeros(A.shape[:-2], jnp.int32)
    h = _read_triangle(A, upper)
    L = lax.linalg.cholesky(h, symmetrize_input=False)
    info = _chol_info(lax.stop_gradient(h))
    L = jnp.where((info == 0)[..., None, None], L, 0)
    return (jnp.conj(jnp.swapaxes(L, -1, -2)) if upper else L), info


@public('cholesky_ex', namespace='linalg')
@autocast_entry('linalg_cholesky_ex')
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    check_square(A, 'linalg.cholesky')
    check_lowp(A, 'cholesky_cpu')
    r = dispatch.apply(_linalg_cholesky_ex, (A,), (bool(upper),), out)
    if check_errors:
        raise_info(r[1], 'linalg.cholesky_ex', 'chol')
    return r


@public('cholesky', namespace='linalg')
@autocast_entry('linalg_cholesky')
def linalg_cholesky(A, *, upper=False, out=None):
    check_square(A, 'linalg.cholesky')
    check_lowp(A, 'cholesky_cpu')
    r = dispatch.apply(_linalg_cholesky_ex, (A,), (bool(upper),))
    raise_info(r[1], 'linalg.cholesky', 'chol')
    if out is not None:
        return dispatch._write_out(_linalg_cholesky_ex, (r[0],), out, True)
    return r[0]


# ---- qr / eigh / eig / svd -------------------------------------------------------------------

@op('_linalg_qr', static=('mode',), node='LinalgQrBackward0', ret=return_types.linalg_qr, function=False,
    method=False)
def _linalg_qr(A, *, mode):
    if mode == 'r':
        return jnp.zeros((0,), A.dtype), jnp.linalg.qr(A, mode='r')
    q, r = jnp.linalg.qr(A, mode=mode)
    return q, r


@public('qr', namespace='linalg')
@autocast_entry('linalg_qr')
def linalg_qr(A, mode='reduced', *, out=None):
    check_matrix(A, 'linalg.qr')
    if mode not in ('reduced', 'complete', 'r'):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    check_lowp(A, 'geqrf_cpu')
    return dispatch.apply(_linalg_qr, (A,), (mode,), out)


@public('qr', method=True)
@autocast_entry('qr')
def qr(input, some=True, *, out=None):
    check_matrix(input, 'linalg.qr')
    check_lowp(input, 'geqrf_cpu')
    r = dispatch.apply(_linalg_qr, (input,), ('reduced' if some else 'complete',), out)
    return return_types.qr(tuple(r))


def _check_uplo(UPLO, fname):
    if UPLO not in ('L', 'U'):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@op('_linalg_eigh', static=('UPLO',), node='LinalgEighBackward0', ret=return_types.linalg_eigh, function=False,
    method=False)
def _linalg_eigh(A, *, UPLO):
    # LAPACK runs on the triangle torch names; the other triangle only routes gradients. Eigenvector signs: jax
    # calls reference LAPACK's ?syevd, torch's CPU build calls MKL's. They agree for n <= 2 and for n > 25 (the
    # divide-and-conquer path, whose merge step fixes each sign), but for 3 <= n <= 25 MKL's small-matrix path
    # picks other per-column signs than reference ?steqr, with no rule we could recover (tested: first/last/
    # largest-entry sign, the D&C merge convention; also every scipy driver -- ev/evd/evx agree with jax, evr
    # with neither -- and first/last/largest-entry rules on the tridiagonal eigenvectors Q^T V, Q from ?sytrd:
    # each agrees with MKL on ~50% of columns for n >= 5, i.e. not at all), so there eigenvectors match
    # torch's up to sign only.
    w, v = jnp.linalg.eigh(_read_triangle(A, UPLO == 'U'), UPLO=UPLO, symmetrize_input=False)
    return w, v


@op('_linalg_eigvalsh', static=('UPLO',), node='LinalgEighBackward0', function=False, method=False)
def _linalg_eigvalsh(A, *, UPLO):
    return jnp.linalg.eigh(_read_triangle(A, UPLO == 'U'), UPLO=UPLO, symmetrize_input=False)[0]


@public('eigh', namespace='linalg')
@autocast_entry('linalg_eigh')
def eigh(A, UPLO='L', *, out=None):
    check_square(A, 'linalg.eigh')
    _check_uplo(UPLO, 'linalg.eigh')
    check_lowp(A, 'linalg_eigh_cpu')
    return dispatch.apply(_linalg_eigh, (A,), (UPLO,), out)


@public('eigvalsh', namespace='linalg')
@autocast_entry('linalg_eigvalsh')
def eigvalsh(A, UPLO='L', *, out=None):
    check_square(A, 'linalg.eigvalsh')
    _check_uplo(UPLO, 'linalg.eigvalsh')
    check_lowp(A, 'linalg_eigh_cpu')
    return dispatch.apply(_linalg_eigvalsh, (A,), (UPLO,), out)


@op('_linalg_eig', node='LinalgEigBackward0', ret=return_types.linalg_eig, function=False, method=False)
def _linalg_eig(A):
    if A.shape[-1] == 0:
        c = jnp.result_type(A.dtype, jnp.complex64)
        return jnp.zeros(A.shape[:-1], c), A.astype(c)
    # torch differentiates eigenvectors too (valid for distinct eigenvalues, as jax's opt-in says)
    w, v = lax.linalg.eig(A, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return w, v


@op('_linalg_eigvals', node='LinalgEigBackward0', function=False, method=False)
def _linalg_eigvals(A):
    return jnp.linalg.eigvals(A)


@public('eig', namespace='linalg')
@autocast_entry('linalg_eig')
def eig(A, *, out=None):
    check_square(A, 'linalg.eig')
    check_lowp(A, 'linalg_eig_out_cpu')
    return dispatch.apply(_linalg_eig, (A,), (), out)


@public('eigvals', namespace='linalg')
@autocast_entry('linalg_eigvals')
def eigvals(A, *, out=None):
    check_square(A, 'linalg.eigvals')
    check_lowp(A, 'linalg_eig_out_cpu')
    return dispatch.apply(_linalg_eigvals, (A,), (), out)


@op('_linalg_svd', static=('full_matrices',), node='LinalgSvdBackward0', ret=return_types.linalg_svd,
    function=False, method=False)
def _linalg_svd(A, *, full_matrices):
    return _svd_full(A) if full_matrices else tuple(jnp.linalg.svd(A, full_matrices=False))


def _svd_full(A):
    """svd(full_matrices=True); jax differentiates only the reduced SVD, which is also what torch's backward
    uses (the extra columns of U / Vh get no gradient), so the gradient comes from the reduced factors."""
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    u, s, vh = jnp.linalg.svd(lax.stop_gradient(A), full_matrices=True)
    if k == 0:
        return u, s, vh     # nothing to differentiate
    ur, sr, vhr = jnp.linalg.svd(A, full_matrices=False)
    du = jnp.pad(ur - lax.stop_gradient(ur), [(0, 0)] * (A.ndim - 1) + [(0, m - k)])
    dvh = jnp.pad(vhr - lax.stop_gradient(vhr), [(0, 0)] * (A.ndim - 2) + [(0, n - k), (0, 0)])
    return u + du, s + (sr - lax.stop_gradient(sr)), vh + dvh


@op('_linalg_svdvals', node='LinalgSvdBackward0', function=False, method=False)
def _linalg_svdvals(A):
    return jnp.linalg.svd(A, compute_uv=False)


@public('svd', namespace='linalg')
@autocast_entry('linalg_svd')
def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    check_matrix(A, 'linalg.svd')
    if driver is not None:
        raise NotImplementedError("torchlike: linalg.svd driver= is a CUDA-only option")
    check_lowp(A, 'linalg_svd_cpu')
    return dispatch.apply(_linalg_svd, (A,), (bool(full_matrices),), out)


@public('svdvals', namespace='linalg')
@autocast_entry('linalg_svdvals')
def svdvals(A, *, driver=None, out=None):
    check_matrix(A, 'linalg.svdvals')
    if driver is not None:
        raise NotImplementedError("torchlike: linalg.svdvals driver= is a CUDA-only option")
    check_lowp(A, 'linalg_svd_cpu')
    return dispatch.apply(_linalg_svdvals, (A,), (), out)


@op('_svd_legacy', static=('some',), node='LinalgSvdBackward0', ret=return_types.svd, function=False, method=False)
def _svd_legacy(input, *, some):
    u, s, vh = jnp.linalg.svd(input, full_matrices=False) if some else _svd_full(input)
    return u, s, jnp.conj(jnp.swapaxes(vh, -1, -2))


@public('svd', method=True)
@autocast_entry('svd')
def svd(input, some=True, compute_uv=True, *, out=None):
    check_matrix(input, 'linalg.svd')
    check_lowp(input, 'linalg_svd_cpu')
    if compute_uv:
        return dispatch.apply(_svd_legacy, (input,), (bool(some),), out)
    from .creation import zeros
    s = svdvals(input)
    m, n = input.shape[-2], input.shape[-1]
    b = tuple(input.shape[:-2])
    r = (zeros(b + (m, m), dtype=input.dtype), s, zeros(b + (n, n), dtype=input.dtype))
    return return_types.svd(r)


# ---- lu --------------------------------------------------------------------------------------

@op('_linalg_lu_factor_ex', static=('pivot',), node='LinalgLuFactorExBackward0', nondiff_outputs=(1, 2),
    ret=return_types.linalg_lu_factor_ex, function=False, method=False)
def _linalg_lu_factor_ex(A, *, pivot):
    lu, piv, _ = lax.linalg.lu(A)
    return lu, (piv + 1).astype(jnp.int32), lu_info(lax.stop_gradient(lu))


def _check_pivot(pivot, fname):
    if not pivot:
        raise RuntimeError(f"{fname}: LU without pivoting is not implemented on the CPU")


@public('lu_factor_ex', namespace='linalg')
def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    check_matrix(A, 'torch.linalg.lu_factor_ex')
    check_lowp(A, 'lu_cpu')
    _check_pivot(pivot, 'linalg.lu_factor')
    r = dispatch.apply(_linalg_lu_factor_ex, (A,), (True,), out)
    if check_errors:
        raise_info(r[2], 'torch.linalg.lu_factor_ex', 'lu_factor')
    return r


@public('lu_factor', namespace='linalg')
def lu_factor(A, *, pivot=True, out=None):
    check_matrix(A, 'torch.linalg.lu_factor')
    check_lowp(A, 'lu_cpu')
    _check_pivot(pivot, 'linalg.lu_factor')
    r = dispatch.apply(_linalg_lu_factor_ex, (A,), (True,))
    raise_info(r[2], 'torch.linalg.lu_factor', 'lu_factor')
    if out is not None:
        return write_outs(_linalg_lu_factor_ex, r[:2], out, return_types.linalg_lu_factor)
    return return_types.linalg_lu_factor(r[:2])


@op('_linalg_lu', static=('pivot',), node='LinalgLuBackward0', nondiff_outputs=(0,), ret=return_types.linalg_lu,
    function=False, method=False)
def _linalg_lu(A, *, pivot):
    lu, _, perm = lax.linalg.lu(A)
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    L = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=A.dtype)
    U = jnp.triu(lu[..., :k, :])
    P = jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=A.dtype), -1, -2)
    return P, L, U


@public('lu', namespace='linalg')
def linalg_lu(A, *, pivot=True, out=None):
    check_matrix(A, 'linalg.lu')
    check_lowp(A, 'lu_cpu')
    _check_pivot(pivot, 'linalg.lu')
    return dispatch.apply(_linalg_lu, (A,), (True,), out)


# ---- matrix_exp / householder_product ---------------------------------------------------------

# torch's matrix_exp (aten/src/ATen/native/LinearAlgebra.cpp, mexp): the optimized Taylor polynomials of Bader,
# Blanes & Casas (2019), degree 1, 2, 4, 8, 12 or 18 chosen by the 1-norm of a single matrix, and for a batch
# always degree 18 with per-matrix scaling and squaring. Matching it (rather than jax's Pade expm) keeps float32
# results within rounding of torch's.
_MEXP_THETAS = {   # the largest 1-norm each degree handles to unit roundoff: (1, 2, 4, 8, 12, 18)
    4: (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02, 5.800524627688768e-01,
        1.461661507209034e+00, 3.010066362817634e+00),
    8: (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04, 4.991228871115323e-02,
        2.996158913811580e-01, 1.090863719290036e+00)}
_MEXP_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
             (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
             (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
             (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))
_MEXP_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
             (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
              -6.37898194594723280150e-04),
             (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
              -6.98210122488052056106e-03, 3.34975017086070470649e-05),
             (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
              2.95552570429315521194e-02, -1.39180257516060693404e-05),
             (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _mm(a, b):
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _lincomb(As, coefs):
    r = 0
    for a, c in zip(As, coefs):
        r = r + c * a
    return r


def _mexp_taylor(A, deg):
    """torch's compute_T{deg}: the degree-``deg`` Taylor polynomial of exp(A) in few matrix products."""
    eye = jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    if deg == 1:
        return eye + A
    A2 = _mm(A, A)
    if deg == 2:
        return eye + A + A2 / 2
    if deg == 4:
        return eye + A + _mm(A2, _lincomb((eye, A, A2), (1 / 2.0, 1 / 6.0, 1 / 24.0)))
    if deg == 8:
        sq = 0.1330413469565007072504e+2        # sqrt(177)
        x3 = 2. / 3.
        x1, x2 = x3 * ((1. + sq) / 88.), x3 * ((1. + sq) / 352.)
        x4, x5 = (-271. + 29. * sq) / (315. * x3), (-11. + 11. * sq) / (1260. * x3)
        x6, x7 = (-99. + 11. * sq) / (5040. * x3), (89. - sq) / (5040. * x3)
        y2 = (857. - 58. * sq) / 630.
        A4 = _mm(A2, x1 * A + x2 * A2)
        A8 = _mm(x3 * A2 + A4, _lincomb((eye, A, A2, A4), (x4, x5, x6, x7)))
        return eye + A + y2 * A2 + A8
    A3 = _mm(A2, A)
    if deg == 12:
        B = [_lincomb((eye, A, A2, A3), row) for row in _MEXP_B12]
        A6 = B[2] + _mm(B[3], B[3])
        return B[0] + _mm(B[1] + A6, A6)
    B = [_lincomb((eye, A, A2, A3, _mm(A3, A3)), row) for row in _MEXP_B18]
    A9 = B[3] + _mm(B[0], B[4])
    return B[1] + _mm(B[2] + A9, A9)


def _mexp_value(A):
    n = A.shape[-1]
    if n == 0:
        return A
    if n == 1:
        return jnp.exp(A)
    thetas = _MEXP_THETAS[jnp.finfo(A.dtype).bits // 8]
    rdt = jnp.finfo(A.dtype).dtype
    norm = jnp.max(jnp.sum(jnp.abs(A), axis=-2), axis=-1).astype(rdt)
    # degree 18 with scaling and squaring: A / 2^s, then s squarings (per matrix)
    s = jnp.maximum(jnp.ceil(jnp.log2(norm / rdt.type(thetas[-1]))), 0)
    steps = jnp.where(jnp.isfinite(s), s, 0).astype(jnp.int32)     # NaN / inf inputs give NaN / inf anyway
    T = _mexp_taylor(A / (2 ** s).astype(A.dtype)[..., None, None], 18)

    def square(c):
        i, T = c
        return i + 1, jnp.where((i < steps)[..., None, None], _mm(T, T), T)
    T18 = lax.while_loop(lambda c: c[0] < jnp.max(steps), square, (jnp.int32(0), T))[1]
    if math.prod(A.shape[:-2]) > 1:
        return T18
    # a single matrix: the lowest degree whose theta bounds its norm (NaN norm: NaN, as torch)
    i = jnp.sum(norm[..., None] > jnp.asarray(thetas[:5], rdt), axis=-1).reshape(())
    branches = [lambda a, d=d: _mexp_taylor(a, d) for d in (1, 2, 4, 8, 12)] + [lambda a: T18]
    r = lax.switch(i, branches, A)
    return jnp.where(jnp.isnan(norm)[..., None, None], jnp.nan, r).astype(A.dtype)


@jax.custom_vjp
def _mexp(A):
    return _mexp_value(A)


def _mexp_fwd(A):
    return _mexp_value(A), A


def _mexp_bwd(A, g):
    """torch's linalg_matrix_exp_differential, the upper-right block of exp([[A^H, G], [0, A^H]]), in jax's
    cotangent convention (the conjugate of torch's gradient: exp(conj M) = conj exp(M), so A^T and g)."""
    n = A.shape[-1]
    ah = jnp.swapaxes(A, -1, -2)
    z = jnp.zeros_like(ah)
    meta = jnp.concatenate([jnp.concatenate([ah, g], -1), jnp.concatenate([z, ah], -1)], -2)
    return (_mexp(meta)[..., :n, n:],)


_mexp.defvjp(_mexp_fwd, _mexp_bwd)


@op('_linalg_matrix_exp', node='LinalgMatrixExpBackward0', function=False, method=False)
def _linalg_matrix_exp(A):
    if A.dtype == jnp.bfloat16 or A.dtype == jnp.float16:
        # torch runs its Taylor kernel in the low dtype itself (each product rounded to it); computing in
        # float32 and rounding once gives the same values to within the low dtype's rounding, more accurately
        return _mexp(A.astype(jnp.float32)).astype(A.dtype)
    return _mexp(A)


@public('matrix_exp', namespace='linalg')
def linalg_matrix_exp(A):
    check_square(A, 'linalg.matrix_exp')
    return dispatch.apply(_linalg_matrix_exp, (A,), ())


@public('matrix_exp', method=True)
def matrix_exp(input):
    return linalg_matrix_exp(input)


def _reflectors_times_eye(input, tau, ncols):
    """H_0 H_1 ... H_{k-1} applied to the first ``ncols`` columns of the identity (H_i = I - tau_i v_i v_i^H, v_i
    the i-th column of ``input`` below the diagonal with an implicit 1 on it)."""
    m = input.shape[-2]
    k = tau.shape[-1]
    batch = input.shape[:-2]
    X = jnp.broadcast_to(jnp.eye(m, ncols, dtype=input.dtype), batch + (m, ncols))
    rows = jnp.arange(m)
    for i in reversed(range(k)):       # apply from the right-most factor
        v = jnp.where(rows == i, 1, jnp.where(rows > i, input[..., :, i], 0)).astype(input.dtype)
        w = jnp.einsum('...i,...ij->...j', jnp.conj(v), X)
        X = X - tau[..., i, None, None] * v[..., :, None] * w[..., None, :]
    return X


@op('_householder_product', node='LinalgHouseholderProductBackward0', promote=None, function=False, method=False)
def _householder_product(input, tau):
    return _reflectors_times_eye(input, tau, input.shape[-1])


@op('_ormqr', static=('left', 'transpose'), node='OrmqrBackward0', function=False, method=False)
def _ormqr(input, input2, input3, *, left, transpose):
    Q = _reflectors_times_eye(input, input2, input.shape[-2])      # the full m x m Q
    if transpose:
        Q = jnp.conj(jnp.swapaxes(Q, -1, -2))
    return jnp.matmul(Q, input3, precision=lax.Precision.HIGHEST) if left else \
        jnp.matmul(input3, Q, precision=lax.Precision.HIGHEST)


@public('ormqr', method=True)
@autocast_entry('ormqr')
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    check_matrix(input, 'torch.ormqr', 'input')
    m = input.shape[-2]
    if input3.ndim < 2 or (input3.shape[-2] if left else input3.shape[-1]) != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to input.shape[-2]")
    k = min(input3.shape[-2 if left else -1], input.shape[-1])
    if input2.shape[-1] != k:
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{-2 if left else -1}], "
                           "input.shape[-1])")
    if input.dtype is not input2.dtype or input.dtype is not input3.dtype:
        raise RuntimeError(f"torch.ormqr: Expected input and other to have the same dtype, but got other.dtype = "
                           f"{input3.dtype} and input.dtype = {input.dtype}")
    check_lowp(input, 'ormqr_cpu')
    return dispatch.apply(_ormqr, (input, input2, input3), (bool(left), bool(transpose)), out)


@public('householder_product', namespace='linalg')
@autocast_entry('linalg_householder_product')
def householder_product(A, tau, *, out=None):
    check_matrix(A, 'torch.linalg.householder_product')
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.ndim != A.ndim - 1 or tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError("torch.linalg.householder_product: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError("torch.linalg.householder_product: tau dtype "
                           f"{tau.dtype} does not match input dtype {A.dtype}")
    check_lowp(A, 'orgqr_cpu')
    return dispatch.apply(_householder_product, (A, tau), (), out)


# ---- geqrf / orgqr (LAPACK-style QR: Householder vectors below the diagonal, R above) ----------------

try:    # jax exposes geqrf only under jax._src; without it torch.geqrf is absent (orthogonal needs it)
    from jax._src.lax.linalg import geqrf as _jax_geqrf
except ImportError:     # pragma: no cover
    _jax_geqrf = None


if _jax_geqrf is not None:
    @op('_geqrf', ret=return_types.geqrf, node='GeqrfBackward0', differentiable=False, function=False,
        method=False)
    def _geqrf_op(input):
        if min(input.shape[-2:]) == 0:
            return input, jnp.zeros(input.shape[:-2] + (0,), input.dtype)
        a, tau = _jax_geqrf(input)
        return a, tau

    @public('geqrf', method=True)
    @autocast_entry('geqrf')
    def geqrf(input, *, out=None):
        if input.ndim < 2:
            raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
        check_float(input, 'torch.geqrf', 'input')
        check_lowp(input, 'geqrf_cpu')
        return dispatch.apply(_geqrf_op, (input,), (), out)


@public('orgqr', method=True)
@autocast_entry('orgqr')
def orgqr(input, input2, *, out=None):
    return householder_product(input, input2, out=out)


# ---- deprecated torch-level LU / cholesky ---------------------------------------------------------

if not hasattr(return_types, '_lu_with_info'):
    return_types._lu_with_info = return_types._make('_lu_with_info', ('LU', 'pivots', 'info'))


@public('lu', method=True)
@autocast_entry('_lu_with_info')
def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu (deprecated): linalg.lu_factor_ex; raises on singular input unless ``get_infos``."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
                  "be removed in a future PyTorch release.", UserWarning, stacklevel=3)  # + the autocast entry frame
    check_matrix(A, 'torch.linalg.lu_factor_ex')
    check_lowp(A, 'lu_cpu')
    _check_pivot(pivot, 'linalg.lu_factor')
    r = dispatch.apply(_linalg_lu_factor_ex, (A,), (True,), out)
    if get_infos:
        return return_types._lu_with_info(tuple(r))
    raise_info(r[2], 'torch.linalg.lu_factor_ex', 'lu_factor')
    return r[0], r[1]


@op('_lu_unpack', static=('unpack_data', 'unpack_pivots'), node='LuUnpackBackward0', diff=('LU_data',),
    ret=return_types.lu_unpack, nondiff_outputs=(0,), function=False, method=False)
def _lu_unpack(LU_data, LU_pivots, *, unpack_data, unpack_pivots):
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = jnp.zeros((0,), LU_data.dtype)
    if unpack_data:
        L = jnp.tril(LU_data[..., :, :k], -1) + jnp.eye(m, k, dtype=LU_data.dtype)
        U = jnp.triu(LU_data[..., :k, :])
    else:
        L = U = empty
    if unpack_pivots:
        perm = lax.linalg.lu_pivots_to_permutation(LU_pivots.astype(jnp.int32) - 1, m)
        P = jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=LU_data.dtype), -1, -2)
    else:
        P = empty
    return P, L, U


@public('lu_unpack')
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    check_matrix(LU_data, 'torch.lu_unpack', 'LU_data')
    if LU_pivots.dtype.name != 'int32':
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by torch.linalg."
                           "lu_factor")
    return dispatch.apply(_lu_unpack, (LU_data, LU_pivots), (bool(unpack_data), bool(unpack_pivots)), out)


@public('cholesky', method=True)
@autocast_entry('cholesky')
def cholesky(input, upper=False, *, out=None):
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=3)  # + the autocast entry frame
    return linalg_cholesky(input, upper=upper, out=out)
