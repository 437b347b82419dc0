"""Autograd API against real torch: tape, grads, hooks, Function, grad modes, errors, functional."""
import pytest
import torch

import torchlike
from conftest import assert_same, check


def names(T, t):
    return t.grad_fn.name() if t.grad_fn is not None else None


def test_tour_values_and_names():
    def f(T):
        x = T.ones(5, 3, requires_grad=True)
        y = x + 2
        z = y * y * 3
        out = z.mean()
        out.backward()
        return x.grad, out, y.grad_fn.name(), z.grad_fn.name(), out.grad_fn.name(), x.is_leaf, y.is_leaf
    check(f)


def test_next_functions_structure():
    def f(T):
        x = T.ones(3, requires_grad=True)
        w = T.ones(3)
        z = (x * w + 1).sum()
        nf = z.grad_fn.next_functions
        inner = nf[0][0].next_functions
        return (len(nf), nf[0][0].name(), len(inner), inner[0][0].name(),
                inner[0][0].next_functions[0][0].name(), inner[0][0].next_functions[1][0] is None)
    check(f)


def test_accumulation_and_retain_graph():
    def f(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        g1 = x.grad.clone()
        y.backward()
        g2 = x.grad.clone()
        x.grad = None
        (x * 3).sum().backward()
        return g1, g2, x.grad
    check(f)


def test_backward_twice_raises():
    def f(T):
        x = T.ones(2, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    check(f)


def test_backward_twice_through_linear_ops_is_fine():
    def f(T):
        x = T.ones(2, requires_grad=True)
        y = (x + 2).sum()
        y.backward()
        y.backward()
        return x.grad
    check(f)


@pytest.mark.parametrize('expr', ['x * 2', '2 * x', 'x.mul(2.5)', 'x / 2', '2 / x', 'x - 1', 'x + 2',
                                  'x.sub(1, alpha=2)'])
def test_backward_twice_through_a_scalar_product(expr):
    """A product or quotient with a Python scalar saves the scalar (MulBackward0 / DivBackward0), so a second
    backward raises as in torch; a sum with one saves nothing and may run twice. In-place changes of x after the
    forward do not invalidate the graph (x itself is not saved)."""
    def f(T):
        x = T.ones(2, requires_grad=True)
        y = eval(expr).sum()
        with T.no_grad():
            x.add_(1)
        y.backward()
        g = x.grad.clone()
        try:
            y.backward()
        except RuntimeError as e:
            return g, 'raises', str(e)[:60]
        return g, x.grad
    check(f)


def test_nonscalar_backward_needs_gradient():
    def f(T):
        x = T.ones(2, requires_grad=True)
        (x * 2).backward()
    check(f)


def test_backward_with_gradient():
    def f(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        y.backward(T.tensor([0.1, 1.0, 10.0]))
        return x.grad
    check(f)


def test_retain_grad_and_hooks():
    def f(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        seen = []
        h = y.register_hook(lambda g: g * 2)
        x.register_hook(lambda g: seen.append(g.clone()))
        z = (y * y).sum()
        z.backward()
        h.remove()
        return x.grad, y.grad, seen[0], y.retains_grad
    check(f)


def test_autograd_grad_allow_unused_and_higher_order():
    def f(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0], requires_grad=True)
        y = (x * x * x).sum()
        g, u = T.autograd.grad(y, (x, w), create_graph=True, allow_unused=True)
        g2, = T.autograd.grad(g.sum(), x)
        return g, u is None, g2
    check(f)


def test_autograd_grad_unused_raises():
    def f(T):
        x = T.ones(2, requires_grad=True)
        w = T.ones(2, requires_grad=True)
        return T.autograd.grad((x * 2).sum(), (x, w))
    check(f)


def test_backward_inputs():
    def f(T):
        x = T.ones(2, requires_grad=True)
        w = T.ones(2, requires_grad=True)
        (x * w * 2).sum().backward(inputs=[x])
        return x.grad, w.grad is None
    check(f)


def test_grad_modes():
    def f(T):
        x = T.ones(2, requires_grad=True)
        with T.no_grad():
            a = x * 2
            with T.enable_grad():
                b = x * 2
        with T.set_grad_enabled(False):
            c = x * 2
        T.set_grad_enabled(True)

        @T.no_grad()
        def g(t):
            return t * 2

        with T.inference_mode():
            d = x * 2
            inf = T.is_inference_mode_enabled()
        return (a.requires_grad, b.requires_grad, c.requires_grad, g(x).requires_grad, d.requires_grad,
                T.is_grad_enabled(), inf)
    check(f)


def test_inplace_on_leaf_raises():
    def f(T):
        x = T.ones(2, requires_grad=True)
        x.add_(1)
    check(f)


def test_inplace_on_leaf_view_raises():
    def f(T):
        x = T.ones(2, requires_grad=True)
        x.view(-1).add_(1)
    check(f)


def test_inplace_on_leaf_under_no_grad_is_fine():
    def f(T):
        x = T.ones(2, requires_grad=True)
        with T.no_grad():
            x.mul_(3)
        return x.detach(), x.requires_grad, x.is_leaf
    check(f)


def test_modified_saved_tensor_raises():
    def f(T):
        x = T.ones(2, requires_grad=True)
        a = x.exp()
        a.add_(1)
        a.sum().backward()
    check(f)


def test_modified_input_not_saved_is_fine():
    def f(T):
        x = T.ones(2, requires_grad=True)
        a = x * 2
        b = a + 1       # add saves nothing
        a.mul_(3)
        b.sum().backward()
        return x.grad, a._version
    check(f)


def test_inplace_on_nonleaf_records():
    def f(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.mul_(y)
        y.sum().backward()
        return x.grad, y.grad_fn.name(), y._version
    check(f)


def test_item_multi_element_raises():
    check(lambda T: T.ones(2, 2).item())


def test_requires_grad_on_int_raises():
    check(lambda T: T.ones(2, dtype=T.int64).requires_grad_())


def test_detach_shares_values_and_version():
    def f(T):
        x = T.ones(3, requires_grad=True)
        y = x * 2
        d = y.detach()
        d.add_(5)
        return y.detach(), d.requires_grad, y._version
    check(f)


def test_detach_modification_breaks_saved():
    def f(T):
        x = T.ones(3, requires_grad=True)
        y = x.exp()
        y.detach().zero_()
        y.sum().backward()
    check(f)


def test_data_modification_is_silent():
    # .data shares values but not the version counter
    def f(T):
        x = T.ones(3, requires_grad=True)
        y = x.exp()
        y.data.mul_(0)
        return y.detach(), y._version, y.requires_grad
    check(f)


def _exp_fn(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, i, scale):
            r = i.exp() * scale
            ctx.save_for_backward(r)
            ctx.scale = scale
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r, None
    return Exp


def test_custom_function():
    def f(T):
        x = T.tensor([0.5, 1.0], requires_grad=True)
        y = _exp_fn(T).apply(x, 2.0)
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__.endswith('Backward'), y.grad_fn.needs_input_grad
    check(f)


def test_custom_function_setup_context_and_non_diff():
    def f(T):
        class Sort(T.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2, (x > 0)

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.mark_non_differentiable(output[1])

            @staticmethod
            def backward(ctx, g, gmask):
                return g * 2
        x = T.tensor([1.0, -1.0], requires_grad=True)
        a, m = Sort.apply(x)
        a.sum().backward()
        return x.grad, m.requires_grad, a.requires_grad
    check(f)


def test_custom_function_wrong_grad_count():
    def f(T):
        class Bad(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g
        x = T.ones(2, requires_grad=True)
        Bad.apply(x, x).sum().backward()
    check(f)


def test_custom_function_mark_dirty():
    def f(T):
        class Inc(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        a = T.ones(2, requires_grad=True)
        b = a * 1
        c = Inc.apply(b)
        c.sum().backward()
        return a.grad, c is b, b._version
    check(f)


def test_once_differentiable_and_materialize():
    def f(T):
        from torch.autograd.function import once_differentiable as od_torch  # noqa: F401
        return None
    import torch, torchlike
    for T in (torch, torchlike):
        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            @T.autograd.function.once_differentiable
            def backward(ctx, g1, g2):
                assert g2 is None
                return g1 * 2
        x = T.ones(2, requires_grad=True)
        a, b = Twice.apply(x)
        a.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]


def test_functional_jacobian_hessian_vjp_jvp():
    def f(T):
        F = T.autograd.functional
        x = T.tensor([1.0, 2.0, 3.0])
        fn = lambda a: a * a * a  # noqa: E731
        s = lambda a: (a * a * a).sum()  # noqa: E731
        v = T.tensor([1.0, 0.5, 0.25])
        return (F.jacobian(fn, x), F.hessian(s, x), F.vjp(fn, x, v), F.jvp(fn, x, v), F.hvp(s, x, v),
                F.vhp(s, x, v))
    check(f)


def test_variable_legacy():
    def f(T):
        from importlib import import_module
        V = import_module(T.__name__ + '.autograd').Variable
        v = V(T.FloatTensor([1.0]), requires_grad=True)
        return v, v.requires_grad, isinstance(v, T.Tensor)
    check(f)


def test_anomaly_nan():
    def f(T):
        x = T.tensor([0.0], requires_grad=True)
        with T.autograd.detect_anomaly():
            y = (x / x).sum()
            y.backward()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(f)


def test_backward_from_several_outputs_of_one_node():
    # regression: a node that is the root of several outputs was counted once per output
    def f(T):
        x = T.arange(6.0, requires_grad=True)
        a, b, c = x.split(2)
        T.autograd.backward([a, b, c], [T.ones(2), T.ones(2) * 2, T.ones(2) * 3])
        return x.grad
    check(f)


def test_leaf_hook_runs_for_autograd_grad():
    """Regression: a leaf's register_hook also runs when autograd.grad computes that leaf's gradient (torch
    registers it on the grad accumulator), and its return value is what grad() returns."""
    def f(lib):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.clone()))
        (g,) = lib.autograd.grad((x.sin() * x).sum(), x, create_graph=True)
        g.sum().backward()
        x.register_hook(lambda g: g * 2)
        (h,) = lib.autograd.grad((x * x).sum(), x)
        return [g.detach(), h, x.grad] + [s.detach() for s in seen]
    tl, th = f(torchlike), f(torch)
    assert len(tl) == len(th)
    for a, b in zip(tl, th):
        assert_same(a, b, atol=1e-6)


def test_custom_function_gradient_takes_input_dtype():
    """Regression: a custom Function's backward returning another dtype is cast to the input's dtype, as torch's
    engine does (validate_outputs)."""
    def fn(T):
        class Half(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return (g * 2).double()
        x = T.ones(3, requires_grad=True)
        Half.apply(x).sum().backward()
        return x.grad
    check(fn)
