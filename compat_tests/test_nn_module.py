"""torch.nn.Module system against real torch: registration, iteration, state_dict, hooks, containers, Linear.

Every test builds the same model under torch and torchlike (weights copied from torch through numpy) and
compares what a user sees: reprs, names, shapes, messages, exception types, outputs and gradients.
"""
import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import torchlike
import torchlike.nn  # noqa: F401

from conftest import assert_same, to_np

LIBS = (torch, torchlike)


def copy_state(src, dst):
    """Load torch module ``src``'s state into torchlike module ``dst``."""
    sd = OrderedDict((k, torchlike.tensor(v.detach().numpy())) for k, v in src.state_dict().items())
    dst.load_state_dict(sd)


def outcome(fn, lib):
    """fn(lib)'s value, or (exception type name, message)."""
    try:
        return fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        # class paths in messages name the library ("<class 'torch.nn...'>"): compare modulo that
        return ('raised', type(e).__name__, str(e).replace('torchlike', 'torch'))


def same_outcome(fn):
    a, b = outcome(fn, torch), outcome(fn, torchlike)
    assert a == b, f'torch: {a!r}\ntorchlike: {b!r}'
    return a


def make_net(t):
    nn = t.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.scale = nn.Parameter(t.ones(4))
            self.register_buffer('running', t.zeros(4))
            self.register_buffer('scratch', t.zeros(2), persistent=False)
            self.register_parameter('unused', None)

        def forward(self, x):
            return self.fc(x) * self.scale + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(3, 4)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.head = nn.Sequential(OrderedDict(flat=nn.Flatten(), out=nn.Linear(4, 2, bias=False)))
            self.tied = self.inp          # a module registered twice
            self.extra = nn.ParameterDict({'b': nn.Parameter(t.zeros(2)), 'a': nn.Parameter(t.ones(1))})

        def forward(self, x):
            x = self.inp(x)
            for b in self.blocks:
                x = b(x)
            return self.head(x) + self.extra['b']

    return Net()


# ---- registration, iteration and printing ------------------------------------------------------

def test_repr_and_names_match_torch():
    def f(t):
        m = make_net(t)
        return (repr(m), [(k, tuple(v.shape)) for k, v in m.named_parameters()],
                [(k, tuple(v.shape)) for k, v in m.named_parameters(remove_duplicate=False)],
                [(k, tuple(v.shape)) for k, v in m.named_buffers()],
                [k for k, _ in m.named_modules()], [k for k, _ in m.named_modules(remove_duplicate=False)],
                [k for k, _ in m.named_children()], list(m.state_dict().keys()),
                [k for k, _ in m.named_parameters(prefix='model', recurse=False)],
                [k for k, _ in m.blocks[0].named_parameters(recurse=False)],
                len(list(m.parameters())), len(list(m.buffers())), len(list(m.modules())),
                [type(c).__name__ for c in m.children()], sorted(m.state_dict()._metadata.items()))
    same_outcome(f)


def test_tied_parameter_yielded_once():
    def f(t):
        m = t.nn.Sequential(t.nn.Linear(3, 3), t.nn.Linear(3, 3))
        m[1].weight = m[0].weight
        return ([k for k, _ in m.named_parameters()], [k for k, _ in m.named_parameters(remove_duplicate=False)],
                list(m.state_dict().keys()))
    same_outcome(f)


def test_setattr_routing_and_ordering():
    def f(t):
        nn = t.nn
        m = nn.Module()
        m.a = nn.Parameter(t.ones(2))
        m.b = nn.Linear(1, 1)
        m.register_buffer('c', t.zeros(1))
        m.d = 5
        m.c = t.ones(3)                 # re-assigning a buffer keeps it a buffer
        m.a = None                       # a parameter set to None stays registered
        m.b = nn.Parameter(t.ones(1))    # a module name taken by a parameter moves dicts
        m.e = nn.Buffer(t.ones(2), persistent=False)
        del m.c
        m.x = nn.Linear(2, 2)
        del m.x
        return (list(m._parameters), list(m._buffers), list(m._modules), sorted(m._non_persistent_buffers_set),
                m.d, list(m.state_dict().keys()), 'c' in dir(m), 'b' in dir(m), repr(m))
    same_outcome(f)


