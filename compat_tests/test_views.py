"""Views and in-place ops against real torch: writes through views reach the base and every other view,
version counters, and gradients through in-place writes (CopySlices)."""
import pytest

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
