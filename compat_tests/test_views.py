"""Views and in-place ops against real torch: writes through views reach the base and every other view,
version counters, and gradients through in-place writes (CopySlices)."""
import numpy as np
import pytest
import torch

import torchlike

from conftest import check


def base(T):
    return T.arange(12, dtype=T.float32).reshape(3, 4)


CASES = {
    'view_setitem': lambda T: _do(T, lambda m: m.view(-1).__setitem__(2, 7.0)),
    'row_mul_': lambda T: _do(T, lambda m: m[1].mul_(10)),
    'data_mul_': lambda T: _do(T, lambda m: m.data.mul_(4)),
    't_add_': lambda T: _do(T, lambda m: m.t().add_(1)),
    'col_zero_': lambda T: _do(T, lambda m: m[:, 0].zero_()),
    'slice_of_slice': lambda T: _do(T, lambda m: m[1:][0].fill_(-1)),
    'transpose_row': lambda T: _do(T, lambda m: m.transpose(0, 1)[2].add_(100)),
    'narrow': lambda T: _do(T, lambda m: m.narrow(1, 1, 2).mul_(2)),
    'diagonal_zero': lambda T: _do(T, lambda m: m.diagonal().zero_()),
    'unbind_add': lambda T: _do(T, lambda m: m.unbind(0)[2].add_(5)),
    'split_sub': lambda T: _do(T, lambda m: m.split(2, dim=1)[1].sub_(3)),
    'reshape_view_chain': lambda T: _do(T, lambda m: m.reshape(2, 6)[1].view(3, 2)[0].fill_(0)),
    'setitem_slice': lambda T: _do(T, lambda m: m.__setitem__((slice(None), slice(1, 3)), 9.0)),
    'setitem_ellipsis_none': lambda T: _do(T, lambda m: m.__setitem__((Ellipsis, None, 0), -5.0)),
}


def _do(T, fn):
    m = base(T)
    v1 = m.view(12)         # another view, created before the write
    v2 = m[2]
    fn(m)
    return m, v1, v2, m._version, v1._version


@pytest.mark.parametrize('name', sorted(CASES))
def test_write_through_view(name):
    check(CASES[name])


def test_view_reads_after_base_inplace():
    def f(T):
        x = T.zeros(2, 3)
        v = x.view(6)
        t = x.t()
        x.add_(1)
        x.mul_(3)
        return v, t, v._version
    check(f)


def test_copy_slices_gradient():
    def f(T):
        a = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = T.tensor([10.0, 20.0], requires_grad=True)
        x = a * 1
        x[0].mul_(b)
        y = (x * x).sum()
        y.backward()
        return a.grad, b.grad, x.grad_fn.name()
    check(f)


def test_view_grad_after_inplace_on_base():
    def f(T):
        a = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        x = a * 2
        v = x.view(2, 2)
        x.mul_(3)
        (v * v).sum().backward()
        return a.grad, v
    check(f)


def test_setitem_gradient():
    def f(T):
        a = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = T.tensor(5.0, requires_grad=True)
        x = a.clone()
        x[1] = w * 2
        (x * x).sum().backward()
        return a.grad, w.grad
    check(f)


def test_out_argument():
    def f(T):
        out = T.zeros(3)
        r = T.add(T.ones(3), 2, out=out)
        return out, r is out, out._version > 0
    check(f)


def test_out_requires_grad_raises():
    def f(T):
        x = T.ones(3, requires_grad=True)
        T.mul(x, 2, out=T.zeros(3))
    check(f)


def test_inplace_dtype_rules():
    check(lambda T: T.ones(3, dtype=T.int64).add_(1.5))
    check(lambda T: T.ones(3).add_(T.ones(3, dtype=T.int64)))
    check(lambda T: T.ones(3).add_(T.ones(2, 3)))


def test_inplace_returns_self_and_bumps_version():
    def f(T):
        x = T.ones(3)
        y = x.add_(1)
        x += 1
        x *= 2
        return y is x, x, x._version
    check(f)


def test_clone_is_independent():
    def f(T):
        x = T.ones(3)
        c = x.clone()
        c.add_(1)
        return x, c
    check(f)


def test_detach_is_a_view_of_values():
    def f(T):
        x = T.ones(3)
        d = x.detach()
        d.mul_(5)
        return x, x._version, d._version
    check(f)


# ---- in-place view ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_) ----------------------

