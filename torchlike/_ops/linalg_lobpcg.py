"""torch.lobpcg: k extreme eigenpairs of a symmetric positive definite (generalized) eigenproblem by LOBPCG,
ported step for step from torch/_lobpcg.py (Pearu Peterson's implementation of [Knyazev2001] for
``method='basic'`` and of the orthogonal-basis variant of [StathopoulosEtal2002] / [DuerschEtal2018] for
``method='ortho'``), as composites of torchlike's public ops.

Being a port rather than a re-derivation keeps torch's observable behaviour: the defaults (k, n, niter=1000,
tol = feps**0.5, largest=True, method='ortho', the ortho_* parameters), the exceptions (ValueError when
m < 3n, AssertionError for non-square / mismatched shapes, KeyError for a float16 A without tol, as torch's
feps table), the ``tracker(worker)`` callback that sees the LOBPCG worker's iparams/fparams/bparams,
ivars/fvars/bvars/tvars and A, B, iK, E, X, S, R (``bvars['force_stop'] = True`` stops it), and even the
in-place update of a caller's X by ``method='basic'``. The initial guess, when X is not given, is
``randn(m, n)`` from torchlike's generator, whose stream differs from torch's; the converged eigenpairs do not
depend on it (the tests pass both libraries one X where they compare iterates).

Autograd is torch's LOBPCGAutogradFunction: A (and B) are symmetrized when they require grad and the backward
is torch's symeig backward for a partial eigenspace (a Sylvester equation solved through the characteristic
polynomial of the computed eigenvalues); as in torch it supports neither B != I nor complex inputs.
torchlike has no sparse tensors, so a sparse A/B (torch accepts them) cannot reach this function; a non-strided
layout is refused with NotImplementedError.
"""
from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jnp, lax
from .linalg_decomp import _linalg_cholesky_ex, _linalg_eigh, _linalg_qr, raise_info


def _torch():
    import torchlike
    return torchlike


# ---- torch._linalg_utils -------------------------------------------------------------------

def _get_floating_dtype(A):
    torch = _torch()
    if A.dtype in (torch.float16, torch.float32, torch.float64):
        return A.dtype
    return torch.float32


def _matmul(A, B):
    """A @ B, where A = None stands for the identity."""
    if A is None:
        return B
    return _torch().matmul(A, B)


def _qform(A, S):
    """S^T A S."""
    return _matmul(S.mT, _matmul(A, S))


def _symeig(A, largest=False):
    """Eigenpairs of A, ascending, or descending when largest."""
    torch = _torch()
    E, Z = torch.linalg.eigh(A, UPLO='U')
    if largest:
        E = torch.flip(E, dims=(-1,))
        Z = torch.flip(Z, dims=(-1,))
    return E, Z


# ---- fused steps ---------------------------------------------------------------------------
# Note [LOBPCG programs]: run op by op, one LOBPCG iteration is ~80 small ops, and every change of the
# iteration's shapes (converged count, search-space width) compiles each of them again: a cold 12x12 solve
# compiled ~130 XLA programs (~5 s). The blocks below are the same formulas as torch's (same order of products,
# eigh on the upper triangle, Cholesky via potrf), each compiled as one program.

def _jmm(A, S):
    return S if A is None else A @ S


def _jqform(A, S):
    return S.T @ _jmm(A, S)


def _jsymeig(M, largest):
    E, Z = _linalg_eigh.fn(M, UPLO='U')
    if largest:
        E, Z = jnp.flip(E, -1), jnp.flip(Z, -1)
    return E, Z


@op('_lobpcg_rayleigh_ritz', static=('largest', 'n', 'nc'), function=False, method=False)
def _lobpcg_rayleigh_ritz(A, B, S, *, largest, n, nc):
    """Rayleigh-Ritz on span(S) with B-normalisation (LOBPCG._get_rayleigh_ritz_transform): the Ritz values
    E[:n-nc], vectors S Ri Z[:, :n-nc], the next P = S Ri Z[:, n:2n-nc], and potrf's info."""
    SBS = _jqform(B, S)
    d_row = jnp.diagonal(SBS) ** -0.5
    d_col = d_row.reshape(d_row.shape[0], 1)
    R, info = _linalg_cholesky_ex.fn((SBS * d_row) * d_col, upper=True)
    Ri = lax.linalg.triangular_solve(R, jnp.diag(d_row), left_side=False, lower=False)
    E, Z = _jsymeig(Ri.T @ _jqform(A, S) @ Ri, largest)
    return E[:n - nc], S @ (Ri @ Z[:, :n - nc]), S @ (Ri @ Z[:, n:2 * n - nc]), info


