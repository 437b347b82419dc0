"""torch.compile (traced execution, Note [Traced execution]) against real torch.

Real torch's eager results are the oracle for values and gradients (a compiled function computes what
the eager one does); torch's ``aot_eager`` backend (no code generation, fast) is the oracle where the
compiled call's own structure shows (grad_fn name, errors).
"""
import warnings

import numpy as np
import pytest
import torch

import torchlike
from torchlike._engine import traced
from conftest import to_np, assert_same


def _net(T, seed=0):
    T.manual_seed(seed)
    return T.nn.Sequential(T.nn.Linear(6, 16), T.nn.BatchNorm1d(16), T.nn.Tanh(), T.nn.Linear(16, 3))


def _pair():
    """The same module in both libraries (torch's weights loaded into torchlike)."""
    th = _net(torch)
    tl = _net(torchlike)
    tl.load_state_dict({k: torchlike.tensor(v.detach().numpy()) for k, v in th.state_dict().items()})
    return th, tl


X = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)


@pytest.mark.parametrize('train', [True, False])
def test_module_values_grads_and_buffers(train):
    th, tl = _pair()
    th.train(train)
    tl.train(train)
    ctl = torchlike.compile(tl)
    for step in range(3):              # the second and third calls reuse the program
        xs = X + step
        yh = th(torch.tensor(xs, requires_grad=True))
        xt = torchlike.tensor(xs, requires_grad=True)
        yt = ctl(xt)
        assert_same(yt, yh, atol=1e-5)
        (yh * yh).sum().backward()
        (yt * yt).sum().backward()
        for (n, ph), pt in zip(th.named_parameters(), tl.parameters()):
            assert_same(pt.grad, ph.grad, atol=1e-4)
        for bh, bt in zip(th.buffers(), tl.buffers()):
            assert_same(bt, bh, atol=1e-5)
        th.zero_grad()
        tl.zero_grad()


def test_compiled_module_structure_matches_torch():
    th, tl = _pair()
    ch = torch.compile(th, backend='aot_eager')
    ct = torchlike.compile(tl)
    assert type(ct).__name__ == type(ch).__name__ == 'OptimizedModule'
    assert isinstance(ct, torchlike.nn.Module) and ct._orig_mod is tl
    assert list(ct.state_dict()) == list(ch.state_dict())          # the _orig_mod. prefix
    assert repr(ct) == repr(ch)
    assert getattr(ct, '0') is tl[0] and getattr(ch, '0') is th[0]     # attributes reach the module
    yh = ch(torch.tensor(X))
    yt = ct(torchlike.tensor(X))
    assert type(yt.grad_fn).__name__ == type(yh.grad_fn).__name__ == 'CompiledFunctionBackward'
    with torch.no_grad():
        nh = ch(torch.tensor(X))
    with torchlike.no_grad():
        nt = ct(torchlike.tensor(X))
    assert nt.grad_fn is None and nh.grad_fn is None
    assert_same(nt, nh, atol=1e-5)


def test_no_retrace_in_a_training_loop_and_updates_seen():
    th, tl = _pair()
    ct = torchlike.compile(tl)
    oh = torch.optim.SGD(th.parameters(), lr=0.1, momentum=0.9)
    ot = torchlike.optim.SGD(tl.parameters(), lr=0.1, momentum=0.9)
    before = traced.stats['traces']
    for step in range(4):
        for o, m, T in ((oh, th, torch), (ot, ct, torchlike)):
            o.zero_grad()
            m(T.tensor(X)).pow(2).mean().backward()
            o.step()
    assert traced.stats['traces'] - before == 1
    assert_same(ct(torchlike.tensor(X)), th(torch.tensor(X)), atol=1e-4)
    ct(torchlike.tensor(X[:2]))                        # a new shape: one more program
    assert traced.stats['traces'] - before == 2


