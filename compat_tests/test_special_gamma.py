"""torch.igamma / igammac and torch.special.gammainc / gammaincc against torch."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import check

_A = np.array([0., 0.5, 1., 2.5, 7., 30., -1., np.inf, np.nan, 1e-3, 150.])
_X = np.array([0., 0.1, 1., 3., 10., 40., np.inf, 1e-4, 2., 200., 149.])
_GRID_A, _GRID_X = [g.ravel() for g in np.meshgrid(_A, _X)]


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('name', ['igamma', 'igammac', 'special.gammainc', 'special.gammaincc'])
def test_values(name, dtype):
    def fn(T):
        f = T.special if name.startswith('special.') else T
        return getattr(f, name.split('.')[-1])(T.tensor(_GRID_A.astype(dtype)), T.tensor(_GRID_X.astype(dtype)))
    check(fn, atol=1e-5, rtol=1e-4 if dtype == 'float32' else 1e-7)


@pytest.mark.parametrize('name', ['igamma', 'igammac'])
def test_gradient_in_other_and_not_in_input(name):
    def grad_other(T):
        x = T.tensor([0.5, 3., 10.], dtype=T.float64, requires_grad=True)
        y = getattr(T, name)(T.tensor([1., 2.5, 7.], dtype=T.float64), x)
        y.sum().backward()
        return x.grad, y.grad_fn.name()
    check(grad_other, atol=1e-10, rtol=1e-8)

    def grad_input(T):
        a = T.tensor([1., 2.], requires_grad=True)
        getattr(T, name)(a, T.tensor([0.5, 3.])).sum().backward()
    check(grad_input)


@pytest.mark.parametrize('case', ['ints', 'float_number', 'method', 'inplace', 'out', 'broadcast_promote'])
def test_forms_and_errors(case):
    fns = {
        'ints': lambda T: T.igamma(T.tensor([1, 2]), T.tensor([1, 2])),
        'float_number': lambda T: T.igamma(T.tensor([1.]), 2.),
        'method': lambda T: T.tensor([1., 2.]).igammac(T.tensor([0.5, 3.])),
        'inplace': lambda T: (lambda a: (a.igamma_(T.tensor([0.5, 3.])), a)[1])(T.tensor([1., 2.])),
        'out': lambda T: (lambda o: (T.igamma(T.tensor([1., 2.]), T.tensor([0.5, 3.]), out=o), o)[1])(T.empty(2)),
        'broadcast_promote': lambda T: T.special.gammaincc(T.tensor([[1.], [2.]]), T.tensor([0.5, 3.], dtype=T.float64)),
    }
    check(fns[case])
