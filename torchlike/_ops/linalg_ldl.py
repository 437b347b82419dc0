"""torch.linalg.ldl_factor(_ex) / ldl_solve: LAPACK's ?sytrf / ?hetrf (Bunch-Kaufman) and ?sytrs / ?hetrs.

torch returns LAPACK's own storage, so the values are defined by the algorithm, not only by the math: the
lower triangle holds D's 1x1 / 2x2 blocks on the (sub)diagonal and the multipliers of L below them, and the
1-based pivots are negative (the same for both rows) for a 2x2 block. The factorization here is the unblocked
?sytf2 (lower), step for step, including its pivot choice (alpha = (1 + sqrt 17) / 8, first index of the
largest |re| + |im|, the row-max test) and the interchanges restricted to the trailing submatrix. The blocked
?sytrf makes the same pivot choices, so results agree with torch up to rounding. torch has no derivative for
either op: their backward raises its NotImplemented error.
"""
import math

from .. import return_types
from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .linalg import sname, broadcast_shapes
from .linalg_decomp import check_square, check_lowp, write_outs
from .pointwise import _nyi

for _n, _f in (('linalg_ldl_factor', ('LD', 'pivots')), ('linalg_ldl_factor_ex', ('LD', 'pivots', 'info'))):
    if not hasattr(return_types, _n):
        setattr(return_types, _n, return_types._make(_n, _f))

_ALPHA = (1 + math.sqrt(17.0)) / 8      # Bunch-Kaufman's growth-optimal threshold


def _no_derivative(result, msg, *inputs):
    """``result``, whose backward through any of ``inputs`` raises torch's not-implemented error (pointwise's
    grad_raises, for inputs whose shapes differ from the result's)."""
    never = jnp.zeros(result.shape, bool)
    for x in inputs:
        result = jnp.where(never, jnp.sum(_nyi(x, msg, RuntimeError)).astype(result.dtype), result)
    return result


def _cabs1(x):
    """LAPACK's i?amax / CABS1 magnitude: |re| + |im| for complex."""
    return jnp.abs(jnp.real(x)) + jnp.abs(jnp.imag(x)) if jnp.iscomplexobj(x) else jnp.abs(x)


def _full(W, herm):
    """The symmetric (Hermitian) matrix whose lower triangle is W's: the triangle LAPACK reads and writes."""
    low = jnp.tril(W, -1)
    up = jnp.conj(low.T) if herm else low.T
    return low + up + jnp.diag(jnp.diagonal(W))


