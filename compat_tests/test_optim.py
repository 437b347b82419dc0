"""torch.optim against real torch: parameter trajectories, state_dict layout and round trips, hooks, errors.

Trajectories: the gradients are computed in numpy from the current parameter values (the same float32 bits
in both libraries), so any difference comes from the optimizer alone. Tolerance: rtol=1e-6 plus atol=1e-6 on
parameters of size ~1 (both compute the same float32 operations in the same order; FMA contraction differs
between torch's vectorised CPU kernels and XLA by an ulp here and there).
"""
import importlib
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import check


def _grad(x, k):
    # a smooth, non-quadratic gradient field, different for each parameter
    c = np.asarray(1.0 + k, x.real.dtype)
    if np.iscomplexobj(x):
        return (0.7 * x - 0.3 + 0.2j * np.sin(x.real * c)).astype(x.dtype)
    return (np.asarray(0.7, x.dtype) * x - np.asarray(0.3, x.dtype)
            + np.asarray(0.2, x.dtype) * np.sin(x * c)).astype(x.dtype)


def _inits(dtype=np.float32):
    rng = np.random.default_rng(0)
    if dtype == np.complex64:
        return [(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(dtype)]
    return [rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal((3,)).astype(dtype),
            rng.standard_normal((17,)).astype(dtype)]


def _trajectory(lib, cls, kw, steps=20, dtype=np.float32, groups=None):
    ps = [lib.nn.Parameter(lib.tensor(a)) for a in _inits(dtype)]
    params = ps if groups is None else [dict(params=[ps[i] for i in idx], **g) for idx, g in groups]
    opt = getattr(lib.optim, cls)(params, **kw)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        for k, p in enumerate(ps):
            p.grad = lib.tensor(_grad(p.detach().numpy(), k))
        opt.step()
        out.append(np.concatenate([p.detach().numpy().ravel() for p in ps]))
    return np.array(out), opt


CASES = [
    ('SGD', dict(lr=0.1)),
    ('SGD', dict(lr=0.1, momentum=0.9)),
    ('SGD', dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ('SGD', dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)),
    ('SGD', dict(lr=0.05, momentum=0.5, foreach=True)),
    ('SGD', dict(lr=0.05, momentum=0.5, fused=True)),
    ('Adam', dict(lr=0.1)),
    ('Adam', dict(lr=0.1, amsgrad=True, weight_decay=0.1)),
    ('Adam', dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, maximize=True)),
    ('Adam', dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True, amsgrad=True)),
    ('Adam', dict(lr=0.05, foreach=False, fused=True)),
    ('AdamW', dict(lr=0.1)),
    ('AdamW', dict(lr=0.1, amsgrad=True, weight_decay=0.3, maximize=True)),
    ('Adagrad', dict(lr=0.1)),
    ('Adagrad', dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ('Adagrad', dict(lr=0.1, eps=1e-3, maximize=True, fused=True)),
    ('RMSprop', dict(lr=0.01)),
    ('RMSprop', dict(lr=0.01, alpha=0.9, centered=True)),
    ('RMSprop', dict(lr=0.01, momentum=0.9, weight_decay=0.1)),
    ('RMSprop', dict(lr=0.01, momentum=0.5, centered=True, maximize=True, eps=1e-4)),
    ('Adadelta', dict()),
    ('Adadelta', dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    ('Adamax', dict(lr=0.1)),
    ('Adamax', dict(lr=0.1, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)),
    ('NAdam', dict(lr=0.1)),
    ('NAdam', dict(lr=0.1, momentum_decay=0.01, weight_decay=0.1)),
    ('NAdam', dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ('RAdam', dict(lr=0.1)),
    ('RAdam', dict(lr=0.1, weight_decay=0.1)),
    ('RAdam', dict(lr=0.1, betas=(0.9, 0.9), weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ('ASGD', dict(lr=0.1)),
    ('ASGD', dict(lr=0.1, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1, maximize=True)),
    ('Rprop', dict(lr=0.1)),
    ('Rprop', dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
]


def _ids(cases):
    return [f'{c}-' + ','.join(f'{k}={v}' for k, v in kw.items()) for c, kw in cases]


def _to_np(v):
    return v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else np.asarray(v.detach()._materialize())


def _assert_states_equal(tl_opt, th_opt, rtol=1e-6, atol=1e-6):
    """Same state_dict layout (keys, indices, groups, dtypes, shapes) and values."""
    a, b = tl_opt.state_dict(), th_opt.state_dict()
    assert a['param_groups'] == b['param_groups']
    assert list(a['state']) == list(b['state'])
    for i in b['state']:
        sa, sb = a['state'][i], b['state'][i]
        assert list(sa) == list(sb)
        for k in sb:
            if isinstance(sb[k], torch.Tensor):
                assert isinstance(sa[k], torchlike.Tensor)
                assert str(sa[k].dtype) == str(sb[k].dtype), (k, sa[k].dtype, sb[k].dtype)
                assert tuple(sa[k].shape) == tuple(sb[k].shape)
                np.testing.assert_allclose(_to_np(sa[k]), _to_np(sb[k]), rtol=rtol, atol=atol)
            else:
                assert sa[k] == sb[k]


@pytest.mark.parametrize('cls,kw', CASES, ids=_ids(CASES))
def test_trajectory_matches_torch(cls, kw):
    expected, th_opt = _trajectory(torch, cls, kw)
    got, tl_opt = _trajectory(torchlike, cls, kw)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    _assert_states_equal(tl_opt, th_opt)


COMPLEX_CASES = [('SGD', dict(lr=0.1, momentum=0.9)), ('Adam', dict(lr=0.1, amsgrad=True)),
                 ('AdamW', dict(lr=0.1)), ('Adagrad', dict(lr=0.1)), ('RMSprop', dict(lr=0.01, centered=True)),
                 ('Adadelta', dict()), ('Adamax', dict(lr=0.1)), ('NAdam', dict(lr=0.1)), ('RAdam', dict(lr=0.1)),
                 ('ASGD', dict(lr=0.1)), ('Rprop', dict(lr=0.1))]


@pytest.mark.parametrize('cls,kw', COMPLEX_CASES, ids=_ids(COMPLEX_CASES))
def test_complex_params_match_torch(cls, kw):
    expected, th_opt = _trajectory(torch, cls, kw, steps=8, dtype=np.complex64)
    got, tl_opt = _trajectory(torchlike, cls, kw, steps=8, dtype=np.complex64)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    _assert_states_equal(tl_opt, th_opt)


@pytest.mark.parametrize('cls', ['SGD', 'Adam', 'RMSprop'])
def test_float64_params(cls):
    kw = dict(lr=0.05, momentum=0.9) if cls != 'Adam' else dict(lr=0.05)
    expected, th_opt = _trajectory(torch, cls, kw, steps=10, dtype=np.float64)
    got, tl_opt = _trajectory(torchlike, cls, kw, steps=10, dtype=np.float64)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    _assert_states_equal(tl_opt, th_opt, rtol=1e-12, atol=1e-12)


def test_param_groups_with_own_options():
    groups = [((0,), dict(lr=0.01, momentum=0.9)), ((1, 2), dict(weight_decay=0.1))]
    expected, th_opt = _trajectory(torch, 'SGD', dict(lr=0.1), groups=groups)
    got, tl_opt = _trajectory(torchlike, 'SGD', dict(lr=0.1), groups=groups)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    _assert_states_equal(tl_opt, th_opt)


def _mlp(lib, seed=0):
    rng = np.random.default_rng(seed)
    m = lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    x = lib.tensor(rng.standard_normal((16, 5)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((16, 2)).astype(np.float32))
    return m, x, y


@pytest.mark.parametrize('cls,kw', [('SGD', dict(lr=0.05, momentum=0.9)), ('Adam', dict(lr=0.01)),
                                    ('RMSprop', dict(lr=0.005))])
def test_mlp_training_losses(cls, kw):
    """A real forward/backward loop: the per-step losses follow torch's (autograd adds ulp-level noise)."""
    def run(lib):
        m, x, y = _mlp(lib)
        opt = getattr(lib.optim, cls)(m.parameters(), **kw)
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = ((m(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return np.array(losses)
    np.testing.assert_allclose(run(torchlike), run(torch), rtol=1e-5, atol=1e-6)


# ---- LBFGS ------------------------------------------------------------------------------------

def _lbfgs(lib, kw, steps):
    x = lib.nn.Parameter(lib.tensor(np.array([-1.5, 2.0, -0.5, 1.2], np.float32)))
    opt = lib.optim.LBFGS([x], **kw)

    def closure():
        opt.zero_grad()
        loss = (100 * (x[1::2] - x[::2] ** 2) ** 2 + (1 - x[::2]) ** 2).sum()
        loss.backward()
        return loss
    out, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        out.append(x.detach().numpy().copy())
    st = opt.state_dict()['state'][0]
    return np.array(out), losses, st['func_evals'], st['n_iter']


@pytest.mark.parametrize('kw', [dict(max_iter=2), dict(max_iter=3, lr=0.3),
                                dict(max_iter=2, line_search_fn='strong_wolfe'),
                                dict(max_iter=3, history_size=2, line_search_fn='strong_wolfe')],
                         ids=['plain', 'lr', 'wolfe', 'wolfe-history'])
def test_lbfgs_matches_torch(kw):
    a, la, fa, na = _lbfgs(torch, kw, 4)
    b, lb, fb, nb = _lbfgs(torchlike, kw, 4)
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lb, la, rtol=1e-5)
    assert (fb, nb) == (fa, na)


def test_lbfgs_errors():
    check(lambda lib: lib.optim.LBFGS([dict(params=[lib.nn.Parameter(lib.zeros(2))]),
                                       dict(params=[lib.nn.Parameter(lib.zeros(2))])]))
    x = torchlike.nn.Parameter(torchlike.ones(2))
    opt = torchlike.optim.LBFGS([x], line_search_fn='backtracking')

    def closure():
        opt.zero_grad()
        loss = (x ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


# ---- compile once -----------------------------------------------------------------------------

def test_changing_hyperparameters_does_not_recompile():
    from torchlike.optim.adam import _adam_kernel
    ps = [torchlike.nn.Parameter(torchlike.randn(7, 3)), torchlike.nn.Parameter(torchlike.randn(5))]
    opt = torchlike.optim.Adam(ps, lr=0.1)
    for i in range(3):
        for p in ps:
            p.grad = torchlike.ones_like(p)
        opt.step()
    size = _adam_kernel._cache_size()
    for i, lr in enumerate([0.01, 0.02, 1e-4]):
        opt.param_groups[0]['lr'] = lr
        opt.param_groups[0]['betas'] = (0.8 + i / 100, 0.99)
        opt.param_groups[0]['eps'] = 10.0 ** -(i + 5)
        opt.step()
    assert _adam_kernel._cache_size() == size


def test_updates_are_in_place():
    """The Parameter object, its views and its version counter see the update; state tensors are kept."""
    p = torchlike.nn.Parameter(torchlike.arange(6.0))
    v = p.detach().view(2, 3)
    opt = torchlike.optim.SGD([p], lr=0.5, momentum=0.9)
    p.grad = torchlike.ones(6)
    opt.step()
    buf = opt.state[p]['momentum_buffer']
    version = p._version
    opt.step()
    assert p._version > version
    assert opt.state[p]['momentum_buffer'] is buf
    np.testing.assert_allclose(v.numpy().ravel(), p.detach().numpy())
    th = torch.nn.Parameter(torch.arange(6.0))
    topt = torch.optim.SGD([th], lr=0.5, momentum=0.9)
    for _ in range(2):
        th.grad = torch.ones(6)
        topt.step()
    np.testing.assert_allclose(p.detach().numpy(), th.detach().numpy())
    np.testing.assert_allclose(buf.numpy(), topt.state[th]['momentum_buffer'].numpy())


def test_params_without_grad_are_skipped():
    def fn(lib):
        a, b = lib.nn.Parameter(lib.ones(3)), lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.Adam([a, b], lr=0.1)
        a.grad = lib.full((3,), 0.5)
        opt.step()
        return a.detach(), b.detach(), lib.tensor(len(opt.state))
    check(fn, atol=1e-7, rtol=1e-7)


# ---- state_dict ---------------------------------------------------------------------------------

def _np_state_dict(sd):
    """A state_dict with every tensor as a numpy array (the bridge between the two libraries)."""
    def conv(v):
        if isinstance(v, (torch.Tensor, torchlike.Tensor)):
            return ('T', _to_np(v))
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, list):
            return [conv(x) for x in v]
        if isinstance(v, tuple):
            return tuple(conv(x) for x in v)
        return v
    return conv(sd)


def _lib_state_dict(lib, sd):
    def conv(v):
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and v[0] == 'T':
            return lib.tensor(v[1])
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, list):
            return [conv(x) for x in v]
        if isinstance(v, tuple):
            return tuple(conv(x) for x in v)
        return v
    return conv(sd)


@pytest.mark.parametrize('cls,kw', [('SGD', dict(lr=0.1, momentum=0.9)), ('Adam', dict(lr=0.1, amsgrad=True)),
                                    ('Adagrad', dict(lr=0.1)), ('NAdam', dict(lr=0.1)), ('ASGD', dict(lr=0.1)),
                                    ('Rprop', dict(lr=0.1))])
@pytest.mark.parametrize('direction', ['torch->torchlike', 'torchlike->torch'])
def test_state_dict_loads_across_libraries(cls, kw, direction):
    src, dst = (torch, torchlike) if direction == 'torch->torchlike' else (torchlike, torch)
    _, src_opt = _trajectory(src, cls, kw, steps=5)
    sd = _np_state_dict(src_opt.state_dict())
    params = [p.detach().numpy().copy() for p in src_opt.param_groups[0]['params']]

    def resume(lib, state):
        ps = [lib.nn.Parameter(lib.tensor(a)) for a in params]
        opt = getattr(lib.optim, cls)(ps, **kw)
        if state is not None:
            opt.load_state_dict(_lib_state_dict(lib, state))
        out = []
        for _ in range(5):
            for k, p in enumerate(ps):
                p.grad = lib.tensor(_grad(p.detach().numpy(), k))
            opt.step()
            out.append(np.concatenate([p.detach().numpy().ravel() for p in ps]))
        return np.array(out), opt
    continued, src_cont = resume(src, sd)
    loaded, dst_cont = resume(dst, sd)
    np.testing.assert_allclose(loaded, continued, rtol=1e-6, atol=1e-6)
    fresh, _ = resume(dst, None)
    assert not np.allclose(fresh, continued, rtol=1e-6, atol=1e-6)   # the loaded state mattered
    tl_opt, th_opt = (dst_cont, src_cont) if dst is torchlike else (src_cont, dst_cont)
    _assert_states_equal(tl_opt, th_opt)


def test_load_state_dict_errors():
    def fn(lib, which):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
        sd = lib.optim.SGD([a, b], lr=0.1).state_dict()
        if which == 'groups':
            lib.optim.SGD([dict(params=[a]), dict(params=[b])], lr=0.1).load_state_dict(sd)
        else:
            lib.optim.SGD([a], lr=0.1).load_state_dict(sd)
    for which in ('groups', 'sizes'):
        check(lambda lib: fn(lib, which))
        with pytest.raises(ValueError) as e1:
            fn(torch, which)
        with pytest.raises(ValueError) as e2:
            fn(torchlike, which)
        assert str(e1.value) == str(e2.value)


def test_load_state_dict_casts_to_param_dtype():
    a = torchlike.nn.Parameter(torchlike.ones(3, dtype=torchlike.float64))
    opt = torchlike.optim.Adam([a])
    sd = {'state': {0: {'step': torchlike.tensor(3.0), 'exp_avg': torchlike.ones(3), 'exp_avg_sq': torchlike.ones(3)}},
          'param_groups': opt.state_dict()['param_groups']}
    opt.load_state_dict(sd)
    assert opt.state[a]['exp_avg'].dtype == torchlike.float64
    assert opt.state[a]['step'].dtype == torchlike.float32


# ---- zero_grad, closure, groups, hooks -----------------------------------------------------------

@pytest.mark.parametrize('set_to_none', [True, False])
def test_zero_grad(set_to_none):
    def fn(lib):
        a = lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.SGD([a], lr=0.1)
        a.grad = lib.full((3,), 2.0)
        opt.zero_grad(set_to_none=set_to_none)
        return lib.tensor(-1.0) if a.grad is None else a.grad
    check(fn)


def test_step_with_closure_returns_loss():
    def fn(lib):
        a = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = lib.optim.Adam([a], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (a ** 2).sum()
            loss.backward()
            return loss
        losses = [opt.step(closure) for _ in range(3)]
        return lib.stack([x.detach() for x in losses]), a.detach()
    check(fn, atol=1e-6, rtol=1e-6)


def test_add_param_group_and_repr():
    def fn(lib):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.SGD([a], lr=0.1, momentum=0.9)
        opt.add_param_group({'params': b, 'lr': 0.01})
        a.grad, b.grad = lib.ones(2), lib.ones(3)
        opt.step()
        g = opt.param_groups[1]
        return (a.detach(), b.detach(), g['lr'], g['momentum'], len(g['params']))
    check(fn)
    a = torchlike.nn.Parameter(torchlike.ones(2))
    ta = torch.nn.Parameter(torch.ones(2))
    assert repr(torchlike.optim.Adam([a], lr=0.5)) == repr(torch.optim.Adam([ta], lr=0.5))
    assert repr(torchlike.optim.SGD([a], lr=0.5, momentum=0.1)) == repr(torch.optim.SGD([ta], lr=0.5, momentum=0.1))


def test_named_parameters_groups():
    def fn(lib):
        m = lib.nn.Linear(2, 2)
        opt = lib.optim.SGD(m.named_parameters(), lr=0.1)
        return opt.state_dict()['param_groups'][0]['param_names'], opt.state_dict()['param_groups'][0]['params']
    assert fn(torch) == fn(torchlike)


def test_param_errors():
    def P(lib):
        return lib.nn.Parameter(lib.ones(2))
    check(lambda lib: lib.optim.SGD([], lr=0.1))
    check(lambda lib: lib.optim.SGD(P(lib), lr=0.1))
    check(lambda lib: len(lib.optim.SGD({P(lib)}, lr=0.1).param_groups))
    check(lambda lib: lib.optim.SGD([{'params': {P(lib)}}], lr=0.1))
    check(lambda lib: lib.optim.SGD([P(lib) * 2], lr=0.1))
    check(lambda lib: lib.optim.SGD([1.0], lr=0.1))
    check(lambda lib: len(lib.optim.SGD([{'params': [P(lib)]}, {'params': []}], lr=0.1).param_groups))

    def overlap(lib):
        a = P(lib)
        lib.optim.SGD([{'params': [a]}, {'params': [a]}], lr=0.1)
    check(overlap)
    check(lambda lib: len(lib.optim.SGD([{'params': [P(lib)]}]).param_groups))      # SGD's lr has a default
    check(lambda lib: lib.optim.Optimizer([P(lib)], {}).step())


def test_duplicate_params_warn():
    for lib in (torch, torchlike):
        a = lib.nn.Parameter(lib.ones(2))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.optim.SGD([a, a], lr=0.1)
        assert any('duplicate parameters' in str(x.message) for x in w), lib


VALIDATION = [
    ('SGD', dict(lr=-0.1)), ('SGD', dict(lr=0.1, momentum=-1)), ('SGD', dict(lr=0.1, weight_decay=-1)),
    ('SGD', dict(lr=0.1, nesterov=True)), ('SGD', dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ('SGD', dict(lr=0.1, fused=True, foreach=True)),
    ('Adam', dict(lr=-1e-3)), ('Adam', dict(eps=-1.0)), ('Adam', dict(betas=(1.0, 0.999))),
    ('Adam', dict(betas=(0.9, -0.1))), ('Adam', dict(weight_decay=-0.1)), ('Adam', dict(betas=(0.9, 1))),
    ('Adam', dict(fused=True, foreach=True)), ('AdamW', dict(betas=(0.9, 1.5))), ('AdamW', dict(lr=-1.0)),
    ('Adagrad', dict(lr=-1.0)), ('Adagrad', dict(lr_decay=-1.0)), ('Adagrad', dict(weight_decay=-1.0)),
    ('Adagrad', dict(initial_accumulator_value=-1.0)), ('Adagrad', dict(eps=-1.0)),
    ('RMSprop', dict(lr=-1.0)), ('RMSprop', dict(eps=-1.0)), ('RMSprop', dict(momentum=-1.0)),
    ('RMSprop', dict(weight_decay=-1.0)), ('RMSprop', dict(alpha=-1.0)),
    ('Adadelta', dict(lr=-1.0)), ('Adadelta', dict(rho=1.5)), ('Adadelta', dict(eps=-1.0)),
    ('Adadelta', dict(weight_decay=-1.0)),
    ('Adamax', dict(lr=-1.0)), ('Adamax', dict(eps=-1.0)), ('Adamax', dict(betas=(1.0, 0.9))),
    ('Adamax', dict(betas=(0.9, 1.0))), ('Adamax', dict(weight_decay=-1.0)),
    ('NAdam', dict(lr=-1.0)), ('NAdam', dict(eps=-1.0)), ('NAdam', dict(betas=(1.0, 0.9))),
    ('NAdam', dict(weight_decay=-1.0)), ('NAdam', dict(momentum_decay=-1.0)),
    ('RAdam', dict(lr=-1.0)), ('RAdam', dict(eps=-1.0)), ('RAdam', dict(betas=(0.9, 1.0))),
    ('RAdam', dict(weight_decay=-1.0)),
    ('ASGD', dict(lr=-1.0)), ('ASGD', dict(weight_decay=-1.0)),
    ('Rprop', dict(lr=-1.0)), ('Rprop', dict(etas=(1.5, 1.2))), ('Rprop', dict(etas=(0.5, 0.9))),
    ('LBFGS', dict(lr=-1.0)),
]


@pytest.mark.parametrize('cls,kw', VALIDATION, ids=_ids(VALIDATION))
def test_validation_errors_match_torch(cls, kw):
    errors = []
    for lib in (torch, torchlike):
        with pytest.raises(Exception) as e:
            getattr(lib.optim, cls)([lib.nn.Parameter(lib.ones(2))], **kw)
        errors.append(e.value)
    assert type(errors[1]) is type(errors[0])
    assert str(errors[1]) == str(errors[0])


@pytest.mark.parametrize('cls', ['SGD', 'Adam', 'AdamW', 'Adagrad', 'RMSprop', 'Adadelta', 'Adamax', 'NAdam',
                                 'RAdam', 'ASGD', 'Rprop'])
def test_differentiable_is_refused(cls):
    with pytest.raises(NotImplementedError, match='differentiable'):
        getattr(torchlike.optim, cls)([torchlike.nn.Parameter(torchlike.ones(2))], lr=0.1, differentiable=True)


@pytest.mark.parametrize('cls', ['Adam', 'AdamW', 'RMSprop', 'Adadelta', 'Adamax', 'NAdam', 'RAdam', 'ASGD',
                                 'Rprop'])
def test_capturable_needs_a_graph_capture_device(cls):
    """On CPU torch refuses capturable=True at the first step (AssertionError with the same message)."""
    errors = []
    for lib in (torch, torchlike):
        p = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, cls)([p], capturable=True)
        p.grad = lib.ones(2)
        with pytest.raises(AssertionError) as e:
            opt.step()
        errors.append(str(e.value))
    assert errors[0] == errors[1]


def test_sparse_adam_not_implemented():
    with pytest.raises(NotImplementedError, match='SparseAdam'):
        torchlike.optim.SparseAdam([torchlike.nn.Parameter(torchlike.ones(2))])


def test_fused_requires_float_params():
    def fn(lib):
        a = lib.ones(2, dtype=lib.float64).requires_grad_()
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.Adam([p, a], fused=True)
        p.grad, a.grad = lib.ones(2), lib.ones(2, dtype=lib.float64)
        opt.step()
        return p.detach(), a.detach()
    check(fn)


def test_step_hooks():
    def fn(lib):
        a = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([a], lr=0.1)
        calls = []
        h1 = opt.register_step_pre_hook(lambda o, args, kw: calls.append(('pre', len(args), sorted(kw))))
        opt.register_step_post_hook(lambda o, args, kw: calls.append(('post', float(a.detach().sum()))))
        g = importlib.import_module(lib.__name__ + '.optim.optimizer').register_optimizer_step_pre_hook(lambda o, args, kw: calls.append(('global',)))
        a.grad = lib.ones(2)
        opt.step()
        h1.remove()
        g.remove()
        opt.step()
        return calls
    a, b = fn(torch), fn(torchlike)
    assert len(a) == len(b) and all(x[0] == y[0] for x, y in zip(a, b))
    np.testing.assert_allclose([x[1] for x in b if x[0] == 'post'], [x[1] for x in a if x[0] == 'post'])


def test_step_pre_hook_can_replace_args():
    def fn(lib):
        a = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([a], lr=0.1)
        a.grad = lib.ones(2)
        seen = []

        def closure():
            seen.append(1)
            return lib.tensor(5.0)
        opt.register_step_pre_hook(lambda o, args, kw: ((args[0],), {'closure': closure}))
        loss = opt.step()
        return loss, len(seen)
    check(fn)


def test_state_dict_hooks():
    def fn(lib):
        a = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.Adam([a], lr=0.1)
        a.grad = lib.ones(2)
        opt.step()
        calls = []
        opt.register_state_dict_pre_hook(lambda o: calls.append('pre'))
        opt.register_state_dict_pre_hook(lambda o: calls.append('pre0'), prepend=True)

        def post(o, sd):
            calls.append('post')
            sd['extra'] = 1
            return sd
        opt.register_state_dict_post_hook(post)
        sd = opt.state_dict()

        def lpre(o, sd):
            calls.append('lpre')
            sd = dict(sd)
            sd.pop('extra')
            return sd
        opt.register_load_state_dict_pre_hook(lpre)
        opt.register_load_state_dict_post_hook(lambda o: calls.append('lpost'))
        opt.load_state_dict(sd)
        return calls, sd['extra']
    assert fn(torch) == fn(torchlike)