@op('_lobpcg_residual', function=False, method=False)
def _lobpcg_residual(A, B, X, E, A_norm, B_norm):
    """R = A X - B X diag(E) and the backward-stable relative residual of each column."""
    R = _jmm(A, X) - _jmm(B, X) * E
    rerr = jnp.linalg.norm(R, axis=0) / (jnp.linalg.norm(X, axis=0) * (A_norm + jnp.abs(E[:X.shape[-1]]) * B_norm))
    return R, rerr


@op('_lobpcg_fill_s', function=False, method=False)
def _lobpcg_fill_s(S, X, P, W):
    """S[:, :n] = X; S[:, n:n+np] = P; S[:, n+np:n+np+nw] = W (later columns keep their old values, as torch's)."""
    n, np_, nw = X.shape[-1], P.shape[-1], W.shape[-1]
    return S.at[:, :n].set(X).at[:, n:n + np_].set(P).at[:, n + np_:n + np_ + nw].set(W)


@op('_lobpcg_svqb', function=False, method=False)
def _lobpcg_svqb(B, U, tau):
    """LOBPCG._get_svqb(U, drop=False, tau) followed by _get_ortho's check of U^T B U = I: the new U, B U, and
    [all columns nonzero, ||U^T B U - I||, ||B U|| ||U||] (with a zero column the caller takes torch's path)."""
    UBU = _jqform(B, U)
    d = jnp.diagonal(UBU)
    d_col = (d ** -0.5).reshape(d.shape[0], 1)
    E, Z = _jsymeig((UBU * d_col) * d_col.T, False)
    t = tau * jnp.abs(E).max()
    E = jnp.where(E < t, t, E)
    U = (U * d_col.T) @ (Z * E ** -0.5)
    BU = _jmm(B, U)
    R = U.T @ BU - jnp.eye(U.shape[-1], dtype=U.dtype)
    stats = jnp.stack([jnp.all(jnp.abs(d) != 0).astype(U.dtype), jnp.linalg.norm(R),
                       jnp.linalg.norm(BU) * jnp.linalg.norm(U)])
    return U, BU, stats


@op('_lobpcg_vbu', function=False, method=False)
def _lobpcg_vbu(V, BU, U):
    """U - V (V^T B U) (the next projection, used when the check fails) and [||V^T B U||, ||U||]."""
    VBU = V.T @ BU
    return U - V @ VBU, jnp.stack([jnp.linalg.norm(VBU), jnp.linalg.norm(U)])


@op('_lobpcg_ortho_start', function=False, method=False)
def _lobpcg_ortho_start(B, U, V):
    """||B V|| and U - V (V^T B U)."""
    return jnp.linalg.norm(_jmm(B, V)), U - V @ (V.T @ _jmm(B, U))


@op('_lobpcg_ortho_step', static=('largest', 'n', 'nc'), function=False, method=False)
def _lobpcg_ortho_step(A, B, S, X, E, A_norm, B_norm, *, largest, n, nc):
    """LOBPCG._update_ortho's Rayleigh-Ritz on the B-orthonormal span(S) and the residual after it:
    X[:, nc:], E[nc:] and P replaced, R, rerr."""
    E_, Z = _jsymeig(_jqform(A, S), largest)
    Q = _linalg_qr.fn(Z[:n - nc, n - nc:].T, mode='reduced')[0]
    X = X.at[:, nc:].set(S @ Z[:, :n - nc])
    E = E.at[nc:].set(E_[:n - nc])
    P = S @ (Z[:, n - nc:] @ Q)
    R, rerr = _lobpcg_residual.fn(A, B, X, E, A_norm, B_norm)
    return X, E, P, R, rerr


