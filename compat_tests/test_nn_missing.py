"""nn pieces torch has and torchlike gained late: FractionalMaxPool2d/3d (F.fractional_max_pool2d/3d),
LinearCrossEntropyLoss (F.linear_cross_entropy) and the legacy CrossMapLRN2d, each compared with real torch.

Fractional pooling draws its windows from ``_random_samples``; torchlike's random stream differs from torch's,
so exact comparisons pass the same samples to both libraries, and the sample-free path is checked for shape
and for properties that can fail (each value is the input at its index, the index lies in the plane).
"""
import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, check

RNG = np.random.default_rng(1234)


def _arr(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _t(lib, a, dtype=None, grad=False):
    t = lib.from_numpy(a.copy())
    if dtype is not None:
        t = t.to(getattr(lib, dtype))
    if grad:
        t.requires_grad_(True)
    return t


# ---- fractional max pooling ------------------------------------------------------------------------------------

FRAC_CASES = [
    # n, input shape, kernel, output_size, dtype
    (2, (2, 3, 9, 11), 2, (4, 5), None),
    (2, (3, 10, 7), (3, 2), (5, 6), None),                 # unbatched
    (2, (1, 4, 13, 8), (2, 3), (12, 6), 'float64'),        # windows overlap heavily
    (2, (2, 2, 37, 23), (2, 3), (13, 11), 'float16'),      # generate_intervals in Half arithmetic
    (2, (2, 2, 50, 31), (3, 2), (20, 7), 'bfloat16'),
    (3, (2, 2, 7, 8, 9), 2, (3, 4, 5), None),
    (3, (2, 6, 7, 5), (3, 2, 2), (3, 4, 3), 'float64'),    # unbatched
]


@pytest.mark.parametrize('n,shape,k,osz,dtype', FRAC_CASES)
def test_fractional_max_pool_matches_torch(n, shape, k, osz, dtype):
    x = _arr(shape)
    nb = shape[0] if len(shape) == n + 2 else 1
    u = RNG.random((nb, shape[-n - 1], n)).astype(np.float32)
    g = _arr(tuple(shape[:-n]) + tuple(osz))

    def run(lib):
        xt = _t(lib, x, dtype, grad=True)
        f = getattr(lib.nn.functional, f'fractional_max_pool{n}d')
        v, i = f(xt, k, output_size=osz, return_indices=True, _random_samples=_t(lib, u, dtype or 'float32'))
        (v * _t(lib, g, dtype)).sum().backward()
        return v, i, xt.grad, v.grad_fn.name()
    tol = 1e-2 if dtype in ('float16', 'bfloat16') else 1e-5
    check(run, atol=tol, rtol=tol)


def test_fractional_nan_and_ties_follow_torch_scan_order():
    x = np.zeros((1, 2, 8, 8), np.float32)           # all ties: the first element of each window wins
    x[0, 1, ::3, ::2] = np.nan                        # NaN beats numbers; the last NaN of a window wins
    u = RNG.random((1, 2, 2)).astype(np.float32)

    def run(lib):
        xt = _t(lib, x, grad=True)
        v, i = lib.nn.functional.fractional_max_pool2d(xt, 3, output_size=(4, 5), return_indices=True,
                                                        _random_samples=_t(lib, u))
        v.sum().backward()
        return v, i, xt.grad
    check(run)


def test_fractional_variants_and_ratio():
    x = _arr((2, 3, 12, 10))
    x3 = _arr((1, 2, 6, 8, 10))
    u = RNG.random((2, 3, 2)).astype(np.float32)
    u3 = RNG.random((1, 2, 3)).astype(np.float32)

    def run(lib):
        F = lib.nn.functional
        xt, s = _t(lib, x), _t(lib, u)
        return (F.fractional_max_pool2d(xt, 2, output_ratio=(0.5, 0.7), _random_samples=s),
                F.fractional_max_pool2d(xt, 3, 5, None, True, s),                       # positional
                F.fractional_max_pool2d_with_indices(xt, (2, 2), output_size=6, _random_samples=s),
                F.fractional_max_pool3d(_t(lib, x3), 2, output_ratio=0.5, _random_samples=_t(lib, u3)),
                F.fractional_max_pool3d_with_indices(_t(lib, x3), (2, 3, 2), (4, 5, 6), _random_samples=_t(lib, u3)),
                F.fractional_max_pool2d(xt, 2, output_size=(0, 3), _random_samples=s))
    check(run)


def test_fractional_module():
    x = _arr((2, 3, 10, 10))
    u = RNG.random((2, 3, 2)).astype(np.float32)
    u3 = RNG.random((1, 3, 3)).astype(np.float32)
    x3 = _arr((1, 3, 6, 6, 6))

    def run(lib):
        nn = lib.nn
        m = nn.FractionalMaxPool2d(3, output_size=(5, 4), return_indices=True, _random_samples=_t(lib, u))
        m3 = nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=_t(lib, u3))
        return (m(_t(lib, x)), m3(_t(lib, x3)), repr(m), repr(m3), m.kernel_size, m.output_size, m3.output_ratio,
                sorted(m.state_dict()), m.return_indices)
    check(run)


