"""Indexing against real torch: __getitem__ / __setitem__ (views, advanced indexing, masks), the gather/scatter
family, index_* / masked_*, take / put, nonzero, copy_ / fill_ / zero_ -- values, dtypes, shapes, gradients,
aliasing and exception types."""
import numpy as np
import pytest

import torch
import torchlike
from conftest import check, assert_same

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4, 5)).astype(np.float32)
B = RNG.standard_normal((4, 6)).astype(np.float32)
M = A > 0.2                      # a boolean mask of A's shape
I64 = np.array([[0, 1, 2, 0, 3, 1], [3, 3, 0, 1, 2, 0]], dtype=np.int64)   # scatter/gather index into B (dim 0)


def _weights(out):
    v = out.detach().numpy() if hasattr(out, 'detach') else np.asarray(out)
    return np.linspace(0.5, 2.0, max(v.size, 1))[:v.size].reshape(v.shape).astype(v.dtype)


def with_grads(fn, *arrays):
    """A check() function: ``fn(T, *leaves)`` with the float arrays as leaves requiring grad; returns the
    output and the leaves' gradients under a weighted-sum loss."""
    def run(T):
        leaves = [T.tensor(a, requires_grad=a.dtype.kind == 'f') if isinstance(a, np.ndarray) else a
                  for a in arrays]
        out = fn(T, *leaves)
        w = T.tensor(_weights(out))
        (out * w).sum().backward()
        return out, [x.grad for x in leaves if isinstance(x, (torch.Tensor, torchlike.Tensor)) and x.requires_grad]
    return run


def same_error(fn, match_message=True):
    """Both raise; same exception type (and, by default, the same message)."""
    errs = []
    for T in (torch, torchlike):
        with pytest.raises(Exception) as ei:
            fn(T)
        errs.append(ei.value)
    assert type(errs[1]) is type(errs[0]), f'torch: {errs[0]!r}\ntorchlike: {errs[1]!r}'
    if match_message:
        assert str(errs[1]) == str(errs[0]), f'torch: {errs[0]!r}\ntorchlike: {errs[1]!r}'


# ---- __getitem__ -------------------------------------------------------------------------

GET = {
    'int': 0, 'neg_int': -1, 'two_ints': (0, 1), 'three_ints': (2, -1, 4), 'slice': slice(1, 3),
    'slice_step': slice(None, None, 2), 'slice_start_step': (slice(None), slice(1, None, 2)), 'empty_slice': slice(5, 1),
    'neg_slice': slice(-2, None), 'clamped_slice': slice(-10, 10), 'col': (slice(None), 1), 'ellipsis': ...,
    'ellipsis_int': (..., 2), 'int_ellipsis': (0, ...), 'none': None, 'none_int': (None, 0),
    'int_none_slice': (0, None, slice(None, None, 2)), 'two_ellipsis': (..., 0, ...), 'empty_tuple': (),
    'list': [0, 2], 'list_neg': [-1, 0, -1], 'two_lists': ([0, 2], [1, 3]), 'lists_split': ([0, 2], slice(None), [1, 3]),
    'lists_adjacent': (slice(None), [0, 2], [1, 3]), 'nested_list': ([[0], [2]], [1, 3]),
    'int_then_list': (0, slice(None), [1, 3]), 'slice_int_list': (slice(None), 0, [1, 3]),
    'list_int_list': ([0, 1], 1, [2, 3]), 'list_slice_int': ([0, 1], slice(None), 1),
    'int_list_int': (1, [0, 1], 2), 'true': True, 'false': False, 'none_list': (None, [0, 1]),
    'list_none': ([0, 1], None), 'ellipsis_list': (..., [0, -1]), 'last_dim_list': (slice(None), slice(None), [4]),
    'numpy_index': np.array([0, 2]), 'numpy_int': np.int64(1), 'bool_list': [True, False, True],
    'empty_list': [], 'float_list': [0.7, 1.2], 'list_with_slice': [0, slice(None)],
    'slice_and_list_step': (slice(None, None, 2), [0, 3]),
}


@pytest.mark.parametrize('name', sorted(GET))
def test_getitem(name):
    idx = GET[name]
    check(with_grads(lambda T, x: x[idx], A))


TENSOR_GET = {
    'long': lambda T: T.tensor([[0, 1], [2, 0]]),
    'int32': lambda T: T.tensor([0, 2], dtype=T.int32),
    'zero_dim_int': lambda T: T.tensor(1),
    'zero_dim_bool': lambda T: T.tensor(True),
    'zero_dim_false': lambda T: T.tensor(False),
    'mask_full': lambda T: T.tensor(M),
    'mask_2d': lambda T: T.tensor(M[:, :, 0]),
    'mask_dim1': lambda T: (slice(None), T.tensor(M[0, :, 0])),
    'mask_and_list': lambda T: (T.tensor(M[:, 0, 0]), slice(None), [1]),
    'mask_empty': lambda T: T.tensor(np.zeros(3, bool)),
    'slice_tensor_bounds': lambda T: slice(T.tensor(1), T.tensor(3)),
    'tensor_and_slice': lambda T: (slice(1, None), T.tensor([0, 0, 3])),
    'repeated': lambda T: T.tensor([0, 0, 2, 0]),
}


@pytest.mark.parametrize('name', sorted(TENSOR_GET))
def test_getitem_tensor_index(name):
    check(with_grads(lambda T, x: x[TENSOR_GET[name](T)], A))


def test_getitem_dtypes():
    for dt in ('int64', 'int32', 'uint8', 'bool', 'float64', 'complex64'):
        arr = (A * 3).astype(dt) if dt != 'bool' else M
        check(lambda T: (T.tensor(arr)[1, ::2], T.tensor(arr)[[0, 2], 1], T.tensor(arr)[T.tensor(M)]))