@pytest.mark.parametrize('case', range(14))
def test_registration_errors(case):
    def f(t):
        nn = t.nn
        m = nn.Linear(2, 2)
        x = t.ones(2)
        actions = [
            lambda: setattr(m, 'weight', x),                      # TypeError: not a Parameter
            lambda: m.register_parameter('a.b', nn.Parameter(x)),
            lambda: m.register_parameter('', nn.Parameter(x)),
            lambda: m.register_parameter('in_features', nn.Parameter(x)),
            lambda: m.register_parameter('p', x),
            lambda: m.register_buffer('a.b', x),
            lambda: m.register_buffer('weight', x),
            lambda: m.register_buffer('q', 3),
            lambda: m.add_module('weight', nn.Linear(1, 1)),
            lambda: m.add_module('z', 3),
            lambda: m.add_module('a.b', nn.Linear(1, 1)),
            lambda: m.register_parameter('y', nn.Parameter(x) * 2),   # TypeError: a plain Tensor
            lambda: m.nonexistent,
            lambda: setattr(nn.Sequential(nn.Linear(1, 1)), '0', 3),
        ]
        return actions[case]()
    same_outcome(f)


def test_assign_before_init_errors():
    def f(t):
        class Bad(t.nn.Module):
            def __init__(self):
                self.w = t.nn.Parameter(t.ones(1))
        Bad()
    same_outcome(f)

    def g(t):
        class Bad(t.nn.Module):
            def __init__(self):
                self.l = t.nn.Linear(1, 1)
        Bad()
    same_outcome(g)


def test_get_submodule_parameter_buffer():
    def f(t):
        m = make_net(t)
        out = [m.get_submodule('blocks.1.fc').in_features, tuple(m.get_parameter('blocks.0.scale').shape),
               tuple(m.get_buffer('blocks.1.running').shape), m.get_submodule('') is m]
        for call in (lambda: m.get_submodule('blocks.5'), lambda: m.get_submodule('blocks.0.scale'),
                     lambda: m.get_parameter('blocks.0.running'), lambda: m.get_buffer('blocks.0.scale'),
                     lambda: m.get_parameter('blocks.0.nothing')):
            out.append(outcome(lambda _: call(), t))
        m.set_submodule('head.out', t.nn.Identity())
        out.append(repr(m.head))
        out.append(outcome(lambda _: m.set_submodule('head.nope', t.nn.Identity(), strict=True), t))
        return out
    same_outcome(f)


def test_parameter_and_buffer_types():
    def f(t):
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        q = t.nn.Parameter(t.tensor([1.0]), requires_grad=False)
        b = t.nn.Buffer(t.ones(2))
        e = t.nn.Parameter()
        y = p * 2
        return (repr(p), repr(q), p.requires_grad, q.requires_grad, p.is_leaf, type(y).__name__,
                isinstance(p, t.Tensor), isinstance(b, t.nn.Buffer), isinstance(t.ones(1), t.nn.Buffer),
                isinstance(p, t.nn.Parameter), isinstance(y, t.nn.Parameter), b.persistent,
                tuple(e.shape), repr(t.nn.UninitializedParameter()), t.nn.parameter.is_lazy(p))
    same_outcome(f)