# ---- backward (torch/_lobpcg.py) ---------------------------------------------------------

def _jT(x):
    return jnp.swapaxes(x, -1, -2)


def _jsymeig_backward_complete(D_grad, U_grad, D, U):
    """U (diag(D_grad) + (U^T U_grad) * F) U^T with F_ij = (d_j - d_i)^-1, F_ii = 0."""
    F = D[..., None, :] - D[..., :, None]
    F = jnp.where(jnp.eye(F.shape[-1], dtype=bool), jnp.inf, F) ** -1
    Ut = _jT(U)
    diag = D_grad[..., :, None] * jnp.eye(D_grad.shape[-1], dtype=D_grad.dtype)
    return U @ ((diag + (Ut @ U_grad) * F) @ Ut)


def _jpoly_coefficients_given_roots(roots):
    """(a_0, ..., a_n = 1) with prod_i (x - r_i) = sum_j a_j x^j (torch's Horner-like recursion)."""
    order = roots.shape[-1]
    c = jnp.zeros(roots.shape[:-1] + (order + 2,), roots.dtype).at[..., 0].set(1).at[..., -1].set(1)
    for i in range(1, order + 1):
        lo = order - i
        c = c.at[..., lo:lo + i + 1].add(-roots[..., i - 1:i] * c[..., lo + 1:lo + i + 2])
    return c[..., 1:order + 2]


def _jvector_poly(poly, x):
    res = jnp.ones_like(x)
    for k in range(poly.shape[-1] - 2, -1, -1):
        res = poly[..., k, None] + x * res
    return res


def _jmatrix_poly(poly, A):
    eye = jnp.eye(A.shape[-1], dtype=A.dtype)
    res = jnp.broadcast_to(eye, A.shape)
    for k in range(poly.shape[-1] - 2, -1, -1):
        res = A @ res + poly[..., k, None, None] * eye
    return res


@op('_lobpcg_symeig_backward', static=('largest',), function=False, method=False)
def _lobpcg_symeig_backward(D_grad, U_grad, A, D, U, G, *, largest):
    """torch/_lobpcg.py's _symeig_backward: A's gradient from those of the k eigenpairs (D, U) of A.

    With k < m the part outside span(U) solves the Sylvester equation U_o^T A U_o dX - dX D = -U_o^T A U
    (Hu & Cheng 2006) through the characteristic polynomial of D evaluated at A, on a basis U_o of span(U)'s
    complement made by projecting the random draw G (the result does not depend on G). Returns (grad, info of
    the Cholesky factorization)."""
    res = _jsymeig_backward_complete(D_grad, U_grad, D, U)
    if G is None:                      # U is square: a complete eigenspace
        return res, jnp.zeros(A.shape[:-2], jnp.int32)
    Ut = _jT(U)
    U_o = (jnp.eye(U.shape[-2], dtype=U.dtype) - U @ Ut) @ G
    U_o_t = _jT(U_o)
    chr_poly_D = _jpoly_coefficients_given_roots(D)
    proj = U_grad
    series_acc = jnp.zeros_like(U_grad)
    for k in range(1, chr_poly_D.shape[-1]):
        series_acc = series_acc + proj * _jvector_poly(chr_poly_D[..., k:], D)[..., None, :]
        proj = A @ proj
    M = U_o_t @ (_jmatrix_poly(chr_poly_D, A) @ U_o)
    # positive definite unless largest and k odd (then negative definite), for distinct eigenvalues
    sign = -1 if (largest and k % 2 == 1) else 1
    L, info = _linalg_cholesky_ex.fn(sign * M, upper=False)
    y = lax.linalg.triangular_solve(L, U_o_t @ series_acc, left_side=True, lower=True)
    sol = lax.linalg.triangular_solve(L, y, left_side=True, lower=True, transpose_a=True)
    return res - (U_o @ (sign * sol)) @ Ut, info