def test_getitem_scalar_tensor():
    check(lambda T: (T.tensor(3.5)[...], T.tensor(3.5)[None], T.tensor(3.5)[()], T.tensor(3.5)[True]))


def test_getitem_byte_mask():
    def f(T):
        with pytest.warns(UserWarning):
            return T.tensor(A)[T.tensor(M.astype(np.uint8))]
    check(f)


GET_ERRORS = {
    'int_oob': 3, 'int_oob_neg': -4, 'second_oob': (0, 5), 'too_many': (0, 0, 0, 0), 'float': 1.5,
    'neg_step': slice(None, None, -1), 'zero_step': slice(None, None, 0), 'list_oob': [3],
    'list_oob_dim1': (slice(None), [5]), 'list_oob_second': ([0], [4]), 'str': 'a',
    'bcast': ([0, 1], [0, 1, 2]),
}


@pytest.mark.parametrize('name', sorted(GET_ERRORS))
def test_getitem_errors(name):
    same_error(lambda T: T.tensor(A)[GET_ERRORS[name]])


def test_getitem_tensor_errors():
    same_error(lambda T: T.tensor(A)[T.tensor([0.0])])
    same_error(lambda T: T.tensor(A)[T.tensor([0], dtype=T.int16)])
    same_error(lambda T: T.tensor(A)[T.tensor([True, False])])
    same_error(lambda T: T.tensor(A)[:, T.tensor(np.ones((4, 6), bool))])
    same_error(lambda T: T.tensor(A)[T.tensor([5])])
    same_error(lambda T: T.tensor(1.0)[0])


# ---- views: writes through basic indexing reach the base --------------------------------

def _base(T):
    return T.tensor(np.arange(20, dtype=np.float32).reshape(4, 5))


VIEW_WRITES = {
    'row_add_': lambda x: x[0].add_(1),
    'col_zero_': lambda x: x[:, 1].zero_(),
    'slice_then_setitem': lambda x: x[1:3].__setitem__(0, 5.0),
    'strided_fill_': lambda x: x[::2, 1::2].fill_(-1),
    'none_view': lambda x: x[None, 1].mul_(3),
    'ellipsis_view': lambda x: x[..., 2].copy_(x[:, 0]),
    'zero_dim_int_view': lambda x: x[torch.tensor(1) if isinstance(x, torch.Tensor) else torchlike.tensor(1)].add_(7),
    'element': lambda x: x[2, 3].fill_(100),
    'view_of_view': lambda x: x[1:][::2][0].zero_(),
}


@pytest.mark.parametrize('name', sorted(VIEW_WRITES))
def test_basic_index_is_view(name):
    def f(T):
        x = _base(T)
        other = x[1]            # another view made before the write
        VIEW_WRITES[name](x)
        return x, other, x._version
    check(f)


def test_advanced_index_is_copy():
    def f(T):
        x = _base(T)
        x[[0, 1]].add_(1)
        x[True].add_(1)
        x[T.tensor(np.ones(4, bool))].add_(1)
        x[T.tensor(True)].add_(1)
        return x
    check(f)


def test_view_sees_later_base_writes():
    def f(T):
        x = _base(T)
        v = x[1:3, ::2]
        x.mul_(2)
        x[2] = -1.0
        return v
    check(f)


def test_grad_fn_names():
    def f(T):
        y = T.tensor(A, requires_grad=True) * 1
        idx = [0, slice(1, 2), None, ..., slice(None), (slice(None), slice(None)), (None, 0), (0, None), [0],
               (slice(1, 3), [0, 1]), (slice(0, 3),), (slice(0, 2),), T.tensor(1), True]
        return [y[i].grad_fn.name() for i in idx] + [y[T.tensor(M)].grad_fn.name()]
    check(f)


# ---- __setitem__ -------------------------------------------------------------------------

SET = {
    'int': 0, 'two_ints': (0, 1), 'slice': slice(1, 3), 'col': (slice(None), 1), 'ellipsis': ..., 'full_slice': slice(None),
    'none_int': (None, 0), 'step': slice(None, None, 2), 'list': [0, 2], 'two_lists': ([0, 2], [1, 3]),
    'lists_adjacent': (slice(None), [0, 2], [1, 3]), 'lists_split': ([0, 2], slice(None), [1, 3]), 'true': True,
    'int_slice_list': (0, slice(None), [1, 3]), 'neg_list': [-1], 'mask_full': 'M', 'mask_rows': 'M0',
    'mask_dim1': 'M1', 'empty_mask': 'M_empty',
}


def _set_index(T, idx):
    if idx == 'M':
        return T.tensor(M)
    if idx == 'M0':
        return T.tensor(M[:, 0, 0])
    if idx == 'M1':
        return (slice(None), T.tensor(M[0, :, 0]))
    if idx == 'M_empty':
        return T.tensor(np.zeros((3, 4), bool))
    return idx


SET_VALUES = {
    'scalar': lambda T, s: 7.5,
    'int_scalar': lambda T, s: 3,
    'bool_scalar': lambda T, s: True,
    'zero_dim': lambda T, s: T.tensor(-2.0),
    'zero_dim_other_dtype': lambda T, s: T.tensor(4, dtype=T.int64),
    'one_elem': lambda T, s: T.tensor([[1.5]]),
    'row': lambda T, s: T.tensor(np.linspace(-1, 1, 5).astype(np.float32)),
    'full': lambda T, s: T.tensor(np.arange(np.prod(s), dtype=np.float32).reshape(s)),
    'leading_ones': lambda T, s: T.tensor(np.ones((1, 1) + tuple(s), np.float32)),
}


def _indexed_shape(idx):
    x = torch.tensor(A)
    return tuple(x[_set_index(torch, idx)].shape)