@pytest.mark.parametrize('n', [2, 3])
def test_fractional_without_samples(n):
    shape = (2, 3) + (9,) * n
    x = _arr(shape)
    osz = (4,) * n
    th = getattr(torch.nn.functional, f'fractional_max_pool{n}d')(torch.from_numpy(x), 2, output_size=osz,
                                                                  return_indices=True)
    xt = torchlike.from_numpy(x.copy()).requires_grad_(True)
    m = getattr(torchlike.nn, f'FractionalMaxPool{n}d')(2, output_size=osz, return_indices=True)
    v, i = m(xt)
    assert tuple(v.shape) == tuple(th[0].shape) and str(v.dtype) == str(th[0].dtype)
    assert tuple(i.shape) == tuple(th[1].shape) and str(i.dtype) == str(th[1].dtype)
    vn, inn = v.detach().numpy(), i.numpy()
    plane = x.reshape(2, 3, -1)
    assert inn.min() >= 0 and inn.max() < plane.shape[-1]
    np.testing.assert_array_equal(vn.reshape(2, 3, -1), np.take_along_axis(plane, inn.reshape(2, 3, -1), -1))
    # every value is the max of a 2**n window of the input that contains its index
    full = torch.nn.functional.max_pool2d if n == 2 else torch.nn.functional.max_pool3d
    win_max = full(torch.from_numpy(x), 2, stride=1).numpy().reshape(2, 3, -1)
    assert np.isin(vn.reshape(2, 3, -1)[0, 0], win_max[0, 0]).all()
    v.sum().backward()
    g = xt.grad.numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(g.sum(-1), np.full((2, 3), 4.0 ** n))
    # fresh samples per call: two calls differ somewhere (9 -> 4 with kernel 2 leaves room to move)
    others = [m(xt)[1].numpy() for _ in range(3)]
    assert any(not np.array_equal(o, inn) for o in others)


FRAC_ERRORS = [
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_size=7, _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_ratio=0.5, _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5, 0.5)),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=s.double()),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=s[:1]),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=s[:, :2]),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=s[0]),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, (3, 3, 3), output_size=4, _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_size=(4, 4, 4), _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 3, output_size=-1, _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x[:, :0], 3, output_size=4, _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x[0, 0], 3, output_size=4),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x.long(), 3, output_size=4),
    lambda L, x, s: L.nn.functional.fractional_max_pool3d(x, 3, output_size=(6, 2, 2)),
    lambda L, x, s: L.nn.functional.fractional_max_pool2d(x, 2, output_ratio=[0.5], _random_samples=s),
    lambda L, x, s: L.nn.functional.fractional_max_pool3d(x[None], 2, output_ratio=(0.5, 0.5)),
    lambda L, x, s: L.nn.FractionalMaxPool2d(2),
    lambda L, x, s: L.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    lambda L, x, s: L.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda L, x, s: L.nn.FractionalMaxPool3d(0, output_size=2),
]


@pytest.mark.parametrize('i', range(len(FRAC_ERRORS)))
def test_fractional_errors(i):
    x = _arr((2, 3, 8, 8))
    s = RNG.random((2, 3, 2)).astype(np.float32)
    check(lambda L: FRAC_ERRORS[i](L, _t(L, x), _t(L, s)))


# ---- LinearCrossEntropyLoss ------------------------------------------------------------------------------------

def _lce_target(kind, n, c, out):
    if kind == 'index':
        t = RNG.integers(0, c, (n,) + out)
        t[0, ...] = -100 if n > 1 else t[0, ...]
        return t
    p = RNG.random((n, c) + out)
    return (p / p.sum(1, keepdims=True)).astype(np.float32)


LCE_CASES = [
    # target kind, out_features, bias, class weight, reduction, label_smoothing, ignore_index
    ('index', (), False, False, 'mean', 0.0, None),
    ('index', (), True, True, 'mean', 0.0, None),
    ('index', (), True, False, 'sum', 0.1, 2),
    ('index', (), False, True, 'none', 0.2, None),
    ('index', (3, 2), True, True, 'mean', 0.0, None),
    ('prob', (), True, False, 'mean', 0.0, None),
    ('prob', (2,), False, True, 'none', 0.3, None),
]


