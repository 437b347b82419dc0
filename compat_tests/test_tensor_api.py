"""Tensor attributes, conversions and Python protocol methods against real torch."""
import copy
import pickle

import numpy as np
import pytest

from conftest import check


def data(T):
    return T.tensor([[1.5, -2.0, 3.0], [4.0, 5.25, -6.0]])


def test_metadata():
    def f(T):
        x = data(T)
        return (tuple(x.shape), x.size(), x.size(1), x.size(-1), x.dim(), x.ndim, x.numel(), x.nelement(),
                str(x.dtype), str(x.device), x.stride(), x.stride(0), x.is_contiguous(), x.element_size(),
                x.is_floating_point(), x.is_complex(), len(x), x.itemsize, x.nbytes, repr(x.shape), x.is_cuda,
                x.get_device(), x.is_leaf, x.requires_grad, x.layout is not None)
    check(f)


def test_size_errors():
    check(lambda T: data(T).size(2))
    check(lambda T: len(T.tensor(1.0)))


def test_size_object():
    def f(T):
        s = data(T).shape
        return (s == (2, 3), s[0], tuple(s[1:]), repr(s[1:]), s.numel(), repr(s + (4,)), str(s))
    check(f)


def test_conversions():
    def f(T):
        x = data(T)
        return (x.float(), x.double(), x.half(), x.long(), x.int(), x.short(), x.bool(), x.byte(), x.char(),
                x.bfloat16().float(), x.to(T.int32), x.to('cpu'), x.to(T.zeros(1, dtype=T.float64)),
                x.to('cpu', T.float64), x.to(dtype=T.float16, copy=True), x.type(T.float64), x.type(),
                x.type('torch.LongTensor'), x.cpu(), x.clone(), x.detach(), x.contiguous())
    check(f, atol=1e-2)


def test_python_scalars():
    def f(T):
        s = T.tensor(2.5)
        i = T.tensor(7)
        return (float(s), int(s), int(i), i.__index__(), bool(s), bool(T.tensor(0)), s.item(), i.item(),
                complex(s), f'{s:.2f}', f'{i:d}', [10, 20, 30, 40, 50, 60, 70, 80][i], T.tensor([3]).item())
    check(f)


def test_python_scalar_errors():
    check(lambda T: float(data(T)))
    check(lambda T: bool(data(T)))
    check(lambda T: T.tensor(2.5).__index__())
    check(lambda T: [1, 2][T.tensor([1, 0])])


def test_tolist_numpy_array():
    def f(T):
        x = data(T)
        return (x.tolist(), T.tensor(3).tolist(), x.numpy().tolist(), np.asarray(x).dtype.str,
                x.long().tolist(), T.tensor([True, False]).tolist())
    check(f)


def test_numpy_requires_grad_raises():
    check(lambda T: T.ones(2, requires_grad=True).numpy())


def test_iteration_and_hash():
    def f(T):
        x = data(T)
        rows = [r for r in x]
        return rows, len({x, x}), hash(x) == hash(x), x in {x: 1}
    check(f)


def test_iter_0d_raises():
    check(lambda T: list(T.tensor(1.0)))


def test_operators():
    def f(T):
        x = data(T)
        y = T.tensor([[2.0, 2.0, 2.0], [0.5, 0.5, 0.5]])
        return (x + y, x - y, x * y, x / y, -x, +x, abs(x), x ** 2, 2 ** y, 1 - x, 2 / y, x + 1, 3 * x,
                x == y, x != y, x < y, x <= y, x > y, x >= y, x == 2.0, x @ y.T if hasattr(x, 'T') else x,
                x // y, x % y)
    check(f)


def test_int_operators():
    def f(T):
        a = T.tensor([6, -7, 8])
        b = T.tensor([4, 2, -3])
        return (a & b, a | b, a ^ b, ~a, a << 1, a >> 1, a // b, a % b, a / b, a * 2, a + True)
    check(f)


def test_operator_type_errors():
    check(lambda T: T.ones(2) + 'a')
    check(lambda T: T.ones(2) == None)  # noqa: E711
    check(lambda T: T.ones(2) != None)  # noqa: E711


def test_inplace_operators():
    def f(T):
        x = T.ones(3)
        x += 2
        x *= T.tensor([1.0, 2.0, 3.0])
        x -= 1
        x /= 2
        return x
    check(f)


def test_new_factories():
    def f(T):
        x = T.ones(2, dtype=T.float64)
        return (x.new_zeros(3), x.new_ones((2, 2)), x.new_full((2,), 7), x.new_tensor([1, 2]),
                x.new_empty(0).shape)
    check(f)


def test_deepcopy_and_pickle():
    def f(T):
        x = data(T).requires_grad_()
        c = copy.deepcopy(x)
        p = pickle.loads(pickle.dumps(data(T)))
        return c, c.requires_grad, c is not x, p
    check(f)


@pytest.mark.parametrize('data', ['a', ['a'], [['a']], [1, 'a'], b'ab', [None], None])
def test_tensor_from_bad_data(data):
    # regression: a str first in a list is torch's ValueError ('too many dimensions'), None a RuntimeError
    check(lambda T: T.tensor(data))
    check(lambda T: T.as_tensor(data))


# ---- resize_ / resize_as_ (torchlike/_ops/resize.py) ------------------------------------------------------

_RESIZE = {
    'shrink': lambda T: (lambda x: (x.resize_(2, 2) is x, x, x._version))(T.arange(6.)),
    'grow_keeps_prefix': lambda T: (lambda x: (x.shape, x.flatten()[:6]))(T.arange(6.).resize_(3, 3)),
    'size_forms': lambda T: (T.ones(4).resize_((2, 2)).shape, T.ones(4).resize_(T.Size([4, 1])).shape),
    'resize_as_': lambda T: T.ones(2).resize_as_(T.zeros(1, 2)).shape,
    'requires_grad': lambda T: T.ones(3, requires_grad=True).resize_(2),
    'negative': lambda T: T.ones(2).resize_(2, -1),
}


@pytest.mark.parametrize('case', sorted(_RESIZE))
def test_resize(case):
    check(_RESIZE[case])


def test_resize_growth_is_filled_under_determinism():
    def fn(T):
        prev = T.are_deterministic_algorithms_enabled()
        T.use_deterministic_algorithms(True)
        try:
            return T.arange(3.).resize_(5), T.arange(3).resize_(2, 2)
        finally:
            T.use_deterministic_algorithms(prev)
    check(fn)
