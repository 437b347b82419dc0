"""Matrix products against real torch: values, dtypes, shapes, gradients, grad_fn names, errors."""
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, to_np

DT = {'float32': (torch.float32, torchlike.float32), 'float64': (torch.float64, torchlike.float64),
      'int64': (torch.int64, torchlike.int64), 'int32': (torch.int32, torchlike.int32),
      'complex64': (torch.complex64, torchlike.complex64), 'float16': (torch.float16, torchlike.float16),
      'bfloat16': (torch.bfloat16, torchlike.bfloat16), 'bool': (torch.bool, torchlike.bool),
      'uint8': (torch.uint8, torchlike.uint8)}
TOL = {'float32': 1e-4, 'float64': 1e-10, 'complex64': 1e-4, 'float16': 2e-2, 'bfloat16': 5e-2}


def make(shapes, dtype='float32', requires_grad=False, seed=0):
    """The same random inputs as (torchlike tensors, torch tensors)."""
    rng = np.random.default_rng(seed)
    arrs = []
    for s in shapes:
        if dtype in ('int64', 'int32', 'uint8'):
            a = rng.integers(0, 5, s)
        elif dtype == 'bool':
            a = rng.integers(0, 2, s).astype(bool)
        elif dtype.startswith('complex'):
            a = rng.standard_normal(s) + 1j * rng.standard_normal(s)
        else:
            a = rng.standard_normal(s)
        arrs.append(np.asarray(a))
    th = [torch.tensor(a).to(DT[dtype][0]).requires_grad_(requires_grad) for a in arrs]
    tl = [torchlike.tensor(a).to(DT[dtype][1]).requires_grad_(requires_grad) for a in arrs]
    return tl, th


def check(fn, shapes, dtype='float32', grad=None, name=True, tol=None):
    """fn(torch_module, *inputs) on both libraries: values, dtype, shape; grads and grad_fn name."""
    grad = dtype in ('float32', 'float64', 'complex64') if grad is None else grad
    tol = tol or TOL.get(dtype, 0)
    tl, th = make(shapes, dtype, requires_grad=grad)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        r_th = fn(torch, *th)
        r_tl = fn(torchlike, *tl)
    assert_same(r_tl, r_th, atol=tol, rtol=tol)
    if grad:
        if name:
            assert r_tl.grad_fn.name() == r_th.grad_fn.name()
        rng = np.random.default_rng(1)
        g = rng.standard_normal(tuple(r_th.shape))
        if r_th.dtype.is_complex:
            g = g + 1j * rng.standard_normal(tuple(r_th.shape))
        r_th.backward(torch.tensor(g).to(r_th.dtype))
        r_tl.backward(torchlike.tensor(g).to(r_tl.dtype))
        for a, b in zip(tl, th):
            assert_same(a.grad, b.grad, atol=tol * 10, rtol=tol * 10)
    return r_tl, r_th


