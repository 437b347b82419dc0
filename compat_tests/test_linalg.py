"""torch.linalg against real torch: values, dtypes, shapes, named tuples, gradients, LinAlgError."""
import math

import numpy as np
import pytest
import torch

import torchlike
import torchlike.linalg  # noqa: F401  (until torchlike/__init__ imports it)
from conftest import check as _check, assert_same

INF = math.inf
FLOATS = ['float32', 'float64']
TOL = {'float32': 1e-4, 'float64': 1e-8, 'complex64': 1e-4, 'complex128': 1e-8}


def arr(shape, dtype, seed=0, kind='general'):
    """A well-conditioned test array: 'general' (A + n I), 'spd' (A A^H + n I), 'plain' (unconditioned)."""
    r = np.random.RandomState(seed)
    a = r.randn(*shape)
    if dtype.startswith('complex'):
        a = a + 1j * r.randn(*shape)
    if kind != 'plain' and len(shape) >= 2 and shape[-1] == shape[-2]:
        n = shape[-1]
        if kind == 'spd':
            a = a @ np.conj(np.swapaxes(a, -1, -2))
        a = a + n * np.eye(n)
    return a.astype(dtype)


def _rc(x):
    """torch results may carry the lazy conjugate bit, which numpy() refuses: resolve it."""
    if isinstance(x, (tuple, list)):
        return [_rc(v) for v in x]
    return x.resolve_conj() if isinstance(x, (torch.Tensor, torchlike.Tensor)) else x


def check(fn, **kw):
    _check(lambda L: _rc(fn(L)), **kw)


def T(lib, a, grad=False):
    t = lib.tensor(a)
    if grad:
        t.requires_grad_(True)
    return t