@pytest.mark.parametrize('vname', sorted(SET_VALUES))
@pytest.mark.parametrize('name', sorted(SET))
def test_setitem(name, vname):
    idx = SET[name]
    shape = _indexed_shape(idx)

    def f(T):
        x = T.tensor(A)
        x[_set_index(T, idx)] = SET_VALUES[vname](T, shape)
        return x, x._version
    check(f)


@pytest.mark.parametrize('name', sorted(SET))
def test_setitem_gradients(name):
    idx = SET[name]
    shape = _indexed_shape(idx)
    vals = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7

    def f(T, x, v):
        y = x * 1
        y[_set_index(T, idx)] = v * 2
        return y
    check(with_grads(f, A, vals))


def test_setitem_grad_fn_names():
    def f(T):
        out = []
        for idx in (0, slice(None), (None, 0), ..., (slice(1, 3), 2), [0, 2], 'M'):
            y = T.tensor(A, requires_grad=True) * 1
            y[_set_index(T, idx)] = 1.0
            out.append(y.grad_fn.name())
        return out
    check(f)


def test_setitem_scalar_gradient_through_views():
    def f(T, x):
        y = x * 1
        y[:, 1:3][0] = 100.0
        y[0, 0].add_(2)
        y[T.tensor(M)] = 0
        return y
    check(with_grads(f, A))


def test_setitem_value_requires_grad_only():
    def f(T, v):
        x = T.zeros(3, 4, 5)
        x[1, :, 2] = v
        x[[0, 2], 0] = v.sum()
        return x
    check(with_grads(f, np.arange(4, dtype=np.float32)))


def test_setitem_int_tensor_ops():
    def f(T):
        x = T.arange(12).reshape(3, 4)
        m = T.tensor(np.arange(12).reshape(3, 4) % 3 == 0)
        x[m] = 0
        x[[0, 1], [1, 2]] += 10
        x[x[:, 0] == 0] = 1
        x[1] = T.tensor([1.9, -1.9, 2.5, 0.0])      # basic setitem casts (truncation)
        return x
    check(f)


def test_setitem_repeated_iadd():
    check(lambda T: (lambda x: (x.__setitem__([0, 0, 1], x[[0, 0, 1]] + 1), x)[1])(T.zeros(5)))


SET_ERRORS = {
    'basic_bad_shape': (0, lambda T: T.ones(3)),
    'basic_too_many_dims': (0, lambda T: T.ones(2, 4, 5)),
    'adv_dtype': ([0, 2], lambda T: T.ones(5, dtype=T.float64)),
    'adv_bad_shape': ([0, 2], lambda T: T.ones(3)),
    'mask_bad_shape': ('M0', lambda T: T.ones(3)),
    'mask_wrong_size': (lambda T: T.tensor([True, False]), lambda T: 1.0),
    'oob': ([3], lambda T: 1.0),
    'overflow': (0, lambda T: 1e300),
    'complex_into_real': (0, lambda T: 1j),
    'list_value': (0, lambda T: [1.0, 2.0]),
    'numpy_value': (0, lambda T: np.ones(5)),
}


@pytest.mark.parametrize('name', sorted(SET_ERRORS))
def test_setitem_errors(name):
    idx, val = SET_ERRORS[name]

    def f(T):
        x = T.tensor(A)
        x[idx(T) if callable(idx) else _set_index(T, idx)] = val(T)
    same_error(f)


def test_setitem_overflow_uint8():
    def f(T):
        x = T.zeros(3, dtype=T.uint8)
        x[0] = 300
    same_error(f)
    check(lambda T: (lambda x: (x.__setitem__(0, -1), x)[1])(T.zeros(3, dtype=T.uint8)))


@pytest.mark.parametrize('idx', [0, [0], 'mask'])
def test_setitem_on_leaf_requiring_grad(idx):
    def f(T):
        x = T.tensor(A, requires_grad=True)
        x[T.tensor(M) if idx == 'mask' else idx] = 1.0
    same_error(f)

    def g(T):
        x = T.tensor(A, requires_grad=True)
        with T.no_grad():
            x[T.tensor(M) if idx == 'mask' else idx] = 1.0
        return x
    check(g)


def test_inplace_after_index_version_check():
    def f(T):
        x = T.tensor(B, requires_grad=True)
        y = x.exp()
        z = y[0]
        y[1] = 0.0
        z.sum().backward()
    same_error(f, match_message=False)


# ---- copy_ / fill_ / zero_ ---------------------------------------------------------------

def test_copy_():
    check(lambda T: T.zeros(3, 4).copy_(T.tensor(B[0, :4])))
    check(lambda T: T.zeros(3, 4, dtype=T.int64).copy_(T.tensor(B[:3, :4] * 3)))
    check(lambda T: T.zeros(4, 6).copy_(T.tensor(B.astype(np.float64)), non_blocking=True))
    check(lambda T: T.zeros(2, dtype=T.bool).copy_(T.tensor([0.0, 2.0])))

    def f(T, x, s):
        y = x * 1
        y.copy_(s * 3)
        return y
    check(with_grads(f, B, B[0]))

    def g(T, x):
        y = x * 1
        y.copy_(T.ones(6))
        return y
    check(with_grads(g, B))
    check(lambda T: (lambda y: (y.copy_(T.ones(6)), y.grad_fn.name())[1])(T.tensor(B, requires_grad=True) * 1))


def test_copy_errors():
    same_error(lambda T: T.zeros(3, 4).copy_(T.ones(5)))
    same_error(lambda T: T.zeros(3, 4).copy_(T.ones(2, 3, 4)))
    check(lambda T: (T.zeros(3, 4).copy_(1.5), T.zeros(2, dtype=T.uint8).copy_(300), T.zeros(2).copy_(True)))
    same_error(lambda T: T.tensor(B, requires_grad=True).copy_(T.ones(6)))


