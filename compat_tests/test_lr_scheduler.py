"""torch.optim.lr_scheduler against real torch: lr (and momentum) sequences, state_dict round trips, warnings."""
import warnings

import numpy as np
import pytest
import torch

import torchlike


def _opt(lib, kind='SGD', groups=1, **kw):
    ps = [lib.nn.Parameter(lib.ones(2)) for _ in range(groups)]
    params = [dict(params=[p], lr=0.1 * (i + 1)) for i, p in enumerate(ps)]
    if kind == 'SGD':
        return lib.optim.SGD(params, lr=0.1, momentum=0.9, **kw)
    return getattr(lib.optim, kind)(params, lr=0.1, **kw)


def _lambda_factor(epoch):
    return 0.95 ** epoch


def _mult_factor(epoch):
    return 0.9 if epoch % 3 else 1.05


SCHEDULES = {
    'LambdaLR': lambda S, o: S.LambdaLR(o, lr_lambda=_lambda_factor),
    'LambdaLR-list': lambda S, o: S.LambdaLR(o, lr_lambda=[_lambda_factor, lambda e: 1 / (e + 1)]),
    'MultiplicativeLR': lambda S, o: S.MultiplicativeLR(o, lr_lambda=_mult_factor),
    'StepLR': lambda S, o: S.StepLR(o, step_size=4),
    'StepLR-gamma': lambda S, o: S.StepLR(o, step_size=3, gamma=0.7),
    'MultiStepLR': lambda S, o: S.MultiStepLR(o, milestones=[3, 7, 7, 20], gamma=0.5),
    'ConstantLR': lambda S, o: S.ConstantLR(o),
    'ConstantLR-opts': lambda S, o: S.ConstantLR(o, factor=0.3, total_iters=8),
    'LinearLR': lambda S, o: S.LinearLR(o),
    'LinearLR-opts': lambda S, o: S.LinearLR(o, start_factor=0.1, end_factor=0.7, total_iters=12),
    'ExponentialLR': lambda S, o: S.ExponentialLR(o, gamma=0.9),
    'PolynomialLR': lambda S, o: S.PolynomialLR(o),
    'PolynomialLR-opts': lambda S, o: S.PolynomialLR(o, total_iters=20, power=2.5),
    'CosineAnnealingLR': lambda S, o: S.CosineAnnealingLR(o, T_max=10),
    'CosineAnnealingLR-eta': lambda S, o: S.CosineAnnealingLR(o, T_max=7, eta_min=0.01),
    'WarmRestarts': lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=5),
    'WarmRestarts-mult': lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=1e-3),
    'CyclicLR': lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4),
    'CyclicLR-tri2': lambda S, o: S.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
                                             mode='triangular2', base_momentum=0.7, max_momentum=0.95),
    'CyclicLR-exp': lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4, mode='exp_range',
                                            gamma=0.95, cycle_momentum=False),
    'CyclicLR-fn': lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                           scale_fn=lambda x: 1 / (x + 1), scale_mode='iterations'),
    'OneCycleLR': lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=31),
    'OneCycleLR-linear': lambda S, o: S.OneCycleLR(o, max_lr=[1.0, 0.5], epochs=4, steps_per_epoch=8, pct_start=0.2,
                                                   anneal_strategy='linear', div_factor=10.0, final_div_factor=100.0),
    'OneCycleLR-3phase': lambda S, o: S.OneCycleLR(o, max_lr=0.3, total_steps=31, three_phase=True,
                                                   base_momentum=0.8, max_momentum=0.9),
    'SequentialLR': lambda S, o: S.SequentialLR(o, schedulers=[S.LinearLR(o, start_factor=0.1, total_iters=5),
                                                               S.ExponentialLR(o, gamma=0.9)], milestones=[5]),
    'SequentialLR-3': lambda S, o: S.SequentialLR(o, schedulers=[S.ConstantLR(o, factor=0.5, total_iters=3),
                                                                 S.CosineAnnealingLR(o, T_max=8),
                                                                 S.StepLR(o, step_size=2)], milestones=[4, 12]),
    'ChainedScheduler': lambda S, o: S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=4),
                                                         S.ExponentialLR(o, gamma=0.9)]),
    'ChainedScheduler-opt': lambda S, o: S.ChainedScheduler([S.StepLR(o, 3), S.LinearLR(o, total_iters=6)],
                                                            optimizer=o),
}


def _sequence(lib, name, epochs=30, kind='SGD'):
    opt = _opt(lib, kind, groups=2)
    sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
    out = [list(sched.get_last_lr())]
    for _ in range(epochs):
        opt.step()
        sched.step()
        out.append(list(sched.get_last_lr()) + [g.get('momentum', g.get('betas', (None,))[0])
                                                for g in opt.param_groups])
    return out