def test_function_with_python_outputs_and_kwargs():
    def f(T, a, b, scale=2.0):
        return (a * b).sin().sum(1) * scale, a.shape[0], {'m': a.max()}

    a, b = X, X[::-1].copy()
    exp = f(torch, torch.tensor(a), torch.tensor(b), scale=3.0)
    cf = torchlike.compile(lambda a, b, scale=2.0: f(torchlike, a, b, scale=scale))
    got = cf(torchlike.tensor(a), torchlike.tensor(b), scale=3.0)
    assert_same(got[0], exp[0])
    assert got[1] == exp[1]
    assert_same(got[2]['m'], exp[2]['m'])


def test_dropout_draws_like_eager_and_moves_the_generator():
    m = torchlike.nn.Sequential(torchlike.nn.Linear(6, 32), torchlike.nn.Dropout(0.5))
    cm = torchlike.compile(m)
    x = torchlike.tensor(X)
    torchlike.manual_seed(7)
    eager = [m(x) for _ in range(2)]
    torchlike.manual_seed(7)
    comp = [cm(x) for _ in range(2)]
    for e, c in zip(eager, comp):
        np.testing.assert_allclose(to_np(c), to_np(e), atol=1e-6)
    assert not np.allclose(to_np(comp[0]), to_np(comp[1]))       # a fresh mask per call
    assert torchlike.rand(1).item() == (torchlike.manual_seed(7), [m(x) for _ in range(2)],
                                        torchlike.rand(1).item())[2]


def _branchy(T):
    def g(a):
        if a.sum() > 0:
            return a * 2
        return -a
    return g


def test_graph_break_falls_back_to_eager_or_raises_under_fullgraph():
    a = X[0]
    exp = _branchy(torch)(torch.tensor(a))
    g = torchlike.compile(_branchy(torchlike))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        got = g(torchlike.tensor(a))
    assert_same(got, exp)
    assert any('graph break' in str(x.message) for x in w)
    gh = torch.compile(_branchy(torch), backend='aot_eager', fullgraph=True)
    gt = torchlike.compile(_branchy(torchlike), fullgraph=True)
    with pytest.raises(RuntimeError) as eh:
        gh(torch.tensor(a))
    with pytest.raises(RuntimeError) as et:
        gt(torchlike.tensor(a))
    assert type(et.value).__name__ == type(eh.value).__name__ == 'Unsupported'


@pytest.mark.parametrize('kw', [dict(backend='nope'), dict(mode='fast'), dict(mode='default', options={'x': 1}),
                                dict(dynamic=3)])
def test_argument_errors(kw):
    with pytest.raises(Exception) as eh:
        torch.compile(lambda x: x, **kw)
    with pytest.raises(Exception) as et:
        torchlike.compile(lambda x: x, **kw)
    assert type(et.value).__name__ == type(eh.value).__name__
    assert isinstance(et.value, type(eh.value).__mro__[-3])       # RuntimeError / AssertionError


def test_disable_decorator_and_is_compiling():
    m = torchlike.nn.Linear(2, 2)
    assert torchlike.compile(m, disable=True) is m
    assert (torch.compile(torch.nn.Linear(2, 2), disable=True).__class__.__name__ == 'Linear')
    seen = []

    @torchlike.compile(mode='reduce-overhead')
    def f(x):
        seen.append(torchlike.compiler.is_compiling())
        return x + 1
    assert_same(f(torchlike.ones(2)), torch.ones(2) + 1)
    assert seen == [True] and not torchlike.compiler.is_compiling()
    f(torchlike.ones(2))
    assert seen == [True]                                   # the second call runs the program, not Python
    e = torchlike.compile(lambda x: (seen.append('eager'), x * 3)[1], backend='eager')
    assert_same(e(torchlike.ones(2)), torch.ones(2) * 3)
    assert seen[-1] == 'eager'