def test_fill_zero():
    check(lambda T: T.tensor(B).fill_(2.5))
    check(lambda T: T.tensor(B).fill_(T.tensor(3.0, dtype=T.float64)))
    check(lambda T: T.zeros(3, dtype=T.int32).fill_(2.9))
    check(lambda T: T.zeros(3, dtype=T.uint8).fill_(-1))
    check(lambda T: T.zeros(3, dtype=T.bool).fill_(5))
    check(lambda T: T.tensor(B).zero_())
    check(lambda T: (T.fill(T.tensor(B), 1.0), T.fill_(T.tensor(B), 2), T.zero_(T.tensor(B))))

    def f(T, x, v):
        y = x * 1
        y[1:].fill_(v)
        y[0].zero_()
        return y
    check(with_grads(f, B, np.array(1.5, np.float32)))
    check(lambda T: [(lambda y: (op(y), y.grad_fn.name())[1])(T.tensor(B, requires_grad=True) * 1)
                     for op in (lambda y: y.fill_(1), lambda y: y.fill_(T.tensor(1.0)), lambda y: y.zero_())])


def test_fill_errors():
    same_error(lambda T: T.zeros(3).fill_(T.tensor([1.0])))
    same_error(lambda T: T.zeros(3, dtype=T.uint8).fill_(300))
    same_error(lambda T: T.zeros(3, dtype=T.int8).fill_(2.0 ** 10))
    same_error(lambda T: T.zeros(3).fill_(1e300))
    same_error(lambda T: T.zeros(3, dtype=T.int64).fill_(2 ** 63))
    same_error(lambda T: T.tensor(B, requires_grad=True).zero_())


# ---- gather / scatter ---------------------------------------------------------------------

def test_gather():
    idx = I64
    check(with_grads(lambda T, x: T.gather(x, 0, T.tensor(idx)), B))
    check(with_grads(lambda T, x: x.gather(1, T.tensor(idx[:, :3].T.copy())), B))
    check(with_grads(lambda T, x: x.gather(-1, T.tensor([[5, 0], [1, 1], [2, 2]], dtype=T.int32)), B))
    check(with_grads(lambda T, x: x.gather(0, T.tensor(0)), np.array(2.0, np.float32)))
    check(with_grads(lambda T, x: x.gather(0, T.tensor([0, 0])), np.array(2.0, np.float32)))
    check(with_grads(lambda T, x: x.gather(1, T.zeros(2, 0, dtype=T.int64)), B))
    check(lambda T: T.tensor(I64).gather(1, T.tensor([[1, 0]])))
    check(lambda T: T.gather(T.tensor(B), 0, T.tensor(idx), out=T.empty(0)))
    check(lambda T: T.gather(T.zeros(5), 0, T.zeros(0, dtype=T.uint8)))


def test_gather_errors():
    same_error(lambda T: T.tensor(B).gather(0, T.tensor([[0.0]])))
    same_error(lambda T: T.tensor(B).gather(0, T.tensor([[0]], dtype=T.int16)))
    same_error(lambda T: T.tensor(B).gather(1, T.tensor([[0, 6]])))
    same_error(lambda T: T.tensor(B).gather(1, T.tensor([[0, -1]])))
    same_error(lambda T: T.tensor(B).gather(2, T.tensor([[0]])))
    same_error(lambda T: T.tensor(B).gather(1, T.tensor([0, 1])))
    same_error(lambda T: T.tensor(B).gather(1, T.zeros(5, 2, dtype=T.int64)))
    with pytest.raises(NotImplementedError):
        torchlike.tensor(B).gather(0, torchlike.tensor(I64), sparse_grad=True)


SCATTER_IDX = np.array([[0, 1, 2, 3, 0, 1], [2, 3, 0, 1, 3, 2]], dtype=np.int64)   # unique per column
SRC = RNG.standard_normal((3, 7)).astype(np.float32)


SRC_I = SRC[:2, :6].copy()         # src of the index's shape: differentiable in torch


def test_scatter_src_larger_than_index():
    # forward works; torch's backward rejects the index-shaped gradient it computes for src
    for op in ('scatter', 'scatter_add'):
        check(lambda T: getattr(T.tensor(B), op)(0, T.tensor(SCATTER_IDX), T.tensor(SRC)))
        check(with_grads(lambda T, x, s: getattr(x, op)(0, T.tensor(SCATTER_IDX), s), B, SRC))
    check(with_grads(lambda T, x, s: x.scatter_reduce(0, T.tensor(SCATTER_IDX), s, 'sum'), B, SRC))


def test_scatter():
    idx = SCATTER_IDX
    check(with_grads(lambda T, x, s: T.scatter(x, 0, T.tensor(idx), s), B, SRC_I))
    check(with_grads(lambda T, x, s: x.scatter(0, T.tensor(idx), src=s), B, SRC_I))
    check(with_grads(lambda T, x: x.scatter(0, T.tensor(idx), 2.5), B))
    check(with_grads(lambda T, x: x.scatter(0, T.tensor(idx), value=-1), B))
    check(with_grads(lambda T, x: x.scatter(1, T.tensor([[5, 0], [1, 2]], dtype=T.int32), 9.0), B))
    check(lambda T: T.tensor(B).scatter(0, T.tensor(idx), T.tensor(SRC), reduce='add'))
    check(lambda T: T.tensor(B).scatter(0, T.tensor(idx), 3.0, reduce='multiply'))
    check(lambda T: T.tensor(I64).scatter(0, T.tensor([[1, 0]]), 2.7))
    check(lambda T: T.scatter(T.tensor(B), 0, T.tensor(idx), T.tensor(SRC), out=T.empty(0)))

    def inplace(T, x, s):
        y = x * 1
        y.scatter_(0, T.tensor(idx), s)
        y.scatter_(1, T.tensor([[0], [5]]), 4.0)
        return y
    check(with_grads(inplace, B, SRC_I))


