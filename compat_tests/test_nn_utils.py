"""torch.nn.utils, torch.func.functional_call and nn.parallel.DataParallel against real torch."""
import copy
import warnings

import numpy as np
import pytest
import torch

import torchlike
import torchlike.nn  # noqa: F401
import torchlike.func  # noqa: F401
import torchlike.nn.parallel  # noqa: F401

from conftest import assert_same, to_np

LIBS = (torch, torchlike)


def outcome(fn, lib):
    try:
        return fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return ('raised', type(e).__name__, str(e).replace('torchlike', 'torch'))


def same_outcome(fn):
    a, b = outcome(fn, torch), outcome(fn, torchlike)
    assert a == b, f'torch: {a!r}\ntorchlike: {b!r}'
    return a


def rounded(x, nd=4):
    return np.round(to_np(x).astype(np.float64), nd).tolist()


def grads_of(t, seed=0, shapes=((3, 4), (4,), (2, 2, 2), (5,))):
    """Parameters with fixed .grad values (the last one has no grad)."""
    rs = np.random.RandomState(seed)
    ps = []
    for i, s in enumerate(shapes):
        p = t.nn.Parameter(t.tensor(rs.randn(*s).astype(np.float32)))
        if i < len(shapes) - 1:
            p.grad = t.tensor((rs.randn(*s) * 3).astype(np.float32))
        ps.append(p)
    return ps


# ---- clip_grad ----------------------------------------------------------------------------------

