"""diff, complex/polar, isin, unravel_index, cov/corrcoef, trapezoid family, histogram(dd), sum_to_size,
unsafe_split/chunk, the *_copy view variants, empty_permuted/new_empty_strided: values, dtypes, gradients and
error types against real torch (the OpInfo harness covers more samples; these pin the cases it does not)."""
import numpy as np
import pytest
import torch
import torchlike
from conftest import check, assert_same_named

A = np.array([[1.5, -2.0, 3.0, 0.5], [4.0, 1.0, -1.0, 2.0], [0.0, 2.5, 1.0, -3.0]], np.float32)


def t(L, a=A, grad=False, dtype=None):
    x = L.tensor(a, dtype=dtype)
    return x.requires_grad_() if grad else x


def grad_of(fn):
    """fn(L, x) -> output; returns (output, x.grad) after backward of the output's (real) sum."""
    def run(L):
        x = t(L, grad=True)
        r = fn(L, x)
        s = r.abs().sum() if r.dtype.is_complex else r.sum()
        s.backward()
        return r.detach(), x.grad
    return run


@pytest.mark.parametrize('fn', [
    lambda L: L.diff(t(L), n=2, dim=0, prepend=t(L, A[:1]), append=t(L, A[:2], dtype=L.float64)),
    lambda L: L.diff(L.tensor([1, 3, 6]), prepend=L.tensor([0.5])),        # int with float prepend: float32
    lambda L: L.diff(L.tensor([True, False, False])),                     # bool: logical xor
    lambda L: t(L).diff(n=9),
    lambda L: L.diff(L.tensor(1.)),                                       # errors as torch
    lambda L: L.diff(t(L), n=-1),
    lambda L: L.diff(t(L), prepend=L.ones(4)),
    lambda L: L.diff(t(L), prepend=1),
])
def test_diff(fn):
    check(fn)


def test_diff_grad():
    check(grad_of(lambda L, x: L.diff(x, n=2)))


@pytest.mark.parametrize('name', ['complex', 'polar'])
def test_complex_polar(name):
    check(lambda L: getattr(L, name)(t(L), t(L, A[:1] * 2)))
    check(lambda L: getattr(L, name)(t(L, grad=True), t(L, A[::-1].copy(), grad=True)).grad_fn.name())
    def g(L):
        a, b = t(L, grad=True), t(L, A[::-1].copy(), grad=True)
        (getattr(L, name)(a, b) * L.tensor(1 - 2j)).real.sum().backward()
        return a.grad, b.grad
    check(g)
    for bad in (lambda L: getattr(L, name)(t(L), t(L, dtype=L.float64)),     # dtype mismatch
                lambda L: getattr(L, name)(L.ones(2, dtype=L.long), L.ones(2, dtype=L.long)),
                lambda L: getattr(L, name)(t(L), 1.0)):
        check(bad)


@pytest.mark.parametrize('fn', [
    lambda L: L.isin(L.tensor([1, 2, 3]), L.tensor([2.0, 5.0])),
    lambda L: L.isin(2, L.tensor([1, 2])),
    lambda L: L.isin(L.tensor([[1, 2], [3, 4]]), 3, invert=True),
    lambda L: L.isin(L.tensor([1.0, float('nan')]), L.tensor([float('nan'), 1.0])),
    lambda L: L.isin(L.tensor([1, 2]), L.tensor([], dtype=L.long)),
    lambda L: L.isin(1, 2),
    lambda L: L.isin(L.tensor([True]), L.tensor([True])),
    lambda L: L.unravel_index(L.tensor([[5, -1], [0, 7]]), (2, 4)),
    lambda L: L.unravel_index(L.tensor(3), 5),
    lambda L: L.unravel_index(L.tensor(1.0), (2,)),
    lambda L: L.unravel_index(L.tensor(1), (2, -1)),
])
def test_isin_unravel(fn):
    check(fn)


@pytest.mark.parametrize('fn', [
    lambda L: L.cov(t(L)),
    lambda L: L.cov(t(L), correction=0, fweights=L.tensor([1, 2, 0, 3]), aweights=L.tensor([.5, 1., 2., .25])),
    lambda L: L.cov(L.tensor([1, 2, 4])),                                 # integral -> float32
    lambda L: L.cov(t(L), aweights=L.tensor([.5, 1., 2., .25], dtype=L.float64)),   # promotes
    lambda L: L.cov(t(L), fweights=L.tensor([1., 2., 0., 3.])),
    lambda L: L.cov(t(L), fweights=L.tensor([1, -2, 0, 3])),
    lambda L: L.cov(L.ones(2, 2, 2)),
    lambda L: L.corrcoef(t(L)),
    lambda L: L.corrcoef(L.tensor([1.0, 2.0, 4.0])),
])
def test_cov_corrcoef(fn):
    check(fn)