def test_scatter_reduce_not_differentiable():
    def f(T):
        x = T.tensor(B, requires_grad=True)
        y = x.scatter(0, T.tensor(SCATTER_IDX), 2.0, reduce='add')
        y.sum().backward()
    same_error(f)


def test_scatter_errors():
    x = lambda T: T.tensor(B)
    i = lambda T: T.tensor(SCATTER_IDX)
    same_error(lambda T: x(T).scatter(0, i(T), T.tensor(SRC, dtype=T.float64)))
    same_error(lambda T: x(T).scatter(0, i(T).float(), 1.0))
    same_error(lambda T: x(T).scatter(0, T.tensor([[4]]), 1.0))
    same_error(lambda T: x(T).scatter(0, T.tensor([[-1]]), 1.0))
    same_error(lambda T: x(T).scatter(0, i(T), T.ones(1, 1)))
    same_error(lambda T: x(T).scatter(0, i(T), T.tensor(1.0)))
    same_error(lambda T: x(T).scatter(0, i(T), T.tensor(SRC), reduce='mean'))
    check(lambda T: x(T).scatter(0, T.zeros(5, 1, dtype=T.int64), 1.0))
    same_error(lambda T: x(T).scatter(1, T.zeros(5, 1, dtype=T.int64), 1.0))
    same_error(lambda T: x(T).scatter(0, i(T), 300, reduce=None) if False else T.zeros(2, dtype=T.uint8).scatter(
        0, T.tensor([0]), 300))


def test_scatter_add():
    idx = I64           # repeated indices accumulate
    check(with_grads(lambda T, x, s: T.scatter_add(x, 0, T.tensor(idx), s), B, SRC_I))
    check(with_grads(lambda T, x, s: (lambda y: y.scatter_add_(1, T.tensor(idx[:, :2]), s))(x * 1), B, SRC_I))
    check(lambda T: T.tensor(I64).scatter_add(0, T.tensor([[1, 1]]), T.tensor([[5, 6]])))
    same_error(lambda T: T.tensor(B).scatter_add(0, T.tensor(idx), T.tensor(SRC).double()))
    same_error(lambda T: T.tensor(B).scatter_add(0, T.tensor([[9]]), T.tensor(SRC)))


@pytest.mark.parametrize('include_self', [True, False])
@pytest.mark.parametrize('reduce', ['sum', 'prod', 'mean', 'amax', 'amin'])
def test_scatter_reduce(reduce, include_self):
    idx = I64
    check(with_grads(lambda T, x, s: x.scatter_reduce(0, T.tensor(idx), s, reduce, include_self=include_self),
                     B, SRC_I))
    ints = (np.arange(24).reshape(4, 6) - 10).astype(np.int64)
    check(lambda T: T.tensor(ints).scatter_reduce(0, T.tensor(idx), T.tensor(ints[:3] * 3 - 7), reduce,
                                                  include_self=include_self))
    check(lambda T: (lambda y: y.scatter_reduce_(1, T.tensor(idx[:, :4]), T.tensor(SRC), reduce,
                                                 include_self=include_self))(T.tensor(B)))


def test_scatter_reduce_ties_and_zeros():
    # amax ties share the gradient; prod with zeros (single and double) in src and self
    x = np.array([1.0, 3.0, 0.0, 2.0], np.float32)
    s = np.array([3.0, 3.0, 2.0, 5.0, 0.0, 4.0, 0.0, 0.0], np.float32)
    i = np.array([1, 1, 0, 2, 0, 3, 2, 2], np.int64)
    for reduce in ('amax', 'amin', 'prod', 'mean', 'sum'):
        for inc in (True, False):
            check(with_grads(lambda T, a, b: a.scatter_reduce(0, T.tensor(i), b, reduce, include_self=inc), x, s))


def test_scatter_reduce_errors():
    same_error(lambda T: T.tensor(B).scatter_reduce(0, T.tensor(I64), T.tensor(SRC), 'foo'))
    check(lambda T: [T.tensor(B).scatter_reduce(0, T.tensor(I64), T.tensor(SRC), r) for r in ('max', 'min')])
    same_error(lambda T: T.tensor(B).scatter_reduce(0, T.tensor(I64), T.tensor(SRC).double(), 'sum'))
    same_error(lambda T: T.tensor(B).scatter_reduce(0, T.tensor([[7]]), T.tensor(SRC), 'sum'))


# ---- index_select / index_add / index_copy / index_fill / index_reduce -------------------

def test_index_select():
    check(with_grads(lambda T, x: T.index_select(x, 1, T.tensor([0, 5, 5, 2])), B))
    check(with_grads(lambda T, x: x.index_select(0, T.tensor(3)), B))
    check(with_grads(lambda T, x: x.index_select(-1, T.tensor([1, 0], dtype=T.int32)), B))
    check(with_grads(lambda T, x: x.index_select(0, T.tensor([0])), np.array(2.0, np.float32)))
    check(lambda T: T.tensor(I64).index_select(1, T.tensor([0, 0])))
    check(lambda T: T.index_select(T.tensor(B), 0, T.tensor([1, 2]), out=T.empty(0)))
    same_error(lambda T: T.tensor(B).index_select(0, T.tensor([[0]])))
    same_error(lambda T: T.tensor(B).index_select(0, T.tensor([0.0])))
    same_error(lambda T: T.tensor(B).index_select(0, T.tensor([4])))
    same_error(lambda T: T.tensor(B).index_select(0, T.tensor([-1])))
    same_error(lambda T: T.tensor(B).index_select(2, T.tensor([0])))
    same_error(lambda T: T.tensor(2.0).index_select(0, T.tensor([0, 0])))


