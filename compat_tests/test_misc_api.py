"""torch-level helpers of torchlike/_ops/misc_api.py against torch."""
import subprocess
import sys
import warnings

import pytest

from conftest import check

_CASES = {
    'vander_int': lambda T: T.vander(T.tensor([1, 2, 3], dtype=T.int32), N=4),
    'vander_bool': lambda T: T.vander(T.tensor([True, False])),
    'vander_increasing': lambda T: T.vander(T.tensor([1., 2., -3.]), increasing=True),
    'vander_complex': lambda T: T.vander(T.tensor([1 + 1j, 2])),
    'vander_N0': lambda T: T.vander(T.tensor([1., 2.]), N=0),
    'vander_N1': lambda T: T.vander(T.tensor([1., 2.]), N=1),
    'vander_2d': lambda T: T.vander(T.ones(2, 2)),
    'vander_negative_N': lambda T: T.vander(T.tensor([1., 2.]), N=-1),
    'is_same_size': lambda T: (T.is_same_size(T.ones(2, 3), T.ones(2, 3)), T.ones(2).is_same_size(T.ones(3))),
    'frobenius_norm': lambda T: T.frobenius_norm(T.arange(6.).reshape(2, 3), dim=(0, 1), keepdim=True),
    'nuclear_norm': lambda T: (T.nuclear_norm(T.arange(6.).reshape(2, 3)), T.nuclear_norm(T.ones(2, 3), True),
                               T.nuclear_norm(T.arange(12.).reshape(2, 2, 3), dim=(1, 2))),
    'method_spellings': lambda T: (T.is_signed(T.ones(2, dtype=T.uint8)), T.get_device(T.ones(1)),
                                   T.detach_(T.ones(2) * 2), T.as_strided_(T.arange(6.), (2, 2), (1, 2))),
    'method_spelling_needs_tensor': lambda T: T.is_signed(3),
}


@pytest.mark.parametrize('case', sorted(_CASES))
def test_misc(case):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(_CASES[case])


@pytest.mark.parametrize('arg', ['DoubleTensor', 'torch.HalfTensor', 'IntTensor', 'torch.cuda.FloatTensor', 3,
                                 'float64', 'torch.Nope'])
def test_set_default_tensor_type(arg):
    def fn(T):
        a = getattr(T, arg) if arg in ('DoubleTensor', 'IntTensor', 'float64') else arg
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                T.set_default_tensor_type(a)
            return T.get_default_dtype(), T.tensor([1.5]).dtype
        finally:
            T.set_default_dtype(T.float32)
    check(fn)


_WARN_ONCE = """import warnings, {lib} as T
warnings.simplefilter('always')
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    for _ in range(2):
        T.set_default_tensor_type(T.FloatTensor)
        T.frobenius_norm(T.ones(2, 2), dim=(0, 1))
        T.nuclear_norm(T.ones(2, 2))
print(sorted(str(x.message)[:40] for x in w))
"""


def test_deprecation_warnings_once_per_process():
    out = [subprocess.run([sys.executable, '-c', _WARN_ONCE.format(lib=lib)], capture_output=True, text=True,
                          check=True).stdout for lib in ('torch', 'torchlike')]
    assert out[0] == out[1] and out[0].count("'") == 6, out


_X = [[1., 2., 4., 8., 3.], [10., 20., 40., 80., -7.], [0.5, -1., 2., 0., 1.]]
_GRAD = {
    'default_int': lambda T: T.gradient(T.tensor([[1, 2, 4, 8], [10, 20, 40, 80]])),
    'scalar_edge2': lambda T: T.gradient(T.tensor(_X), spacing=2.0, dim=1, edge_order=2),
    'per_dim_scalars': lambda T: T.gradient(T.tensor(_X), spacing=[2., 3.]),
    'coordinates': lambda T: T.gradient(T.tensor(_X), spacing=[T.tensor([0., 1., 1.5, 3.5, 4.])], dim=1),
    'coordinates_edge2': lambda T: T.gradient(T.tensor(_X, dtype=T.float64), edge_order=2,
                                              spacing=(T.tensor([0., .5, 2.], dtype=T.float64),
                                                       T.tensor([0., 1., 1.5, 3.5, 4.], dtype=T.float64))),
    'negative_dim_list': lambda T: T.gradient(T.tensor(_X), dim=[-1]),
    'edge_order_3': lambda T: T.gradient(T.tensor(_X), edge_order=3),
    'too_short': lambda T: T.gradient(T.ones(2, 2), edge_order=2),
    'spacing_length': lambda T: T.gradient(T.tensor(_X), spacing=[1., 2., 3.]),
    'repeated_dim': lambda T: T.gradient(T.tensor(_X), dim=(0, 0)),
    'mixed_spacing': lambda T: T.gradient(T.tensor(_X), spacing=[T.tensor([0., .5, 2.]), 2.0]),
}


@pytest.mark.parametrize('case', sorted(_GRAD))
def test_gradient(case):
    check(_GRAD[case], atol=1e-5)


def test_gradient_backward():
    def fn(T):
        x = T.tensor(_X, requires_grad=True)
        gs = T.gradient(x, spacing=[T.tensor([0., .5, 2.]), T.tensor([0., 1., 1.5, 3.5, 4.])], edge_order=2)
        (gs[0] * 2 + gs[1].sin()).sum().backward()
        return x.grad
    check(fn, atol=1e-5)
