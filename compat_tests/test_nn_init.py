"""torch.nn.init against real torch: gains and fans exactly, deterministic initialisers exactly, random ones by
their empirical distribution (bounds, mean and std within sampling error of torch's own sample), generator=
reproducibility, no_grad behaviour, errors and warnings; and each conv layer's default initialisation."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import check

N_SIGMA = 6          # sampling-error bound (a false failure is ~1e-9 likely)


def _np(t):
    return t.detach().numpy().astype(np.float64).ravel()


def _close_stats(a, b, what=''):
    """Two iid samples of the same distribution: means and stds agree within sampling error."""
    n = min(a.size, b.size)
    s = max(a.std(), b.std(), 1e-12)
    assert abs(a.mean() - b.mean()) < N_SIGMA * s * math.sqrt(2 / n), (what, a.mean(), b.mean())
    assert abs(a.std() - b.std()) < N_SIGMA * s * math.sqrt(1 / n) * 1.5, (what, a.std(), b.std())


# ---- calculate_gain / fans ---------------------------------------------------------------------------------------
GAINS = [('linear', None), ('conv1d', None), ('conv_transpose3d', None), ('sigmoid', None), ('tanh', None),
         ('relu', None), ('leaky_relu', None), ('leaky_relu', 0.2), ('leaky_relu', 3), ('selu', None)]


@pytest.mark.parametrize('nl,param', GAINS)
def test_calculate_gain(nl, param):
    check(lambda T: T.nn.init.calculate_gain(nl, param))


@pytest.mark.parametrize('args', [('gelu', None), ('leaky_relu', 'x'), ('leaky_relu', True)])
def test_calculate_gain_errors(args):
    check(lambda T: T.nn.init.calculate_gain(*args))


@pytest.mark.parametrize('shape', [(3, 4), (5, 2, 3), (6, 4, 3, 2), (2, 3, 1, 2, 2), (4,), ()])
def test_fan_in_and_fan_out(shape):
    check(lambda T: T.nn.init._calculate_fan_in_and_fan_out(T.empty(shape)))


# ---- random initialisers: distribution vs torch's ----------------------------------------------------------------
SHAPE = (240, 60, 3)           # fan_in 180, fan_out 720; 43200 samples
RANDOM = [
    ('uniform', lambda I, t: I.uniform_(t, -0.3, 0.7), (-0.3, 0.7)),
    ('normal', lambda I, t: I.normal_(t, 0.5, 2.0), None),
    ('xavier_uniform', lambda I, t: I.xavier_uniform_(t, gain=1.7), 'xu'),
    ('xavier_normal', lambda I, t: I.xavier_normal_(t, gain=0.5), None),
    ('kaiming_uniform', lambda I, t: I.kaiming_uniform_(t, a=math.sqrt(5)), 'ku'),
    ('kaiming_uniform_relu_fan_out', lambda I, t: I.kaiming_uniform_(t, mode='fan_out', nonlinearity='relu'), 'ku'),
    ('kaiming_normal', lambda I, t: I.kaiming_normal_(t, a=0.1, mode='fan_out'), None),
    ('kaiming_normal_tanh', lambda I, t: I.kaiming_normal_(t, nonlinearity='tanh'), None),
    ('trunc_normal', lambda I, t: I.trunc_normal_(t, 0.2, 1.5, -1.0, 2.5), (-1.0, 2.5)),
    ('trunc_normal_default', lambda I, t: I.trunc_normal_(t), (-2.0, 2.0)),
    ('trunc_normal_narrow', lambda I, t: I.trunc_normal_(t, 0.0, 1.0, 0.5, 0.9), (0.5, 0.9)),
]


@pytest.mark.parametrize('case', RANDOM, ids=[c[0] for c in RANDOM])
def test_random_distribution(case):
    _, fn, bounds = case
    torch.manual_seed(0)
    a = _np(fn(torch.nn.init, torch.empty(SHAPE)))
    b = _np(fn(torchlike.nn.init, torchlike.empty(SHAPE)))
    assert b.size == a.size
    _close_stats(a, b, case[0])
    if isinstance(bounds, tuple):
        lo, hi = bounds
    elif bounds in ('xu', 'ku'):
        hi = max(abs(a.min()), a.max()) * (1 + 1e-3)    # torch's sample nearly reaches its bound
        lo = -hi
    else:
        return
    assert lo <= b.min() and b.max() <= hi
    span = hi - lo                                        # and the sample fills the interval like torch's
    assert b.min() - lo < 0.01 * span and hi - b.max() < 0.01 * span


def test_orthogonal():
    for shape, gain in (((30, 50), 1.0), ((50, 30), 2.0), ((8, 3, 2, 2), 0.5)):
        tl = torchlike.nn.init.orthogonal_(torchlike.empty(shape), gain=gain)
        th = torch.nn.init.orthogonal_(torch.empty(shape), gain=gain)
        assert tuple(tl.shape) == tuple(th.shape)
        for t in (tl, th):
            m = t.detach().numpy().reshape(shape[0], -1).astype(np.float64)
            small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
            np.testing.assert_allclose(small, gain ** 2 * np.eye(small.shape[0]), atol=1e-4)
        _close_stats(_np(th), _np(tl), 'orthogonal entries')


def test_sparse():
    torch.manual_seed(0)
    th = torch.nn.init.sparse_(torch.empty(100, 80), 0.3, std=0.2)
    tl = torchlike.nn.init.sparse_(torchlike.empty(100, 80), 0.3, std=0.2)
    zt, zl = (th == 0).sum(0).numpy(), (tl == 0).sum(0).numpy()
    assert (zt == 30).all() and (zl == zt).all()          # ceil(sparsity * rows) zeros in every column
    _close_stats(th[th != 0].numpy().astype(np.float64), tl[tl != 0].numpy().astype(np.float64), 'sparse')


# ---- deterministic initialisers: exact -----------------------------------------------------------------------
EXACT = [
    ('constant', lambda T: T.nn.init.constant_(T.empty(3, 4), 0.25)),
    ('constant_int', lambda T: T.nn.init.constant_(T.empty(3, 4, dtype=T.int64), 7)),
    ('ones', lambda T: T.nn.init.ones_(T.empty(2, 5))),
    ('zeros', lambda T: T.nn.init.zeros_(T.ones(2, 5))),
    ('eye', lambda T: T.nn.init.eye_(T.empty(3, 5))),
    ('eye_tall', lambda T: T.nn.init.eye_(T.empty(5, 2))),
    ('dirac3', lambda T: T.nn.init.dirac_(T.empty(4, 3, 5))),
    ('dirac4_groups', lambda T: T.nn.init.dirac_(T.empty(6, 2, 3, 4), groups=3)),
    ('dirac5', lambda T: T.nn.init.dirac_(T.empty(2, 4, 3, 3, 2))),
    ('eye_3d', lambda T: T.nn.init.eye_(T.empty(2, 2, 2))),
    ('dirac_2d', lambda T: T.nn.init.dirac_(T.empty(2, 2))),
    ('dirac_groups', lambda T: T.nn.init.dirac_(T.empty(5, 2, 3), groups=2)),
    ('orthogonal_1d', lambda T: T.nn.init.orthogonal_(T.empty(4))),
    ('sparse_3d', lambda T: T.nn.init.sparse_(T.empty(2, 2, 2), 0.5)),
    ('fan_1d', lambda T: T.nn.init.xavier_uniform_(T.empty(4))),
    ('bad_mode', lambda T: T.nn.init.kaiming_uniform_(T.empty(4, 4), mode='fan_avg')),
]


@pytest.mark.parametrize('case', EXACT, ids=[c[0] for c in EXACT])
def test_exact_and_errors(case):
    check(case[1], atol=0, rtol=0)


def test_zero_element_warns():
    for lib in (torch, torchlike):
        with pytest.warns(UserWarning, match='zero-element'):
            t = lib.nn.init.kaiming_uniform_(lib.empty(0, 3))
        assert tuple(t.shape) == (0, 3)


def test_trunc_normal_far_mean_warns():
    for lib in (torch, torchlike):
        with pytest.warns(UserWarning, match='mean is more than 2 std'):
            lib.nn.init.trunc_normal_(lib.empty(50), mean=5.0, std=1.0, a=-1.0, b=1.0)


def test_deprecated_names():
    for lib in (torch, torchlike):
        with pytest.warns(FutureWarning, match='nn.init.normal_'):
            lib.nn.init.normal(lib.empty(3))


# ---- generator= and no_grad -----------------------------------------------------------------------------------
GEN_FNS = ['uniform_', 'normal_', 'trunc_normal_', 'xavier_uniform_', 'xavier_normal_', 'kaiming_uniform_',
           'kaiming_normal_', 'orthogonal_', 'sparse_']


@pytest.mark.parametrize('name', GEN_FNS)
def test_generator_reproducible(name):
    f = getattr(torchlike.nn.init, name)
    extra = (0.4,) if name == 'sparse_' else ()

    def draw(seed):
        torchlike.manual_seed(0)     # sparse_'s zero positions come from the global generator (as torch's)
        g = torchlike.Generator().manual_seed(seed)
        return f(torchlike.empty(20, 30), *extra, generator=g).numpy().copy()
    a, b, c = draw(1), draw(1), draw(2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    if name != 'sparse_':
        g = torchlike.Generator().manual_seed(3)    # the generator, not the global stream, is consumed
        torchlike.manual_seed(5)
        x = torchlike.rand(3).numpy()
        torchlike.manual_seed(5)
        f(torchlike.empty(20, 30), generator=g)
        np.testing.assert_array_equal(torchlike.rand(3).numpy(), x)


def test_runs_under_no_grad():
    def f(T):
        p = T.nn.Parameter(T.empty(4, 6))
        outs = []
        for init in (lambda t: T.nn.init.kaiming_uniform_(t), lambda t: T.nn.init.xavier_normal_(t),
                     lambda t: T.nn.init.zeros_(t), lambda t: T.nn.init.eye_(t), lambda t: T.nn.init.orthogonal_(t),
                     lambda t: T.nn.init.trunc_normal_(t), lambda t: T.nn.init.constant_(t, 2.0)):
            r = init(p)
            outs.append((r is p, p.requires_grad, p.grad_fn is None, p.is_leaf))
        return outs
    check(f)


# ---- layers' default initialisation ------------------------------------------------------------------------------
LAYERS = [
    lambda nn: nn.Conv1d(40, 30, 5),
    lambda nn: nn.Conv2d(16, 64, (3, 5), groups=4),
    lambda nn: nn.Conv3d(8, 48, 3),
    lambda nn: nn.ConvTranspose1d(30, 40, 4),
    lambda nn: nn.ConvTranspose2d(64, 16, 3, groups=2),
    lambda nn: nn.ConvTranspose3d(12, 20, 3, bias=False),
]


@pytest.mark.parametrize('i', range(len(LAYERS)))
def test_layer_default_init(i):
    torch.manual_seed(0)
    tm, lm = LAYERS[i](torch.nn), LAYERS[i](torchlike.nn)
    pt, pl = dict(tm.named_parameters()), dict(lm.named_parameters())
    assert list(pt) == list(pl)
    w = tm.weight
    fan_in = w.shape[1] * math.prod(w.shape[2:])
    bound = 1 / math.sqrt(fan_in)       # kaiming_uniform_(a=sqrt(5)) and the bias rule both give 1/sqrt(fan_in)
    for name in pt:
        a, b = _np(pt[name]), _np(pl[name])
        assert pt[name].shape == tuple(pl[name].shape) and pl[name].requires_grad
        assert -bound <= b.min() and b.max() <= bound, name
        assert a.min() >= -bound and a.max() <= bound
        if b.size > 1000:
            _close_stats(a, b, name)
            assert b.max() > bound * 0.98 and b.min() < -bound * 0.98


def test_layer_reset_parameters_uses_global_seed():
    torchlike.manual_seed(3)
    a = torchlike.nn.Conv2d(3, 4, 3).weight.detach().numpy().copy()
    torchlike.manual_seed(3)
    b = torchlike.nn.Conv2d(3, 4, 3).weight.detach().numpy().copy()
    np.testing.assert_array_equal(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        torchlike.nn.Conv2d(3, 4, 3).reset_parameters()