def _sytf2(A, herm):
    """One n x n matrix: (LD lower, 1-based pivots, info) as ?sytf2 / ?hetf2 with UPLO='L' compute them."""
    n = A.shape[-1]
    idx = jnp.arange(n)
    conj = jnp.conj if herm else (lambda x: x)
    real = (lambda x: jnp.real(x).astype(A.dtype)) if herm else (lambda x: x)
    W = jnp.tril(A)
    if herm:    # ?hetf2 only ever reads the real part of a diagonal entry
        W = W - 1j * jnp.diag(jnp.imag(jnp.diagonal(W))).astype(A.dtype)

    def step(carry):
        W, piv, info, k = carry
        F = _full(W, herm)
        dabs = lambda v: jnp.abs(jnp.real(v)) if herm else _cabs1(v)    # noqa: E731
        absakk = dabs(F[k, k])
        colv = jnp.where(idx > k, _cabs1(F[:, k]), -1)
        imax = jnp.argmax(colv)
        colmax = jnp.where(k < n - 1, colv[imax], 0)
        rowv = jnp.where((idx >= k) & (idx != imax), _cabs1(F[imax, :]), -1)
        rowmax = jnp.max(rowv)
        zero = (jnp.maximum(absakk, colmax) == 0) | jnp.isnan(absakk)
        keep = zero | (absakk >= _ALPHA * colmax) | (absakk >= _ALPHA * colmax * (colmax / rowmax))
        kp = jnp.where(keep, k, imax)
        two = ~keep & ~(dabs(F[imax, imax]) >= _ALPHA * rowmax)
        kk = k + two.astype(k.dtype)
        # interchange rows and columns kk and kp of the trailing submatrix only (earlier columns of L keep
        # their row order: LAPACK's L is a product of permuted factors)
        p = jnp.where(idx == kk, kp, jnp.where(idx == kp, kk, idx))
        trail = (idx >= k)[:, None] & (idx >= k)[None, :]
        G = jnp.where(trail, F[p][:, p], F)
        below = idx > k
        # 1x1 pivot: rank-1 update (?syr / ?her) and scale the column by 1/d
        d11 = 1 / real(G[k, k])
        x = jnp.where(below, G[:, k], 0)
        temp = -d11 * conj(x)
        G1 = G + jnp.where(below[:, None] & below[None, :], x[:, None] * temp[None, :], 0)
        G1 = G1.at[:, k].set(jnp.where(below, x * d11, G1[:, k]))
        # 2x2 pivot: the update with the explicit inverse of D's block, as ?sytf2 / ?hetf2 write it
        rest = idx > k + 1
        c0, c1 = G[:, k], G[:, k + 1 if n > 1 else k]
        if herm:
            d = jnp.abs(G[k + 1 if n > 1 else k, k])
            e11 = jnp.real(G[k + 1 if n > 1 else k, k + 1 if n > 1 else k]) / d
            e22 = jnp.real(G[k, k]) / d
            tt = 1 / (e11 * e22 - 1)
            e21 = G[k + 1 if n > 1 else k, k] / d
            d = tt / d
            wk = d * (e11 * c0 - e21 * c1)
            wkp1 = d * (e22 * c1 - jnp.conj(e21) * c0)
        else:
            e21 = G[k + 1 if n > 1 else k, k]
            e11 = G[k + 1 if n > 1 else k, k + 1 if n > 1 else k] / e21
            e22 = G[k, k] / e21
            t = 1 / (e11 * e22 - 1)
            e21 = t / e21
            wk = e21 * (e11 * c0 - c1)
            wkp1 = e21 * (e22 * c1 - c0)
        m2 = rest[:, None] & rest[None, :]
        G2 = jnp.where(m2, G - c0[:, None] * conj(wk)[None, :] - c1[:, None] * conj(wkp1)[None, :], G)
        G2 = G2.at[:, k].set(jnp.where(rest, wk, G2[:, k]))
        if n > 1:
            G2 = G2.at[:, k + 1].set(jnp.where(rest, wkp1, G2[:, k + 1]))
        Wn = jnp.where(zero, G, jnp.where(two, G2, G1))
        if herm:    # ?her / ?hetf2 store every updated diagonal entry as real
            Wn = Wn - 1j * jnp.diag(jnp.imag(jnp.diagonal(Wn))).astype(A.dtype)
        sgn_piv = jnp.where(two, -(kp + 1), kp + 1).astype(jnp.int32)
        piv = piv.at[k].set(sgn_piv)
        piv = jnp.where(two & (idx == k + 1), sgn_piv, piv)
        info = jnp.where(zero & (info == 0), k + 1, info).astype(jnp.int32)
        return jnp.tril(Wn), piv, info, kk + 1

    W, piv, info, _ = lax.while_loop(lambda c: c[3] < n, step,
                                     (W, jnp.zeros((n,), jnp.int32), jnp.int32(0), jnp.int32(0)))
    return W, piv, info


@op('_linalg_ldl_factor_ex', static=('hermitian',), node='torch::autograd::NotImplemented',
    nondiff_outputs=(1, 2), ret=return_types.linalg_ldl_factor_ex, function=False, method=False)
def _linalg_ldl_factor_ex(A, *, hermitian):
    batch, n = A.shape[:-2], A.shape[-1]
    herm = hermitian and jnp.iscomplexobj(A)
    if A.size == 0:
        LD, piv, info = A, jnp.zeros(batch + (n,), jnp.int32), jnp.zeros(batch, jnp.int32)
    else:
        f = lambda a: _sytf2(a, herm)       # noqa: E731
        for _ in batch:
            f = jax.vmap(f)
        LD, piv, info = f(lax.stop_gradient(A))
    return _no_derivative(LD, 'derivative for aten::linalg_ldl_factor_ex is not implemented', A), piv, info


def _raise_info(info, fname):
    """torch's _linalg_check_errors has no message for ?sytrf's info > 0 (an exactly zero D block) and fails its
    internal assert; torch raises that RuntimeError."""
    import numpy as np
    v = np.asarray(info._value()).reshape(-1)
    bad = np.nonzero(v)[0]
    if bad.size:
        raise RuntimeError(f"false INTERNAL ASSERT FAILED at \"aten/src/ATen/native/BatchLinearAlgebra.cpp\", "
                           f"please report a bug to PyTorch. {fname}: Unknown error code: {int(v[bad[0]])}.")


@public('ldl_factor_ex', namespace='linalg')
def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    check_square(A, 'torch.linalg.ldl_factor_ex')
    check_lowp(A, 'ldl_factor_kernel_cpu')
    r = dispatch.apply(_linalg_ldl_factor_ex, (A,), (bool(hermitian),), out)
    if check_errors:
        _raise_info(r[2], 'torch.linalg.ldl_factor_ex')
    return r


@public('ldl_factor', namespace='linalg')
def ldl_factor(A, *, hermitian=False, out=None):
    check_square(A, 'torch.linalg.ldl_factor_ex')
    check_lowp(A, 'ldl_factor_kernel_cpu')
    r = dispatch.apply(_linalg_ldl_factor_ex, (A,), (bool(hermitian),))
    _raise_info(r[2], 'torch.linalg.ldl_factor')
    if out is not None:
        return write_outs(_linalg_ldl_factor_ex, r[:2], out, return_types.linalg_ldl_factor)
    return return_types.linalg_ldl_factor(r[:2])