def loss(lib, out):
    """A real scalar that depends on every element (complex outputs: real and imaginary parts)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = 0
    for i, o in enumerate(outs):
        if o.is_complex():
            o = lib.view_as_real(o.resolve_conj())
        w = lib.linspace(0.5, 1.5, o.numel(), dtype=o.dtype).reshape(o.shape)
        total = total + (o * w).sum()
    return total


def grad_compare(fn, arrays, tol, same_dtype=True):
    """Values and gradients of fn(lib, *tensors) agree between torch and torchlike."""
    res = {}
    for lib in (torch, torchlike):
        ts = [T(lib, a, grad=True) for a in arrays]
        out = fn(lib, *ts)
        loss(lib, out).backward()
        res[lib] = (_rc(out), [_rc(t.grad) for t in ts])
    assert_same(res[torchlike][0], res[torch][0], atol=tol, rtol=tol, check_dtype=same_dtype)
    assert_same(res[torchlike][1], res[torch][1], atol=tol * 10, rtol=tol * 10, check_dtype=same_dtype)


# ---- norms ---------------------------------------------------------------------------------

@pytest.mark.parametrize('ord', [2, 1, 0, INF, -INF, 3.5, -1])
@pytest.mark.parametrize('dtype', ['float32', 'complex128'])
def test_vector_norm(ord, dtype):
    a = arr((3, 4, 5), dtype, kind='plain')
    check(lambda L: L.linalg.vector_norm(T(L, a), ord), atol=1e-5, rtol=1e-5)
    check(lambda L: L.linalg.vector_norm(T(L, a), ord, dim=(0, 2), keepdim=True), atol=1e-5, rtol=1e-5)
    if ord not in (0,):
        grad_compare(lambda L, x: L.linalg.vector_norm(x, ord, dim=-1), [a], 1e-4)


def test_vector_norm_dtype_and_errors():
    a = arr((3, 4), 'float32', kind='plain')
    check(lambda L: L.linalg.vector_norm(T(L, a), dtype=L.float64))
    check(lambda L: L.linalg.vector_norm(L.arange(4)))                  # integer input: RuntimeError
    check(lambda L: L.linalg.vector_norm(L.zeros(0), INF))              # no identity: RuntimeError


@pytest.mark.parametrize('ord', ['fro', 'nuc', 1, -1, 2, -2, INF, -INF])
@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_matrix_norm(ord, dtype):
    a = arr((2, 4, 3), dtype, kind='plain')
    tol = TOL[dtype] * 10
    check(lambda L: L.linalg.matrix_norm(T(L, a), ord), atol=tol, rtol=tol)
    check(lambda L: L.linalg.matrix_norm(T(L, a), ord, dim=(0, 2), keepdim=True), atol=tol, rtol=tol)
    check(lambda L: L.linalg.norm(T(L, a[0]), ord), atol=tol, rtol=tol)
    grad_compare(lambda L, x: L.linalg.matrix_norm(x, ord), [a], tol)


def test_norm_dispatch_and_errors():
    a = arr((2, 3, 4), 'float32', kind='plain')
    check(lambda L: L.linalg.norm(T(L, a)))
    check(lambda L: L.linalg.norm(T(L, a), 3, dim=1))
    check(lambda L: L.linalg.norm(T(L, a), dim=(1, 2), keepdim=True))
    check(lambda L: L.linalg.norm(T(L, a), 2))                          # ord with 3-D and no dim
    check(lambda L: L.linalg.matrix_norm(T(L, a), 3))                   # unsupported order
    check(lambda L: L.linalg.matrix_norm(T(L, a), dim=(1, 1)))
    check(lambda L: L.linalg.matrix_norm(T(L, a[0, 0])))                # 1-D


# ---- det / slogdet / inv ---------------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'complex128'])
def test_det_slogdet_inv(dtype):
    a = arr((2, 3, 3), dtype)
    tol = TOL[dtype] * 10
    for f in (lambda L: L.linalg.det(T(L, a)), lambda L: L.det(T(L, a)), lambda L: T(L, a).det(),
              lambda L: L.linalg.slogdet(T(L, a)), lambda L: L.slogdet(T(L, a)), lambda L: L.logdet(T(L, a)),
              lambda L: L.linalg.inv(T(L, a)), lambda L: L.inverse(T(L, a)), lambda L: L.linalg.inv_ex(T(L, a))):
        check(f, atol=tol, rtol=tol)
    grad_compare(lambda L, x: L.linalg.det(x), [a], tol)
    grad_compare(lambda L, x: L.linalg.slogdet(x).logabsdet, [a], tol)
    grad_compare(lambda L, x: L.linalg.inv(x), [a], tol)


def test_named_tuples():
    a = arr((3, 3), 'float64')
    for f in ('slogdet', 'inv_ex', 'cholesky_ex', 'qr', 'eigh', 'svd', 'lu_factor', 'lu', 'eig'):
        x = a @ a.T if f in ('cholesky_ex', 'eigh') else a
        got = getattr(torchlike.linalg, f)(torchlike.tensor(x))
        exp = getattr(torch.linalg, f)(torch.tensor(x))
        assert type(got).__name__ == type(exp).__name__
        assert len(got) == len(exp)
        for i, name in enumerate(got._fields):      # same field names, in torch's order
            assert getattr(exp, name) is exp[i]


def test_singular_errors():
    z = np.array([[1., 2.], [2., 4.]])
    zb = np.stack([np.eye(2), z])
    for L in (torch, torchlike):
        assert issubclass(L.linalg.LinAlgError, RuntimeError)
    msgs = {}
    for L in (torch, torchlike):
        out = []
        for f in (lambda: L.linalg.inv(L.tensor(z)), lambda: L.linalg.inv(L.tensor(zb)),
                  lambda: L.linalg.cholesky(L.tensor(z)), lambda: L.linalg.cholesky(L.tensor(zb)),
                  lambda: L.linalg.inv_ex(L.tensor(z), check_errors=True),
                  lambda: L.linalg.solve(L.tensor(z), L.ones(2, dtype=L.float64)),
                  lambda: L.linalg.solve(L.tensor(zb), L.ones(2, 2, dtype=L.float64)),
                  lambda: L.linalg.solve_ex(L.tensor(z), L.ones(2, dtype=L.float64), check_errors=True),
                  lambda: L.linalg.cholesky_ex(L.tensor(z), check_errors=True)):
            with pytest.raises(L.linalg.LinAlgError) as e:
                f()
            out.append(str(e.value))
        msgs[L] = out
    assert msgs[torchlike] == msgs[torch]
    check(lambda L: L.linalg.lu_factor(L.tensor(z) * 0))          # RuntimeError, not LinAlgError
    check(lambda L: L.linalg.lu_factor_ex(L.tensor(z) * 0).info)
    for L in (torch, torchlike):    # the _ex forms report info without raising
        r = L.linalg.inv_ex(L.tensor(zb))
        assert r.info.tolist() == [0, 2] and r.info.dtype == L.int32
        r = L.linalg.cholesky_ex(L.tensor(np.stack([np.eye(3), np.diag([1., 2., -1.]), np.diag([1., -1, 1])])))
        assert r.info.tolist() == [0, 3, 2]


def test_shape_dtype_errors():
    check(lambda L: L.linalg.inv(L.ones(2, 3)))
    check(lambda L: L.linalg.inv(L.ones(3)))
    check(lambda L: L.linalg.det(L.ones(2, 2, dtype=L.int64)))
    check(lambda L: L.linalg.solve(L.eye(3), L.ones(2, 1)))
    check(lambda L: L.linalg.solve(L.eye(3), L.ones(3, 1, dtype=L.float64)))


# ---- cholesky / qr / eigh / svd / eig ----------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_cholesky(dtype):
    a = arr((2, 3, 3), dtype, kind='spd')
    tol = TOL[dtype] * 10
    check(lambda L: L.linalg.cholesky(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.cholesky(T(L, a), upper=True), atol=tol, rtol=tol)
    check(lambda L: L.linalg.cholesky_ex(T(L, a)), atol=tol, rtol=tol)
    b = arr((2, 3, 3), dtype, kind='plain')
    check(lambda L: L.linalg.cholesky(T(L, a) + L.tensor(np.triu(b, 1))), atol=tol, rtol=tol)   # upper ignored
    grad_compare(lambda L, x: L.linalg.cholesky(x @ x.mH + 3 * L.eye(3, dtype=x.dtype)), [b], tol)
    if dtype in FLOATS:     # gradient w.r.t. the full symmetric input (complex: torch's formula is not Hermitian)
        grad_compare(lambda L, x: L.linalg.cholesky(x), [a], tol)
    grad_compare(lambda L, x: L.linalg.cholesky(x @ x.mH + 3 * L.eye(3, dtype=x.dtype), upper=True), [b], tol)


@pytest.mark.parametrize('mode', ['reduced', 'complete', 'r'])
@pytest.mark.parametrize('dtype', ['float32', 'complex128'])
def test_qr(mode, dtype):
    tol = TOL[dtype] * 10
    for shape in ((2, 4, 3), (3, 5)):
        a = arr(shape, dtype, kind='plain')
        check(lambda L: L.linalg.qr(T(L, a), mode=mode), atol=tol, rtol=tol)
    if mode != 'r':
        a = arr((2, 4, 3), dtype, kind='plain')
        grad_compare(lambda L, x: L.linalg.qr(x, mode='reduced'), [a], tol)
    check(lambda L: L.qr(T(L, arr((4, 3), dtype, kind='plain')), some=False), atol=tol, rtol=tol)


@pytest.mark.parametrize('dtype', ['float32', 'complex128'])
def test_eigh(dtype):
    a = arr((2, 4, 4), dtype, kind='plain')
    tol = TOL[dtype] * 100
    for uplo in ('L', 'U'):
        check(lambda L: L.linalg.eigvalsh(T(L, a), UPLO=uplo), atol=tol, rtol=tol)
        # eigenvectors up to phase: compare |V| and the reconstruction V diag(w) V^H
        check(lambda L: L.linalg.eigh(T(L, a), UPLO=uplo).eigenvectors.abs(), atol=tol, rtol=tol)
    grad_compare(lambda L, x: L.linalg.eigvalsh(x), [a], tol)
    grad_compare(lambda L, x: (lambda w, v: (w, v @ L.diag_embed(w.to(v.dtype)) @ v.mH, v.abs()))(
        *L.linalg.eigh(x + x.mH)), [a], tol)
    check(lambda L: L.linalg.eigh(T(L, a), UPLO='X'))


@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
@pytest.mark.parametrize('full', [True, False])
def test_svd(dtype, full):
    a = arr((2, 4, 3), dtype, kind='plain')
    tol = TOL[dtype] * 100
    check(lambda L: L.linalg.svdvals(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.svd(T(L, a), full_matrices=full).S, atol=tol, rtol=tol)
    check(lambda L: [t.abs() for t in L.linalg.svd(T(L, a), full_matrices=False)], atol=tol, rtol=tol)
    check(lambda L: [t.shape for t in L.linalg.svd(T(L, a), full_matrices=full)])
    check(lambda L: [t.shape for t in L.svd(T(L, a), some=not full)])
    check(lambda L: [t.abs() for t in L.svd(T(L, a))], atol=tol, rtol=tol)
    check(lambda L: L.svd(T(L, a), compute_uv=False), atol=tol, rtol=tol)
    grad_compare(lambda L, x: L.linalg.svdvals(x), [a], tol)
    grad_compare(lambda L, x: (lambda u, s, vh: (s, u @ L.diag_embed(s.to(u.dtype)) @ vh, u.abs(), vh.abs()))(
        *L.linalg.svd(x, full_matrices=False)), [a], tol)


@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_eig(dtype):
    a = arr((2, 3, 3), dtype, kind='plain')
    tol = TOL[dtype] * 100

    def sorted_vals(L):
        w = L.linalg.eigvals(T(L, a))
        return w[L.arange(2)[:, None], L.argsort(w.real * 1000 + w.imag, dim=-1)]
    check(sorted_vals, atol=tol, rtol=tol)
    for L in (torch, torchlike):
        w, v = L.linalg.eig(T(L, a))
        assert w.dtype == (L.complex128 if dtype == 'float64' else L.complex64)
        rec = v @ L.diag_embed(w) @ L.linalg.inv(v)
        np.testing.assert_allclose(rec.numpy() if L is torch else np.asarray(rec._materialize()),
                                   a, atol=tol * 10, rtol=tol * 10)
    grad_compare(lambda L, x: L.linalg.eigvals(x).abs().sum(), [a], tol)


# ---- solvers ---------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_solve(dtype):
    a = arr((2, 3, 3), dtype)
    b = arr((2, 3, 2), dtype, seed=1)
    v = arr((3,), dtype, seed=2)
    tol = TOL[dtype] * 10
    check(lambda L: L.linalg.solve(T(L, a), T(L, b)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.solve(T(L, a), T(L, v)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.solve(T(L, a), T(L, b[..., 0])), atol=tol, rtol=tol)
    check(lambda L: L.linalg.solve(T(L, a), T(L, np.swapaxes(b, -1, -2)), left=False), atol=tol, rtol=tol)
    check(lambda L: L.linalg.solve(T(L, a[0]), T(L, b)), atol=tol, rtol=tol)              # broadcast batch
    check(lambda L: L.linalg.solve_ex(T(L, a), T(L, b)), atol=tol, rtol=tol)
    grad_compare(lambda L, x, y: L.linalg.solve(x, y), [a, b], tol)
    grad_compare(lambda L, x, y: L.linalg.solve(x, y.mT, left=False), [a, b], tol)


@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_solve_triangular(dtype):
    a = arr((2, 3, 3), dtype)
    b = arr((2, 3, 2), dtype, seed=1)
    tol = TOL[dtype] * 10
    for upper in (True, False):
        for unit in (True, False):
            check(lambda L: L.linalg.solve_triangular(T(L, a), T(L, b), upper=upper, unitriangular=unit),
                  atol=tol, rtol=tol)
            check(lambda L: L.linalg.solve_triangular(T(L, a), T(L, b).mT, upper=upper, left=False,
                                                       unitriangular=unit), atol=tol, rtol=tol)
        grad_compare(lambda L, x, y: L.linalg.solve_triangular(x, y, upper=upper), [a, b], tol)
    check(lambda L: L.linalg.solve_triangular(T(L, a), T(L, b)))                           # upper is required


@pytest.mark.parametrize('dtype', ['float32', 'complex128'])
def test_lu(dtype):
    a = arr((2, 4, 4), dtype, kind='plain')
    b = arr((2, 4, 2), dtype, seed=1)
    tol = TOL[dtype] * 100
    check(lambda L: L.linalg.lu_factor(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.lu_factor_ex(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.lu(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.lu(T(L, arr((2, 5, 3), dtype, kind='plain'))), atol=tol, rtol=tol)
    for left in (True, False):
        for adj in (True, False):
            check(lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(T(L, a)), T(L, b) if left else T(L, b).mT,
                                              left=left, adjoint=adj), atol=tol, rtol=tol)
    grad_compare(lambda L, x: L.linalg.lu(x)[1:], [a], tol)
    grad_compare(lambda L, x, y: L.linalg.lu_solve(*L.linalg.lu_factor(x), y), [a, b], tol)


@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_cholesky_solve_inverse(dtype):
    s = arr((2, 3, 3), dtype, kind='spd')
    b = arr((2, 3, 2), dtype, seed=1)
    tol = TOL[dtype] * 100
    for upper in (False, True):
        check(lambda L: L.cholesky_solve(T(L, b), L.linalg.cholesky(T(L, s), upper=upper), upper), atol=tol, rtol=tol)
        check(lambda L: L.cholesky_inverse(L.linalg.cholesky(T(L, s[0]), upper=upper), upper), atol=tol, rtol=tol)
        c = np.linalg.cholesky(s)
        c = np.conj(np.swapaxes(c, -1, -2)) if upper else c
        grad_compare(lambda L, f, y: L.cholesky_solve(y, f, upper), [c, b], tol)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'complex128'])
def test_pinv_matrix_rank(dtype):
    a = arr((2, 4, 3), dtype, kind='plain')
    low = (arr((4, 2), dtype, kind='plain') @ arr((2, 3), dtype, seed=3, kind='plain'))
    tol = TOL[dtype] * 100
    check(lambda L: L.linalg.pinv(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.pinv(T(L, low)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.pinv(T(L, a), atol=1.0), atol=tol, rtol=tol)
    check(lambda L: L.linalg.pinv(T(L, a), rtol=0.5), atol=tol, rtol=tol)
    h = arr((3, 3), dtype, kind='spd')
    check(lambda L: L.linalg.pinv(T(L, h), hermitian=True), atol=tol, rtol=tol)
    check(lambda L: L.pinverse(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.linalg.matrix_rank(T(L, a)))
    check(lambda L: L.linalg.matrix_rank(T(L, low)))
    check(lambda L: L.linalg.matrix_rank(T(L, a), atol=1.0, rtol=0.1))
    check(lambda L: L.linalg.matrix_rank(T(L, h), hermitian=True))
    grad_compare(lambda L, x: L.linalg.pinv(x), [a], tol)
    g = arr((3, 3), dtype)          # not Hermitian: torch reads its lower triangle, differentiates the input as is
    check(lambda L: L.linalg.pinv(T(L, g), hermitian=True), atol=tol, rtol=tol)
    grad_compare(lambda L, x: L.linalg.pinv(x, hermitian=True), [g], tol)


@pytest.mark.parametrize('n', [0, 1, 2, 5, -1, -3])
def test_matrix_power(n):
    a = arr((2, 3, 3), 'float64')
    check(lambda L: L.linalg.matrix_power(T(L, a), n), atol=1e-8, rtol=1e-8)
    check(lambda L: T(L, a).matrix_power(n), atol=1e-8, rtol=1e-8)
    grad_compare(lambda L, x: L.linalg.matrix_power(x, n), [a], 1e-8)
    check(lambda L: L.linalg.matrix_power(L.tensor([[1, 2], [3, 4]]), n) if n >= 0 else L.zeros(1))


def test_matrix_power_singular():
    msgs = []
    for L in (torch, torchlike):
        with pytest.raises(L.linalg.LinAlgError) as e:
            L.linalg.matrix_power(L.zeros(2, 2), -1)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize('dtype', ['float32', 'complex128'])
def test_matrix_exp(dtype):
    a = arr((2, 3, 3), dtype, kind='plain') / 2
    tol = TOL[dtype] * 100
    check(lambda L: L.linalg.matrix_exp(T(L, a)), atol=tol, rtol=tol)
    check(lambda L: L.matrix_exp(T(L, a[0])), atol=tol, rtol=tol)
    grad_compare(lambda L, x: L.linalg.matrix_exp(x), [a], tol)


def test_lstsq():
    a = arr((2, 5, 3), 'float64', kind='plain')
    b = arr((2, 5, 2), 'float64', seed=1)
    check(lambda L: tuple(L.linalg.lstsq(T(L, a), T(L, b))), atol=1e-8, rtol=1e-8)
    check(lambda L: tuple(L.linalg.lstsq(T(L, a), T(L, b), driver='gelsy')), atol=1e-8, rtol=1e-8)
    check(lambda L: type(L.linalg.lstsq(T(L, a), T(L, b))).__name__)
    check(lambda L: L.linalg.lstsq(T(L, a), T(L, b), driver='bogus'))
    grad_compare(lambda L, x, y: L.linalg.lstsq(x, y).solution, [a, b], 1e-8)


@pytest.mark.parametrize('dtype', ['float64', 'complex128'])
def test_householder_product(dtype):
    a = arr((2, 5, 3), dtype, kind='plain')
    tau = arr((2, 2), dtype, seed=1, kind='plain')
    tol = TOL[dtype] * 100
    check(lambda L: L.linalg.householder_product(T(L, a), T(L, tau)), atol=tol, rtol=tol)
    q = torch.geqrf(torch.tensor(a))
    check(lambda L: L.linalg.householder_product(T(L, q.a.numpy()), T(L, q.tau.numpy())), atol=tol, rtol=tol)
    grad_compare(lambda L, x, t: L.linalg.householder_product(x, t), [a, tau], tol)
    check(lambda L: L.linalg.householder_product(T(L, a[:, :2]), T(L, arr((2, 3), dtype))))


def test_cross_vecdot_multi_dot():
    a = arr((4, 3), 'float64', kind='plain')
    b = arr((4, 3), 'float64', seed=1, kind='plain')
    c = arr((3, 4), 'complex64', kind='plain')
    check(lambda L: L.linalg.cross(T(L, a), T(L, b)))
    check(lambda L: L.linalg.cross(T(L, a.T), T(L, b.T), dim=0))
    check(lambda L: L.linalg.vecdot(T(L, c), T(L, c[::-1].copy())))
    check(lambda L: L.linalg.vecdot(T(L, a), T(L, b), dim=0))
    check(lambda L: L.linalg.multi_dot([T(L, a[0]), T(L, b.T), T(L, a), T(L, b[1])]))
    check(lambda L: L.linalg.multi_dot([T(L, a), T(L, b.T), T(L, a)]))
    check(lambda L: L.linalg.multi_dot([T(L, a)]))
    check(lambda L: L.linalg.multi_dot([T(L, a), T(L, a)]))
    grad_compare(lambda L, x, y: L.linalg.multi_dot([x, y.T, x]), [a, b], 1e-8)


@pytest.mark.parametrize('driver', ['gels', 'gelsy', 'gelsd', 'gelss'])
def test_lstsq_drivers(driver):
    for sa, sb in (((2, 5, 3), (2, 5, 2)), ((3, 5), (3, 2)), ((5, 3), (5,))):
        a = arr(sa, 'float64', kind='plain')
        b = arr(sb, 'float64', seed=1, kind='plain')
        check(lambda L: tuple(L.linalg.lstsq(T(L, a), T(L, b), driver=driver)), atol=1e-8, rtol=1e-8)
    a = arr((5, 3), 'float32', kind='plain')
    b = arr((5, 2), 'float32', seed=1, kind='plain')
    grad_compare(lambda L, x, y: L.linalg.lstsq(x, y, driver=driver)[:2], [a, b], 1e-4)
    for L in (torch, torchlike):    # torch's requires_grad pattern: solution, residuals yes; rank, S no
        r = L.linalg.lstsq(T(L, a, True), T(L, b), driver=driver)
        assert [t.requires_grad for t in r] == [True, True, False, False]


@pytest.mark.parametrize('dtype', ['float64', 'complex64'])
def test_geqrf_orgqr(dtype):
    tol = TOL[dtype] * 100
    for shape in ((2, 5, 3), (3, 5)):
        a = arr(shape, dtype, kind='plain')
        check(lambda L: L.geqrf(T(L, a)), atol=tol, rtol=tol)
        check(lambda L: L.orgqr(*L.geqrf(T(L, a))) if shape[0] >= shape[1] else L.zeros(1), atol=tol, rtol=tol)
    check(lambda L: L.geqrf(T(L, arr((3,), dtype))))
    a = arr((2, 5, 3), dtype, kind='plain')
    for left in (True, False):
        c = arr((2, 5, 4) if left else (2, 4, 5), dtype, seed=1, kind='plain')
        for tr in (False, True):
            check(lambda L: L.ormqr(*L.geqrf(T(L, a)), T(L, c), left, tr), atol=tol, rtol=tol)
    tau = arr((2, 3), dtype, seed=2, kind='plain')
    c = arr((2, 5, 4), dtype, seed=1, kind='plain')
    grad_compare(lambda L, x, t, y: L.ormqr(x, t, y, transpose=True), [a, tau, c], tol)


@pytest.mark.parametrize('shape,omap,triv', [((4, 4), 'matrix_exp', True), ((5, 3), 'householder', True),
                                             ((3, 5), 'cayley', True), ((4, 4), 'cayley', False),
                                             ((5, 3), 'householder', False), ((3, 5), None, True),
                                             ((2, 3, 3), None, True)])
def test_parametrizations_orthogonal(shape, omap, triv):
    w = arr(shape, 'float32', kind='plain')
    x = arr((2, shape[-1]), 'float32', seed=1, kind='plain')
    res = {}
    for L in (torch, torchlike):
        m = L.nn.Module()
        m.weight = L.nn.Parameter(T(L, w))
        L.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
        if triv and shape[-2] != shape[-1]:
            # the trivialization's base completes Q with random columns: copy torch's across
            base = res[torch][2] if L is torchlike else None
            if base is not None:
                with L.no_grad():
                    m.parametrizations.weight[0].base.copy_(L.tensor(base))
        W = m.weight
        loss = ((T(L, x) @ W.mT) ** 2).sum()
        loss.backward()
        base = getattr(m.parametrizations.weight[0], 'base', None)
        res[L] = (W, m.parametrizations.weight.original.grad,
                  None if base is None else (base.numpy() if L is torch else np.asarray(base._materialize())))
        Q = W if shape[-2] >= shape[-1] else W.mT       # orthonormal columns
        eye = L.eye(Q.shape[-1]).expand(Q.shape[:-2] + (Q.shape[-1], Q.shape[-1]))
        assert L.allclose(Q.mT @ Q, eye, atol=1e-5)
    assert_same(res[torchlike][0], res[torch][0], atol=1e-5, rtol=1e-5)
    assert_same(res[torchlike][1], res[torch][1], atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('p', [None, 2, -2, 1, -1, INF, -INF, 'fro', 'nuc'])
def test_cond(p):
    a = arr((2, 3, 3), 'float64', kind='plain')
    check(lambda L: L.linalg.cond(T(L, a), p), atol=1e-8, rtol=1e-8)
    check(lambda L: L.linalg.cond(T(L, arr((3, 2), 'float64')), p))               # non-square
    if p in (None, 2, -2):
        grad_compare(lambda L, x: L.linalg.cond(x, p), [a], 1e-7)
    else:   # (torch's backward for these orders fails on its own in-place masked_fill_, so values only)
        if p != 'nuc':   # (float32 rounding decides whether torch's LU of this one is singular)
            check(lambda L: L.linalg.cond(L.tensor([[1., 2.], [2., 4.]]), p))      # singular: inf
        check(lambda L: L.linalg.cond(L.stack([L.eye(2), L.zeros(2, 2)]), p))     # inf ('nuc': nan)


def test_tensor_helpers_and_deprecated():
    a = arr((6, 2, 3), 'float64')
    a = (a.reshape(6, 6) + 6 * np.eye(6)).reshape(2, 3, 6)
    b = arr((2, 3), 'float64', seed=1)
    check(lambda L: L.linalg.tensorinv(T(L, a), ind=2), atol=1e-8, rtol=1e-8)
    check(lambda L: L.linalg.tensorsolve(T(L, a), T(L, b)), atol=1e-8, rtol=1e-8)
    check(lambda L: L.linalg.tensorsolve(T(L, a.transpose(2, 0, 1).copy()), T(L, b), dims=(0,)), atol=1e-8, rtol=1e-8)
    check(lambda L: L.linalg.tensorsolve(T(L, a), T(L, b), dims=(0, 2)), atol=1e-8, rtol=1e-8)
    check(lambda L: L.linalg.tensorinv(T(L, a), ind=1))
    check(lambda L: L.linalg.vander(L.tensor([1, 2, 3])))
    check(lambda L: L.linalg.vander(T(L, b), N=4), atol=1e-8, rtol=1e-8)
    check(lambda L: L.linalg.vander(T(L, b), N=1))
    check(lambda L: L.linalg.vander(L.tensor(3.), N=3))
    check(lambda L: L.linalg.vander(L.tensor(3.)))
    grad_compare(lambda L, x: L.linalg.vander(x, N=4), [b], 1e-8)
    check(lambda L: L.linalg.diagonal(T(L, a), offset=1))
    m = arr((2, 3, 3), 'float64', kind='plain')
    rhs = arr((2, 3, 2), 'float64', seed=2)
    with pytest.warns(UserWarning):
        torchlike.lu(torchlike.tensor(m))
    for kw in ({}, {'upper': False}, {'transpose': True}, {'unitriangular': True}):
        check(lambda L: tuple(L.triangular_solve(T(L, rhs), T(L, m), **kw)), atol=1e-8, rtol=1e-8)
    grad_compare(lambda L, y, x: L.triangular_solve(y, x).solution, [rhs, m], 1e-8)
    check(lambda L: tuple(L.lu(T(L, m))), atol=1e-8, rtol=1e-8)
    check(lambda L: tuple(L.lu(T(L, m), get_infos=True)), atol=1e-8, rtol=1e-8)
    check(lambda L: tuple(L.lu_unpack(*L.linalg.lu_factor(T(L, m)))), atol=1e-8, rtol=1e-8)
    check(lambda L: tuple(L.lu_unpack(*L.linalg.lu_factor(T(L, m)), unpack_data=False)), atol=1e-8, rtol=1e-8)
    grad_compare(lambda L, x: L.lu_unpack(*L.linalg.lu_factor(x))[1:], [m], 1e-8)
    s = arr((3, 3), 'float64', kind='spd')
    check(lambda L: L.cholesky(T(L, s), upper=True), atol=1e-8, rtol=1e-8)
