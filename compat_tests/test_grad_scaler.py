"""torch.amp.GradScaler against real torch: scale trajectories (skipped steps, growth, backoff), stage
errors, state_dict round trips, the two kernels, and a float16 autocast training loop on CPU."""
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import check

_RNG = np.random.default_rng(1)
W0 = _RNG.standard_normal((3, 4)).astype(np.float32)
XS = [_RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(9)]
for _i in (1, 2, 6):
    XS[_i][0, 1] = np.inf if _i != 6 else np.nan        # steps whose gradients overflow


def _trajectory(t, growth_interval=2, init_scale=4.0, unscale_first=False):
    p = t.nn.Parameter(t.from_numpy(W0.copy()))
    opt = t.optim.SGD([p], lr=0.1)
    scaler = t.amp.GradScaler('cpu', init_scale=init_scale, growth_factor=3.0, backoff_factor=0.25,
                              growth_interval=growth_interval)
    rows = []
    for x in XS:
        opt.zero_grad()
        loss = (p * t.from_numpy(x.copy())).sum()
        scaler.scale(loss).backward()
        if unscale_first:
            scaler.unscale_(opt)
        r = scaler.step(opt)
        scaler.update()
        rows.append((scaler.get_scale(), scaler._get_growth_tracker(), r))
    return rows, p.detach().clone(), scaler.state_dict()


@pytest.mark.parametrize('growth_interval', [1, 2, 3])
def test_scale_trajectory(growth_interval):
    check(lambda t: _trajectory(t, growth_interval))


def test_trajectory_with_explicit_unscale():
    check(lambda t: _trajectory(t, unscale_first=True))


def test_unscaled_grads_and_found_inf():
    def fn(t):
        p = t.nn.Parameter(t.from_numpy(W0.copy()))
        q = t.nn.Parameter(t.from_numpy(W0[0].copy()))
        opt = t.optim.SGD([p, q], lr=0.1)
        scaler = t.amp.GradScaler('cpu', init_scale=1024.0)
        scaler.scale((p * p).sum() + (q * 3).sum()).backward()
        scaled = p.grad.clone()
        scaler.unscale_(opt)
        found = sorted(v.item() for v in scaler._found_inf_per_device(opt).values())
        return scaled, p.grad, q.grad, found
    check(fn)


@pytest.mark.parametrize('case', ['unscale_twice', 'step_twice', 'unscale_after_step', 'step_without_scale',
                                  'update_without_step', 'closure'])
def test_stage_errors(case):
    def fn(t):
        p = t.nn.Parameter(t.from_numpy(W0.copy()))
        opt = t.optim.SGD([p], lr=0.1)
        scaler = t.amp.GradScaler('cpu')
        if case == 'step_without_scale':
            return scaler.step(opt)
        scaler.scale((p * 2).sum()).backward()
        if case == 'unscale_twice':
            scaler.unscale_(opt)
            scaler.unscale_(opt)
        elif case == 'step_twice':
            scaler.step(opt)
            scaler.step(opt)
        elif case == 'unscale_after_step':
            scaler.step(opt)
            scaler.unscale_(opt)
        elif case == 'update_without_step':
            scaler.update()
        elif case == 'closure':
            scaler.step(opt, closure=lambda: None)
        return p
    check(fn)


def test_state_dict_round_trip():
    def fn(t):
        rows, _, sd = _trajectory(t, growth_interval=3)
        fresh = t.amp.GradScaler('cpu')
        before = fresh.state_dict()
        fresh.load_state_dict(sd)
        p = t.nn.Parameter(t.from_numpy(W0.copy()))
        opt = t.optim.SGD([p], lr=0.1)
        fresh.scale((p * 2).sum()).backward()
        fresh.step(opt)
        fresh.update()
        return before, sd, fresh.state_dict(), fresh.get_scale()
    check(fn)


def test_load_empty_state_dict_and_disabled():
    def fn(t):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            off = t.amp.GradScaler('cpu', enabled=False)
            cuda = t.amp.GradScaler()              # no CUDA: warns and disables, as torch
        p = t.nn.Parameter(t.from_numpy(W0.copy()))
        opt = t.optim.SGD([p], lr=0.1)
        loss = (p * 2).sum()
        same = off.scale(loss) is loss
        loss.backward()
        off.step(opt)
        out = [same, off.is_enabled(), cuda.is_enabled(), off.get_scale(), off.state_dict(), p.detach()]
        try:
            t.amp.GradScaler('cpu').load_state_dict({})
        except RuntimeError as e:
            out.append(type(e).__name__)
        return out
    check(fn)


@pytest.mark.parametrize('kw', [dict(growth_factor=1.0), dict(backoff_factor=1.0)])
def test_bad_factors(kw):
    check(lambda t: t.amp.GradScaler('cpu', **kw))


def test_fp16_grads_refused():
    def fn(t):
        p = t.nn.Parameter(t.from_numpy(W0.copy()).half())
        opt = t.optim.SGD([p], lr=0.1)
        scaler = t.amp.GradScaler('cpu')
        scaler.scale((p.float() * 2).sum()).backward()
        scaler.unscale_(opt)
    check(fn)


def test_scale_nested_outputs():
    def fn(t):
        scaler = t.amp.GradScaler('cpu', init_scale=8.0)
        a, b = t.from_numpy(W0.copy()), t.from_numpy(XS[0].copy())
        return scaler.scale([a, (b, a)])
    check(fn)


@pytest.mark.parametrize('dtype', ['float32', 'bfloat16', 'float16', 'float64'])
def test_non_finite_check_and_unscale_kernel(dtype):
    def fn(t):
        g1 = t.from_numpy(W0.copy()).to(getattr(t, dtype))
        g2 = t.from_numpy(XS[1].copy()).to(getattr(t, dtype))
        found = t.zeros(())
        inv = t.full((), 0.125)
        t._amp_foreach_non_finite_check_and_unscale_([g1], found, inv)
        f1 = found.clone()
        t._amp_foreach_non_finite_check_and_unscale_([g1, g2], found, inv)
        return g1, g2, f1, found
    check(fn)


@pytest.mark.parametrize('found', [0.0, 1.0, 2.0])
@pytest.mark.parametrize('tracker', [0, 1, 2])
def test_update_scale_kernel(found, tracker):
    def fn(t):
        s = t.full((), 3.0e38) if tracker == 2 else t.full((), 6.0)
        g = t.full((), tracker, dtype=t.int32)
        r = t._amp_update_scale_(s, g, t.full((), found), 2.0, 0.3, 3)
        return r is s, s, g
    check(fn)


def test_float16_autocast_training_on_cpu():
    Xd = _RNG.standard_normal((16, 8)).astype(np.float32)
    W1 = (_RNG.standard_normal((8, 8)) * 0.3).astype(np.float32)

    def fn(t):
        m = t.nn.Linear(8, 8)
        with t.no_grad():
            m.weight.copy_(t.from_numpy(W1))
            m.bias.zero_()
        opt = t.optim.SGD(m.parameters(), lr=0.05)
        scaler = t.amp.GradScaler('cpu', init_scale=2.0 ** 20, growth_interval=2)
        x = t.from_numpy(Xd)
        losses, scales = [], []
        for _ in range(6):
            opt.zero_grad()
            with t.autocast('cpu', dtype=t.float16):
                loss = t.nn.functional.mse_loss(m(x), x)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            losses.append(loss.detach())
            scales.append(scaler.get_scale())
        return t.stack(losses), scales, m.weight.grad.dtype
    check(fn, atol=5e-3, rtol=5e-3)