# ---- ldl_solve -------------------------------------------------------------------------------

def _sytrs(LD, piv, B, herm):
    """One system: X with A X = B for A = L D L^T (L D L^H) as ?sytrs / ?hetrs with UPLO='L' solve it."""
    n = LD.shape[-1]
    idx = jnp.arange(n)
    conj = jnp.conj if herm else (lambda x: x)

    def swap(B, i, j):
        p = jnp.where(idx == i, j, jnp.where(idx == j, i, idx))
        return B[p]

    def fwd(carry):                         # solve L D Y = P B, left to right
        B, k = carry
        two = piv[k] < 0
        k1 = jnp.minimum(k + 1, n - 1)
        kp = jnp.where(two, -piv[k], piv[k]) - 1
        B = swap(B, jnp.where(two, k1, k), kp)
        below1 = (idx > k)[:, None]
        below2 = (idx > k + 1)[:, None]
        # 1x1 block
        B1 = B - jnp.where(below1, LD[:, k][:, None] * B[k][None, :], 0)
        s = (1 / jnp.real(LD[k, k])).astype(LD.dtype) if herm else 1 / LD[k, k]
        B1 = B1.at[k].set(B1[k] * s)
        # 2x2 block
        B2 = B - jnp.where(below2, LD[:, k][:, None] * B[k][None, :], 0)
        B2 = B2 - jnp.where(below2, LD[:, k1][:, None] * B2[k1][None, :], 0)
        akm1k = LD[k1, k]
        akm1 = LD[k, k] / conj(akm1k)
        ak = LD[k1, k1] / akm1k
        denom = akm1 * ak - 1
        bkm1 = B2[k] / conj(akm1k)
        bk = B2[k1] / akm1k
        B2 = B2.at[k].set((ak * bkm1 - bk) / denom).at[k1].set((akm1 * bk - bkm1) / denom)
        return jnp.where(two, B2, B1), k + jnp.where(two, 2, 1)

    def bwd(carry):                         # solve L^T X = Y (L^H), right to left
        B, k = carry
        two = piv[k] < 0
        km1 = jnp.maximum(k - 1, 0)
        below = (idx > k)[:, None]
        rk = jnp.sum(jnp.where(below, conj(LD[:, k])[:, None] * B, 0), axis=0)
        rkm1 = jnp.sum(jnp.where(below, conj(LD[:, km1])[:, None] * B, 0), axis=0)
        B = B.at[k].add(-rk)
        B = jnp.where(two & (idx == km1)[:, None], B - rkm1[None, :], B)
        kp = jnp.where(two, -piv[k], piv[k]) - 1
        B = swap(B, k, kp)
        return B, k - jnp.where(two, 2, 1)

    B, _ = lax.while_loop(lambda c: c[1] < n, fwd, (B, jnp.int32(0)))
    B, _ = lax.while_loop(lambda c: c[1] >= 0, bwd, (B, jnp.int32(n - 1)))
    return B


@op('_linalg_ldl_solve', static=('hermitian',), node='torch::autograd::NotImplemented', function=False,
    method=False)
def _linalg_ldl_solve(LD, pivots, B, *, hermitian):
    batch = tuple(broadcast_shapes(LD.shape[:-2], B.shape[:-2]))
    n = LD.shape[-1]
    LDb = jnp.broadcast_to(lax.stop_gradient(LD), batch + LD.shape[-2:])
    Bb = jnp.broadcast_to(lax.stop_gradient(B), batch + B.shape[-2:])
    pb = jnp.broadcast_to(pivots.astype(jnp.int32), batch + (n,))
    if Bb.size == 0 or n == 0:
        X = Bb
    else:
        f = lambda l, p, b: _sytrs(l, p, b, hermitian and jnp.iscomplexobj(LD))     # noqa: E731
        for _ in batch:
            f = jax.vmap(f)
        X = f(LDb, pb, Bb)
    return _no_derivative(X, 'derivative for aten::linalg_ldl_solve is not implemented', LD, B)


@public('ldl_solve', namespace='linalg')
def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    check_square(LD, 'torch.linalg.ldl_solve')
    if B.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(B.ndim, 1)}, "
                         f"{max(B.ndim, 1) - 1}], but got -2)")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {n} by {n} but "
                           f"each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError("torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape {list(pivots.shape)} instead")
    if pivots.dtype._cat != 1:
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected pivots to be integers. Got {sname(pivots.dtype)}")
    if LD.dtype is not B.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {sname(B.dtype)} and A of "
                           f"type {sname(LD.dtype)} instead.")
    check_lowp(LD, 'ldl_solve_kernel_cpu')
    return dispatch.apply(_linalg_ldl_solve, (LD, pivots, B), (bool(hermitian),), out)