def test_index_add():
    src = RNG.standard_normal((3, 6)).astype(np.float32)
    check(with_grads(lambda T, x, s: T.index_add(x, 0, T.tensor([0, 2, 0]), s), B, src))
    check(with_grads(lambda T, x, s: x.index_add(0, T.tensor([3, 1, 3], dtype=T.int32), s, alpha=-1.5), B, src))
    check(with_grads(lambda T, x, s: (x * 1).index_add_(1, T.tensor([1, 0]), s), B, src[:, :2].T.copy()[:, :4].T.copy()
                     if False else RNG.standard_normal((4, 2)).astype(np.float32)))
    check(lambda T: T.zeros(2, dtype=T.int64).index_add(0, T.tensor([0]), T.tensor([3]), alpha=2))
    check(lambda T: T.index_add(T.tensor(B), 0, T.tensor([1]), T.ones(1, 6), out=T.empty(0)))
    same_error(lambda T: T.tensor(B).index_add(0, T.tensor([0, 0]), T.ones(2, 6).double()))
    same_error(lambda T: T.tensor(B).index_add(0, T.tensor([0, 0]), T.ones(3, 6)))
    same_error(lambda T: T.tensor(B).index_add(0, T.tensor([0, 5]), T.ones(2, 6)))
    same_error(lambda T: T.tensor(B).index_add(0, T.tensor([0, -1]), T.ones(2, 6)))
    same_error(lambda T: T.tensor(B).index_add(0, T.tensor([0, 1]), T.ones(2, 5)))
    same_error(lambda T: T.tensor(B).index_add(0, T.tensor([[0]]), T.ones(1, 6)))
    same_error(lambda T: T.tensor(B).index_add(0, T.tensor([0], dtype=T.int16), T.ones(1, 6)))


def test_index_copy():
    src = RNG.standard_normal((2, 6)).astype(np.float32)
    check(with_grads(lambda T, x, s: T.index_copy(x, 0, T.tensor([3, 0]), s), B, src))
    check(with_grads(lambda T, x, s: (x * 1).index_copy_(1, T.tensor([5]), s), B, src[:1].T.copy()[:4]))
    check(lambda T: T.index_copy(T.tensor(B), 0, T.tensor([1]), T.ones(1, 6), out=T.empty(0)))
    same_error(lambda T: T.tensor(B).index_copy(0, T.tensor([0, 2]).int(), T.ones(2, 6)))
    same_error(lambda T: T.tensor(B).index_copy(0, T.tensor([0, 2]), T.ones(2, 6).double()))
    same_error(lambda T: T.tensor(B).index_copy(0, T.tensor([0, 4]), T.ones(2, 6)))
    same_error(lambda T: T.tensor(B).index_copy(0, T.tensor([0, 1]), T.ones(1, 6)))
    same_error(lambda T: T.tensor(B).index_copy(0, T.tensor([0]), T.ones(1, 5)))
    same_error(lambda T: T.tensor(B).index_copy(0, T.tensor([[0]]), T.ones(1, 6)))


def test_index_fill():
    check(with_grads(lambda T, x: T.index_fill(x, 1, T.tensor([0, 2, 2]), -3.0), B))
    check(with_grads(lambda T, x: x.index_fill(1, T.tensor([-1]), 1), B))
    check(with_grads(lambda T, x, v: x.index_fill(0, T.tensor([1, 1, 3]), v), B, np.array(4.0, np.float32)))
    check(with_grads(lambda T, x, v: (x * 1).index_fill_(1, T.tensor(2), v * 2), B, np.array(4.0, np.float32)))
    check(lambda T: T.tensor(I64).index_fill(1, T.tensor([0, 1]), 1.5))
    check(lambda T: T.tensor(B).index_fill(1, T.tensor([0]), T.tensor(3.0, dtype=T.float64)))
    check(lambda T: (T.tensor(B, requires_grad=True) * 1).index_fill(0, T.tensor([0]), T.tensor(1.0)).grad_fn.name())
    same_error(lambda T: T.tensor(B).index_fill(1, T.tensor([0]), T.tensor([3.0])))
    same_error(lambda T: T.tensor(B).index_fill(1, T.tensor([6]), 1.0))
    same_error(lambda T: T.tensor(B).index_fill(1, T.tensor([-7]), 1.0))
    same_error(lambda T: T.tensor(B).index_fill(1, T.tensor([0]).int(), 1.0))
    same_error(lambda T: T.tensor(B).index_fill(1, T.tensor([[0]]), 1.0))
    same_error(lambda T: T.zeros(2, dtype=T.uint8).index_fill(0, T.tensor([0]), 300))


@pytest.mark.parametrize('include_self', [True, False])
@pytest.mark.parametrize('reduce', ['prod', 'mean', 'amax', 'amin'])
def test_index_reduce(reduce, include_self):
    src = RNG.standard_normal((3, 6)).astype(np.float32)
    src[0, 1] = 0.0
    check(with_grads(lambda T, x, s: x.index_reduce(0, T.tensor([0, 2, 0]), s, reduce, include_self=include_self),
                     B, src))
    ints = (np.arange(24).reshape(4, 6) - 10).astype(np.int64)
    check(lambda T: T.tensor(ints).index_reduce(1, T.tensor([1, 1, 5]), T.tensor(ints[:, :3] * 2 - 5), reduce,
                                                include_self=include_self))
    check(lambda T: T.tensor(B).index_reduce_(0, T.tensor([3], dtype=T.int32), T.tensor(src[:1]), reduce,
                                              include_self=include_self))


