"""Lazy execution (Note [Lazy execution], torchlike/_engine/lazy.py): the same results as torch and as eager
mode, one program per training step, no recompiles in the steady state, and the sync points a script relies on."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import torchlike
from torchlike import debug
from conftest import assert_same, to_np, execution_mode as _mode

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def lazy_mode():
    with _mode('lazy'):
        yield


def _delta(before):
    now = debug.metrics()
    return {k: now[k] - before[k] for k in now}


def _mlp(lib, dropout=0.0):
    return lib.nn.Sequential(lib.nn.Linear(20, 32), lib.nn.ReLU(), lib.nn.Dropout(dropout), lib.nn.Linear(32, 5))


def _copy(src, dst):
    dst.load_state_dict({k: torchlike.tensor(v.detach().numpy()) for k, v in src.state_dict().items()})


def _train(lib, model, xs, ys, steps, sched=False, log=None):
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    sch = (lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps) if sched == 'cosine' else
           lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=steps) if sched else None)
    losses = []
    for i in range(steps):
        if log is not None and i == 2:
            log.append(debug.metrics())
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(xs[i % len(xs)]), ys[i % len(ys)])
        loss.backward()
        opt.step()
        if sch is not None:
            sch.step()
        losses.append(loss)
    return [float(v) for v in losses]


def test_training_loop_matches_torch_and_compiles_once(lazy_mode):
    """An MLP trained with Adam and OneCycleLR (the learning rate changes every step): per-step losses equal
    torch's, and after the first steps no program is compiled again."""
    torch.manual_seed(0)
    ref = _mlp(torch)
    model = _mlp(torchlike)
    _copy(ref, model)
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((16, 20)).astype(np.float32) for _ in range(3)]
    ys = [rng.integers(0, 5, 16) for _ in range(3)]
    th = _train(torch, ref, [torch.tensor(x) for x in xs], [torch.tensor(y) for y in ys], 12, sched=True)
    log = []
    tl = _train(torchlike, model, [torchlike.tensor(x) for x in xs], [torchlike.tensor(y) for y in ys], 12,
                sched=True, log=log)
    np.testing.assert_allclose(tl, th, rtol=1e-4, atol=1e-5)
    d = _delta(log[0])
    assert d['compiles'] == 0, d
    assert d['cache_hits'] >= 10 and d['recorded_ops'] > 0, d
    assert d['compile_time_s'] == 0 < d['execute_time_s'], d        # (the timers follow the counts)
    assert debug.metrics()['compile_time_s'] > 0
    for (k, a), b in zip(model.state_dict().items(), ref.state_dict().values()):
        assert_same(a, b, atol=1e-5)


@pytest.mark.parametrize('sched', ['onecycle', 'cosine'])
def test_dropout_same_as_eager_without_recompiles(sched):
    """Dropout draws from the default generator: under one seed lazy and eager runs give identical losses and
    parameters, and lazy mode compiles nothing new after step 2 (the learning rate, from OneCycleLR or a cosine
    schedule, changes every step)."""
    def run(mode):
        with _mode(mode):
            torchlike.manual_seed(3)
            model = _mlp(torchlike, dropout=0.3)
            g = torchlike.Generator().manual_seed(1)
            xs = [torchlike.randn(8, 20, generator=g) for _ in range(2)]
            ys = [torchlike.randint(0, 5, (8,), generator=g) for _ in range(2)]
            log = []
            losses = _train(torchlike, model, xs, ys, 8, sched=sched, log=log)
            compiled = _delta(log[0])
            return losses, [p.detach().numpy() for p in model.parameters()], compiled
    el, ep, _ = run('eager')
    ll, lp, d = run('lazy')
    assert el == ll
    for a, b in zip(ep, lp):
        np.testing.assert_array_equal(a, b)
    assert d['compiles'] == 0, d