def test_dir_and_extra_repr_multiline():
    def f(t):
        class Odd(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = t.nn.Linear(1, 2)

            def extra_repr(self):
                return 'line one\nline two'

        class Single(t.nn.Module):
            def extra_repr(self):
                return 'only=1'
        s = t.nn.Sequential(Odd(), Single(), t.nn.Sequential())
        d = dir(s[0])
        return repr(s), 'inner' in d, 'forward' in d, 'training' in d
    same_outcome(f)


# ---- state_dict / load_state_dict ---------------------------------------------------------------

def test_state_dict_copy_and_forward_backward():
    tm, lm = make_net(torch), make_net(torchlike)
    copy_state(tm, lm)
    x = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    yt, yl = tm(torch.from_numpy(x)), lm(torchlike.tensor(x))
    assert_same(yl, yt)
    (yt ** 2).sum().backward()
    (yl ** 2).sum().backward()
    gt = dict(tm.named_parameters())
    for k, p in lm.named_parameters():
        assert_same(p.grad, gt[k].grad)
    sd = lm.state_dict()
    assert not any(v.requires_grad for v in sd.values())
    assert all(v.requires_grad for k, v in lm.state_dict(keep_vars=True).items() if k in gt)


def test_load_state_dict_errors_and_results():
    def f(t):
        m = make_net(t)
        sd = m.state_dict()
        out = [repr(m.load_state_dict(sd))]
        bad = OrderedDict(sd)
        del bad['inp.weight']
        bad['blocks.0.bogus'] = t.ones(1)
        bad['nothere.x'] = t.ones(1)
        bad['blocks.1.fc.bias'] = t.ones(7)
        out.append(outcome(lambda _: m.load_state_dict(bad), t))
        out.append(outcome(lambda _: repr(m.load_state_dict({k: v for k, v in bad.items()
                                                              if k != 'blocks.1.fc.bias'}, strict=False)), t))
        r = m.load_state_dict({'inp.bias': t.ones(4)}, strict=False)
        out += [r.missing_keys, r.unexpected_keys, type(r).__name__, to_np(m.inp.bias).tolist()]
        out.append(outcome(lambda _: m.load_state_dict([1, 2]), t))
        out.append(outcome(lambda _: m.load_state_dict({'inp.bias': [1.0] * 4}, strict=False), t))
        return out
    same_outcome(f)


def test_load_state_dict_assign_and_scalar_shape():
    def f(t):
        m = t.nn.Linear(2, 2)
        m.register_buffer('s', t.tensor(0.0))
        w = t.ones(2, 2, dtype=t.float64)
        m.load_state_dict({'weight': w, 'bias': t.zeros(2), 's': t.tensor([3.0])}, assign=True)
        m2 = t.nn.Linear(2, 2)
        m2.register_buffer('s', t.tensor(0.0))
        m2.load_state_dict({'weight': w, 'bias': t.zeros(2), 's': t.tensor([3.0])})
        return (type(m.weight).__name__, str(m.weight.dtype), m.weight.requires_grad, str(m2.weight.dtype),
                float(m.s), tuple(m.s.shape), float(m2.s), type(m2.weight).__name__)
    same_outcome(f)


def test_load_from_state_dict_hook_and_version():
    def f(t):
        seen = []

        class Versioned(t.nn.Module):
            _version = 2

            def __init__(self):
                super().__init__()
                self.register_buffer('count', t.tensor(0))

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errs):
                seen.append((prefix, local_metadata.get('version')))
                if local_metadata.get('version') is None or local_metadata['version'] < 2:
                    state_dict.setdefault(prefix + 'count', t.tensor(7))
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errs)

        m = t.nn.Sequential(Versioned())
        sd = m.state_dict()
        md = dict(sd._metadata)
        m.load_state_dict(sd)
        m.load_state_dict({})          # old checkpoint: no metadata, no count -> the hook fills it in
        post = []
        m.register_load_state_dict_post_hook(lambda mod, keys: post.append((list(keys.missing_keys),)))
        m[0].register_load_state_dict_pre_hook(lambda mod, sd, prefix, *a: post.append(prefix))
        m.load_state_dict({'0.count': t.tensor(3)})
        pre_sd = []
        m.register_state_dict_pre_hook(lambda mod, prefix, keep: pre_sd.append(prefix))
        m.state_dict()
        return seen, md, int(m[0].count), post, pre_sd
    same_outcome(f)