def test_index_reduce_errors():
    same_error(lambda T: T.tensor(B).index_reduce(0, T.tensor([0]), T.ones(1, 6), 'sum'))
    same_error(lambda T: T.tensor(B).index_reduce(0, T.tensor([4]), T.ones(1, 6), 'prod'))
    same_error(lambda T: T.tensor(B).index_reduce(0, T.tensor([-1]), T.ones(1, 6), 'prod'))
    same_error(lambda T: T.tensor(B).index_reduce(0, T.tensor([0]), T.ones(1, 6).double(), 'prod'))


# ---- index_put ----------------------------------------------------------------------------

def test_index_put():
    v = np.array([1.0, 2.0, 3.0], np.float32)
    check(with_grads(lambda T, x, s: T.index_put(x, (T.tensor([0, 2, 3]),), s[:, None] * T.ones(1, 6)), B, v))
    check(with_grads(lambda T, x, s: x.index_put((T.tensor([0, 2, 3]), T.tensor([1, 1, 5])), s), B, v))
    check(with_grads(lambda T, x, s: x.index_put([T.tensor([0, 0, 3]), T.tensor([1, 1, 5])], s, accumulate=True),
                     B, v))
    check(with_grads(lambda T, x, s: x.index_put((T.tensor([-1]),), s.sum()), B, v))
    check(with_grads(lambda T, x, s: x.index_put((T.tensor(B > 0),), s[0].double()), B, v))
    check(with_grads(lambda T, x, s: (x * 1).index_put_((T.tensor([1, 2]),), s[:2, None], accumulate=True), B, v))
    check(lambda T: T.index_put_(T.tensor(B), (T.tensor([True, False, True, False]),), T.tensor(2, dtype=T.int64)))


def test_index_put_errors():
    same_error(lambda T: T.tensor(B).index_put((T.tensor([0, 1]),), T.tensor(1.0, dtype=T.float64), accumulate=True))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([0, 1]),), T.ones(2, dtype=T.float64)))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([4]),), T.ones(6)))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([0, 1]),), T.ones(5)))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([0, 1]), T.tensor([0, 1, 2])), T.ones(1)))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([0]),) * 3, T.ones(1)))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([0.0]),), T.ones(1)))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([True, False]),), T.ones(1)))
    same_error(lambda T: T.tensor(B).index_put((T.tensor([0]),), 1.0))


# ---- masked_* -----------------------------------------------------------------------------

MB = B > 0


def test_masked_fill():
    check(with_grads(lambda T, x: T.masked_fill(x, T.tensor(MB), -1.0), B))
    check(with_grads(lambda T, x: x.masked_fill(T.tensor(MB[0]), 2), B))
    check(with_grads(lambda T, x: x[0].masked_fill(T.tensor(MB), 2), B))
    check(with_grads(lambda T, x, v: x.masked_fill(T.tensor(MB), v), B, np.array(3.0, np.float32)))
    check(with_grads(lambda T, x, v: (x * 1).masked_fill_(T.tensor(MB), v * v), B, np.array(3.0, np.float32)))
    check(lambda T: T.tensor(I64).masked_fill(T.tensor(I64 > 1), 7.9))
    check(lambda T: T.tensor(B).masked_fill(T.tensor(MB), T.tensor(1.0, dtype=T.float64)))
    check(lambda T: [(T.tensor(B, requires_grad=True) * 1).masked_fill(T.tensor(MB), v).grad_fn.name()
                     for v in (1.0, T.tensor(1.0))])


def test_masked_fill_errors():
    same_error(lambda T: T.tensor(B).masked_fill(T.tensor(MB).float(), 1.0))
    same_error(lambda T: T.tensor(B).masked_fill(T.tensor(MB).to(T.uint8), 1.0))
    same_error(lambda T: T.tensor(B).masked_fill(T.tensor(MB), T.tensor([1.0])))
    same_error(lambda T: T.tensor(B).masked_fill(T.ones(2, dtype=T.bool), 1.0))
    same_error(lambda T: T.tensor(B)[0].masked_fill_(T.tensor(MB), 1.0))
    same_error(lambda T: T.tensor(B).masked_fill(T.tensor(MB), 1j))


def test_masked_select():
    check(with_grads(lambda T, x: T.masked_select(x, T.tensor(MB)), B))
    check(with_grads(lambda T, x: x[0].masked_select(T.tensor(MB)), B))
    check(with_grads(lambda T, x: x.masked_select(T.tensor(MB[:, :1])), B))
    check(lambda T: T.tensor(I64).masked_select(T.tensor(I64 > 0)))
    check(lambda T: T.masked_select(T.tensor(B), T.tensor(MB), out=T.empty(0)))
    same_error(lambda T: T.tensor(B).masked_select(T.tensor(MB).float()))
    same_error(lambda T: T.tensor(B).masked_select(T.ones(2, dtype=T.bool)))


def test_masked_scatter():
    src = RNG.standard_normal((5, 6)).astype(np.float32)
    check(with_grads(lambda T, x, s: T.masked_scatter(x, T.tensor(MB), s), B, src))
    check(with_grads(lambda T, x, s: x[1].masked_scatter(T.tensor(MB), s), B, src))
    check(with_grads(lambda T, x, s: (x * 1).masked_scatter_(T.tensor(MB[0]), s), B, src))
    check(lambda T: T.tensor(I64).masked_scatter(T.tensor(I64 > 0), T.arange(12)))
    same_error(lambda T: T.tensor(B).masked_scatter(T.tensor(MB), T.ones(2)))
    same_error(lambda T: T.tensor(B).masked_scatter(T.tensor(MB), T.ones(30, dtype=T.float64)))
    same_error(lambda T: T.tensor(B).masked_scatter(T.tensor(MB).float(), T.ones(30)))


# ---- take / take_along_dim / put ----------------------------------------------------------