def test_cov_corrcoef_grad():
    check(grad_of(lambda L, x: L.cov(x, aweights=L.tensor([.5, 1., 2., .25]))))
    check(grad_of(lambda L, x: L.corrcoef(x)))


@pytest.mark.parametrize('name', ['trapezoid', 'trapz', 'cumulative_trapezoid'])
def test_trapezoid(name):
    f = lambda L: getattr(L, name)
    check(lambda L: f(L)(t(L)))
    check(lambda L: f(L)(t(L), dx=0.5, dim=0))
    check(lambda L: f(L)(t(L), L.tensor([0., 1., 3., 4.], dtype=L.float64)))
    check(lambda L: f(L)(L.tensor([1, 2, 4]), L.tensor([0, 1, 3])))       # integral -> float32
    check(lambda L: f(L)(L.ones(2, 0)))
    check(grad_of(lambda L, x: f(L)(x, L.tensor([0., 1., 3., 4.]))))
    for bad in (lambda L: f(L)(t(L), L.ones(3)), lambda L: f(L)(L.tensor([True, False])),
                lambda L: f(L)(t(L), dim=2), lambda L: f(L)(L.tensor(1.))):
        check(bad)


def test_histogram():
    x = np.array([1., 2., 1., 4., 2.5, 7.], np.float32)
    for kw in ({'bins': 3}, {'bins': 4, 'range': (0., 5.), 'density': True},
               {'bins': 2, 'weight': np.arange(6, dtype=np.float32)}):
        def f(L, kw=kw):
            k = {a: (L.tensor(v) if isinstance(v, np.ndarray) else v) for a, v in kw.items()}
            return L.histogram(L.tensor(x), **k)
        assert_same_named(f(torchlike), f(torch))
    f = lambda L: L.histogram(L.tensor(x), L.tensor([0., 2., 5.]), density=True)
    assert_same_named(f(torchlike), f(torch))
    f = lambda L: L.histogram(L.ones(3), 2)                                # equal min/max widened by 0.5
    assert_same_named(f(torchlike), f(torch))
    f = lambda L: L.histogramdd(L.tensor(A[:, :2]), bins=[2, 3], range=[-3., 5., -3., 3.])
    assert_same_named(f(torchlike), f(torch))
    for bad in (lambda L: L.histogram(L.tensor([1, 2]), 2), lambda L: L.histogram(L.tensor(x), 0),
                lambda L: L.histogram(L.tensor(x), 2, range=(3., 1.)),
                lambda L: L.histogram(L.tensor([1., float('nan')]), 2),
                lambda L: L.histogramdd(L.tensor(x), 2)):
        check(bad)


def test_sum_to_size_unsafe():
    check(grad_of(lambda L, x: x.sum_to_size(1, 4)))
    check(lambda L: t(L).sum_to_size((4,)))
    check(lambda L: t(L).sum_to_size(2, 4))
    for name, args in (('unsafe_chunk', (2, 1)), ('unsafe_split', (2, 1)), ('unsafe_split_with_sizes', ([1, 3], 1))):
        def g(L, name=name, args=args):
            x = t(L, grad=True)
            outs = getattr(L, name)(x, *args)
            (outs[0] * 2).sum().backward()
            return outs[0].detach(), x.grad, outs[0].grad_fn.name(), outs[0]._base is None
        check(g)


@pytest.mark.parametrize('name,args', [
    ('expand_copy', ((2, 3, 4),)), ('diagonal_copy', (1,)), ('alias_copy', ()), ('view_copy', ((2, 6),)),
    ('permute_copy', ((1, 0),)), ('split_with_sizes_copy', ([1, 3], 1)), ('unbind_copy', (1,)),
    ('unfold_copy', (1, 2, 1)), ('squeeze_copy', ()), ('unsqueeze_copy', (0,)), ('transpose_copy', (0, 1)),
    ('t_copy', ()), ('as_strided_copy', ((2, 2), (1, 2), 1))])
def test_copy_variants(name, args):
    def g(L):
        x = t(L, grad=True)
        r = getattr(L, name)(x, *args)
        r0 = r if isinstance(r, L.Tensor) else r[0]
        (r0 * 3).sum().backward()
        return r if isinstance(r, L.Tensor) else tuple(r), x.grad, r0.grad_fn.name(), r0._base is None, \
            r0.is_contiguous()
    check(g)


def test_empty_permuted_new_empty_strided():
    check(lambda L: (L.empty_permuted((2, 3, 4), (0, 2, 1)).shape, L.empty_permuted((2, 3), (1, 0)).dtype))
    check(lambda L: L.empty_permuted((2, 3), (0, 0)))
    check(lambda L: L.empty_permuted((2, 3), (0,)))
    check(lambda L: (lambda r: (r.shape, r.dtype))(L.ones(2, dtype=L.float64).new_empty_strided((2, 3), (1, 2))))