def _symeig_backward(D_grad, U_grad, A, D, U, largest):
    torch = _torch()
    G = None
    if U.size(-1) != U.size(-2):
        # torch draws this from a freshly seeded generator too (for determinism)
        G = torch.randn((*A.shape[:-1], A.size(-1) - D.size(-1)), dtype=A.dtype, device=A.device,
                        generator=torch.Generator(A.device))
    grad, info = dispatch.apply(_lobpcg_symeig_backward, (D_grad, U_grad, A, D, U, G), (bool(largest),))
    raise_info(info, 'linalg.cholesky', 'chol')
    return grad


def _autograd_function():
    """torch's LOBPCGAutogradFunction (built on first use: torchlike.autograd loads after the op modules)."""
    global _LOBPCGAutogradFunction
    if _LOBPCGAutogradFunction is not None:
        return _LOBPCGAutogradFunction
    torch = _torch()

    class LOBPCGAutogradFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
                    method=None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
            A = A.contiguous()
            if B is not None:
                B = B.contiguous()
            D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker,
                           ortho_iparams, ortho_fparams, ortho_bparams)
            ctx.save_for_backward(A, B, D, U)
            ctx.largest = largest
            return D, U

        @staticmethod
        def backward(ctx, D_grad, U_grad):
            grads = [None] * 14
            A, B, D, U = ctx.saved_tensors
            largest = ctx.largest
            if A.is_complex() or (B is not None and B.is_complex()):
                raise ValueError('lobpcg.backward does not support complex input yet. '
                                 'Note that lobpcg.forward does though.')
            if B is not None:
                raise ValueError('lobpcg.backward does not support backward with B != I yet.')
            if largest is None:
                largest = True
            grads[0] = _symeig_backward(D_grad, U_grad, A, D, U, largest)
            return tuple(grads)

    _LOBPCGAutogradFunction = LOBPCGAutogradFunction
    return LOBPCGAutogradFunction


_LOBPCGAutogradFunction = None


# ---- front end -----------------------------------------------------------------------------

def _check_dense(name, t):
    torch = _torch()
    if t is not None and t.layout != torch.strided:
        raise NotImplementedError(f'torch.lobpcg: {name} with layout {t.layout} (sparse input) is not supported '
                                  'by torchlike, which has only strided tensors')