def test_inplace_view_ops_shapes_names_versions():
    def f(T):
        out = []
        for c in ('t_', 'squeeze_', 'unsqueeze_', 'transpose_', 'swapdims_', 'swapaxes_', 'as_strided_'):
            x = T.ones(2, 1, 3, requires_grad=True).clone() if c != 't_' else T.ones(2, 3, requires_grad=True).clone()
            args = {'t_': (), 'squeeze_': (), 'unsqueeze_': (0,), 'transpose_': (0, 1), 'swapdims_': (0, 2),
                    'swapaxes_': (1, 2), 'as_strided_': ((2,), (1,))}[c]
            r = getattr(x, c)(*args)
            out += [r is x, tuple(x.shape), x.grad_fn.name(), x._version]
        y = T.zeros(2, 1, 3)
        y.squeeze_(1)
        z = T.zeros(2, 1, 3)
        z.squeeze_((1,))
        return out + [tuple(y.shape), tuple(z.shape)]
    check(f)


def test_inplace_view_op_on_a_view_writes_through_and_differentiates():
    def f(T):
        a = T.arange(6.).reshape(2, 3).requires_grad_()
        d = a * 2
        e = d[0]
        e.unsqueeze_(0)
        e.mul_(3)
        (e * T.arange(3.)).sum().backward()
        return d, e, a.grad
    check(f)


def test_inplace_view_op_on_leaf_requiring_grad_raises():
    check(lambda T: T.ones(2, 3, requires_grad=True).t_())


# ---- *_scatter ops ----------------------------------------------------------------------------------

@pytest.mark.parametrize('case', [
    lambda T, x: T.select_scatter(x, T.arange(4.) * 10, 0, 1),
    lambda T, x: x.select_scatter(T.tensor([7., 8., 9.]), 1, -1),
    lambda T, x: T.slice_scatter(x, T.zeros(3, 2), 1, 1, 4, 2),
    lambda T, x: x.slice_scatter(T.zeros(1, 4, dtype=T.int64), start=2),
    lambda T, x: T.diagonal_scatter(x, T.arange(3.) + 100),
    lambda T, x: x.diagonal_scatter(T.arange(2.), 1, 1, 0),
    lambda T, x: T.select_scatter(x, T.zeros(3), 0, 0),          # wrong src size -> RuntimeError
    lambda T, x: T.select_scatter(x, T.zeros(4), 0, 5),          # index out of range -> IndexError
])
def test_view_scatter_values_and_grads(case):
    def f(T):
        x = T.arange(12.).reshape(3, 4).requires_grad_()
        out = case(T, x)
        (out * T.arange(12.).reshape(3, 4)).sum().backward()
        return out, x.grad
    check(f)


def test_as_strided_scatter():
    # torch 2.13's backward of as_strided_scatter w.r.t. ``input`` is wrong (it does not zero the written
    # positions), so the gradient is checked against its definition, built from torch's forward.
    def f(T):
        x = T.arange(12.).reshape(3, 4).requires_grad_()
        out = T.as_strided_scatter(x, T.arange(4.).reshape(2, 2), (2, 2), (4, 1), 1)
        return out.detach()
    check(f)
    w = torch.arange(12.).reshape(3, 4)
    written = torch.as_strided_scatter(torch.zeros(3, 4), torch.ones(2, 2), (2, 2), (4, 1), 1)
    x = torchlike.arange(12.).reshape(3, 4).requires_grad_()
    (torchlike.as_strided_scatter(x, torchlike.zeros(2, 2), (2, 2), (4, 1), 1) * torchlike.tensor(w.numpy())).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (w * (1 - written)).numpy())


def test_view_scatter_src_grad():
    def f(T):
        x = T.ones(3, 4)
        s = T.arange(3.).requires_grad_()
        (T.diagonal_scatter(x, s) * T.arange(12.).reshape(3, 4)).sum().backward()
        return s.grad
    check(f)


# ---- Tensor.view(dtype) -------------------------------------------------------------------------------

@pytest.mark.parametrize('case', [
    lambda T: T.arange(6.).view(T.int32),
    lambda T: T.arange(6.).view(T.uint8),
    lambda T: T.arange(6.).view(T.float64),
    lambda T: T.arange(6.).view(T.complex64),
    lambda T: T.arange(6.).view(T.bool),
    lambda T: T.tensor([1, 2, 0], dtype=T.uint8).view(T.bool),
    lambda T: T.arange(8, dtype=T.uint8).view(T.int16),
    lambda T: T.tensor([1 + 2j, 3 - 4j]).view(T.float32),
    lambda T: T.arange(6, dtype=T.uint8).view(T.float32),     # size not divisible -> RuntimeError
    lambda T: T.tensor(1.).view(T.uint8),                      # 0-dim, different sizes -> RuntimeError
])
def test_view_dtype(case):
    check(case)


