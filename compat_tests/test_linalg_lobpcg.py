"""torch.lobpcg against real torch.

Both libraries get the same matrices and the same initial guess X (torchlike's randn stream differs from
torch's), so they run the same iterations; float64 keeps the comparison about the algorithm, not rounding.
The sizes are few on purpose: every new shape compiles new XLA programs, and the file should stay fast.
"""
import numpy as np
import pytest
import torch

import torchlike

from conftest import to_np

M = 12


def _spd(m, seed, lo=1.0, hi=10.0):
    """A symmetric positive definite matrix with distinct, evenly spaced eigenvalues."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((m, m)))
    return (Q * np.linspace(lo, hi, m)) @ Q.T


def _x(m, n, seed):
    return np.random.default_rng(seed).standard_normal((m, n))


def _both(fn):
    """fn(lib) for torch and torchlike."""
    return fn(torch), fn(torchlike)


def _same_up_to_sign(V_tl, V_th, atol):
    # eigenvectors are defined up to sign (and LAPACK builds differ in the sign eigh picks: see
    # torchlike/_ops/linalg_decomp.py), so align each column of torchlike's to torch's before comparing
    a, b = np.asarray(to_np(V_tl)), np.asarray(to_np(V_th))
    s = np.sign(np.sum(a * b, axis=-2, keepdims=True))
    np.testing.assert_allclose(a * s, b, atol=atol)


@pytest.mark.parametrize('largest,method', [(True, None), (False, None), (True, 'basic'), (False, 'ortho')])
def test_eigenpairs_match_torch(largest, method):
    A, X = _spd(M, 0), _x(M, 2, 1)
    (E_th, V_th), (E_tl, V_tl) = _both(lambda L: L.lobpcg(L.tensor(A), k=2, X=L.tensor(X), largest=largest,
                                                          method=method))
    assert E_tl.dtype == torchlike.float64 and tuple(E_tl.shape) == (2,) and tuple(V_tl.shape) == (M, 2)
    np.testing.assert_allclose(to_np(E_tl), to_np(E_th), atol=1e-8)
    # the extreme eigenvalues of A (torch's answer is itself checked against LAPACK)
    w = np.linalg.eigvalsh(A)
    np.testing.assert_allclose(to_np(E_th), (w[::-1] if largest else w)[:2], atol=1e-8)
    _same_up_to_sign(V_tl, V_th, 1e-6)
    # the eigen-equation A V = V diag(E) holds
    r = A @ to_np(V_tl) - to_np(V_tl) * to_np(E_tl)
    assert np.abs(r).max() < 1e-6


def test_generalized_with_B():
    A, B, X = _spd(M, 2), _spd(M, 3, 1.0, 3.0), _x(M, 2, 4)
    (E_th, V_th), (E_tl, V_tl) = _both(lambda L: L.lobpcg(L.tensor(A), k=2, B=L.tensor(B), X=L.tensor(X)))
    np.testing.assert_allclose(to_np(E_tl), to_np(E_th), atol=1e-8)
    _same_up_to_sign(V_tl, V_th, 1e-6)
    V, E = to_np(V_tl), to_np(E_tl)
    assert np.abs(A @ V - (B @ V) * E).max() < 1e-6          # A X = B X diag(E)
    np.testing.assert_allclose(V.T @ B @ V, np.eye(2), atol=1e-8)   # B-orthonormal


def test_batched():
    # one column (n = k = 1): the shapes of the k=1 gradient test, so no new programs to compile
    A = np.stack([_spd(M, 5), _spd(M, 6)])
    X = np.stack([_x(M, 1, 7), _x(M, 1, 8)])
    (E_th, V_th), (E_tl, V_tl) = _both(lambda L: L.lobpcg(L.tensor(A), X=L.tensor(X)))
    assert tuple(E_tl.shape) == tuple(E_th.shape) == (2, 1)
    assert tuple(V_tl.shape) == tuple(V_th.shape) == (2, M, 1)
    np.testing.assert_allclose(to_np(E_tl), to_np(E_th), atol=1e-8)
    _same_up_to_sign(V_tl, V_th, 1e-6)


def test_random_initial_guess():
    # no X: each library draws its own; the converged eigenvalues do not depend on the draw
    A = _spd(M, 0)
    (E_th, _), (E_tl, V_tl) = _both(lambda L: L.lobpcg(L.tensor(A), k=2))
    np.testing.assert_allclose(to_np(E_tl), to_np(E_th), atol=1e-8)


def test_tracker_and_force_stop():
    A, X = _spd(M, 0), _x(M, 2, 1)

    def run(L):
        seen = []

        def tracker(worker):
            seen.append((worker.ivars['istep'], worker.ivars['converged_count'], to_np(worker.X).copy(),
                         to_np(worker.E).copy(), sorted(worker.fvars)))
            if worker.ivars['istep'] == 3:
                worker.bvars['force_stop'] = True
        E, V = L.lobpcg(L.tensor(A), k=2, X=L.tensor(X), tracker=tracker)
        return seen, to_np(E)

    (seen_th, E_th), (seen_tl, E_tl) = _both(run)
    assert [s[:2] for s in seen_tl] == [s[:2] for s in seen_th] == [(1, 0), (2, 0), (3, 0)]
    for a, b in zip(seen_tl, seen_th):
        _same_up_to_sign(a[2], b[2], 1e-10)                     # the iterates themselves
        np.testing.assert_allclose(a[3], b[3], atol=1e-10)
        assert a[4] == b[4]                                     # the same diagnostics in fvars
    np.testing.assert_allclose(E_tl, E_th, atol=1e-10)


def test_niter_and_basic_overwrites_X():
    A, X = _spd(M, 0), _x(M, 2, 1)

    def run(L):
        x = L.tensor(X)
        E, _ = L.lobpcg(L.tensor(A), k=2, X=x, niter=2, method='basic')
        return to_np(E), to_np(x)            # torch's basic method writes its iterate into the caller's X

    (E_th, X_th), (E_tl, X_tl) = _both(run)
    np.testing.assert_allclose(E_tl, E_th, atol=1e-10)
    _same_up_to_sign(X_tl, X_th, 1e-10)
    assert not np.allclose(np.abs(X_th), np.abs(X))


@pytest.mark.parametrize('kwargs,exc', [
    (dict(k=5), ValueError),                        # m < 3 n
    (dict(k=2, n=5), ValueError),
    (dict(X=np.ones((M, 5))), ValueError),
    (dict(k=1, X=np.ones((M - 1, 1))), AssertionError),   # X of the wrong shape
    (dict(B=np.eye(M + 1)), AssertionError),              # B not A's shape
    (dict(A=np.ones((M, M - 1))), AssertionError),        # A not square
    (dict(dtype='float16'), KeyError),                    # no default tol for float16 (torch's feps table)
])
def test_bad_input_raises_torchs_error(kwargs, exc):
    def call(L):
        kw = dict(kwargs)
        A = kw.pop('A', _spd(M, 0))
        dtype = getattr(L, kw.pop('dtype', 'float64'))
        kw = {k: (L.tensor(v, dtype=dtype) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        return L.lobpcg(L.tensor(A, dtype=dtype), **kw)
    with pytest.raises(exc):
        call(torch)
    with pytest.raises(exc):
        call(torchlike)


@pytest.mark.parametrize('k,largest', [(1, True), (2, False)])
def test_gradients_match_torch(k, largest):
    A, X = _spd(M, 0), _x(M, k, 1)

    def grad(L):
        a = L.tensor(A, requires_grad=True)
        E, V = L.lobpcg(a, k=k, X=L.tensor(X), largest=largest, tol=1e-10)
        assert type(E.grad_fn).__name__ == 'LOBPCGAutogradFunctionBackward'
        V = V * V[:1].sign()                       # a sign-independent function of the eigenvectors
        loss = (E * L.arange(1, k + 1, dtype=L.float64)).sum() + V.pow(3).sum()
        loss.backward()
        return to_np(a.grad)

    g_th, g_tl = _both(grad)
    np.testing.assert_allclose(g_tl, g_th, atol=1e-7)


def test_backward_with_B_raises_like_torch():
    A, B, X = _spd(M, 2), _spd(M, 3, 1.0, 3.0), _x(M, 1, 4)
    for L in (torch, torchlike):
        E, _ = L.lobpcg(L.tensor(A, requires_grad=True), k=1, B=L.tensor(B), X=L.tensor(X))
        with pytest.raises(ValueError, match='B != I'):
            E.sum().backward()