@pytest.mark.parametrize('kind,out,bias,cw,reduction,ls,ii', LCE_CASES)
def test_linear_cross_entropy_module_matches_torch(kind, out, bias, cw, reduction, ls, ii):
    n, fin, c = 4, 5, 6
    x = _arr((n, fin))
    tgt = _lce_target(kind, n, c, out)
    w = _arr((c * int(np.prod(out)), fin))
    b = _arr((c * int(np.prod(out)),))
    cwt = RNG.random(c).astype(np.float32) if cw else None

    def run(lib):
        m = lib.nn.LinearCrossEntropyLoss(fin, c, out_features=out, bias=bias, reduction=reduction,
                                          weight=None if cwt is None else _t(lib, cwt), ignore_index=ii,
                                          label_smoothing=ls)
        with lib.no_grad():
            m.linear.weight.copy_(_t(lib, w))
            if bias:
                m.linear.bias.copy_(_t(lib, b))
        xt = _t(lib, x, grad=True)
        loss = m(xt, _t(lib, tgt))
        loss.sum().backward()
        grads = [xt.grad, m.linear.weight.grad] + ([m.linear.bias.grad] if bias else [])
        return [loss] + grads + [repr(m), sorted(m.state_dict())]
    check(run, atol=1e-5, rtol=1e-5)


def test_linear_cross_entropy_functional():
    x1 = _arr((5,))
    w = _arr((4, 5))
    w3 = _arr((4, 2, 5))
    x = _arr((3, 5))
    b3 = _arr((4, 2))

    def run(lib):
        F = lib.nn.functional
        return (F.linear_cross_entropy(_t(lib, x1), _t(lib, w), lib.tensor(2)),            # unbatched
                F.linear_cross_entropy(_t(lib, x), _t(lib, w3), lib.tensor([[0, 1], [3, 2], [1, 1]]),
                                       linear_bias=_t(lib, b3), reduction='none'),
                F.linear_cross_entropy(_t(lib, x), _t(lib, w), lib.tensor([0, 3, 1]), ignore_index=3))
    check(run, atol=1e-5, rtol=1e-5)


LCE_ERRORS = [
    lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x[None], w, t),
    lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x, w[0], t),
    lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x[:, :3], w, t),
    lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x, w, t, linear_bias=x[0]),
    lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x[0], w[:, None].expand(4, 2, 5), t[0]),
    lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x, w, L.ones(3, 4) / 4, ignore_index=1),
    lambda L, x, w, t: L.nn.LinearCrossEntropyLoss(5, 4, weight=L.ones(3)),
    lambda L, x, w, t: L.nn.LinearCrossEntropyLoss(5, 4, label_smoothing=1.5),
    lambda L, x, w, t: L.nn.functional.linear_cross_entropy(x, w, t, reduction='bogus'),
]


@pytest.mark.parametrize('i', range(len(LCE_ERRORS)))
def test_linear_cross_entropy_errors(i):
    x, w = _arr((3, 5)), _arr((4, 5))
    check(lambda L: LCE_ERRORS[i](L, _t(L, x), _t(L, w), L.tensor([0, 3, 1])))


def test_linear_cross_entropy_options_not_supported():
    with pytest.raises(NotImplementedError, match='options'):
        torchlike.nn.LinearCrossEntropyLoss(5, 4, options=object())
    with pytest.raises(NotImplementedError, match='options'):
        torchlike.nn.functional.linear_cross_entropy(torchlike.ones(2, 5), torchlike.ones(4, 5),
                                                     torchlike.tensor([0, 1]), options=object())


# ---- CrossMapLRN2d ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize('size,channels,dtype', [(2, 3, None), (3, 6, None), (4, 5, 'float64'), (5, 7, None),
                                                 (5, 2, 'float64'), (7, 9, None)])
def test_cross_map_lrn2d_matches_torch(size, channels, dtype):
    x = _arr((2, channels, 3, 4))
    g = _arr((2, channels, 3, 4))

    def run(lib):
        xt = _t(lib, x, dtype, grad=True)
        o = lib.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)(xt)
        o.backward(_t(lib, g, dtype))
        return o, xt.grad, o.grad_fn.name()
    check(run, atol=1e-5, rtol=1e-5)


def test_cross_map_lrn2d_module_and_errors():
    x = _arr((1, 3, 2, 2))
    check(lambda L: (repr(L.nn.CrossMapLRN2d(3)), repr(L.nn.CrossMapLRN2d(5, 1e-3, 0.5, 2.0)),
                     L.nn.CrossMapLRN2d(3)(_t(L, x, 'float16'))), atol=1e-3, rtol=1e-3)
    check(lambda L: L.nn.CrossMapLRN2d(3)(_t(L, x[0])))                     # ValueError: not 4D
    check(lambda L: L.nn.CrossMapLRN2d(3)(L.ones(1, 3, 2, 2, dtype=L.long)))
    check(lambda L: L.nn.CrossMapLRN2d(0)(_t(L, x)))                        # ZeroDivisionError

    def size_one_backward(lib):                                             # torch's backward buffer is short
        xt = _t(lib, x, grad=True)
        lib.nn.CrossMapLRN2d(1)(xt).sum().backward()
        return xt.grad
    check(size_one_backward)