def test_training_step_with_backward_runs_lazily_with_a_warning():
    # backward()/optimizer.step() inside the compiled function are graph breaks for the tracer: the step runs in
    # lazy mode instead (one cached program per call, nothing compiled after the first calls) and must still
    # train exactly as eager torch does
    th, tl = _pair()

    def make_step(T, m):
        opt = T.optim.SGD(m.parameters(), lr=0.05)

        def step(x):
            opt.zero_grad()
            loss = m(x).pow(2).mean()
            loss.backward()
            opt.step()
            return loss
        return step
    sh = make_step(torch, th)
    st = torchlike.compile(make_step(torchlike, tl))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        for i in range(4):
            if i == 2:
                m = torchlike.debug.metrics()
            assert_same(st(torchlike.tensor(X)), sh(torch.tensor(X)), atol=1e-5)
    assert any('graph break' in str(x.message) and 'lazy mode' in str(x.message) for x in w)
    assert torchlike.debug.metrics()['compiles'] == m['compiles']
    assert torchlike.debug.metrics()['cache_hits'] >= m['cache_hits'] + 2
    for ph, pt in zip(th.parameters(), tl.parameters()):
        assert_same(pt, ph, atol=1e-5)


def test_graph_broken_module_then_hot_eager_backward():
    """Regression: a compiled module whose forward graph-breaks runs lazily; the eager backward that follows
    (fused once hot, after 3 repetitions) must accept the synced values its graph nodes hold."""
    def run(T, compile):
        T.manual_seed(0)
        lin = T.nn.Linear(4, 3)
        with T.no_grad():
            for p in lin.parameters():
                p.copy_(T.arange(p.numel(), dtype=T.float32).reshape(p.shape) / 10)

        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lin

            def forward(self, x):
                y = self.lin(x)
                return y.relu() if y.sum() > 0 else y     # a value read: a graph break
        m = M()
        f = compile(m) if compile else m
        grads = []
        for i in range(5):
            m.zero_grad()
            f(T.ones(2, 4) * (i + 1)).pow(2).sum().backward()
            grads.append(lin.weight.grad.clone())
        return grads
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = run(torchlike, torchlike.compile)
    for a, b in zip(got, run(torch, None)):
        assert_same(a, b)


def test_fullgraph_with_index_range_checks():
    """Ops that check index ranges (embedding, cross_entropy's targets) compile with fullgraph=True, as in torch:
    the check is skipped for traced indices instead of reading their values (a graph break before)."""
    w = np.random.default_rng(0).standard_normal((10, 5)).astype(np.float32)
    res = {}
    for lib in (torch, torchlike):
        emb = lib.nn.Embedding(10, 5)
        with lib.no_grad():
            emb.weight.copy_(lib.tensor(w))
        f = lib.compile(lambda i, y: lib.nn.functional.cross_entropy(emb(i), y), fullgraph=True)
        loss = f(lib.tensor([1, 2, 3, 7]), lib.tensor([0, 4, 2, 1]))
        loss.backward()
        res[lib] = (loss, emb.weight.grad)
    assert_same(res[torchlike][0], res[torch][0], atol=1e-5)
    assert_same(res[torchlike][1], res[torch][1], atol=1e-5)


