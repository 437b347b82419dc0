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