def same_error(fn, *args, msg=True):
    """fn(torch_module) raises the same exception type (and message) in both libraries."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(Exception) as e_th:
            fn(torch, *args)
        with pytest.raises(Exception) as e_tl:
            fn(torchlike, *args)
    assert type(e_tl.value) is type(e_th.value), (e_tl.value, e_th.value)
    if msg:
        assert str(e_tl.value).split('\n')[0] == str(e_th.value).split('\n')[0]


def T(lib, *shape, dtype='float32'):
    dt = DT[dtype][0 if lib is torch else 1]
    return lib.ones(*shape, dtype=dt)


# ---- matmul ----------------------------------------------------------------------------

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                 ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((2, 1, 2, 3), (5, 3, 4)), ((3, 4), (2, 2, 4, 5)), ((2, 5, 2, 3), (3,)), ((3,), (2, 2, 3, 4)),
                 ((0, 3), (3, 0)), ((2, 0), (0, 4)), ((1, 2, 3), (4, 3, 2))]


@pytest.mark.parametrize('shapes', MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'complex64'])
def test_matmul(shapes, dtype):
    check(lambda t, a, b: t.matmul(a, b), shapes, dtype)


@pytest.mark.parametrize('shapes', MATMUL_SHAPES, ids=str)
def test_matmul_operator_and_method(shapes):
    check(lambda t, a, b: a @ b, shapes)
    check(lambda t, a, b: a.matmul(b), shapes)


@pytest.mark.parametrize('dtype', ['int64', 'int32', 'uint8', 'float16', 'bfloat16'])
@pytest.mark.parametrize('shapes', [((3,), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)), ((2, 3), (3,))],
                         ids=str)
def test_matmul_dtypes(shapes, dtype):
    check(lambda t, a, b: t.matmul(a, b), shapes, dtype, grad=False)


def test_matmul_float32_precision():
    # float32 products must match torch's CPU results to ~1e-4 relative (Precision.HIGHEST)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 256)).astype(np.float32)
    b = rng.standard_normal((256, 32)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    r_tl = to_np(torchlike.tensor(a) @ torchlike.tensor(b))
    r_th = to_np(torch.tensor(a) @ torch.tensor(b))
    np.testing.assert_allclose(r_tl, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(r_tl, r_th, rtol=1e-4, atol=1e-4)


def test_matmul_out():
    tl, th = make([(2, 3), (3, 4)])
    o_th, o_tl = torch.empty(0), torchlike.empty(0)
    r_th = torch.matmul(*th, out=o_th)
    r_tl = torchlike.matmul(*tl, out=o_tl)
    assert r_tl is o_tl and r_th is o_th
    assert_same(o_tl, o_th)
    o_th, o_tl = torch.empty(2, 4, dtype=torch.float64), torchlike.empty(2, 4, dtype=torchlike.float64)
    same_error(lambda t: t.matmul(t.ones(2, 3), t.ones(3, 4), out=t.empty(2, 4, dtype=t.int64)), msg=False)


MATMUL_ERRORS = [
    lambda t: t.matmul(T(t, 2, 3), T(t, 3, 4, dtype='float64')),
    lambda t: t.matmul(T(t, 3), T(t, 3, dtype='float64')),
    lambda t: t.matmul(T(t, 2, 3), T(t, 3, dtype='float64')),
    lambda t: t.matmul(T(t, 3), T(t, 3, 4, dtype='float64')),
    lambda t: t.matmul(T(t, 2, 2, 3), T(t, 2, 3, 4, dtype='float64')),
    lambda t: t.matmul(T(t, 2, 2, 3), T(t, 3, dtype='float64')),
    lambda t: t.matmul(T(t, 2, 2, 3), T(t, 3, 4, dtype='float64')),
    lambda t: t.matmul(T(t, 2, 3), T(t, 4, 5)),
    lambda t: t.matmul(T(t, 3), T(t, 4)),
    lambda t: t.matmul(T(t, 2, 3), T(t, 4)),
    lambda t: t.matmul(T(t, 3), T(t, 4, 5)),
    lambda t: t.matmul(T(t, 2, 2, 3), T(t, 3, 3, 4)),
    lambda t: t.matmul(T(t, 2, 2, 3), T(t, 2, 4, 4)),
    lambda t: t.matmul(T(t, 2, 2, 3), T(t, 4, 4)),
    lambda t: t.matmul(T(t, 2, 2, 3), T(t, 4)),
    lambda t: t.matmul(T(t, 3), T(t, 2, 4, 4)),
    lambda t: t.matmul(t.tensor(1.), T(t, 3)),
    lambda t: t.matmul(T(t, 2, 3, dtype='bool'), T(t, 3, 4, dtype='bool')),
    lambda t: t.matmul(T(t, 2, 3, dtype='bool'), T(t, 3, dtype='bool')),
    lambda t: t.matmul(T(t, 2, 2, 3, dtype='bool'), T(t, 2, 3, 4, dtype='bool')),
    lambda t: t.matmul(T(t, 3, dtype='bool'), T(t, 3, dtype='bool')),
    lambda t: T(t, 2, 3) @ T(t, 2, 3),
]


@pytest.mark.parametrize('i', range(len(MATMUL_ERRORS)))
def test_matmul_errors(i):
    same_error(MATMUL_ERRORS[i])


def test_matmul_type_error():
    same_error(lambda t: t.matmul(T(t, 3), 2), msg=False)


# ---- mm, bmm, mv, dot, vdot ------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'complex64', 'int64', 'float16'])
def test_mm_bmm_mv_dot(dtype):
    check(lambda t, a, b: t.mm(a, b), [(2, 3), (3, 4)], dtype)
    check(lambda t, a, b: a.mm(b), [(2, 3), (3, 4)], dtype)
    check(lambda t, a, b: t.bmm(a, b), [(5, 2, 3), (5, 3, 4)], dtype)
    check(lambda t, a, b: t.mv(a, b), [(2, 3), (3,)], dtype)
    check(lambda t, a, b: t.dot(a, b), [(3,), (3,)], dtype)
    check(lambda t, a, b: t.vdot(a, b), [(3,), (3,)], dtype)
    check(lambda t, a, b: a.vdot(b), [(3,), (3,)], dtype)


def test_mm_out():
    tl, th = make([(2, 3), (3, 4)])
    o_th, o_tl = torch.empty(0), torchlike.empty(0)
    torch.mm(*th, out=o_th)
    torchlike.mm(*tl, out=o_tl)
    assert_same(o_tl, o_th)


PRODUCT_ERRORS = [
    lambda t: t.mm(T(t, 2, 3), T(t, 4, 5, dtype='float64')),
    lambda t: t.mm(T(t, 2, 3), T(t, 3, 4, dtype='float64')),
    lambda t: t.mm(T(t, 3), T(t, 3, 4)),
    lambda t: t.mm(T(t, 2, 3), T(t, 3)),
    lambda t: t.mm(T(t, 2, 3, dtype='bool'), T(t, 3, 2, dtype='bool')),
    lambda t: t.bmm(T(t, 2, 3), T(t, 3, 4)),
    lambda t: t.bmm(T(t, 2, 2, 3), T(t, 3, 4)),
    lambda t: t.bmm(T(t, 2, 2, 3), T(t, 3, 3, 4)),
    lambda t: t.bmm(T(t, 2, 2, 3), T(t, 2, 4, 4)),
    lambda t: t.bmm(T(t, 2, 2, 3), T(t, 2, 3, 4, dtype='float64')),
    lambda t: t.bmm(T(t, 2, 2, 3, dtype='bool'), T(t, 2, 3, 5, dtype='bool')),
    lambda t: t.mv(T(t, 2, 3), T(t, 4)),
    lambda t: t.mv(T(t, 3), T(t, 3)),
    lambda t: t.mv(T(t, 2, 3), T(t, 3, dtype='float64')),
    lambda t: t.mv(T(t, 2, 3, dtype='bool'), T(t, 3, dtype='bool')),
    lambda t: t.dot(T(t, 3), T(t, 4)),
    lambda t: t.dot(T(t, 2, 3), T(t, 2, 3)),
    lambda t: t.dot(T(t, 3), T(t, 3, dtype='float64')),
    lambda t: t.dot(T(t, 3, dtype='bool'), T(t, 3, dtype='bool')),
    lambda t: t.vdot(T(t, 3), T(t, 3, dtype='float64')),
]


@pytest.mark.parametrize('i', range(len(PRODUCT_ERRORS)))
def test_product_errors(i):
    same_error(PRODUCT_ERRORS[i])


# ---- inner, outer, kron, tensordot -----------------------------------------------------

@pytest.mark.parametrize('shapes', [((3,), (3,)), ((2, 3), (4, 3)), ((2, 2, 3), (3,)), ((), (2, 3)), ((2, 3), ())],
                         ids=str)
def test_inner(shapes):
    check(lambda t, a, b: t.inner(a, b), shapes, name=False)
    check(lambda t, a, b: a.inner(b), shapes, 'int64')


def test_inner_names():
    check(lambda t, a, b: t.inner(a, b), [(2, 3), (4, 3)])
    check(lambda t, a, b: t.inner(a, b), [(3,), (3,)])


def test_outer_ger():
    check(lambda t, a, b: t.outer(a, b), [(2,), (3,)])
    check(lambda t, a, b: t.ger(a, b), [(2,), (3,)])
    check(lambda t, a, b: a.outer(b), [(2,), (3,)], 'int64')
    check(lambda t, a, b: t.outer(a, b), [(2,), (3,)], 'bool')
    # outer promotes like mul
    assert_same(torchlike.outer(torchlike.ones(3), torchlike.ones(2, dtype=torchlike.float64)),
                torch.outer(torch.ones(3), torch.ones(2, dtype=torch.float64)))
    assert_same(torchlike.outer(torchlike.ones(3), torchlike.ones(2, dtype=torchlike.int64)),
                torch.outer(torch.ones(3), torch.ones(2, dtype=torch.int64)))


@pytest.mark.parametrize('shapes', [((2, 3), (4, 5)), ((2,), (3, 4)), ((2, 3, 2), (2,)), ((), (3,)), ((2, 2), (2, 2))],
                         ids=str)
def test_kron(shapes):
    check(lambda t, a, b: t.kron(a, b), shapes)
    check(lambda t, a, b: a.kron(b), shapes, 'int64')


def test_kron_promotes():
    assert_same(torchlike.kron(torchlike.ones(2, 3, dtype=torchlike.int64), torchlike.ones(2)),
                torch.kron(torch.ones(2, 3, dtype=torch.int64), torch.ones(2)))
    check(lambda t, a, b: t.kron(a, b), [(2, 3), (2,)], 'bool')


TENSORDOT = [(0, [(2, 3), (4,)]), (1, [(2, 3, 4), (4, 5)]), (2, [(2, 3, 4), (3, 4, 5)]),
             (([1], [0]), [(2, 3), (3, 4)]), (([1, 0], [0, 1]), [(2, 3), (3, 2)]),
             (((2,), (1,)), [(2, 3, 4), (3, 4, 5)]), (([-1], [0]), [(2, 3, 4), (4, 5)]),
             (([0, 1], [2, 0]), [(1, 1, 3), (2, 4, 2)]), (1, [(2, 3), (1, 4)])]


@pytest.mark.parametrize('dims,shapes', TENSORDOT, ids=str)
def test_tensordot(dims, shapes):
    check(lambda t, a, b: t.tensordot(a, b, dims), shapes, name=False)


def test_tensordot_tensor_dims():
    check(lambda t, a, b: t.tensordot(a, b, t.tensor(1)), [(2, 3), (3, 4)])
    check(lambda t, a, b: t.tensordot(a, b, t.tensor([[1], [0]])), [(2, 3), (3, 4)])


OTHER_ERRORS = [
    lambda t: t.outer(T(t, 3, 2), T(t, 3)),
    lambda t: t.outer(T(t, 3), T(t, 3, 2)),
    lambda t: t.inner(T(t, 2, 3), T(t, 4, 4)),
    lambda t: t.inner(T(t, 3), T(t, 3, dtype='float64')),
    lambda t: t.inner(T(t, 3, dtype='bool'), T(t, 3, dtype='bool')),
    lambda t: t.tensordot(T(t, 2, 3), T(t, 3, 4), -1),
    lambda t: t.tensordot(T(t, 2, 3), T(t, 3, 4), 3),
    lambda t: t.tensordot(T(t, 2, 3), T(t, 4, 4), 1),
    lambda t: t.tensordot(T(t, 2, 3), T(t, 3, 4), ([1, 0], [0])),
    lambda t: t.tensordot(T(t, 2, 3), T(t, 3, 4, dtype='float64'), 1),
    lambda t: t.tensordot(T(t, 2, 3), T(t, 3, 4), ([5], [0])),
    lambda t: t.trace(T(t, 3)),
    lambda t: t.trace(T(t, 2, 3, dtype='bool')),
]


@pytest.mark.parametrize('i', range(len(OTHER_ERRORS)))
def test_other_errors(i):
    same_error(OTHER_ERRORS[i])


# ---- add* family -----------------------------------------------------------------------

COEFS = [dict(), dict(beta=0.5, alpha=2.0), dict(beta=0, alpha=-1.5), dict(alpha=0)]


@pytest.mark.parametrize('kw', COEFS, ids=str)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'complex64'])
def test_addmm(kw, dtype):
    check(lambda t, i, a, b: t.addmm(i, a, b, **kw), [(2, 4), (2, 3), (3, 4)], dtype)
    check(lambda t, i, a, b: t.addmm(i, a, b, **kw), [(4,), (2, 3), (3, 4)], dtype)
    check(lambda t, i, a, b: i.addmm(a, b, **kw), [(1, 1), (2, 3), (3, 4)], dtype)


@pytest.mark.parametrize('kw', COEFS, ids=str)
def test_addmv_addr_addbmm_baddbmm(kw):
    check(lambda t, i, a, b: t.addmv(i, a, b, **kw), [(2,), (2, 3), (3,)])
    check(lambda t, i, a, b: t.addmv(i, a, b, **kw), [(), (2, 3), (3,)])
    check(lambda t, i, a, b: t.addr(i, a, b, **kw), [(2, 3), (2,), (3,)])
    check(lambda t, i, a, b: t.addr(i, a, b, **kw), [(3,), (2,), (3,)])
    check(lambda t, i, a, b: t.addbmm(i, a, b, **kw), [(2, 4), (5, 2, 3), (5, 3, 4)])
    check(lambda t, i, a, b: t.baddbmm(i, a, b, **kw), [(5, 2, 4), (5, 2, 3), (5, 3, 4)])
    check(lambda t, i, a, b: t.baddbmm(i, a, b, **kw), [(2, 4), (5, 2, 3), (5, 3, 4)])
    check(lambda t, i, a, b: i.baddbmm(a, b, **kw), [(5, 2, 4), (5, 2, 3), (5, 3, 4)])


@pytest.mark.parametrize('name,shapes', [('addmm', [(2, 4), (2, 3), (3, 4)]), ('addmv', [(2,), (2, 3), (3,)]),
                                         ('addr', [(2, 3), (2,), (3,)]), ('addbmm', [(2, 4), (5, 2, 3), (5, 3, 4)]),
                                         ('baddbmm', [(5, 2, 4), (5, 2, 3), (5, 3, 4)])])
def test_add_family_beta0_ignores_nan(name, shapes):
    tl, th = make(shapes)
    th[0] = torch.full(shapes[0], float('nan'))
    tl[0] = torchlike.full(shapes[0], float('nan'))
    assert_same(getattr(torchlike, name)(*tl, beta=0), getattr(torch, name)(*th, beta=0))
    # beta != 0 propagates it
    assert_same(getattr(torchlike, name)(*tl, beta=1), getattr(torch, name)(*th, beta=1))


@pytest.mark.parametrize('kw', [dict(), dict(beta=2, alpha=3), dict(beta=2.5, alpha=1.5), dict(beta=-1.5, alpha=0.5)],
                         ids=str)
def test_addmm_int_coefficients(kw):
    # integral tensors: float coefficients are truncated (Scalar.to<int64_t>())
    check(lambda t, i, a, b: t.addmm(i, a, b, **kw), [(2, 4), (2, 3), (3, 4)], 'int64')
    check(lambda t, i, a, b: t.addmv(i, a, b, **kw), [(2,), (2, 3), (3,)], 'int64')


def test_addr_int_and_bool():
    check(lambda t, i, a, b: t.addr(i, a, b, beta=2, alpha=3), [(2, 3), (2,), (3,)], 'int64')
    check(lambda t, i, a, b: t.addr(i, a, b, beta=False, alpha=True), [(2, 3), (2,), (3,)], 'bool')
    check(lambda t, i, a, b: t.addr(i, a, b), [(2, 3), (2,), (3,)], 'bool')
    # addr promotes
    assert_same(torchlike.addr(torchlike.ones(2, 3), torchlike.ones(2, dtype=torchlike.float64), torchlike.ones(3)),
                torch.addr(torch.ones(2, 3), torch.ones(2, dtype=torch.float64), torch.ones(3)))


ADD_ERRORS = [
    lambda t: t.addmm(T(t, 4, 5), T(t, 4, 3), T(t, 3, 5, dtype='float64')),
    lambda t: t.addmm(T(t, 4, 5, dtype='float64'), T(t, 4, 3), T(t, 3, 5)),
    lambda t: t.addmm(T(t, 2, 4), T(t, 2, 3, dtype='float64'), T(t, 3, 4)),
    lambda t: t.addmm(T(t, 2, 4, dtype='float64'), T(t, 2, 3), T(t, 3, 4, dtype='float64')),
    lambda t: t.addmm(T(t, 3, 5), T(t, 4, 3), T(t, 3, 5)),
    lambda t: t.addmm(T(t, 2, 4), T(t, 2, 3), T(t, 4, 4)),
    lambda t: t.addmm(T(t, 2, 4), T(t, 3), T(t, 3, 4)),
    lambda t: t.addmm(T(t, 2, 4, dtype='bool'), T(t, 2, 3, dtype='bool'), T(t, 3, 4, dtype='bool')),
    lambda t: t.addmv(T(t, 2), T(t, 2, 3), T(t, 3, dtype='float64')),
    lambda t: t.addmv(T(t, 2, dtype='float64'), T(t, 2, 3), T(t, 3)),
    lambda t: t.addmv(T(t, 3), T(t, 2, 3), T(t, 3)),
    lambda t: t.addmv(T(t, 2, 2), T(t, 2, 3), T(t, 3)),
    lambda t: t.addr(T(t, 2, 3), T(t, 2), T(t, 4)),
    lambda t: t.addr(T(t, 2, 3), T(t, 2, 2), T(t, 3)),
    lambda t: t.addr(T(t, 2, 3, dtype='int64'), T(t, 2, dtype='int64'), T(t, 3, dtype='int64'), beta=0.5),
    lambda t: t.addr(T(t, 2, 3, dtype='int64'), T(t, 2, dtype='int64'), T(t, 3, dtype='int64'), alpha=3.),
    lambda t: t.addr(T(t, 2, 3, dtype='bool'), T(t, 2, dtype='bool'), T(t, 3, dtype='bool'), beta=0.5),
    lambda t: t.addbmm(T(t, 2, 4), T(t, 2, 2, 3), T(t, 2, 3, 4, dtype='float64')),
    lambda t: t.addbmm(T(t, 2, 4, dtype='float64'), T(t, 2, 2, 3), T(t, 2, 3, 4)),
    lambda t: t.addbmm(T(t, 3, 4), T(t, 2, 2, 3), T(t, 2, 3, 4)),
    lambda t: t.baddbmm(T(t, 2, 4, dtype='float64'), T(t, 2, 2, 3), T(t, 2, 3, 4)),
    lambda t: t.baddbmm(T(t, 3, 2, 4), T(t, 2, 2, 3), T(t, 2, 3, 4)),
    lambda t: t.baddbmm(T(t, 2, 2, 4), T(t, 2, 2, 3), T(t, 3, 3, 4)),
]


@pytest.mark.parametrize('i', range(len(ADD_ERRORS)))
def test_add_family_errors(i):
    same_error(ADD_ERRORS[i])


# ---- einsum ----------------------------------------------------------------------------

EINSUM = [('ij,jk->ik', [(2, 3), (3, 4)]), ('ij,jk', [(2, 3), (3, 4)]), ('ii', [(3, 3)]), ('ii->i', [(3, 3)]),
          ('ij->', [(2, 3)]), ('ij->j', [(2, 3)]), ('ij->ji', [(2, 3)]), ('i,i->', [(3,), (3,)]),
          ('i,j->ij', [(2,), (3,)]), ('bij,bjk->bik', [(5, 2, 3), (5, 3, 4)]), ('...ij,...jk', [(5, 2, 3), (3, 4)]),
          ('...ij,...jk->...ik', [(2, 1, 2, 3), (5, 3, 4)]), ('i j , j k -> i k', [(2, 3), (3, 4)]),
          ('Ab,bC->AC', [(2, 3), (3, 4)]), ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 5)]), ('ij,jk->ik', [(2, 3), (1, 4)]),
          ('bi,bj->bij', [(4, 2), (4, 3)]), ('i...->...', [(2, 3, 4)]), ('ba', [(2, 3)]), ('iij->j', [(3, 3, 2)])]


@pytest.mark.parametrize('eq,shapes', EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(eq, shapes):
    check(lambda t, *ops: t.einsum(eq, *ops), shapes)


def test_einsum_list_and_sublist_and_int():
    check(lambda t, a, b: t.einsum('ij,jk->ik', [a, b]), [(2, 3), (3, 4)])
    check(lambda t, a, b: t.einsum('ij,jk->ik', (a, b)), [(2, 3), (3, 4)], 'int64')
    check(lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2], [0, 2]), [(2, 3), (3, 4)])
    check(lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2]), [(2, 3), (3, 4)])
    check(lambda t, a, b: t.einsum(a, [Ellipsis, 1], b, [1, 2]), [(5, 2, 3), (3, 4)], name=False)
    check(lambda t, a: t.einsum('ij->', a), [(2, 3)])
    check(lambda t, a: t.einsum('ij->j', a), [(2, 3)])
    check(lambda t, a, b: t.einsum('ij,jk->ik', a, b), [(2, 3), (3, 4)])


EINSUM_ERRORS = [
    lambda t: t.einsum('ij,jk->ik', T(t, 2, 3), T(t, 4, 4)),
    lambda t: t.einsum('ij,jk->ik', T(t, 2, 3), T(t, 3, 4, dtype='float64')),
    lambda t: t.einsum('ij,jk', T(t, 2, 3)),
    lambda t: t.einsum('ij,jk->ik', T(t, 2, 3), T(t, 3, 4), T(t, 2)),
    lambda t: t.einsum('ij->ij', T(t, 2, 3), T(t, 3, 4)),
    lambda t: t.einsum('ijk,jk->ik', T(t, 2, 3), T(t, 3, 4)),
    lambda t: t.einsum('ij,jk->il', T(t, 2, 3), T(t, 3, 4)),
    lambda t: t.einsum('ij,jk->ii', T(t, 2, 3), T(t, 3, 4)),
    lambda t: t.einsum('i1,1k->ik', T(t, 2, 3), T(t, 3, 4)),
    lambda t: t.einsum('ii->i', T(t, 2, 3)),
    lambda t: t.einsum('ij,jk->ik', T(t, 2, 3, dtype='bool'), T(t, 3, 4, dtype='bool')),
]


@pytest.mark.parametrize('i', range(len(EINSUM_ERRORS)))
def test_einsum_errors(i):
    same_error(EINSUM_ERRORS[i])


# ---- cross, trace, cdist, chain_matmul ------------------------------------------------

def test_cross():
    check(lambda t, a, b: t.cross(a, b, dim=1), [(4, 3), (4, 3)])
    check(lambda t, a, b: t.cross(a, b, dim=0), [(3, 4), (3, 4)])
    check(lambda t, a, b: t.cross(a, b, dim=-1), [(2, 5, 3), (2, 5, 3)])
    check(lambda t, a, b: a.cross(b, dim=1), [(4, 3), (1, 3)])
    check(lambda t, a, b: t.cross(a, b), [(3, 1), (3, 4)])
    check(lambda t, a, b: t.cross(a, b, dim=0), [(3,), (3,)], 'int64')


def test_cross_default_dim_warns():
    a, b = make([(4, 3), (4, 3)])
    with pytest.warns(UserWarning, match='dim'):
        r_tl = torchlike.cross(*a)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        r_th = torch.cross(*b)
    assert_same(r_tl, r_th)


CROSS_ERRORS = [
    lambda t: t.cross(T(t, 2, 4), T(t, 2, 4)),
    lambda t: t.cross(T(t, 4, 3), T(t, 4, 3), dim=0),
    lambda t: t.cross(T(t, 2, 3), T(t, 2, 3, dtype='float64'), dim=1),
    lambda t: t.cross(T(t, 2, 3), T(t, 3, 3), dim=1),
    lambda t: t.cross(T(t, 3), T(t, 3), dim=1),
    lambda t: t.cross(T(t, 3, dtype='bool'), T(t, 3, dtype='bool'), dim=0),
]


@pytest.mark.parametrize('i', range(len(CROSS_ERRORS)))
def test_cross_errors(i):
    same_error(CROSS_ERRORS[i])


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int64', 'int32', 'uint8', 'float16', 'complex64'])
def test_trace(dtype):
    check(lambda t, a: t.trace(a), [(3, 3)], dtype)
    check(lambda t, a: a.trace(), [(2, 4)], dtype)


@pytest.mark.parametrize('p', [2.0, 1.0, 0.0, 3.0, 0.5, float('inf')])
@pytest.mark.parametrize('shapes', [((3, 4), (5, 4)), ((2, 3, 4), (2, 5, 4)), ((2, 3, 4), (5, 4)), ((0, 4), (3, 4))],
                         ids=str)
def test_cdist(p, shapes):
    check(lambda t, a, b: t.cdist(a, b, p=p), shapes, 'float64')
    check(lambda t, a, b: t.cdist(a, b, p=p), shapes, 'float32', name=False)


@pytest.mark.parametrize('mode', ['use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist',
                                  'donot_use_mm_for_euclid_dist'])
@pytest.mark.parametrize('shapes', [((3, 4), (5, 4)), ((30, 4), (5, 4)), ((2, 3, 4), (40, 4))], ids=str)
def test_cdist_modes(mode, shapes):
    check(lambda t, a, b: t.cdist(a, b, compute_mode=mode), shapes, 'float64')


def test_cdist_zero_distance_grad():
    # identical points: torch's gradient is 0, not NaN
    a_th = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    a_tl = torchlike.ones(2, 3, dtype=torchlike.float64, requires_grad=True)
    torch.cdist(a_th, a_th.detach(), compute_mode='donot_use_mm_for_euclid_dist').sum().backward()
    torchlike.cdist(a_tl, a_tl.detach(), compute_mode='donot_use_mm_for_euclid_dist').sum().backward()
    assert_same(a_tl.grad, a_th.grad)


CDIST_ERRORS = [
    lambda t: t.cdist(T(t, 4, 3), T(t, 5, 3, dtype='float64')),
    lambda t: t.cdist(T(t, 4, 3, dtype='int64'), T(t, 5, 3, dtype='int64')),
    lambda t: t.cdist(T(t, 4, 3), T(t, 5, 4)),
    lambda t: t.cdist(T(t, 4, 3), T(t, 5, 3), p=-1),
    lambda t: t.cdist(T(t, 3), T(t, 5, 3)),
    lambda t: t.cdist(T(t, 4, 3), T(t, 5, 3), compute_mode='foo'),
    lambda t: t.cdist(T(t, 2, 3, 3), T(t, 3, 4, 3)),
    lambda t: t.cdist(T(t, 3, 3, dtype='float16'), T(t, 4, 3, dtype='float16')),
]


@pytest.mark.parametrize('i', range(len(CDIST_ERRORS)))
def test_cdist_errors(i):
    same_error(CDIST_ERRORS[i])


def test_chain_matmul():
    check(lambda t, a, b, c: t.chain_matmul(a, b, c), [(2, 3), (3, 4), (4, 5)], name=False)
    check(lambda t, a: t.chain_matmul(a), [(2, 3)])
    with pytest.warns(UserWarning, match='deprecated'):
        torchlike.chain_matmul(torchlike.ones(2, 2), torchlike.ones(2, 2))


CHAIN_ERRORS = [
    lambda t: t.chain_matmul(T(t, 4, 3), T(t, 3)),
    lambda t: t.chain_matmul(T(t, 4, 3), T(t, 4, 3)),
    lambda t: t.chain_matmul(),
]


@pytest.mark.parametrize('i', range(len(CHAIN_ERRORS)))
def test_chain_matmul_errors(i):
    same_error(CHAIN_ERRORS[i])


def test_no_recompile_for_new_values():
    # a product compiles once per (shape, dtype); new values and coefficients reuse the program
    from torchlike._ops import linalg
    a = torchlike.ones(2, 3)
    b = torchlike.ones(3, 4)
    i = torchlike.ones(2, 4)
    torchlike.addmm(i, a, b, beta=0.5, alpha=2.0)
    n = len(linalg.addmm.cache)
    f = next(iter(linalg.addmm.cache.values()))
    size = f._cache_size()
    for k in range(3):
        torchlike.addmm(i * k, a, b, beta=0.1 * k + 0.5, alpha=1.5 * k + 0.1)
    assert len(linalg.addmm.cache) == n
    assert f._cache_size() == size


def test_double_backward():
    tl, th = make([(2, 3), (3, 4)], 'float64', requires_grad=True)
    outs = []
    for lib, (a, b) in ((torchlike, tl), (torch, th)):
        y = lib.matmul(a, b).pow(2).sum() if hasattr(lib.Tensor, 'pow') else (lib.matmul(a, b) * lib.matmul(a, b)).sum()
        (ga,) = lib.autograd.grad(y, a, create_graph=True)
        (gb,) = lib.autograd.grad(ga.sum(), b)
        outs.append((ga, gb))
    assert_same(outs[0][0], outs[1][0])
    assert_same(outs[0][1], outs[1][1])