def test_view_dtype_writes_reach_the_base():
    def f(T):
        x = T.arange(4.)
        v = x.view(T.int32)
        v[1] = 1065353216            # the bits of 1.0f
        u = x.view(T.uint8)
        u[:4] = 0                    # the first float's bytes
        x.view(T.int32)[3:].add_(1)  # through a slice of the dtype view
        return x, v, u
    check(f)


# ---- reinterpreting views: .real / .imag / view_as_real / view_as_complex ------------------------------

def test_real_imag_are_views_that_write_through():
    def f(T):
        x = T.tensor([1 + 2j, 3 - 4j, 5 + 6j])
        r, i = x.real, x.imag
        r.mul_(10)
        i[1] = 100
        v = T.view_as_real(x)
        v[0, 1] = -7
        return x, r, i, v, r.stride(), i.stride(), i.storage_offset(), v.stride(), x.view(T.float32).stride()
    check(f)


def test_view_as_complex_writes_through():
    def f(T):
        y = T.arange(6.).reshape(3, 2)
        c = T.view_as_complex(y)
        c.mul_(2j)
        return y, c, c.stride()
    check(f)


def test_write_through_real_part_differentiates():
    def f(T):
        x = T.tensor([1 + 2j, 3 - 4j], requires_grad=True)
        y = x * 2
        y.real.mul_(3)
        (y.abs() ** 2).sum().backward()
        return y, x.grad
    check(f)


def test_dtype_view_geometry():
    def f(T):
        x = T.arange(8.).reshape(2, 4)
        return (x.t().contiguous().view(T.int16).stride(), x[:, 2:].view(T.float32).stride(),
                x.view(T.uint8)[1, 4:].stride(), x.view(T.uint8)[1, 4:].storage_offset(),
                x.view(T.float64).stride(), x[1].view(T.float64).storage_offset())
    check(f)


# ---- conj and neg bits (Note [Conjugate and negative bits]) ---------------------------------------------

def _cx(T, grad=False):
    return T.tensor([[1 + 2j, 3 - 4j], [-5 + 0.5j, 2j]], requires_grad=grad)


_BIT_CASES = {
    'flags': lambda T: [(lambda y: (y.is_conj(), y.conj().is_conj(), y[0].is_conj(), y.t().is_conj(),
                                    y.detach().is_conj(), y.clone().is_conj(), (y + 0).is_conj(),
                                    y.imag.is_neg(), y.imag.is_conj(), y.real.is_neg(), y.contiguous().is_conj(),
                                    T.is_conj(y), y.resolve_conj().is_conj(), y.imag.resolve_neg().is_neg(),
                                    y.mH.is_conj(), y.conj_physical().is_conj()))(_cx(T).conj())],
    'real_has_no_bits': lambda T: (T.tensor([1., 2.]).conj().is_conj(), T.tensor([1., 2.]).is_neg()),
    'values': lambda T: (lambda y: (y, y.imag, y.real, y.mH, y.resolve_conj(), y.conj(), y.imag.resolve_neg()))(
        _cx(T).conj()),
    'write_through': lambda T: (lambda x: (lambda y: (y.__setitem__(0, T.tensor([5 + 6j, 1j])), y.mul_(2),
                                                      y.imag.add_(1), x)[-1])(x.conj()))(_cx(T)),
    'numpy_refuses_conj': lambda T: _cx(T).conj().numpy(),
    'numpy_refuses_neg': lambda T: _cx(T).conj().imag.numpy(),
    'resolved_numpy': lambda T: T.from_numpy(_cx(T).conj().resolve_conj().numpy()),
    'view_as_real_refuses': lambda T: T.view_as_real(_cx(T).conj()),
    'view_as_real_resolved': lambda T: T.view_as_real(_cx(T).conj().resolve_conj()),
    'view_dtype_refuses': lambda T: _cx(T).conj().view(T.complex64),
    'view_dtype_refuses_neg': lambda T: _cx(T).conj().imag.view(T.int32),
    'grad_fn_names': lambda T: [f.name() for f in (_cx(T, True).conj().grad_fn, _cx(T, True).mH.grad_fn,
                                                           _cx(T, True).conj().resolve_conj().grad_fn)],
    'resolve_is_a_copy': lambda T: (lambda x: (lambda r: (r.mul_(0), x)[-1])(x.conj().resolve_conj()))(_cx(T)),
}


@pytest.mark.parametrize('case', sorted(_BIT_CASES))
def test_conj_neg_bits(case):
    check(_BIT_CASES[case])


def test_conj_view_gradient():
    def f(T):
        x = _cx(T, grad=True)
        y = x.conj()
        (y * T.tensor([[1 + 1j, 2], [3j, -1]])).abs().sum().backward()
        return x.grad
    check(f)