def test_compiled_module_is_one_node_of_the_step(lazy_mode):
    """A torch.compile'd module called in lazy mode records one node (its whole forward) and one node for its
    backward (the VJP of the whole forward): per-step losses and parameters equal torch's, and the steady state
    compiles nothing."""
    torch.manual_seed(0)
    ref = _mlp(torch)
    model = _mlp(torchlike)
    _copy(ref, model)
    compiled = torchlike.compile(model)
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((16, 20)).astype(np.float32) for _ in range(2)]
    ys = [rng.integers(0, 5, 16) for _ in range(2)]
    th = _train(torch, ref, [torch.tensor(x) for x in xs], [torch.tensor(y) for y in ys], 6)
    log = []
    tl = _train(torchlike, compiled, [torchlike.tensor(x) for x in xs], [torchlike.tensor(y) for y in ys], 6,
                log=log)
    np.testing.assert_allclose(tl, th, rtol=1e-4, atol=1e-5)
    d = _delta(log[0])
    assert d['compiles'] == 0, d
    for a, b in zip(model.state_dict().values(), ref.state_dict().values()):
        assert_same(a, b, atol=1e-5)
    # the compiled forward is one recorded node; the same module uncompiled records one per linear/relu/dropout
    x = torchlike.tensor(xs[0])
    before = debug.metrics()
    compiled(x)
    one = _delta(before)['recorded_ops']
    assert _delta(before)['syncs'] == 0, _delta(before)        # (the call is recorded, not run)
    before = debug.metrics()
    model(x)
    assert one == 1 < _delta(before)['recorded_ops'], (one, _delta(before))



def test_custom_function_outputs_stay_pending(lazy_mode):
    """An autograd.Function call records in lazy mode without a sync: Function.apply read its outputs' values to
    learn their shapes and dtypes, which ran the graph so far once per call (and twice per training step around a
    torch.compile'd module, whose node is such a Function)."""
    res = {}
    for lib in (torch, torchlike):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * 3 * x ** 2
        x = lib.linspace(-1, 1, 12).reshape(3, 4).requires_grad_()
        before = debug.metrics()
        y = Cube.apply(x * 2)
        z = y.sin().sum()
        if lib is torchlike:
            assert _delta(before)['syncs'] == 0, _delta(before)
        z.backward()
        res[lib] = (y, x.grad)
    assert_same(res[torchlike][0], res[torch][0], atol=1e-6)
    assert_same(res[torchlike][1], res[torch][1], atol=1e-5)


def test_out_argument_stays_pending(lazy_mode):
    """``out=`` writes the op's pending result into the tensor (it ran the graph so far, one sync per call), into
    a whole tensor and into a view, resizing an empty one, as torch."""
    res = {}
    for lib in (torch, torchlike):
        a = lib.arange(12.0).reshape(3, 4)
        full, empty, base = lib.zeros(3, 4), lib.empty(0), lib.zeros(3, 4)
        before = debug.metrics()
        lib.add(a, 1, out=full)
        lib.mul(a, a, out=empty)
        lib.sub(a[1], 5, out=base[2])
        if lib is torchlike:
            assert _delta(before)['syncs'] == 0, _delta(before)
        res[lib] = (full, empty, base)
    for x, y in zip(res[torchlike], res[torch]):
        assert_same(x, y)

def test_last_batch_of_another_size_costs_one_compile(lazy_mode):
    torchlike.manual_seed(0)
    model = _mlp(torchlike)
    opt = torchlike.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sizes = [8, 8, 8, 8, 3, 8, 8, 3]
    counts = []
    for n in sizes:
        m = debug.metrics()
        opt.zero_grad()
        model(torchlike.randn(n, 20)).sum().backward()
        opt.step()
        counts.append(_delta(m)['compiles'])
    assert counts[2:] == [0, 0, 1, 0, 0, 0], counts     # the first size-3 step compiles once, the second not


def test_updates_reuse_the_donated_buffers(lazy_mode):
    """An optimizer step writes each parameter and each state tensor into its own old buffer (the donated input
    goes to the output that replaced it in its tensor; paired by shape alone, a parameter's buffer went to its
    gradient and XLA copied the parameters before the forward)."""
    torchlike.manual_seed(0)
    model = _mlp(torchlike)
    opt = torchlike.optim.Adam(model.parameters(), lr=1e-2)
    x, y = torchlike.randn(8, 20), torchlike.randint(0, 5, (8,))

    def step():
        opt.zero_grad()
        torchlike.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    def buffers():
        ts = list(model.parameters()) + [v for st in opt.state.values() for k, v in st.items() if k != 'step']
        return [t._raw().value.unsafe_buffer_pointer() for t in ts]
    step()
    step()
    before = buffers()
    step()
    assert buffers() == before