def test_extra_state():
    def f(t):
        class WithExtra(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.value = 1

            def get_extra_state(self):
                return {'value': self.value}

            def set_extra_state(self, state):
                self.value = state['value']

        m = t.nn.Sequential(WithExtra())
        sd = m.state_dict()
        sd['0._extra_state'] = {'value': 5}
        m.load_state_dict(sd)
        return list(sd.keys()), m[0].value, outcome(lambda _: m.load_state_dict({}), t)
    same_outcome(f)


# ---- modes, grads, dtype ------------------------------------------------------------------------

def test_train_eval_requires_grad_zero_grad():
    def f(t):
        m = make_net(t)
        out = [m.training, m.blocks[0].fc.training]
        m.eval()
        out += [m.training, m.blocks[1].fc.training, m.head.training]
        m.train()
        out += [m.training, m.blocks[1].fc.training]
        out.append(outcome(lambda _: m.train('yes'), t))
        m.requires_grad_(False)
        out.append([p.requires_grad for p in m.parameters()])
        m.requires_grad_()
        m(t.ones(2, 3)).sum().backward()
        m.zero_grad(set_to_none=False)
        out.append([float(p.grad.abs().sum()) for p in m.parameters()])
        m.zero_grad()
        out.append([p.grad for p in m.parameters()])
        return out
    same_outcome(f)


def test_to_and_dtype_casts():
    def f(t):
        m = make_net(t)
        m.register_buffer('steps', t.tensor(3))
        w = m.inp.weight
        m(t.ones(2, 3)).sum().backward()
        m.double()
        out = [str(p.dtype) for p in m.parameters()] + [str(b.dtype) for b in m.buffers()]
        out += [m.inp.weight is w, str(w.grad.dtype), w.requires_grad, type(m.inp.weight).__name__]
        m.to(t.float16)
        out.append(str(m.inp.weight.dtype))
        m.float()
        m.to('cpu')
        m.to(t.ones(1, dtype=t.float64))
        out.append(str(m.inp.weight.dtype))
        m.to(device='cpu', dtype=t.float32)
        out.append(str(m.inp.weight.dtype))
        out.append(outcome(lambda _: m.to(t.int32), t))
        m.half()
        out.append(str(m.inp.weight.dtype))
        m.bfloat16()
        out.append(str(m.inp.weight.dtype))
        m.type(t.float64)
        out.append(str(m.inp.weight.dtype))
        out.append(str(m.steps.dtype))
        out.append(m.apply(lambda mod: None) is m and m.cpu() is m and m.share_memory() is m)
        return out
    same_outcome(f)


def test_apply_order():
    def f(t):
        order = []
        make_net(t).apply(lambda mod: order.append(type(mod).__name__))
        return order
    same_outcome(f)


# ---- hooks --------------------------------------------------------------------------------------

def test_forward_hooks_order_and_effects():
    def f(t):
        nn = t.nn
        log = []
        m = nn.Linear(2, 2)
        with t.no_grad():
            m.weight.copy_(t.tensor([[1.0, 2.0], [3.0, 4.0]]))
            m.bias.zero_()
        hs = [m.register_forward_pre_hook(lambda mod, args: log.append('pre1')),
              m.register_forward_pre_hook(lambda mod, args: (log.append('pre0'), None)[1], prepend=True),
              m.register_forward_pre_hook(lambda mod, args: args[0] * 2),
              m.register_forward_pre_hook(lambda mod, args, kw: (log.append(('prekw', sorted(kw))), None)[1],
                                          with_kwargs=True),
              m.register_forward_hook(lambda mod, args, out: log.append(('fwd', to_np(args[0]).tolist()))),
              m.register_forward_hook(lambda mod, args, out: out + 1),
              m.register_forward_hook(lambda mod, args, kw, out: log.append('fwdkw'), with_kwargs=True),
              m.register_forward_hook(lambda mod, args, out: log.append('first'), prepend=True)]
        g = t.nn.modules.module.register_module_forward_pre_hook(lambda mod, args: log.append('global_pre'))
        g2 = t.nn.modules.module.register_module_forward_hook(lambda mod, args, out: log.append('global_fwd'))
        try:
            y = m(t.ones(1, 2))
        finally:
            g.remove()
            g2.remove()
        log.append(to_np(y).tolist())
        for h in hs:
            h.remove()
        log.append(to_np(m(t.ones(1, 2))).tolist())
        with hs[0]:
            pass
        return log
    same_outcome(f)


def test_always_call_hook_on_exception():
    def f(t):
        log = []

        class Boom(t.nn.Module):
            def forward(self, x):
                raise ValueError('boom')

        m = Boom()
        m.register_forward_hook(lambda mod, args, out: log.append(('always', out)), always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append('never'))
        r = outcome(lambda _: m(t.ones(1)), t)
        return log, r
    same_outcome(f)


def test_pre_hook_with_kwargs_bad_return():
    def f(t):
        m = t.nn.Identity()
        m.register_forward_pre_hook(lambda mod, args, kw: 5, with_kwargs=True)
        return m(t.ones(1))
    same_outcome(f)


def _bw_model(t):
    m = t.nn.Linear(3, 2)
    with t.no_grad():
        m.weight.copy_(t.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]))
        m.bias.copy_(t.tensor([0.1, -0.2]))
    return m