def test_take():
    check(with_grads(lambda T, x: T.take(x, T.tensor([[0, -1], [23, 0]])), B))
    check(with_grads(lambda T, x: x.take(T.tensor(5)), B))
    check(lambda T: T.take(T.tensor(B), T.tensor([1, 2]), out=T.empty(0)))
    same_error(lambda T: T.tensor(B).take(T.tensor([24])))
    same_error(lambda T: T.tensor(B).take(T.tensor([-25])))
    same_error(lambda T: T.tensor(B).take(T.tensor([1]).int()))
    same_error(lambda T: T.zeros(0).take(T.tensor([0])))


def test_take_along_dim():
    check(with_grads(lambda T, x: T.take_along_dim(x, T.tensor([[0], [5], [2], [2]]), 1), B))
    check(with_grads(lambda T, x: T.take_along_dim(x, T.tensor([[0, 1, 1, 3, 0, 2]]), dim=0), B))
    check(with_grads(lambda T, x: x.take_along_dim(T.tensor([0, 23, 5])), B))
    check(with_grads(lambda T, x: T.take_along_dim(x, T.tensor([[[0], [1]]]), 2), A))
    check(lambda T: T.take_along_dim(T.tensor(B), T.tensor([[0], [1]]), 1, out=T.empty(0)) if False else
          T.take_along_dim(T.tensor(B), T.tensor([[0], [1], [2], [3]]), 1, out=T.empty(0)))
    same_error(lambda T: T.take_along_dim(T.tensor(B), T.tensor([[0, 1]]), 0))
    same_error(lambda T: T.take_along_dim(T.tensor(B), T.tensor([[0]]).int(), 0))
    same_error(lambda T: T.take_along_dim(T.tensor(B), T.tensor([0, 1]), 0))
    same_error(lambda T: T.take_along_dim(T.tensor(B), T.tensor([0, 24])))
    same_error(lambda T: T.take_along_dim(T.tensor(B), T.tensor([-1])))
    # along a dim, torch wraps indices (Python modulo), out-of-range ones included
    check(with_grads(lambda T, x: T.take_along_dim(x, T.tensor([[4, -5, 3, 7, -1, 0]]), 1), B))
    same_error(lambda T: T.take_along_dim(T.zeros(0, 3), T.zeros(1, 3, dtype=T.int64), 0))


def test_put():
    v = np.array([1.0, 2.0, 3.0], np.float32)
    check(with_grads(lambda T, x, s: T.put(x, T.tensor([0, -1, 7]), s), B, v))
    check(with_grads(lambda T, x, s: x.put(T.tensor([[0, 0, 7]]), s, accumulate=True), B, v))
    check(with_grads(lambda T, x, s: (x * 1).put_(T.tensor([1, 2, 3]), s * 2), B, v))
    check(lambda T: T.tensor(I64).put_(T.tensor([0, 11]), T.tensor([-5, 5]), accumulate=True))
    same_error(lambda T: T.tensor(B).put(T.tensor([0, 24]), T.ones(2)))
    same_error(lambda T: T.tensor(B).put(T.tensor([0, 1]), T.ones(3)))
    same_error(lambda T: T.tensor(B).put(T.tensor([0, 1]), T.ones(2).double()))
    same_error(lambda T: T.tensor(B).put_(T.tensor([0, 1]).int(), T.ones(2)))
    same_error(lambda T: T.zeros(0).put_(T.tensor([0]), T.ones(1)))


# ---- nonzero / argwhere -------------------------------------------------------------------

@pytest.mark.parametrize('arr', [A, MB, I64, np.array(0.0), np.array(3.0), np.zeros((2, 0)), np.array([0, 1j])])
def test_nonzero(arr):
    check(lambda T: (T.nonzero(T.tensor(arr)), T.tensor(arr).nonzero(as_tuple=True), T.argwhere(T.tensor(arr)),
                     T.tensor(arr).argwhere(), T.nonzero(T.tensor(arr), as_tuple=True)))
    check(lambda T: T.nonzero(T.tensor(arr), out=T.empty(0, dtype=T.int64)))


def test_nonzero_static():
    check(lambda T: (T.nonzero_static(T.tensor(I64), size=3), T.nonzero_static(T.tensor(I64), size=20, fill_value=-7),
                     T.nonzero_static(T.tensor(3.0), size=2)))


# ---- in-place-modification checks (saved tensors) -------------------------------------

SAVES = {
    'gather': (lambda T, x, s: x.gather(1, T.tensor([[0, 1]] * 4)), True, False),
    'take': (lambda T, x, s: x.take(T.tensor([0, 5])), True, False),
    'masked_select': (lambda T, x, s: x.masked_select(T.tensor(MB)), True, False),
    'index_select': (lambda T, x, s: x.index_select(1, T.tensor([0, 2])), False, False),
    'getitem_adv': (lambda T, x, s: x[[0, 2]], False, False),
    'masked_fill': (lambda T, x, s: x.masked_fill(T.tensor(MB), 1.0), False, False),
    'scatter_reduce': (lambda T, x, s: x.scatter_reduce(0, T.tensor(I64), s, 'amax'), True, True),
}


@pytest.mark.parametrize('name', sorted(SAVES))
def test_inplace_modification_of_saved_inputs(name):
    fn, x_saved, s_saved = SAVES[name]
    for which, saved in (('x', x_saved), ('s', s_saved)):
        def f(T):
            x = T.tensor(B, requires_grad=True) * 1
            s = T.tensor(SRC, requires_grad=True) * 1
            out = fn(T, x, s)
            with T.no_grad():
                (x if which == 'x' else s).add_(1)
            out.sum().backward()
            return 'ok'
        if saved:
            same_error(f, match_message=False)
        else:
            check(f)