@public('lobpcg')
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """The k largest (or smallest) eigenpairs (E, X) of A X = B X diag(E), A and B symmetric positive definite."""
    for name, t in (('A', A), ('B', B), ('X', X), ('iK', iK)):
        _check_dense(name, t)
    if A.requires_grad or (B is not None and B.requires_grad):
        # A's gradient is made symmetric (so that A - lr * A.grad stays symmetric) by symmetrizing A first
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return _autograd_function().apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                          ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker,
                   ortho_iparams, ortho_fparams, ortho_bparams)


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
            tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    torch = _torch()
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f'A must be square, got shape {A.shape}')
    if B is not None and A.shape != B.shape:
        raise AssertionError(f'A and B must have same shape, got {A.shape} vs {B.shape}')
    dtype = _get_floating_dtype(A)
    device = A.device
    if tol is None:
        feps = {torch.float32: 1.2e-07, torch.float64: 2.23e-16}[dtype]
        tol = feps ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f'LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller '
                         f'than 3 x the number of requested eigenpairs (={n})')
    method = 'ortho' if method is None else method
    iparams = {'m': m, 'n': n, 'k': k, 'niter': 1000 if niter is None else niter}
    fparams = {'tol': tol}
    bparams = {'largest': True if largest is None else largest}
    if method == 'ortho':
        if ortho_iparams is not None:
            iparams.update(ortho_iparams)
        if ortho_fparams is not None:
            fparams.update(ortho_fparams)
        if ortho_bparams is not None:
            bparams.update(ortho_bparams)
        iparams['ortho_i_max'] = iparams.get('ortho_i_max', 3)
        iparams['ortho_j_max'] = iparams.get('ortho_j_max', 3)
        fparams['ortho_tol'] = fparams.get('ortho_tol', tol)
        fparams['ortho_tol_drop'] = fparams.get('ortho_tol_drop', tol)
        fparams['ortho_tol_replace'] = fparams.get('ortho_tol_replace', tol)
        bparams['ortho_use_drop'] = bparams.get('ortho_use_drop', False)

    if len(A.shape) > 2:
        N = 1
        for s in A.shape[:-2]:
            N *= s
        bA = A.reshape((N,) + tuple(A.shape[-2:]))
        bB = B.reshape((N,) + tuple(A.shape[-2:])) if B is not None else None
        bX = X.reshape((N,) + tuple(X.shape[-2:])) if X is not None else None
        Es, Xs = [], []
        for i in range(N):
            A_ = bA[i]
            B_ = bB[i] if bB is not None else None
            X_ = torch.randn((m, n), dtype=dtype, device=device) if bX is None else bX[i]
            if not (len(X_.shape) == 2 and tuple(X_.shape) == (m, n)):
                raise AssertionError(f'X_ shape mismatch: got {X_.shape}, expected {(m, n)}')
            iparams['batch_index'] = i
            worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
            worker.run()
            Es.append(worker.E[:k])
            Xs.append(worker.X[:, :k])
        batch = tuple(A.shape[:-2])
        return (torch.stack(Es).to(dtype).reshape(batch + (k,)),
                torch.stack(Xs).to(dtype).reshape(batch + (m, k)))

    X = torch.randn((m, n), dtype=dtype, device=device) if X is None else X
    if not (len(X.shape) == 2 and tuple(X.shape) == (m, n)):
        raise AssertionError(f'X shape mismatch: got {X.shape}, expected {(m, n)}')
    worker = LOBPCG(A, B, X, iK, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


class LOBPCG:
    """Worker class of LOBPCG methods (the object a ``tracker`` receives)."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        torch = _torch()
        self.A = A
        self.B = B
        self.iK = iK
        self.iparams = iparams
        self.fparams = fparams
        self.bparams = bparams
        self.method = method
        self.tracker = tracker
        m = iparams['m']
        n = iparams['n']
        self.X = X
        self.E = torch.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = torch.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = torch.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars = {}
        self.ivars = {'istep': 0}
        self.fvars = {'_': 0.0}
        self.bvars = {'_': False}

    def __str__(self):
        lines = ['LOBPCG:',
                 f'  iparams={self.iparams}', f'  fparams={self.fparams}', f'  bparams={self.bparams}',
                 f'  ivars={self.ivars}', f'  fvars={self.fvars}', f'  bvars={self.bvars}',
                 f'  tvars={self.tvars}', f'  A={self.A}', f'  B={self.B}', f'  iK={self.iK}',
                 f'  X={self.X}', f'  E={self.E}']
        return ''.join(line + '\n' for line in lines)

    def update(self):
        """Set and update iteration variables."""
        torch = _torch()
        if self.ivars['istep'] == 0:
            X_norm = float(torch.norm(self.X))
            iX_norm = X_norm ** -1
            A_norm = float(torch.norm(_matmul(self.A, self.X))) * iX_norm
            B_norm = float(torch.norm(_matmul(self.B, self.X))) * iX_norm
            self.fvars['X_norm'] = X_norm
            self.fvars['A_norm'] = A_norm
            self.fvars['B_norm'] = B_norm
            self.ivars['iterations_left'] = self.iparams['niter']
            self.ivars['converged_count'] = 0
            self.ivars['converged_end'] = 0
        if self.method == 'ortho':
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars['iterations_left'] = self.ivars['iterations_left'] - 1
        self.ivars['istep'] = self.ivars['istep'] + 1

    def update_residual(self):
        """Update residual R from A, B, X, E (and the per-column relative residual)."""
        self.R, self._rerr = dispatch.apply(_lobpcg_residual, (self.A, self.B, self.X, self.E,
                                                               self.fvars['A_norm'], self.fvars['B_norm']))

    def update_converged_count(self):
        """Number of converged eigenpairs by the backward stable criterion of [DuerschEtal2018] Sec 4.3."""
        prev_count = self.ivars['converged_count']
        tol = self.fparams['tol']
        rerr = self._rerr          # computed with R (_lobpcg_residual), as torch computes it here
        count = 0
        for r in rerr.tolist():    # one host read instead of one per pair
            if not r < tol:
                # later pairs are not counted, to keep the eigenpairs strictly ordered
                break
            count += 1
        if count < prev_count:
            raise AssertionError(f'the number of converged eigenpairs (was {prev_count}, got {count}) '
                                 'cannot decrease')
        self.ivars['converged_count'] = count
        self.tvars['rerr'] = rerr
        return count

    def stop_iteration(self):
        """True to stop iterating; a tracker may force it with ``worker.bvars['force_stop'] = True``."""
        return (self.bvars.get('force_stop', False) or self.ivars['iterations_left'] == 0
                or self.ivars['converged_count'] >= self.iparams['k'])

    def run(self):
        """Run LOBPCG iterations."""
        self.update()
        if self.tracker is not None:
            self.call_tracker()
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.call_tracker()

    def call_tracker(self):
        self.tracker(self)

    def _rayleigh_ritz(self, S, nc):
        n = self.iparams['n']
        E, X, P, info = dispatch.apply(_lobpcg_rayleigh_ritz, (self.A, self.B, S),
                                       (bool(self.bparams['largest']), n, nc))
        raise_info(info, 'linalg.cholesky', 'chol')
        return E, X, P

    def _fill_s(self, P, W):
        self.S = dispatch.apply(_lobpcg_fill_s, (self.S, self.X, P, W))
        ns = self.ivars['converged_end'] = self.X.shape[-1] + P.shape[-1] + W.shape[-1]
        return ns

    def _update_basic(self):
        ns = self.ivars['converged_end']
        nc = self.ivars['converged_count']
        if self.ivars['istep'] == 0:
            E, X, P = self._rayleigh_ritz(self.X, 0)
            self.X[:] = X           # in place, as torch (a caller's X is overwritten)
            self.E[:] = E
            self.update_residual()
            nc = self.update_converged_count()
            W = _matmul(self.iK, self.R)
            self._fill_s(P, W)
        else:
            S_ = self.S[:, nc:ns]
            E_, X, P = self._rayleigh_ritz(S_, nc)
            self.X[:, nc:] = X
            self.E[nc:] = E_
            self.update_residual()
            nc = self.update_converged_count()
            W = _matmul(self.iK, self.R[:, nc:])
            self._fill_s(P, W)

    def _update_ortho(self):
        ns = self.ivars['converged_end']
        nc = self.ivars['converged_count']
        n = self.iparams['n']
        largest = bool(self.bparams['largest'])
        if self.ivars['istep'] == 0:
            _E, self.X, P = self._rayleigh_ritz(self.X, 0)     # E stays 0 in this step, as torch's
            self.update_residual()
            nc = self.update_converged_count()
            W = self._get_ortho(self.R, self.X)
            self._fill_s(P, W)
        else:
            S_ = self.S[:, nc:ns]
            # Rayleigh-Ritz procedure, update E, X, P, and the residual, in one program (X and E are this
            # worker's own tensors here, so rebinding them is torch's in-place update)
            self.X, self.E, P, self.R, self._rerr = dispatch.apply(
                _lobpcg_ortho_step, (self.A, self.B, S_, self.X, self.E, self.fvars['A_norm'],
                                     self.fvars['B_norm']), (largest, n, nc))
            # check convergence
            nc = self.update_converged_count()
            # update S (torch writes X and P into S first and passes S[:, :n + np], the same matrix)
            W = self._get_ortho(self.R[:, nc:], _torch().cat([self.X, P], 1))
            self._fill_s(P, W)

    def _get_rayleigh_ritz_transform(self, S):
        """Ri, upper triangular, reducing (S^T A S) C = (S^T B S) C E to (Ri^T S^T A S Ri) Z = Z E, C = Ri Z."""
        torch = _torch()
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = torch.linalg.cholesky((SBS * d_row) * d_col, upper=True)
        return torch.linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """B-orthonormal U (Algorithm 4 of [DuerschPhD2015]); with drop, columns adding little are dropped."""
        torch = _torch()
        if torch.numel(U) == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        # exact zero columns would make d ** -0.5 fail: drop them first
        nz = torch.where(abs(d) != 0.0)
        if len(nz) != 1:
            raise AssertionError(f'expected nz to have length 1, got {nz}')
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if torch.numel(U) == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
            nz = torch.where(abs(d) != 0.0)
            if len(nz[0]) != len(d):
                raise AssertionError(f'expected nz[0] length {len(d)}, got {len(nz[0])}')
        d_col = (d ** -0.5).reshape(d.shape[0], 1)
        DUBUD = (UBU * d_col) * d_col.mT
        E, Z = _symeig(DUBUD)
        t = tau * abs(E).max()
        if drop:
            keep = torch.where(E > t)
            if len(keep) != 1:
                raise AssertionError(f'expected keep to have length 1, got {keep}')
            E = E[keep[0]]
            Z = Z[:, keep[0]]
            d_col = d_col[keep[0]]
        else:
            E[(torch.where(E < t))[0]] = t
        return torch.matmul(U * d_col.mT, Z * E ** -0.5)

    def _get_ortho(self, U, V):
        """B-orthonormal U whose columns are B-orthogonal to V (Algorithms 3 / 6 of [DuerschPhD2015])."""
        torch = _torch()
        mm = torch.matmul
        m = self.iparams['m']
        tau_ortho = self.fparams['ortho_tol']
        tau_drop = self.fparams['ortho_tol_drop']
        tau_replace = self.fparams['ortho_tol_replace']
        i_max = self.iparams['ortho_i_max']
        j_max = self.iparams['ortho_j_max']
        use_drop = self.bparams['ortho_use_drop']
        # clean up variables from the previous call
        for vkey in list(self.fvars.keys()):
            if vkey.startswith('ortho_') and vkey.endswith('_rerr'):
                self.fvars.pop(vkey)
        self.ivars.pop('ortho_i', 0)
        self.ivars.pop('ortho_j', 0)
        # ||B V|| and U - V (V^T B U) in one program; later projections come with _lobpcg_vbu's check
        BV_norm, U_next = dispatch.apply(_lobpcg_ortho_start, (self.B, U, V))
        BV_norm = float(BV_norm)
        i = j = 0
        for i in range(i_max):
            U = U_next
            drop = False
            tau_svqb = tau_drop
            for j in range(j_max):
                fused = None
                if not use_drop and torch.numel(U) != 0:
                    # one program for _get_svqb(U, False, tau) and the checks below (Note [LOBPCG programs])
                    U1, BU1, stats = dispatch.apply(_lobpcg_svqb, (self.B, U, tau_replace))
                    stats = stats.tolist()
                    if stats[0]:
                        U, BU, fused = U1, BU1, stats
                if fused is None:
                    if use_drop:
                        U = self._get_svqb(U, drop, tau_svqb)
                        drop = True
                        tau_svqb = tau_replace
                    else:
                        U = self._get_svqb(U, False, tau_replace)
                if torch.numel(U) == 0:
                    # all initial U columns are B-collinear to V
                    self.ivars['ortho_i'] = i
                    self.ivars['ortho_j'] = j
                    return U
                if fused is None:
                    BU = _matmul(self.B, U)
                    UBU = mm(U.mT, BU)
                    U_norm = torch.norm(U)
                    BU_norm = torch.norm(BU)
                    R = UBU - torch.eye(UBU.shape[-1], device=UBU.device, dtype=UBU.dtype)
                    R_norm = torch.norm(R)
                    fused = [1.0, float(R_norm), float(BU_norm * U_norm)]
                rerr = fused[1] * fused[2] ** -1
                self.fvars[f'ortho_UBUmI_rerr[{i}, {j}]'] = rerr
                if rerr < tau_ortho:
                    break
            U_next, norms = dispatch.apply(_lobpcg_vbu, (V, BU, U))
            VBU_norm, U_norm = norms.tolist()
            rerr = VBU_norm * (BV_norm * U_norm) ** -1
            self.fvars[f'ortho_VBU_rerr[{i}]'] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                B = self.B
                if B is None:
                    raise AssertionError('B must not be None')
                raise ValueError('Overdetermined shape of U:'
                                 f' #B-cols(={B.shape[-1]}) >= #U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]})'
                                 ' must hold')
        self.ivars['ortho_i'] = i
        self.ivars['ortho_j'] = j
        return U