@pytest.mark.parametrize('norm_type', [2.0, 1, 3.5, float('inf'), 0.5])
@pytest.mark.parametrize('max_norm', [0.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    res = {}
    for t in LIBS:
        ps = grads_of(t)
        total = t.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
        res[t] = [total] + [p.grad for p in ps[:-1]]
    for a, b in zip(res[torchlike], res[torch]):
        assert_same(a, b, atol=1e-5, rtol=1e-5)


def test_clip_grad_norm_single_tensor_generator_and_errors():
    def f(t):
        ps = grads_of(t)
        out = [rounded(t.nn.utils.clip_grad_norm_(ps[0], 1.0)), rounded(ps[0].grad)]
        out.append(rounded(t.nn.utils.clip_grad_norm_((p for p in ps), 2.0, foreach=False)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            out.append(rounded(t.nn.utils.clip_grad_norm_((p for p in []), 1.0)))
            out.append([str(x.message) for x in w])
        ps[1].grad[0] = float('nan')
        out.append(outcome(lambda _: t.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True), t))
        out.append(np.isnan(to_np(t.nn.utils.clip_grad_norm_(ps, 1.0, foreach=True))).item())
        out.append(np.isnan(to_np(t.nn.utils.clip_grad_norm_(ps, 1.0))).item())
        return out
    same_outcome(f)


def test_get_total_norm_and_clip_grads_with_norm():
    res = {}
    for t in LIBS:
        ps = grads_of(t, seed=3)
        grads = [p.grad for p in ps if p.grad is not None]
        total = t.nn.utils.get_total_norm(grads, norm_type=2.0)
        t.nn.utils.clip_grads_with_norm_(ps, 1.5, total)
        res[t] = [total, t.nn.utils.get_total_norm([]), t.nn.utils.get_total_norm(grads[0], 1.0)] + grads
    for a, b in zip(res[torchlike], res[torch]):
        assert_same(a, b, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize('clip', [0.1, 2])
def test_clip_grad_value(clip):
    res = {}
    for t in LIBS:
        ps = grads_of(t, seed=5)
        t.nn.utils.clip_grad_value_(ps, clip)
        t.nn.utils.clip_grad_value_(ps[0], clip / 2)
        res[t] = [p.grad for p in ps[:-1]]
    for a, b in zip(res[torchlike], res[torch]):
        assert_same(a, b)


def test_clip_in_training_step():
    """clip between backward and an SGD-style update: the same parameters as torch after the step."""
    rs = np.random.RandomState(7)
    x = rs.randn(8, 5).astype(np.float32)
    res = {}
    for t in LIBS:
        t.manual_seed(0)
        m = t.nn.Sequential(t.nn.Linear(5, 4), t.nn.Linear(4, 1))
        res[t] = m
    res[torchlike].load_state_dict({k: torchlike.tensor(v.numpy()) for k, v in res[torch].state_dict().items()})
    out = {}
    for t in LIBS:
        m = res[t]
        (m(t.tensor(x)) ** 2).mean().backward()
        norm = t.nn.utils.clip_grad_norm_(m.parameters(), 0.05)
        with t.no_grad():
            for p in m.parameters():
                p -= 0.1 * p.grad
        out[t] = [norm] + list(m.parameters())
    for a, b in zip(out[torchlike], out[torch]):
        assert_same(a, b, atol=1e-5, rtol=1e-5)


# ---- parameters <-> vector ----------------------------------------------------------------------

def test_parameters_to_vector_and_back():
    res = {}
    for t in LIBS:
        ps = grads_of(t, seed=1)
        vec = t.nn.utils.parameters_to_vector(ps)
        (vec * t.arange(vec.numel(), dtype=t.float32)).sum().backward()
        g = [p.grad for p in ps]
        t.nn.utils.vector_to_parameters(t.arange(vec.numel(), dtype=t.float32) / 10, ps)
        res[t] = [vec] + g + list(ps) + [t.tensor([p.requires_grad for p in ps])]
    for a, b in zip(res[torchlike], res[torch]):
        assert_same(a, b)
    same_outcome(lambda t: t.nn.utils.vector_to_parameters([1.0], []))


# ---- functional_call ----------------------------------------------------------------------------

def _fc_model(t):
    class M(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = t.nn.Linear(3, 3)
            self.b = t.nn.Linear(3, 2)
            self.b.weight = t.nn.Parameter(self.a.weight[:2].detach().clone())
            self.register_buffer('shift', t.ones(2))
            self.tied = self.a

        def forward(self, x, scale=1.0):
            return (self.b(self.a(x)) + self.shift) * scale
    return M()


def test_functional_call_values_and_grads():
    rs = np.random.RandomState(2)
    x = rs.randn(4, 3).astype(np.float32)
    res = {}
    for t in LIBS:
        m = _fc_model(t)
        params = {'a.weight': t.tensor(rs_w := np.arange(9, dtype=np.float32).reshape(3, 3) / 10, requires_grad=True),
                  'b.bias': t.tensor(np.array([1.0, -1.0], np.float32), requires_grad=True),
                  'shift': t.zeros(2)}
        del rs_w
        y = t.func.functional_call(m, params, (t.tensor(x),), {'scale': 2.0})
        y.sum().backward()
        # the module's own tensors are back in place and got no gradient
        res[t] = [y, params['a.weight'].grad, params['b.bias'].grad, m.shift, t.tensor(m.a.weight.grad is None),
                  m(t.tensor(x))]
        # tied names: a value given for 'a.weight' is used for 'tied.weight' too (tie_weights=True)
        y2 = t.func.functional_call(m, ({'tied.weight': t.eye(3)}, {'shift': t.ones(2)}), t.tensor(x))
        y3 = t.func.functional_call(m, {'tied.weight': t.eye(3)}, t.tensor(x), tie_weights=False)
        res[t] += [y2, y3]
    # module parameters differ (random init): compare only what does not depend on them
    for i in (2, 3, 4):
        assert_same(res[torchlike][i], res[torch][i])


def test_functional_call_matches_given_weights():
    rs = np.random.RandomState(4)
    x = rs.randn(4, 3).astype(np.float32)
    tm = _fc_model(torch)
    sd = {k: v.detach().numpy() for k, v in tm.state_dict().items() if not k.startswith('tied.')}
    outs = {}
    for t in LIBS:
        m = _fc_model(t)
        given = {k: t.tensor(v, requires_grad=k != 'shift') for k, v in sd.items()}
        y = t.func.functional_call(m, given, (t.tensor(x),))
        y.square().sum().backward()
        outs[t] = [y] + [given[k].grad for k in sorted(given) if k != 'shift']
    for a, b in zip(outs[torchlike], outs[torch]):
        assert_same(a, b, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize('case', range(5))
def test_functional_call_errors(case):
    def f(t):
        m = _fc_model(t)
        x = t.ones(1, 3)
        calls = [
            lambda: t.func.functional_call(m, {'a.weight': t.ones(3, 3), 'tied.weight': t.zeros(3, 3)}, x),
            lambda: t.func.functional_call(m, {'a.bias': t.ones(3), 'nope': t.ones(1)}, x, strict=True),
            lambda: t.func.functional_call(m, [{'shift': t.ones(2)}, {'shift': t.ones(2)}], x),
            lambda: t.func.functional_call(m, 3, x),
            lambda: t.func.functional_call(m, {'a.weight': 3}, x),
        ]
        return rounded(calls[case]())
    same_outcome(f)


def test_stateless_functional_call_deprecated():
    def f(t):
        m = t.nn.Linear(2, 1)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            y = t.nn.utils.stateless.functional_call(
                m, {'weight': t.ones(1, 2), 'bias': t.zeros(1)}, (t.ones(1, 2),))
        return rounded(y), [type(x.message).__name__ for x in w]
    same_outcome(f)


# ---- weight_norm / spectral_norm / parametrize --------------------------------------------------

def _copy(src_t, dst_l):
    dst_l.load_state_dict({k: torchlike.tensor(v.detach().numpy()) for k, v in src_t.state_dict().items()})


@pytest.mark.parametrize('dim', [0, 1, None])
def test_weight_norm_parametrization(dim):
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    ms, outs = {}, {}
    for t in LIBS:
        ms[t] = t.nn.utils.parametrizations.weight_norm(t.nn.Linear(4, 3), dim=dim)
    _copy(ms[torch], ms[torchlike])
    for t in LIBS:
        m = ms[t]
        y = m(t.tensor(x))
        y.square().sum().backward()
        g = m.parametrizations.weight
        outs[t] = [y, m.weight, g.original0.grad, g.original1.grad, m.bias.grad]
    for a, b in zip(outs[torchlike], outs[torch]):
        assert_same(a, b, atol=1e-5, rtol=1e-5)
    same_outcome(lambda t: (repr(t.nn.utils.parametrizations.weight_norm(t.nn.Linear(4, 3), dim=dim)),
                            list(t.nn.utils.parametrizations.weight_norm(t.nn.Linear(4, 3)).state_dict()),
                            type(t.nn.utils.parametrizations.weight_norm(t.nn.Linear(4, 3))).__name__))


def test_weight_norm_parametrization_initial_value_and_legacy_keys():
    def f(t):
        lin = t.nn.Linear(3, 2)
        with t.no_grad():
            lin.weight.copy_(t.tensor([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]]))
        w0 = rounded(lin.weight)
        m = t.nn.utils.parametrizations.weight_norm(lin)
        out = [w0, rounded(m.weight), rounded(m.parametrizations.weight.original0)]
        m.load_state_dict({'weight_g': t.tensor([[2.0], [1.0]]), 'weight_v': t.tensor([[3.0, 0, 4], [1, 0, 0]]),
                           'bias': t.zeros(2)})
        out.append(rounded(m.weight))
        m.weight = t.tensor([[0.0, 0.0, 5.0], [0.0, -2.0, 0.0]])   # assignment goes through right_inverse
        out += [rounded(m.parametrizations.weight.original0), rounded(m.weight)]
        return out
    same_outcome(f)


def test_legacy_weight_norm():
    x = np.random.RandomState(1).randn(2, 4).astype(np.float32)
    ms, outs = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for t in LIBS:
            ms[t] = t.nn.utils.weight_norm(t.nn.Linear(4, 3), dim=0)
    _copy(ms[torch], ms[torchlike])
    for t in LIBS:
        m = ms[t]
        y = m(t.tensor(x))
        y.sum().backward()
        outs[t] = [y, m.weight_g.grad, m.weight_v.grad]
        t.nn.utils.remove_weight_norm(m)
        outs[t] += [m.weight]
    for a, b in zip(outs[torchlike], outs[torch]):
        assert_same(a, b, atol=1e-5, rtol=1e-5)

    def f(t):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            m = t.nn.utils.weight_norm(t.nn.Linear(2, 2))
            out = [list(m.state_dict()), [k for k, _ in m.named_parameters()], type(m.weight).__name__]
            out.append(outcome(lambda _: t.nn.utils.weight_norm(m), t))
            t.nn.utils.remove_weight_norm(m)
            out.append(outcome(lambda _: t.nn.utils.remove_weight_norm(m), t))
        return out
    same_outcome(f)


@pytest.mark.parametrize('legacy', [False, True])
def test_spectral_norm(legacy):
    x = np.random.RandomState(2).randn(3, 5).astype(np.float32)
    ms, outs = {}, {}
    for t in LIBS:
        sn = t.nn.utils.spectral_norm if legacy else t.nn.utils.parametrizations.spectral_norm
        ms[t] = sn(t.nn.Linear(5, 4), n_power_iterations=2)
    _copy(ms[torch], ms[torchlike])      # copies the power-iteration vectors too
    for t in LIBS:
        m = ms[t]
        y1 = m(t.tensor(x))              # training: one power-iteration step per call
        y1.square().sum().backward()
        m.eval()
        y2 = m(t.tensor(x))
        w = m.weight_orig if legacy else m.parametrizations.weight.original
        outs[t] = [y1, y2, w.grad, m.weight]
        outs[t] += [m.weight_u, m.weight_v] if legacy else [m.parametrizations.weight[0]._u]
    for a, b in zip(outs[torchlike], outs[torch]):
        assert_same(a, b, atol=1e-4, rtol=1e-4)
    if not legacy:   # 15 power iterations at registration: the normalised weight's top singular value is ~1
        s = np.linalg.svd(to_np(ms[torchlike].weight), compute_uv=False)
        assert abs(s[0] - 1) < 0.05

    def f(t):
        sn = t.nn.utils.spectral_norm if legacy else t.nn.utils.parametrizations.spectral_norm
        m = sn(t.nn.Linear(3, 2))
        out = [list(m.state_dict()), [k for k, _ in m.named_parameters()], [k for k, _ in m.named_buffers()]]
        out.append(outcome(lambda _: sn(t.nn.Linear(2, 2), n_power_iterations=0), t))
        if legacy:
            out.append(sorted(m.state_dict()._metadata[''].get('spectral_norm', {}).items()))
            t.nn.utils.remove_spectral_norm(m)
            out.append([k for k, _ in m.named_parameters()])
        return out
    same_outcome(f)


def _symmetric(t):
    """A parametrization class named Symmetric for library ``t`` (messages name the class)."""
    return type('Symmetric', (t.nn.Module,), {'forward': lambda self, X: X.triu() + X.triu(1).transpose(-1, -2)})


def test_register_parametrization_and_remove():
    def f(t):
        P = t.nn.utils.parametrize
        sym = _symmetric(t)

        class Scale(t.nn.Module):
            def forward(self, X):
                return X * 2

            def right_inverse(self, X):
                return X / 2

        lin = t.nn.Linear(3, 3)
        with t.no_grad():
            lin.weight.copy_(t.arange(9.).reshape(3, 3))
        P.register_parametrization(lin, 'weight', sym())
        out = [type(lin).__name__, P.is_parametrized(lin), P.is_parametrized(lin, 'bias'), rounded(lin.weight),
               repr(lin), list(lin.state_dict()), P.type_before_parametrizations(lin).__name__]
        P.register_parametrization(lin, 'weight', Scale())
        out.append(rounded(lin.weight))
        lin.weight = t.ones(3, 3) * 4          # right_inverse through Scale, then Symmetric has none
        return out + [outcome(lambda _: rounded(lin.weight), t)]
    same_outcome(f)

    def g(t):
        P = t.nn.utils.parametrize
        sym = _symmetric(t)
        lin = t.nn.Linear(3, 3)
        with t.no_grad():
            lin.weight.copy_(t.arange(9.).reshape(3, 3))
        P.register_parametrization(lin, 'weight', sym())
        x = t.ones(1, 3, requires_grad=True)
        lin(x).sum().backward()
        grad = rounded(lin.parametrizations.weight.original.grad)
        with P.cached():
            same = lin.weight is lin.weight
        out = [grad, same, lin.weight is lin.weight]
        P.remove_parametrizations(lin, 'weight')
        out += [type(lin).__name__, rounded(lin.weight), type(lin.weight).__name__, list(lin.state_dict())]
        out.append(outcome(lambda _: P.remove_parametrizations(lin, 'weight'), t))
        out.append(outcome(lambda _: P.register_parametrization(lin, 'nope', sym()), t))

        class Bad(t.nn.Module):
            def forward(self, X):
                return X[0]
        out.append(outcome(lambda _: P.register_parametrization(t.nn.Linear(2, 2), 'weight', Bad()), t))
        lin2 = t.nn.Linear(2, 2)
        P.register_parametrization(lin2, 'weight', sym())
        P.remove_parametrizations(lin2, 'weight', leave_parametrized=False)
        out.append(type(lin2).__name__)
        return out
    same_outcome(g)


def test_parametrized_module_deepcopy_and_pickle_error():
    import pickle
    m = torchlike.nn.utils.parametrizations.weight_norm(torchlike.nn.Linear(2, 2))
    m2 = copy.deepcopy(m)
    np.testing.assert_allclose(to_np(m2.weight), to_np(m.weight))
    assert m2.parametrizations.weight.original1 is not m.parametrizations.weight.original1
    with pytest.raises(RuntimeError):
        pickle.dumps(m)
    with pytest.raises(RuntimeError):
        pickle.dumps(torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2)))


# ---- fusion -------------------------------------------------------------------------------------

def test_fuse_linear_bn_eval():
    rs = np.random.RandomState(3)
    x = rs.randn(6, 4).astype(np.float32)
    outs = {}
    lin_t, bn_tt = torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)
    with torch.no_grad():
        bn_tt.running_mean.copy_(torch.tensor([0.5, -1.0, 2.0]))
        bn_tt.running_var.copy_(torch.tensor([1.5, 0.25, 4.0]))
        bn_tt.weight.copy_(torch.tensor([2.0, 0.5, -1.0]))
        bn_tt.bias.copy_(torch.tensor([0.1, 0.2, 0.3]))
    lin_l, bn_l = torchlike.nn.Linear(4, 3), torchlike.nn.BatchNorm1d(3)
    _copy(lin_t, lin_l)
    _copy(bn_tt, bn_l)
    for t, lin, bn in ((torch, lin_t, bn_tt), (torchlike, lin_l, bn_l)):
        lin.eval(), bn.eval()
        fused = t.nn.utils.fuse_linear_bn_eval(lin, bn)
        outs[t] = [fused(t.tensor(x)), bn(lin(t.tensor(x))), fused.weight, fused.bias]
    for a, b in zip(outs[torchlike], outs[torch]):
        assert_same(a, b, atol=1e-5, rtol=1e-5)
    same_outcome(lambda t: t.nn.utils.fuse_linear_bn_eval(t.nn.Linear(2, 2), t.nn.BatchNorm1d(2)))


def test_fuse_conv_bn_weights():
    rs = np.random.RandomState(4)
    arrs = [rs.randn(*s).astype(np.float32) for s in ((3, 2, 2, 2), (3,), (3,), (3,), (3,), (3,))]
    arrs[3] = np.abs(arrs[3]) + 0.5

    def f(t):
        w, b, rm, rv, bw, bb = (t.tensor(a) for a in arrs)
        out = []
        for transpose in (False, True):
            ww = w if not transpose else w.transpose(0, 1).contiguous()
            fw, fb = t.nn.utils.fuse_conv_bn_weights(ww, b, rm, rv, 1e-5, bw, bb, transpose)
            out += [rounded(fw), rounded(fb), type(fw).__name__]
        fw, fb = t.nn.utils.fuse_conv_bn_weights(w, None, rm, rv, 1e-3, None, None)
        return out + [rounded(fw), rounded(fb), fb.requires_grad]
    same_outcome(f)


# ---- DataParallel / skip_init -------------------------------------------------------------------

def test_data_parallel_transparent_wrapper():
    def f(t):
        dp = t.nn.parallel.DataParallel(t.nn.Sequential(t.nn.Linear(2, 3)))
        with t.no_grad():
            dp.module[0].weight.fill_(0.5)
            dp.module[0].bias.zero_()
        y = dp(t.ones(4, 2))
        sd = dp.state_dict()
        m2 = t.nn.Sequential(t.nn.Linear(2, 3))
        m2.load_state_dict({k[len('module.'):]: v for k, v in sd.items()})
        return (repr(dp), list(sd), rounded(y), rounded(m2[0].weight), [k for k, _ in dp.named_parameters()],
                outcome(lambda _: t.func.functional_call(dp, {}, (t.ones(1, 2),)), t))
    same_outcome(f)


def test_skip_init():
    def f(t):
        m = t.nn.utils.skip_init(t.nn.Linear, 3, 4, bias=False)
        return (repr(m), tuple(m.weight.shape), type(m.weight).__name__, m.weight.requires_grad,
                outcome(lambda _: t.nn.utils.skip_init(t.nn.Flatten), t), outcome(lambda _: t.nn.utils.skip_init(int), t))
    same_outcome(f)
