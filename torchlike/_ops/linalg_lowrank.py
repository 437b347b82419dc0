"""torch.svd_lowrank and torch.pca_lowrank: torch/_lowrank.py's randomized SVD (Halko, Martinsson & Tropp 2009,
Algorithms 4.4 and 5.1), step for step, as composites of registered ops (so autograd comes for free).

The one random draw is ``randn(n, q)`` from torchlike's generator, whose stream differs from torch's; given the
same draw, every result equals torch's (the tests feed both libraries one matrix). Sparse inputs, which torch
also accepts, do not exist in torchlike.
"""
from .._engine.registry import public
from .random import randn
from .linalg import matmul
from .linalg_decomp import linalg_qr, linalg_svd


def _floating_dtype(A):
    """torch's draw dtype: A's own when complex or float16/32/64, else float32 (get_floating_dtype; bfloat16
    included, so a bfloat16 A meets a float32 draw in matmul and raises there, as in torch)."""
    from .. import float32
    return A.dtype if A.dtype.name in ('float16', 'float32', 'float64') or A.dtype._cat == 3 else float32


def get_approximate_basis(A, q, niter=2, M=None):
    """Q with q orthonormal columns such that Q Q^H (A - M) approximates A - M (Halko et al. Algorithm 4.4)."""
    niter = 2 if niter is None else niter
    R = randn(A.shape[-1], q, dtype=_floating_dtype(A))
    X = matmul(A, R)
    if M is not None:
        X = X - matmul(M, R)
    Q = linalg_qr(X).Q
    for _ in range(niter):
        X = matmul(A.mH, Q)
        if M is not None:
            X = X - matmul(M.mH, Q)
        Q = linalg_qr(X).Q
        X = matmul(A, Q)
        if M is not None:
            X = X - matmul(M, Q)
        Q = linalg_qr(X).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:           # work on the tall orientation
        A = A.mH
        if M is not None:
            M = M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = matmul(Q.mH, A)
    if M is not None:
        B = B - matmul(Q.mH, M)
    U, S, Vh = linalg_svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


@public('svd_lowrank')
def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~ U diag(S) V^H, from a rank-q randomized range finder."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


@public('pca_lowrank')
def pca_lowrank(A, q=None, center=True, niter=2):
    """Linear PCA of A (centered over its rows unless ``center=False``): the low-rank SVD of A - mean(A)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)