@pytest.mark.parametrize('name', list(SCHEDULES))
def test_lr_sequence_matches_torch(name):
    assert _sequence(torchlike, name) == _sequence(torch, name)


@pytest.mark.parametrize('name', ['CyclicLR', 'OneCycleLR-3phase'])
def test_cycles_beta1_of_adam(name):
    assert _sequence(torchlike, name, kind='Adam') == _sequence(torch, name, kind='Adam')


@pytest.mark.parametrize('name', ['StepLR-gamma', 'MultiStepLR', 'ConstantLR-opts', 'LinearLR-opts', 'ExponentialLR',
                                  'PolynomialLR-opts', 'CosineAnnealingLR-eta', 'WarmRestarts-mult'])
def test_step_with_epoch_uses_closed_form(name):
    def run(lib):
        opt = _opt(lib, groups=2)
        sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            for epoch in [3, 4, 9, 2, 15, 16]:
                opt.step()
                sched.step(epoch)
                out.append(list(sched.get_last_lr()))
        return out, sorted({str(x.message)[:60] for x in w})
    assert run(torchlike) == run(torch)


@pytest.mark.parametrize('name', ['LambdaLR', 'StepLR', 'MultiStepLR', 'CosineAnnealingLR', 'WarmRestarts-mult',
                                  'CyclicLR-tri2', 'OneCycleLR', 'SequentialLR-3', 'ChainedScheduler', 'LinearLR'])
def test_state_dict_round_trip(name):
    def run(lib):
        opt = _opt(lib, groups=2)
        sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
        for _ in range(10):
            opt.step()
            sched.step()
        sd = sched.state_dict()
        osd = opt.state_dict()
        opt2 = _opt(lib, groups=2)
        sched2 = SCHEDULES[name](lib.optim.lr_scheduler, opt2)
        sched2.load_state_dict(sd)
        opt2.load_state_dict(osd)
        out = []
        for _ in range(12):
            opt2.step()
            sched2.step()
            out.append(list(sched2.get_last_lr()))
        keys = sorted(k for k in sd if not k.startswith('_get_lr') and k != '_is_initial')
        return out, keys, getattr(sched2, 'last_epoch', None)
    assert run(torchlike) == run(torch)


def test_state_dict_contents_match_torch():
    for name in ['StepLR', 'OneCycleLR', 'ReduceLROnPlateau']:
        def sd(lib):
            opt = _opt(lib, groups=2)
            S = lib.optim.lr_scheduler
            sched = S.ReduceLROnPlateau(opt) if name == 'ReduceLROnPlateau' else SCHEDULES[name](S, opt)
            opt.step()
            sched.step(*([1.0] if name == 'ReduceLROnPlateau' else []))
            return {k: v for k, v in sched.state_dict().items()}
        a, b = sd(torch), sd(torchlike)
        assert sorted(a) == sorted(b)
        for k in a:
            if not callable(a[k]):
                assert a[k] == b[k], (name, k)


def test_initial_lr_and_last_epoch():
    def run(lib):
        opt = _opt(lib, groups=2)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        for _ in range(5):
            opt.step()
            sched.step()
        groups = [(g['lr'], g['initial_lr']) for g in opt.param_groups]
        # resuming with last_epoch needs initial_lr in the groups
        sched2 = lib.optim.lr_scheduler.StepLR(opt, step_size=2, last_epoch=4)
        return groups, sched.last_epoch, sched.base_lrs, sched2.last_epoch, sched2.get_last_lr()
    assert run(torchlike) == run(torch)
    for lib in (torch, torchlike):
        with pytest.raises(KeyError):
            lib.optim.lr_scheduler.StepLR(_opt(lib), step_size=2, last_epoch=3)


def _warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        fn()
    return [(x.category, str(x.message)) for x in w]


def test_warns_when_scheduler_steps_before_optimizer():
    def run(lib):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        return _warnings(sched.step)
    got, expected = run(torchlike), run(torch)
    assert got == expected
    assert any('before `optimizer.step()`' in m for _, m in got)

    def ok(lib):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        return _warnings(lambda: (opt.step(), sched.step()))
    assert ok(torchlike) == ok(torch) == []


def test_warns_when_optimizer_step_is_replaced():
    def run(lib):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step = lambda closure=None: None
        return _warnings(sched.step)
    assert run(torchlike) == run(torch)