def test_fullgraph_with_device_moves_and_views_of_views():
    """nanoGPT's attention compiles as one graph: ``arange(..., device=x.device)`` (``to`` asked a tracer for its
    devices) and ``view`` of a split's piece (the view-geometry probe read a traced array) broke the graph."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((2, 5, 12)).astype(np.float32)
    res = {}
    for lib in (torch, torchlike):
        def f(x):
            q, k, v = x.split(4, dim=2)
            q = q.view(2, 5, 2, 2).transpose(1, 2)
            k = k.view(2, 5, 2, 2).transpose(1, 2)
            pos = lib.arange(0, 5, dtype=lib.long, device=x.device)
            return (q @ k.transpose(-2, -1)).sum(-1) + pos + v.sum()
        x = lib.tensor(x0, requires_grad=True)
        out = lib.compile(f, fullgraph=True, backend='aot_eager' if lib is torch else 'inductor')(x)
        out.sum().backward()
        res[lib] = (out, x.grad)
    assert_same(res[torchlike][0], res[torch][0], atol=1e-5)
    assert_same(res[torchlike][1], res[torch][1], atol=1e-5)



@pytest.mark.parametrize('mode', ['eager', 'lazy'])
def test_compiled_call_frees_its_residuals_after_backward(mode):
    """The VJP residuals of a compiled call are its node's saved tensors, freed by the backward as torch's
    AOTAutograd frees them, while the loss lives on. Held by the node instead, in lazy mode they became outputs of
    the step's program (copies of parameters and activations, ~10% of the MLP's step). The gradient is torch's and
    a second backward raises as in torch."""
    import gc
    import weakref
    w = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    prev = torchlike.get_execution_mode()
    torchlike.set_execution_mode(mode)
    try:
        for lib in (torch, torchlike):
            lin = lib.nn.Linear(4, 3)
            with lib.no_grad():
                lin.weight.copy_(lib.tensor(w))
            m = lib.compile(lin, backend='aot_eager' if lib is torch else 'inductor')
            x = lib.tensor(X[:, :4])
            out = m(x).tanh().sum()
            if lib is torchlike:
                node = out.grad_fn.next_functions[0][0].next_functions[0][0]
                mine = {id(t._raw()) for t in (lin.weight, lin.bias, x)}
                refs = [weakref.ref(t._raw()) for t in node.saved_tensors if id(t._raw()) not in mine]
                node = None
                assert refs
            out.backward()
            if lib is torchlike:
                torchlike.sync()
                gc.collect()
                assert all(r() is None for r in refs), 'residuals outlived the backward'
            expect = (1 - np.tanh(X[:, :4] @ w.T + lin.bias.detach().numpy()) ** 2).T @ X[:, :4]
            np.testing.assert_allclose(lin.weight.grad.numpy(), expect, rtol=1e-4, atol=1e-5)
            with pytest.raises(RuntimeError, match='backward through the graph a second time'):
                out.backward()
    finally:
        torchlike.set_execution_mode(prev)



@pytest.mark.parametrize('how', ['Module.compile', 'forward', 'function'])
def test_compiled_module_follows_train_and_eval(how):
    """``model.compile()`` (which compiles the module's call), ``torch.compile(model.forward)`` and a compiled
    plain function calling the model (``torch.compile(lambda x: model(x))``) pick another program after
    ``model.eval()``, or after ``eval()`` of the Dropout alone, as torch's guards on the training flags of the
    modules involved do: the train-mode program, reused, kept Dropout on in eval mode. A module toggled back
    reuses its first program (one trace per combination of flags)."""
    from torchlike._engine import traced
    x0 = np.random.default_rng(0).standard_normal((6, 8)).astype(np.float32)
    res = {}
    for lib in (torch, torchlike):
        m = lib.nn.Sequential(lib.nn.Linear(8, 8), lib.nn.Dropout(0.5))
        if lib is torchlike:
            m.load_state_dict({k: torchlike.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
            traces = traced.stats['traces']
        ref = m
        backend = 'aot_eager' if lib is torch else 'inductor'
        if how == 'Module.compile':
            m.compile(backend=backend)
            call = m
        elif how == 'forward':
            call = lib.compile(m.forward, backend=backend)
        else:
            call = lib.compile(lambda x: m(x) * 2, backend=backend)
        x = lib.tensor(x0)
        dropped = bool((call(x) == 0).any())
        m.eval()
        res[lib] = (call(x), dropped)
        m.train()
        assert bool((call(x) == 0).any())
        m[1].eval()             # the Dropout alone: its own flag is guarded, not only the outer module's
        res[lib] += (call(x),)
    assert_same(res[torchlike][0], res[torch][0], atol=1e-6)
    assert_same(res[torchlike][2], res[torch][2], atol=1e-6)
    assert res[torchlike][1] and res[torch][1]
    assert traced.stats['traces'] - traces == 3


@pytest.mark.parametrize('seed', [2 ** 63 + 5, 2 ** 64 - 1, 7])
def test_compiled_dropout_with_a_seed_past_int64(seed):
    """A seed >= 2**63 (as torch's non-deterministic start-up seed is, half the time) reached the traced
    program as a Python int past int64: OverflowError from jax. The compiled call draws the same mask as the
    uncompiled one under the same seed."""
    x = torchlike.ones(64, 64)
    drop = torchlike.nn.Dropout(0.5)
    torchlike.manual_seed(seed)
    want = drop(x)
    torchlike.manual_seed(seed)
    got = torchlike.compile(drop)(x)
    assert torchlike.initial_seed() == seed % 2 ** 64
    np.testing.assert_array_equal(to_np(got), to_np(want))
    assert 0.3 < float((got == 0).float().mean()) < 0.7


_SCALE = 2.0        # a global a compiled function reads (test_compiled_call_is_guarded_on_what_it_baked_in)


def _guard_case(lib, case, x):
    """(compiled callable, change) for one guard case; the call after change() must see the new value."""
    backend = 'aot_eager' if lib is torch else 'inductor'
    if case == 'Dropout.p':
        m = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Dropout(0.5))
        return lib.compile(m, backend=backend), lambda: setattr(m[1], 'p', 0.0)
    if case == 'negative_slope':
        m = lib.nn.LeakyReLU(0.1)
        return lib.compile(m, backend=backend), lambda: setattr(m, 'negative_slope', 0.3)
    if case == 'flag read, not called':
        holder = lib.nn.Module()
        return (lib.compile(lambda t: lib.nn.functional.dropout(t, 0.5, training=holder.training), backend=backend),
                holder.eval)
    if case == 'closure float':
        scale = 2.0

        def f(t):
            return t * scale

        def change():
            nonlocal scale
            scale = 3.0
        return lib.compile(f, backend=backend), change
    if case == 'global float':
        def change():
            global _SCALE
            _SCALE = 3.0
        globals()['_SCALE'] = 2.0
        return lib.compile(lambda t: t * _SCALE, backend=backend), change
    if case == 'global defined after compile':
        globals().pop('_LATER', None)
        f = lib.compile(lambda t: t * _LATER, backend=backend)     # noqa: F821 (defined below, before the call)
        globals()['_LATER'] = 2.0

        def change():
            globals()['_LATER'] = 3.0
        return f, change
    if case == 'rebound module':
        m1, m2 = lib.nn.LeakyReLU(0.1), lib.nn.LeakyReLU(0.3)
        g = {'m': m1, 'both': (m1, m2)}       # (m1 stays alive: a dead module fails the guard by itself)
        f = eval('lambda t: m(t)', g)
        return lib.compile(f, backend=backend), lambda: g.__setitem__('m', m2)


@pytest.mark.parametrize('case', ['Dropout.p', 'negative_slope', 'flag read, not called', 'closure float',
                                  'global float', 'global defined after compile', 'rebound module'])
def test_compiled_call_is_guarded_on_what_it_baked_in(case):
    """A compiled call's program bakes in module attributes and Python values; torch's dynamo guards on them,
    and so does torchlike: after the change, the call gives torch's new result (it reused the stale program:
    Dropout still dropping at p=0, the old slope, the old scale)."""
    x0 = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
    res = {}
    for lib in (torch, torchlike):
        x = lib.tensor(x0)
        f, change = _guard_case(lib, case, x)
        f(x)
        first = f(x)            # (the program is cached now)
        change()
        res[lib] = (first if case not in ('Dropout.p', 'flag read, not called') else None, f(x))
    if res[torch][0] is not None:
        assert_same(res[torchlike][0], res[torch][0], atol=1e-6)
    assert_same(res[torchlike][1], res[torch][1], atol=1e-6)


@pytest.mark.parametrize('dynamic', [False, None, True])
def test_dynamic_decides_whether_new_shapes_exhaust_the_cache_limit(dynamic):
    """torch.compile(dynamic=False) compiles each new shape and, past cache_size_limit (8), runs the function
    eagerly; with dynamic=True or the default (automatic dynamic shapes) new shapes never exhaust it. XLA needs
    a program per shape either way, but the limit (and its eager fallback) follows ``dynamic`` as torch's does
    (it was ignored: dynamic=True fell back to eager after 8 shapes)."""
    torch._dynamo.reset()
    graphs0 = torch._dynamo.utils.counters['stats']['unique_graphs']
    fth = torch.compile(lambda x: x * 2 + 1, dynamic=dynamic, backend='aot_eager')
    ftl = torchlike.compile(lambda x: x * 2 + 1, dynamic=dynamic)
    for n in range(1, 12):
        x = np.arange(n, dtype=np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            assert_same(ftl(torchlike.tensor(x)), fth(torch.tensor(x)))
    graphs = torch._dynamo.utils.counters['stats']['unique_graphs'] - graphs0
    c = ftl._torchlike_compiled
    assert c.broken == (graphs == torch._dynamo.config.cache_size_limit)
    assert len(c.programs) == (8 if dynamic is False else 11)


def test_backend_names_are_torchs():
    """list_backends() as torch's; every name torchlike accepts is one torch 2.13 has, and a name torch does not
    register (it accepted 'onnxrt' and 'nvprims_nvfuser') raises torch's InvalidBackend."""
    assert torchlike._dynamo.list_backends() == torch._dynamo.list_backends()
    assert torchlike.compiler.list_backends() == torch.compiler.list_backends()
    ours = torchlike.compiler.list_backends(exclude_tags=())
    assert set(ours) <= set(torch.compiler.list_backends(exclude_tags=()))
    for name in ours:
        torchlike.compile(lambda x: x, backend=name)
    for name in ('onnxrt', 'nvprims_nvfuser', 'no_such_backend'):
        with pytest.raises(torch._dynamo.exc.InvalidBackend):
            torch.compile(lambda x: x, backend=name)
        with pytest.raises(torchlike._dynamo.exc.InvalidBackend):
            torchlike.compile(lambda x: x, backend=name)


def test_compiler_disable_inside_a_compiled_function_and_suppress_errors():
    """A torch.compiler.disable'd function called from a compiled one runs uncompiled (a graph break: the value
    is torch's; under fullgraph=True torch's Unsupported); torch._dynamo.config.suppress_errors silences
    torchlike's graph-break warning."""
    res = {}
    for lib in (torch, torchlike):
        seen = []

        @lib.compiler.disable
        def helper(t):
            seen.append(lib.compiler.is_compiling())
            return t * 3

        def f(t):
            return helper(t + 1) - 1
        backend = 'aot_eager' if lib is torch else 'inductor'
        with pytest.raises(RuntimeError) as e:
            lib.compile(f, backend=backend, fullgraph=True)(lib.ones(3))
        assert type(e.value).__name__ == 'Unsupported'
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            res[lib] = lib.compile(f, backend=backend)(lib.ones(3))
        assert seen[-1] is False
    assert_same(res[torchlike], res[torch])
    a = X[0]
    prev = torchlike._dynamo.config.suppress_errors
    torchlike._dynamo.config.suppress_errors = True
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            got = torchlike.compile(_branchy(torchlike))(torchlike.tensor(a))
    finally:
        torchlike._dynamo.config.suppress_errors = prev
    assert not [x for x in w if 'graph break' in str(x.message)]
    assert_same(got, _branchy(torch)(torch.tensor(a)))