def test_full_backward_hooks():
    def f(t):
        log = []
        m = _bw_model(t)

        def pre(mod, gout):
            log.append(('pre', [to_np(g).tolist() for g in gout]))
            return (gout[0] * 2,)

        def post(mod, gin, gout):
            log.append(('post', [None if g is None else to_np(g).tolist() for g in gin],
                        [to_np(g).tolist() for g in gout]))
            return (gin[0] + 1,)

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(post)
        x = t.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        y = m(x)
        (y * t.tensor([[1.0, 10.0]])).sum().backward()
        log.append(('x.grad', to_np(x.grad).tolist()))
        log.append(('w.grad', to_np(m.weight.grad).tolist()))
        log.append(outcome(lambda _: m.register_backward_hook(lambda *a: None), t))
        return log
    same_outcome(f)


def test_full_backward_hook_no_input_grad_and_global():
    def f(t):
        log = []
        m = _bw_model(t)
        h = t.nn.modules.module.register_module_full_backward_hook(
            lambda mod, gin, gout: log.append(('global', gin, [to_np(g).tolist() for g in gout])))
        m.register_full_backward_hook(lambda mod, gin, gout: log.append(('local', gin)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                m(t.ones(1, 3)).sum().backward()
        finally:
            h.remove()
        log.append(to_np(m.bias.grad).tolist())
        return log
    same_outcome(f)


def test_legacy_backward_hook():
    def f(t):
        log = []
        m = _bw_model(t)
        m.register_backward_hook(lambda mod, gin, gout: log.append(len(gout)))
        x = t.ones(1, 3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            m(x).sum().backward()
        return log, to_np(x.grad).tolist()
    same_outcome(f)


def test_registration_hooks_global():
    def f(t):
        log = []
        mm = t.nn.modules.module
        hs = [mm.register_module_parameter_registration_hook(lambda mod, n, p: log.append(('p', n))),
              mm.register_module_buffer_registration_hook(lambda mod, n, b: log.append(('b', n))),
              mm.register_module_module_registration_hook(lambda mod, n, s: log.append(('m', n)))]
        try:
            t.nn.Sequential(t.nn.Linear(1, 1, bias=False)).register_buffer('z', None)
        finally:
            for h in hs:
                h.remove()
        return log
    same_outcome(f)


# ---- containers ---------------------------------------------------------------------------------

def test_sequential_ops():
    def f(t):
        nn = t.nn
        L = lambda i: nn.Linear(i, i + 1)  # noqa: E731
        s = nn.Sequential(L(1), L(2), L(3))
        out = [repr(s[1:]), repr(s[-1]), len(s), type(s[::2]).__name__]
        s.append(L(4))
        s.insert(0, nn.Identity())
        s.insert(-1, nn.Flatten())
        s.extend([L(5)])
        out.append(repr(s))
        out.append(repr(s.pop(1)))
        del s[0]
        del s[1:3]
        out.append(repr(s))
        s[0] = nn.Identity()
        out.append(repr(s + nn.Sequential(L(7))))
        out.append(repr(nn.Sequential(L(1)) * 2))
        s2 = nn.Sequential(L(1))
        s2 *= 2
        s2 += nn.Sequential(L(9))
        out.append(repr(s2))
        out.append([type(m).__name__ for m in s])
        out.append(outcome(lambda _: s[10], t))
        out.append(outcome(lambda _: s.insert(99, nn.Identity()), t))
        out.append(outcome(lambda _: s + nn.ModuleList(), t))
        out.append(outcome(lambda _: s * 0, t))
        od = nn.Sequential(OrderedDict([('a', L(1)), ('b', nn.Identity())]))
        out.append([repr(od), repr(od[1:]), list(od.state_dict())])
        return out
    same_outcome(f)


def test_sequential_forward():
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Flatten(0), torch.nn.Unflatten(0, (2, 3)))
    lm = torchlike.nn.Sequential(torchlike.nn.Linear(4, 3), torchlike.nn.Flatten(0), torchlike.nn.Unflatten(0, (2, 3)))
    copy_state(tm, lm)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    assert_same(lm(torchlike.tensor(x)), tm(torch.from_numpy(x)))


def test_modulelist_moduledict():
    def f(t):
        nn = t.nn
        ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
        ml.append(nn.Identity())
        ml.extend([nn.Linear(2, 2)])
        ml.insert(1, nn.Flatten())
        out = [repr(ml), len(ml), repr(ml[-1]), repr(ml[1:3]), repr(ml + nn.ModuleList([nn.Identity()]))]
        out.append(repr(ml.pop(0)))
        del ml[::2]
        out.append(repr(ml))
        ml[0] = nn.Linear(5, 5)
        out.append(repr(ml))
        out.append(outcome(lambda _: ml[9], t))
        out.append(outcome(lambda _: ml.extend(3), t))
        out.append(repr(nn.ModuleList()))
        md = nn.ModuleDict({'b': nn.Linear(1, 1), 'a': nn.Identity()})
        md['c'] = nn.Flatten()
        md.update([('d', nn.Identity())])
        out += [repr(md), list(md.keys()), 'a' in md, len(md), [type(v).__name__ for v in md.values()]]
        out.append(repr(md.pop('b')))
        del md['a']
        out.append(list(md))
        out.append(outcome(lambda _: md.update([('x',)]), t))
        out.append(outcome(lambda _: md.update(5), t))
        md.clear()
        out.append(repr(md))
        return out
    same_outcome(f)


def test_parameterlist_parameterdict():
    def f(t):
        nn = t.nn
        pl = nn.ParameterList([nn.Parameter(t.ones(2)), t.zeros(2, 3)])
        pl.append(t.ones(1, dtype=t.float64))
        pl.extend([nn.Parameter(t.ones(4))])
        out = [repr(pl), len(pl), [type(p).__name__ for p in pl], list(pl.state_dict()), repr(pl[1:])]
        pl[0] = t.full((2,), 5.0)
        out.append(to_np(pl[0]).tolist())
        out.append(outcome(lambda _: pl(1), t))
        out.append(outcome(lambda _: pl.extend(t.ones(2)), t))
        pd = nn.ParameterDict({'z': t.ones(1), 'a': nn.Parameter(t.zeros(2))})
        pd['m'] = t.ones(3)
        pd.update(OrderedDict([('y', t.ones(1)), ('b', t.ones(1))]))
        out += [repr(pd), list(pd.keys()), list(pd.state_dict()), 'a' in pd, len(pd)]
        out.append(to_np(pd.pop('z')).tolist())
        out.append(pd.popitem()[0])
        out.append(list(pd.copy().keys()))
        out.append(list((pd | nn.ParameterDict({'q': t.ones(1)})).keys()))
        out.append(pd.get('nope', 3))
        pd.setdefault('s', t.ones(2))
        out.append(list(pd))
        out.append(outcome(lambda _: pd[3], t))
        out.append(outcome(lambda _: pd(1), t))
        pd.clear()
        out.append(len(pd))
        return out
    same_outcome(f)


# ---- layers -------------------------------------------------------------------------------------

@pytest.mark.parametrize('bias', [True, False])
def test_linear_bilinear_forward_backward(bias):
    rs = np.random.RandomState(1)
    x = rs.randn(2, 5, 3).astype(np.float32)
    x2 = rs.randn(2, 5, 4).astype(np.float32)
    res = {}
    for t in LIBS:
        lin = t.nn.Linear(3, 6, bias=bias)
        bil = t.nn.Bilinear(3, 4, 2, bias=bias)
        res[t] = (lin, bil)
    copy_state(res[torch][0], res[torchlike][0])
    copy_state(res[torch][1], res[torchlike][1])
    outs = {}
    for t in LIBS:
        lin, bil = res[t]
        xa = t.tensor(x, requires_grad=True)
        xb = t.tensor(x2, requires_grad=True)
        y = lin(xa).sum() + (bil(xa, xb) ** 2).sum()
        y.backward()
        outs[t] = [y, xa.grad, xb.grad, lin.weight.grad, bil.weight.grad] + \
            ([lin.bias.grad, bil.bias.grad] if bias else [])
    for a, b in zip(outs[torchlike], outs[torch]):
        assert_same(a, b, atol=1e-4, rtol=1e-4)
    same_outcome(lambda t: repr(t.nn.Linear(3, 6, bias=bias)) + repr(t.nn.Bilinear(1, 2, 3, bias=bias)))


def test_linear_dtype_device_kwargs():
    same_outcome(lambda t: (str(t.nn.Linear(2, 3, dtype=t.float64).weight.dtype),
                            str(t.nn.Linear(2, 3, device='cpu').bias.device), repr(t.nn.Identity(3, k=4))))


def test_linear_default_init_distribution():
    torchlike.manual_seed(0)
    for fan_in, fan_out in ((50, 400), (7, 3000)):
        m = torchlike.nn.Linear(fan_in, fan_out)
        tm = torch.nn.Linear(fan_in, fan_out)
        for name in ('weight', 'bias'):
            w, tw = to_np(getattr(m, name)), to_np(getattr(tm, name))
            bound = 1 / np.sqrt(fan_in)
            assert np.abs(w).max() <= bound and np.abs(tw).max() <= bound
            # uniform(-b, b): std b/sqrt(3); compare with torch's sample within sampling error
            n = w.size
            tol = 6 * bound / np.sqrt(n) + 1e-6
            assert abs(w.std() - tw.std()) < tol, (name, w.std(), tw.std())
            assert abs(w.mean()) < tol and abs(w.std() - bound / np.sqrt(3)) < tol
    # the global generator drives it: same seed, same weights; different seed, different weights
    torchlike.manual_seed(3)
    a = to_np(torchlike.nn.Linear(4, 4).weight)
    torchlike.manual_seed(3)
    b = to_np(torchlike.nn.Linear(4, 4).weight)
    c = to_np(torchlike.nn.Linear(4, 4).weight)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_lazy_linear():
    def f(t):
        m = t.nn.LazyLinear(3)
        before = (repr(m), type(m.weight).__name__, t.nn.parameter.is_lazy(m.weight), list(m.state_dict().keys()))
        y = m(t.ones(2, 5))
        after = (repr(m), type(m).__name__, type(m.weight).__name__, tuple(m.weight.shape), tuple(y.shape))
        m2 = t.nn.LazyLinear(4, bias=False)
        m2.load_state_dict({'weight': t.ones(4, 6)})
        loaded = (tuple(m2.weight.shape), type(m2.weight).__name__)
        return before, after, loaded, outcome(lambda _: t.nn.LazyLinear(2).weight.shape, t)
    same_outcome(f)


def test_flatten_unflatten():
    def f(t):
        x = t.arange(24.).reshape(2, 3, 4)
        return (repr(t.nn.Flatten()), repr(t.nn.Unflatten(1, (2, 2))), tuple(t.nn.Flatten()(x).shape),
                tuple(t.nn.Flatten(0, 1)(x).shape), tuple(t.nn.Unflatten(2, (2, 2))(x).shape),
                outcome(lambda _: t.nn.Unflatten(1, 4), t), outcome(lambda _: t.nn.Unflatten(1, (2, 'a')), t))
    same_outcome(f)


def test_forward_unimplemented_and_init_args():
    same_outcome(lambda t: t.nn.Module()(t.ones(1)))
    same_outcome(lambda t: t.nn.Module(3))
    same_outcome(lambda t: t.nn.Module(a=3))


# ---- copying --------------------------------------------------------------------------------------

def test_deepcopy_and_pickle_roundtrip():
    nn = torchlike.nn
    lin = nn.Linear(3, 3)
    m = nn.Sequential(lin, nn.ModuleList([nn.Linear(3, 3)]).append(lin)[0], lin, nn.Flatten())
    m.register_buffer('steps', torchlike.tensor(4))
    m.register_forward_hook(_module_level_hook)
    x = torchlike.ones(2, 3)
    y = m(x)
    for m2 in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert repr(m2) == repr(m)
        assert [k for k, _ in m2.named_parameters()] == [k for k, _ in m.named_parameters()]
        assert list(m2.state_dict()) == list(m.state_dict()) and int(m2.steps) == 4
        assert m2[0] is m2[2] and m2[0] is not m[0]          # sharing survives the copy
        assert len(m2._forward_hooks) == 1
        assert all(type(p) is torchlike.nn.Parameter and p.requires_grad for p in m2.parameters())
        assert not any(p is q for p, q in zip(m2.parameters(), m.parameters()))
        np.testing.assert_array_equal(to_np(m2(x)), to_np(y))
    p = pickle.loads(pickle.dumps(torchlike.nn.Parameter(torchlike.ones(2), requires_grad=False)))
    assert type(p) is torchlike.nn.Parameter and not p.requires_grad


def _module_level_hook(mod, args, out):
    return out


def test_incompatible_keys_repr():
    same_outcome(lambda t: (repr(t.nn.Linear(1, 1).load_state_dict({'weight': t.ones(1, 1)}, strict=False)),
                            str(t.nn.Linear(1, 1).load_state_dict(t.nn.Linear(1, 1).state_dict()))))