def test_get_lr_outside_step_warns():
    def run(lib):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        return _warnings(sched.get_lr)
    assert run(torchlike) == run(torch)


@pytest.mark.parametrize('kw', [dict(), dict(mode='max', factor=0.5, patience=2, threshold_mode='abs', cooldown=2),
                                dict(patience=1, min_lr=[0.05, 0.1], threshold=0.1, eps=1e-3)])
def test_reduce_lr_on_plateau(kw):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.8, 0.81, 0.82, 0.83, 0.9, 0.7] * 3

    def run(lib):
        opt = _opt(lib, groups=2)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        out = []
        for m in metrics:
            opt.step()
            sched.step(m)
            out.append((list(sched.get_last_lr()), sched.num_bad_epochs, sched.best, sched.last_epoch))
        sd = sched.state_dict()
        sched2 = lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib, groups=2), **kw)
        sched2.load_state_dict(sd)
        return out, sched2.best, sched2.mode, sched2.num_bad_epochs
    assert run(torchlike) == run(torch)


def test_tensor_lr_is_filled_in_place():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=lib.tensor(0.5))
        lr_t = opt.param_groups[0]['lr']
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        for _ in range(3):
            p.grad = lib.ones(2)
            opt.step()
            sched.step()
        return float(lr_t), opt.param_groups[0]['lr'] is lr_t, [float(x) for x in sched.get_last_lr()], \
            p.detach().tolist()
    assert run(torchlike) == run(torch)


def _err(lib, make):
    try:
        make(lib)
    except Exception as e:  # noqa: BLE001 - the oracle's exception is the expectation
        return type(e).__name__, str(e)
    return None


ERRORS = {
    'not-optimizer': lambda lib: lib.optim.lr_scheduler.StepLR(object(), 2),
    'constant-factor': lambda lib: lib.optim.lr_scheduler.ConstantLR(_opt(lib), factor=1.5),
    'linear-start': lambda lib: lib.optim.lr_scheduler.LinearLR(_opt(lib), start_factor=0),
    'linear-end': lambda lib: lib.optim.lr_scheduler.LinearLR(_opt(lib), end_factor=2),
    'lambda-count': lambda lib: lib.optim.lr_scheduler.LambdaLR(_opt(lib), [_lambda_factor] * 2),
    'mult-callable': lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(_opt(lib), 0.5),
    'plateau-factor': lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), factor=1.0),
    'plateau-mode': lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), mode='avg'),
    'plateau-thr': lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), threshold_mode='x'),
    'plateau-minlr': lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), min_lr=[0.1, 0.2]),
    'warm-T0': lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), T_0=0),
    'warm-Tmult': lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), T_0=2, T_mult=0),
    'cyclic-mode': lambda lib: lib.optim.lr_scheduler.CyclicLR(_opt(lib), 0.01, 0.1, mode='nope'),
    'cyclic-momentum': lambda lib: lib.optim.lr_scheduler.CyclicLR(_opt(lib, 'Adagrad'), 0.01, 0.1),
    'onecycle-steps': lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1),
    'onecycle-pct': lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, total_steps=10, pct_start=1.5),
    'onecycle-anneal': lambda lib: lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, total_steps=10,
                                                                     anneal_strategy='exp'),
    'onecycle-overrun': lambda lib: (lambda s: [s.step() for _ in range(3)])(
        lib.optim.lr_scheduler.OneCycleLR(_opt(lib), 0.1, total_steps=2)),
    'sequential-milestones': lambda lib: (lambda o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.StepLR(o, 2)], milestones=[3]))(_opt(lib)),
    'sequential-plateau': lambda lib: (lambda o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.ReduceLROnPlateau(o)], milestones=[]))(_opt(lib)),
    'chained-empty': lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
}


@pytest.mark.parametrize('name', list(ERRORS))
def test_errors_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        expected = _err(torch, ERRORS[name])
        got = _err(torchlike, ERRORS[name])
    assert expected is not None
    assert got == expected


def test_scheduler_drives_training_like_torch():
    """An optimizer step reads the scheduled lr as data: the trajectory under a schedule follows torch's."""
    def run(lib):
        p = lib.nn.Parameter(lib.tensor(np.linspace(-1, 1, 6).astype(np.float32)))
        opt = lib.optim.Adam([p], lr=0.1)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.2, total_steps=15)
        for _ in range(15):
            p.grad = lib.tensor(np.cos(p.detach().numpy()).astype(np.float32))
            opt.step()
            sched.step()
        return p.detach().numpy()
    np.testing.assert_allclose(run(torchlike), run(torch), rtol=1e-6, atol=1e-6)