@pytest.mark.parametrize('retain', [False, True])
def test_backward_frees_saved_values(retain):
    """After backward (without retain_graph) the graph's saved values are freed, as in torch: an intermediate
    nothing else refers to is gone (in lazy mode it would otherwise also become an output of the step's program)."""
    import gc
    import weakref

    def alive(lib):
        w = lib.randn(4, 3, requires_grad=True)
        h = lib.relu(lib.ones(2, 4) @ w)         # relu saves its result
        ref = weakref.ref(h)
        loss = (h ** 2).sum()                   # pow saves h
        del h
        loss.backward(retain_graph=retain)
        gc.collect()
        return ref() is not None
    for mode in ('eager', 'lazy'):
        with _mode(mode):
            assert alive(torchlike) == alive(torch) == retain, mode


def test_batchnorm_and_grad_scaler_steps_sync_only_where_torch_reads(lazy_mode):
    """BatchNorm's running statistics and GradScaler's unscale/update stay pending: a BatchNorm training step
    syncs once (the end of optimizer.step()), and a GradScaler step only where it reads found_inf, as torch does
    (it read them back before: one extra sync per forward), with torch's values."""
    def run(lib, scaler):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.BatchNorm1d(8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
        return net, lib.optim.SGD(net.parameters(), lr=0.1), (lib.amp.GradScaler('cpu', init_scale=4.0)
                                                              if scaler else None)
    x = np.random.default_rng(0).standard_normal((10, 6)).astype(np.float32)
    for scaler in (False, True):
        (th, topt, tsc), (tl, lopt, lsc) = run(torch, scaler), run(torchlike, scaler)
        tl.load_state_dict({k: torchlike.tensor(v.numpy()) for k, v in th.state_dict().items()})
        syncs = []
        for lib, net, opt, sc in ((torch, th, topt, tsc), (torchlike, tl, lopt, lsc)):
            for i in range(3):
                m = debug.metrics()
                opt.zero_grad()
                loss = net(lib.tensor(x)).pow(2).mean()
                if sc is None:
                    loss.backward()
                    opt.step()
                else:
                    sc.scale(loss).backward()
                    sc.step(opt)
                    sc.update()
                if lib is torchlike:
                    syncs.append(_delta(m)['syncs'])
        assert syncs == ([1, 1, 1] if not scaler else [2, 2, 2]), (scaler, syncs)
        for a, b in zip(tl.state_dict().values(), th.state_dict().values()):
            assert_same(a, b, atol=1e-5)


def test_backward_is_one_recorded_node(lazy_mode):
    """A plain graph's backward records as one node of the lazy graph (the fused backward program), including
    accumulation into existing .grad, with torch's gradients."""
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    res = {}
    for lib in (torch, torchlike):
        w = lib.tensor(x.T.copy(), requires_grad=True)
        b = lib.ones(4, requires_grad=True)
        counts = []
        for _ in range(2):              # the second backward adds into .grad
            loss = ((lib.tensor(x) @ w).relu() * 2 + b.sum()).pow(2).mean()
            m = debug.metrics()
            loss.backward()
            counts.append(_delta(m)['recorded_ops'])
        res[lib] = (w.grad, b.grad, counts)
    assert res[torchlike][2] == [1, 1], res[torchlike][2]
    assert_same(res[torchlike][0], res[torch][0], atol=1e-5)
    assert_same(res[torchlike][1], res[torch][1], atol=1e-5)


def _compiled_step_hlo(monkeypatch, run):
    """The optimized HLO of the last program that the lazy syncs inside ``run()`` compile."""
    import jax
    from torchlike._engine import lazy
    progs, avals = [], []

    class Programs(dict):
        def __setitem__(self, key, prog):
            progs.append(prog)
            dict.__setitem__(self, key, prog)
    replay = lazy._replay

    def traced_replay(*a):
        f = replay(*a)

        def g(*inputs):       # (called by jax.jit's trace: the program's argument avals)
            avals.append([jax.ShapeDtypeStruct(x.shape, x.dtype) if hasattr(x, 'shape') else x for x in inputs])
            return f(*inputs)
        return g
    monkeypatch.setattr(lazy, '_programs', Programs())
    monkeypatch.setattr(lazy, '_replay', traced_replay)
    run()
    return progs[-1].lower(*avals[-1]).compile().as_text()


def _fusion_bodies(hlo, kind=''):
    """The bodies of an optimized HLO module's fusions (those whose line mentions ``kind``, e.g. '__ynn_fusion')."""
    import re
    comps = {m.group(1): m.group(2) for m in re.finditer(r'^%([\w.\-]+) [^\n]*\{\n(.*?)\n\}', hlo, re.S | re.M)}
    return [comps[c] for c in re.findall(r' fusion\([^\n]*?calls=%([\w.\-]+)[^\n]*' + re.escape(kind), hlo) if c in comps]


def _step_hlo_for(lib, monkeypatch, run):
    """``run()`` under torch (None); under torchlike ``run()`` and a sync, and the optimized HLO of the program
    that compiled."""
    if lib is torch:
        run()
        return None

    def run_and_sync():
        run()
        torchlike.sync()
    return _compiled_step_hlo(monkeypatch, run_and_sync)



def test_step_program_leaves_convolutions_to_xla(lazy_mode, monkeypatch):
    """On the CPU a lazy step program is compiled with convolutions left to XLA's own kernels rather than
    YNNPACK's (Note [CPU compile options]: YNNPACK ran the reference CNN's first weight gradient at ~6 GFLOP/s);
    the forward and gradients still equal torch's."""
    import jax
    from torchlike._engine import jaxrt
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((64, 3, 32, 32)).astype(np.float32)     # (YNNPACK takes the weight gradient from batch 64)
    w0 = (rng.standard_normal((6, 3, 5, 5)) * 0.2).astype(np.float32)
    res, hlo = {}, None
    for lib in (torch, torchlike):
        x, w = lib.tensor(x0, requires_grad=True), lib.tensor(w0, requires_grad=True)

        def run():
            y = lib.nn.functional.conv2d(x, w)
            (y.relu() ** 2).sum().backward()
            res[lib] = (y, x.grad, w.grad)
        hlo = _step_hlo_for(lib, monkeypatch, run) or hlo
    for a, b in zip(res[torchlike], res[torch]):
        assert_same(a, b, atol=1e-4, rtol=1e-4)
    assert jax.default_backend() != 'cpu' or jaxrt.compiler_options(), 'the CPU compile options were refused'
    assert hlo.count(' convolution(') >= 3          # forward, input gradient, weight gradient
    assert not any(' convolution(' in c for c in _fusion_bodies(hlo, '__ynn_fusion')), 'a convolution went to YNNPACK'


def test_eager_fused_backward_leaves_convolutions_to_xla(monkeypatch):
    """Eager mode's fused backward (one top-level program per hot backward graph) is compiled with the same
    CPU options as lazy step programs: the convolutions' gradients leave YNNPACK (eager CNN 48 -> 55 steps/s);
    the gradients equal torch's."""
    import jax
    from torchlike._engine import fused, jaxrt
    calls = []

    def recording_jit(f):
        prog = jaxrt.jit(f)

        def run(*args):
            calls.append((prog, args))
            return prog(*args)
        return run
    monkeypatch.setattr(fused, 'jit', recording_jit)
    monkeypatch.setattr(fused, '_progs', {})
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((64, 3, 32, 32)).astype(np.float32)
    w0 = (rng.standard_normal((6, 3, 5, 5)) * 0.2).astype(np.float32)
    grads = {}
    with _mode('eager'):
        for lib in (torch, torchlike):
            for _ in range(fused.HOT + 1):
                x, w = lib.tensor(x0, requires_grad=True), lib.tensor(w0, requires_grad=True)
                (lib.nn.functional.conv2d(x, w).relu() ** 2).sum().backward()
            grads[lib] = (x.grad, w.grad)
    for a, b in zip(grads[torchlike], grads[torch]):
        assert_same(a, b, atol=1e-3, rtol=1e-4)
    assert calls, 'the backward did not run as a fused program'
    prog, args = calls[-1]
    hlo = prog.lower(*args).compile().as_text()
    assert hlo.count(' convolution(') >= 2          # input and weight gradients
    if jax.default_backend() == 'cpu' and jaxrt.compiler_options():
        assert not any(' convolution(' in c for c in _fusion_bodies(hlo, '__ynn_fusion')), 'a convolution went to YNNPACK'


def test_cpu_compile_options_fall_back_to_xla_defaults(lazy_mode, monkeypatch):
    """Compiler options this XLA does not know (another jaxlib), or TORCHLIKE_XLA_CPU_OPTIONS=0, leave the
    step programs with XLA's defaults instead of failing every compile."""
    from torchlike._engine import jaxrt
    real = dict(jaxrt._CPU_OPTIONS)
    monkeypatch.setattr(jaxrt, '_CPU_OPTIONS', {'xla_cpu_no_such_option': 'x'})
    monkeypatch.setattr(jaxrt, '_options', [])
    assert jaxrt.compiler_options() == {}
    t = torchlike.arange(6.0).reshape(2, 3) * 2
    assert t.sum().item() == 30.0
    monkeypatch.setattr(jaxrt, '_CPU_OPTIONS', real)
    monkeypatch.setattr(jaxrt, '_options', [])
    monkeypatch.setenv('TORCHLIKE_XLA_CPU_OPTIONS', '0')
    assert jaxrt.compiler_options() == {}


@pytest.mark.parametrize('bidirectional', [False, True])
def test_recurrent_backward_reuses_the_forward_scans(lazy_mode, monkeypatch, bidirectional):
    """An LSTM's backward applies the VJP residuals its forward saved (Note [Saved residuals]): a forward +
    backward of a 2-layer LSTM is one scan per layer each way (4 loops; re-running the forward inside the backward
    made 6), with torch's gradients."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 3, 5)).astype(np.float32)
    grads = {}
    for lib in (torch, torchlike):
        lib.manual_seed(0)
        m = lib.nn.LSTM(5, 6, num_layers=2, bidirectional=bidirectional)
        if lib is torchlike:
            m.load_state_dict({k: torchlike.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
        ref = m

        def run():
            xt = lib.tensor(x, requires_grad=True)
            out, (h, c) = m(xt)
            (out.pow(2).sum() + h.sum() + c.tanh().sum()).backward()
            grads[lib] = [xt.grad] + [p.grad for p in m.parameters()]
        hlo = _step_hlo_for(lib, monkeypatch, run)
        if lib is torchlike:
            assert hlo.count(' while(') == 4, hlo.count(' while(')
    for a, b in zip(grads[torchlike], grads[torch]):
        assert_same(a, b, atol=1e-5)


def test_metadata_does_not_sync_and_reads_do(lazy_mode):
    x = torchlike.ones(3, 4)
    m = debug.metrics()
    y = (x * 2).exp().sum(1)
    assert (y.shape, y.dtype, y.dim(), y.numel(), len(y)) == (torchlike.Size([3]), torchlike.float32, 1, 3, 3)
    assert _delta(m)['syncs'] == 0
    assert_same(y, (torch.ones(3, 4) * 2).exp().sum(1))
    assert _delta(m)['syncs'] == 1


def test_print_and_item_inside_a_loop(lazy_mode, capsys):
    """Value reads in the middle of a step (printing, a branch on .item()) give torch's results."""
    def loop(lib):
        w = lib.ones(4, requires_grad=True)
        outs = []
        for i in range(3):
            loss = (w * (i + 1)).pow(2).sum()
            if loss.item() > 10:
                print(loss)
            loss.backward()
            with lib.no_grad():
                w -= 0.01 * w.grad
            w.grad = None
            outs.append(float(loss))
        print(w)
        return outs
    th = loop(torch)
    th_out = capsys.readouterr().out
    tl = loop(torchlike)
    assert tl == pytest.approx(th, rel=1e-6)
    assert capsys.readouterr().out == th_out


def test_views_and_inplace(lazy_mode):
    def f(lib):
        x = lib.arange(12.).reshape(3, 4)
        row = x[1]
        row.mul_(10)
        col = x[:, 2]
        col += 1
        y = x.t().contiguous()
        x.add_(1)
        return x, row, col, y
    for a, b in zip(f(torchlike), f(torch)):
        assert_same(a, b)


def test_autograd_higher_order_and_hooks(lazy_mode):
    def f(lib):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        seen = []
        y = (x.sin() * x).sum()
        x.register_hook(lambda g: seen.append(g.clone()))
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return [g, x.grad] + seen
    tl, th = f(torchlike), f(torch)
    assert len(tl) == len(th) == 4
    for a, b in zip(tl, th):
        assert_same(a.detach(), b.detach(), atol=1e-6)


def test_shape_errors_raise_at_the_op(lazy_mode):
    with pytest.raises(RuntimeError) as th:
        torch.ones(2, 3) @ torch.ones(2, 3)
    m = debug.metrics()
    with pytest.raises(type(th.value)):
        torchlike.ones(2, 3) @ torchlike.ones(2, 3)
    assert _delta(m)['syncs'] == 0


def test_data_dependent_shapes(lazy_mode):
    def f(lib):
        x = lib.tensor([3., -1., 0., 5.]) * 2
        return x[x > 0], lib.nonzero(x), x.unique()
    for a, b in zip(f(torchlike), f(torch)):
        assert_same(a, b)


def test_set_execution_mode_validates():
    with pytest.raises(ValueError):
        torchlike.set_execution_mode('fast')
    assert torchlike.get_execution_mode() in ('eager', 'lazy')


def test_runner_mode_flag():
    code = ("import torch\nx = torch.ones(2) * 3\nprint(torch.get_execution_mode(), x.sum().item(), "
            "torch.debug.metrics()['syncs'])")
    out = subprocess.run([sys.executable, '-m', 'torchlike', '--mode', 'lazy', '-c', code], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ['lazy', '6.0', '1']
    bad = subprocess.run([sys.executable, '-m', 'torchlike', '--mode', 'fast', '-c', 'pass'], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and '--mode' in bad.stderr


def test_profiler_reports_lazy_programs(lazy_mode):
    """In lazy mode the profiler shows the recorded ops (recording time) and one row per compiled program run."""
    w = torchlike.randn(8, 8, requires_grad=True)
    with torchlike.profiler.profile() as prof:
        for _ in range(3):
            (w @ w).relu().sum().backward()
            torchlike.sync()
    rows = {e.key: e.count for e in prof.key_averages()}
    assert rows['aten::relu'] == 3
    graphs = [k for k in rows if k.startswith('lazy_graph[')]
    assert graphs and sum(rows[k] for k in graphs) == 3, rows


def test_recompile_guard_warns_once_and_falls_back(lazy_mode, monkeypatch):
    """A sync point whose graph changes every time (a new shape per call) compiles up to the limit, then
    warns once naming the changed input and runs op by op -- with the same values."""
    from torchlike._engine import lazy
    monkeypatch.setattr(lazy, 'RECOMPILE_LIMIT', 3)
    monkeypatch.setattr(lazy, '_sites', {})
    m = debug.metrics()
    with pytest.warns(UserWarning, match=r'compiled 3 different programs; last change: input 0 was float32\[3\], '
                                         r'now float32\[4\]') as rec:
        got = [(torchlike.ones(n) * 2).sum().item() for n in range(1, 8)]
    ours = [w for w in rec if 'torchlike lazy mode' in str(w.message)]
    assert len(ours) == 1
    assert ours[0].filename == __file__ and ours[0].lineno == sys._getframe().f_lineno - 3   # the user's line
    assert got == [(torch.ones(n) * 2).sum().item() for n in range(1, 8)]
    d = _delta(m)
    assert d['compiles'] == 3 and d['eager_fallbacks'] == 4, d


def test_dropout_step_hashes_its_key_once(lazy_mode, monkeypatch):
    """A dropout mask's key (two hashes of the scalar seed and offset) is derived once, not inside the
    per-element hash loop that XLA fuses into each of the mask's consumers (it was: every element of the forward's
    and the backward's fusions hashed the key again; ~12% of the benchmark LSTM step's program). The backward uses
    the forward's mask."""
    x0 = np.linspace(-1, 1, 64 * 96, dtype=np.float32).reshape(64, 96)
    res = {}

    def run():
        torchlike.manual_seed(0)
        x = torchlike.tensor(x0, requires_grad=True)
        y = torchlike.nn.functional.dropout(x.tanh(), 0.3)
        (y * 3).sum().backward()
        res['y'], res['g'] = y, x.grad
        torchlike.sync()
    hlo = _compiled_step_hlo(monkeypatch, run)
    rotations = [c.count('shift-left(') for c in _fusion_bodies(hlo)]       # 20 per threefry hash
    assert sum(rotations) >= 60 and max(rotations) < 60, rotations
    keep = res['y'].detach().numpy() != 0
    assert 0.6 < keep.mean() < 0.8
    t = torch.tensor(x0)
    expect = np.where(keep, 3 * (1 - t.tanh() ** 2).numpy() / 0.7, 0)
    np.testing.assert_allclose(res['g'].numpy(), expect, rtol=1e-5, atol=1e-6)


def test_changing_python_floats_are_program_inputs(lazy_mode):
    """Dropout's p, SGD's momentum and learning rate, and GradScaler's scale (growth_interval=1: it doubles
    every step) change every step: after step 2 nothing is compiled again, and the parameters equal eager
    mode's under the same seed."""
    def run(mode):
        with _mode(mode):
            torchlike.manual_seed(5)
            model = _mlp(torchlike, dropout=0.2)
            opt = torchlike.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
            scaler = torchlike.amp.GradScaler('cpu', init_scale=2.0, growth_interval=1)
            x, y = torchlike.randn(8, 20), torchlike.randint(0, 5, (8,))
            counts, scales = [], []
            for i in range(7):
                m = debug.metrics()
                model[2].p = 0.1 + 0.05 * i
                opt.param_groups[0]['momentum'] = 0.5 + 0.05 * i
                opt.param_groups[0]['lr'] = 0.05 / (i + 1)
                opt.zero_grad()
                scaler.scale(torchlike.nn.functional.cross_entropy(model(x), y)).backward()
                scaler.step(opt)
                scaler.update()
                scales.append(scaler.get_scale())
                counts.append(_delta(m)['compiles'])
            return [p.detach().numpy() for p in model.parameters()], counts, scales
    ep, _, es = run('eager')
    lp, counts, ls = run('lazy')
    assert counts[2:] == [0] * 5, counts
    assert es == ls and ls[-1] > ls[0]
    for a, b in zip(ep, lp):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_dataloader_batch_boundary_syncs(lazy_mode):
    """Each batch a DataLoader hands out is a step boundary (Note [Lazy execution]): the work recorded while
    the previous batch was used has run by then, so a loop that never reads a value still runs step by step."""
    data = torchlike.utils.data.TensorDataset(torchlike.arange(12.).reshape(6, 2))
    acc = torchlike.zeros(2)
    pending = []

    def is_pending(t):
        r = t._raw()
        return type(r).__name__ == 'LazyArray' and r.value is None
    for (b,) in torchlike.utils.data.DataLoader(data, batch_size=2):
        pending.append(is_pending(acc))
        acc = acc + b.sum(0)
        pending.append(is_pending(acc))
    # recorded while a batch is used, run when the next batch (or the end of the loader) comes
    assert pending == [False, True] * 3 and not is_pending(acc), pending
    assert_same(acc, torch.arange(12.).reshape(6, 2).sum(0))


def test_graph_size_limit_syncs(lazy_mode, monkeypatch):
    """A loop that records without end (no value read, no optimizer step) runs a program each time the graph
    reaches the size limit instead of growing it without bound."""
    from torchlike._engine import lazy
    monkeypatch.setattr(lazy, '_MAX_NODES', 10)
    m = debug.metrics()
    x = torchlike.ones(3)
    for _ in range(35):
        x = x * 1.5 + 1
    d = _delta(m)
    assert d['syncs'] >= 6 and d['recorded_ops'] == 70, d
    tx = torch.ones(3)
    for _ in range(35):
        tx = tx * 1.5 + 1
    assert_same(x, tx, rtol=1e-5)


_OOB = {  # (op on a computed index, as torch's eager op raises)
    'indexing': lambda lib, i: lib.arange(5.)[i],
    'gather': lambda lib, i: lib.gather(lib.arange(5.), 0, i),
    'embedding': lambda lib, i: lib.nn.functional.embedding(i, lib.ones(5, 2)),
    'cross_entropy': lambda lib, i: lib.nn.functional.cross_entropy(lib.zeros(2, 5), i),
    'index_select': lambda lib, i: lib.index_select(lib.arange(5.), 0, i),
}


@pytest.mark.parametrize('op', list(_OOB))
def test_pending_out_of_range_index_raises_at_the_sync(lazy_mode, op):
    """An index computed in the step (pending) cannot be read at the op without a sync; its range check is part
    of the step's program, and the sync that runs it raises torch's exception type and message (it was silently
    clamped: t[i] gave the last element, cross_entropy nan). The process goes on working."""
    with pytest.raises(Exception) as eh:
        _OOB[op](torch, torch.tensor([1, 2]) * 4)
    out = _OOB[op](torchlike, torchlike.tensor([1, 2]) * 4)      # recorded: nothing raised yet
    with pytest.raises(Exception) as et:
        out.tolist()
    assert type(et.value) is type(eh.value), (et.value, eh.value)
    assert str(et.value).startswith(str(eh.value)), (et.value, eh.value)
    assert_same(_OOB[op](torchlike, torchlike.tensor([1, 2]) * 2), _OOB[op](torch, torch.tensor([1, 2]) * 2))
    torchlike.sync()                                            # (reported once)


def test_pending_index_checks_cost_no_recompiles(lazy_mode):
    """A training loop whose targets are computed in the step (a pending index every step) keeps one program:
    the checks are ordinary outputs of it, and a valid step raises nothing."""
    torchlike.manual_seed(0)
    model = _mlp(torchlike)
    opt = torchlike.optim.SGD(model.parameters(), lr=0.1)
    data = torchlike.randint(0, 50, (9, 8))
    counts = []
    for i in range(6):
        m = debug.metrics()
        opt.zero_grad()
        x, y = data[i].float().repeat(1, 3)[:, :20], data[i + 1] % 5       # y: pending targets
        torchlike.nn.functional.cross_entropy(model(x.reshape(1, 20).expand(8, 20)), y).backward()
        opt.step()
        counts.append((_delta(m)['compiles'], _delta(m)['syncs']))
    assert [c for c, _ in counts[2:]] == [0] * 4 and all(s == 1 for _, s in counts), counts


def test_slices_at_changing_offsets_compile_once(lazy_mode):
    """nanoGPT's get_batch (``data[i:i + block]`` for random ``i``) in a training loop: the slice's start is an
    input of the step's program, not a constant (a program per offset: recompiles every step, then the recompile
    guard's op-by-op fallback). Losses equal torch's on the same offsets."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    offsets = rng.integers(0, 90, (8, 4))
    res = {}
    for lib in (torch, torchlike):
        lib.manual_seed(0)
        data = lib.tensor(np.arange(100) % 7)
        emb, head = lib.nn.Embedding(7, 8), lib.nn.Linear(8, 7)
        if lib is torchlike:                                    # torch's initial weights
            emb.load_state_dict({k: torchlike.tensor(v) for k, v in init[0].items()})
            head.load_state_dict({k: torchlike.tensor(v) for k, v in init[1].items()})
        init = [{k: v.detach().numpy().copy() for k, v in m.state_dict().items()} for m in (emb, head)]
        opt = lib.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.1)
        losses, counts = [], []
        for ix in offsets:
            m = debug.metrics()
            x = lib.stack([data[i:i + 8] for i in ix])
            y = lib.stack([data[i + 1:i + 9] for i in ix])
            loss = lib.nn.functional.cross_entropy(head(emb(x)).reshape(-1, 7), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            counts.append(_delta(m)['compiles'])
        res[lib] = losses
    np.testing.assert_allclose(res[torchlike], res[torch], rtol=1e-5, atol=1e-6)
    assert counts[2:] == [0] * 6, counts


@pytest.mark.parametrize('optim', ['Adam', 'SGD'])
def test_first_step_compiles_the_steady_program(lazy_mode, optim, monkeypatch):
    """A model built in lazy mode, then trained: its initialization runs when the optimizer is made, the
    optimizer's state starts as concrete zeros, and inputs not yet committed to their device (the initial
    parameters) are committed, so that the first step's program is the one every later step runs. It was
    compiled twice: once with the parameters' initialization and the state's creation in it (GPT: 8 s), once
    more for the steady step (4.6 s), which jax then compiled again for the committed arrays of step 2."""
    torchlike.manual_seed(0)
    model = _mlp(torchlike)
    kw = dict(momentum=0.9) if optim == 'SGD' else {}
    opt = getattr(torchlike.optim, optim)(model.parameters(), lr=0.01, **kw)
    rng = np.random.default_rng(0)      # (data from the host, as a DataLoader's: random tensors would be pending)
    x, y = torchlike.tensor(rng.standard_normal((8, 20)), dtype=torchlike.float32), torchlike.tensor(rng.integers(0, 5, 8))
    counts = []
    from torchlike._engine import lazy
    monkeypatch.setattr(lazy, '_programs', {})       # (another test may have compiled this step already)
    for i in range(4):
        m = debug.metrics()
        opt.zero_grad()
        torchlike.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        counts.append(_delta(m)['compiles'])
    assert counts == [1, 0, 0, 0], counts
    (prog,) = lazy._programs.values()
    assert prog._cache_size() == 1          # (jax's own cache: one executable)
