"""Attention and transformer layers against real torch: F.scaled_dot_product_attention,
F.multi_head_attention_forward, nn.MultiheadAttention, nn.Transformer{,Encoder,Decoder}{,Layer}.

Modules are built under torch (torch.manual_seed), their state_dict is copied into torchlike through numpy,
both run the same inputs in eval mode, and outputs, attention weights and the gradients of every input
and parameter are compared (float32, atol/rtol 1e-4). Gradients are of ``(out * c).sum()`` for a fixed
random ``c``, so that no gradient vanishes by symmetry (a LayerNorm output's plain sum has zero gradient).
"""
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import torchlike
import torchlike.nn  # noqa: F401
import torchlike.nn.functional  # noqa: F401

from conftest import assert_same, check, to_np

# both libraries warn alike (the tests mix bool padding masks with float attention masks on purpose)
pytestmark = [pytest.mark.filterwarnings('ignore:Support for mismatched'),
              pytest.mark.filterwarnings('ignore:enable_nested_tensor is True'),
              pytest.mark.filterwarnings('ignore:The PyTorch API of nested tensors')]   # torch's own, C++

LIBS = (torch, torchlike)
RNG = np.random.default_rng(1234)


def arr(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def tens(lib, a, grad=False):
    if a is None or not isinstance(a, np.ndarray):
        return a
    t = lib.tensor(a)
    if grad and a.dtype.kind == 'f':
        t.requires_grad_(True)
    return t


def backward(out, lib):
    """(out * c).sum().backward() for a fixed c derived from out's shape."""
    c = np.cos(np.arange(out.numel(), dtype=np.float64) * 0.7 + 0.3).reshape(tuple(out.shape))
    (out * lib.tensor(c.astype(np.float32))).sum().backward()


def copy_state(src, dst):
    dst.load_state_dict(OrderedDict((k, torchlike.tensor(v.detach().numpy())) for k, v in src.state_dict().items()))


def grads_of(mod):
    return {n: p.grad for n, p in mod.named_parameters()}


def compare_grads(tl_mod, th_mod):
    gt, gh = grads_of(tl_mod), grads_of(th_mod)
    assert list(gt) == list(gh)
    for n in gh:
        if gh[n] is None:
            assert gt[n] is None, n
        else:
            assert gt[n] is not None, n
            assert_same(gt[n], gh[n], atol=1e-4, rtol=1e-4)


def run_module(build, inputs, call, grad=True, train=False):
    """Build under both libraries (weights from torch), run ``call(mod, *tensors, lib)`` and compare the
    outputs (a tensor or a tuple whose tensor entries are compared), input gradients and parameter
    gradients."""
    torch.manual_seed(0)
    th = build(torch)
    tl = build(torchlike)
    copy_state(th, tl)
    th.train(train)
    tl.train(train)
    res = {}
    for lib, mod in ((torch, th), (torchlike, tl)):
        ins = [tens(lib, a, grad) for a in inputs]
        out = call(mod, *ins, lib=lib)
        res[lib] = (ins, out)
        if grad:
            first = out[0] if isinstance(out, tuple) else out
            backward(first, lib)
    (ih, oh), (it, ot) = res[torch], res[torchlike]
    assert_same(ot, oh)
    if grad:
        for a, b in zip(it, ih):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                assert_same(a.grad, b.grad)
        compare_grads(tl, th)
    return tl, th


# ---- scaled_dot_product_attention ---------------------------------------------------------------------

def _bool(*shape, p=0.3):
    m = RNG.random(shape) > p
    m[..., 0] = True            # no fully masked rows here (tested separately)
    return m


SDPA_CASES = {
    '4d': ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), None, {}),
    '3d_float_mask_negative_scale': ((3, 4, 8), (3, 5, 8), (3, 5, 6), arr(4, 5), dict(scale=-0.3)),
    '2d_bool_mask': ((4, 8), (5, 8), (5, 6), _bool(4, 5), {}),
    '4d_bool_mask_4d': ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), _bool(2, 3, 4, 5), {}),
    '4d_float_mask_bcast': ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), arr(3, 1, 5), {}),
    '5d': ((2, 2, 2, 3, 4), (2, 2, 2, 5, 4), (2, 2, 2, 5, 3), None, {}),
    'causal_L_lt_S': ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), None, dict(is_causal=True)),
    'causal_L_gt_S': ((2, 3, 6, 8), (2, 3, 4, 8), (2, 3, 4, 6), None, dict(is_causal=True)),
    'scale': ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), None, dict(scale=0.7)),
    'gqa': ((2, 4, 3, 8), (2, 2, 5, 8), (2, 1, 5, 6), None, dict(enable_gqa=True)),
    'gqa_same_heads': ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), None, dict(enable_gqa=True)),
    'batch_broadcast': ((2, 3, 4, 8), (1, 3, 5, 8), (2, 1, 5, 6), None, {}),
    'empty_S': ((2, 4, 8), (2, 0, 8), (2, 0, 6), None, {}),
    'empty_Ev': ((2, 4, 8), (2, 5, 8), (2, 5, 0), None, {}),
}


@pytest.mark.parametrize('case', list(SDPA_CASES))
def test_sdpa_matches_torch(case):
    qs, ks, vs, mask, kw = SDPA_CASES[case]
    q, k, v = arr(*qs), arr(*ks), arr(*vs)
    res = {}
    for lib in LIBS:
        ins = [tens(lib, a, True) for a in (q, k, v, mask)]
        out = lib.nn.functional.scaled_dot_product_attention(*ins[:3], attn_mask=ins[3], **kw)
        if out.numel():
            backward(out, lib)
        res[lib] = out, [t.grad for t in ins if isinstance(t, lib.Tensor) and t.requires_grad]
    assert_same(res[torchlike][0], res[torch][0])
    assert_same(res[torchlike][1], res[torch][1])


def test_sdpa_float64_and_float32_mask():
    q, k, v, m = arr(2, 3, 8), arr(2, 5, 8), arr(2, 5, 4), arr(3, 5)
    check(lambda t: t.nn.functional.scaled_dot_product_attention(
        t.tensor(q).double(), t.tensor(k).double(), t.tensor(v).double(), attn_mask=t.tensor(m)))


@pytest.mark.parametrize('nd', [3, 4])
@pytest.mark.parametrize('kind', ['bool', 'float'])
def test_sdpa_fully_masked_rows_are_zero(nd, kind):
    """torch's _safe_softmax: a row with every key masked gives zeros and zero gradients, not NaN."""
    lead = (2,) * (nd - 2)
    q, k, v = arr(*lead, 4, 8), arr(*lead, 5, 8), arr(*lead, 5, 6)
    mb = _bool(4, 5)
    mb[1] = False
    mask = mb if kind == 'bool' else np.where(mb, 0.0, -np.inf).astype(np.float32)
    res = {}
    for lib in LIBS:
        ins = [tens(lib, a, True) for a in (q, k, v, mask)]
        out = lib.nn.functional.scaled_dot_product_attention(*ins)
        backward(out, lib)
        res[lib] = [out] + [t.grad for t in ins if t.requires_grad]
    assert_same(res[torchlike], res[torch])
    assert not np.isnan(to_np(res[torchlike][1])).any()


def test_sdpa_causal_equals_tril_bool_mask():
    q, k, v = arr(2, 6, 8), arr(2, 4, 8), arr(2, 4, 6)
    F = torchlike.nn.functional
    a = F.scaled_dot_product_attention(torchlike.tensor(q), torchlike.tensor(k), torchlike.tensor(v), is_causal=True)
    m = torchlike.ones(6, 4, dtype=torchlike.bool).tril()
    b = F.scaled_dot_product_attention(torchlike.tensor(q), torchlike.tensor(k), torchlike.tensor(v), attn_mask=m)
    np.testing.assert_allclose(to_np(a), to_np(b), atol=1e-6)


GRAD_FN_CASES = {
    # name: (q, k, v shapes, mask shape or None, mask requires grad, kwargs)
    '2d': ((4, 8), (5, 8), (5, 8), None, False, {}),
    '3d': ((2, 4, 8), (2, 5, 8), (2, 5, 8), None, False, {}),
    '4d': ((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8), None, False, {}),
    '4d_mask2d': ((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8), (4, 5), False, {}),
    '4d_mask3d': ((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8), (2, 4, 5), False, {}),
    '4d_mask_grad': ((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8), (4, 5), True, {}),
    '4d_head_dims': ((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 6), None, False, {}),
    '4d_bcast_heads': ((2, 2, 4, 8), (2, 1, 5, 8), (2, 1, 5, 8), None, False, {}),
    '4d_gqa': ((2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8), None, False, dict(enable_gqa=True)),
    '4d_gqa_kv_differ': ((2, 4, 4, 8), (2, 2, 5, 8), (2, 1, 5, 8), None, False, dict(enable_gqa=True)),
    'empty_S': ((2, 4, 8), (2, 0, 8), (2, 0, 8), None, False, {}),
}


@pytest.mark.parametrize('case', list(GRAD_FN_CASES))
def test_sdpa_grad_fn_names(case):
    qs, ks, vs, ms, mgrad, kw = GRAD_FN_CASES[case]
    q, k, v = arr(*qs), arr(*ks), arr(*vs)
    m = None if ms is None else arr(*ms)
    names = []
    for lib in LIBS:
        mask = None if m is None else lib.tensor(m).requires_grad_(mgrad)
        out = lib.nn.functional.scaled_dot_product_attention(tens(lib, q, True), tens(lib, k, True),
                                                             tens(lib, v, True), attn_mask=mask, **kw)
        names.append(out.grad_fn.name())
    assert names[0] == names[1], names


_q4, _k4, _v4 = arr(2, 3, 4, 8), arr(2, 3, 5, 8), arr(2, 3, 5, 6)
SDPA_ERRORS = {
    'mask_and_causal': lambda t: dict(attn_mask=t.ones(4, 5, dtype=t.bool), is_causal=True),
    'int_mask': lambda t: dict(attn_mask=t.ones(4, 5, dtype=t.int64)),
    'double_mask': lambda t: dict(attn_mask=t.ones(4, 5, dtype=t.float64)),
    'mask_shape': lambda t: dict(attn_mask=t.ones(3, 5)),
    'mask_too_many_dims': lambda t: dict(attn_mask=t.ones(2, 1, 1, 4, 5)),
    'mask_1d_4d_query': lambda t: dict(attn_mask=t.ones(5, dtype=t.bool)),
    'mask_0d_4d_query': lambda t: dict(attn_mask=t.ones((), dtype=t.bool)),
    'mask_not_tensor': lambda t: dict(attn_mask=1.0),
    'dropout_gt_1': lambda t: dict(dropout_p=1.5),
    'dropout_str': lambda t: dict(dropout_p='a'),
    'scale_str': lambda t: dict(scale='a'),
    'is_causal_none': lambda t: dict(is_causal=None),
    'gqa_int': lambda t: dict(enable_gqa=1),
}


@pytest.mark.parametrize('case', list(SDPA_ERRORS))
def test_sdpa_argument_errors(case):
    check(lambda t: t.nn.functional.scaled_dot_product_attention(t.tensor(_q4), t.tensor(_k4), t.tensor(_v4),
                                                                 **SDPA_ERRORS[case](t)))


SDPA_SHAPE_ERRORS = {
    'dtype_mismatch': lambda t: (t.tensor(_q4), t.tensor(_k4), t.tensor(_v4).double()),
    'one_dim': lambda t: (t.tensor(_q4[0, 0, 0]), t.tensor(_k4[0, 0, 0]), t.tensor(_v4[0, 0, 0])),
    'int_inputs': lambda t: (t.tensor(_q4).int(), t.tensor(_k4).int(), t.tensor(_v4).int()),
    'head_dim_mismatch': lambda t: (t.tensor(_q4), t.tensor(_k4[..., :7]), t.tensor(_v4)),
    'seq_mismatch': lambda t: (t.tensor(_q4), t.tensor(_k4), t.tensor(_v4[..., :4, :])),
    'batch_mismatch': lambda t: (t.tensor(_q4), t.tensor(_k4[:, :2]), t.tensor(_v4[:, :2])),
    'query_not_tensor': lambda t: (1, t.tensor(_k4), t.tensor(_v4)),
    'value_list': lambda t: (t.tensor(_q4), t.tensor(_k4), [1]),
}


@pytest.mark.parametrize('case', list(SDPA_SHAPE_ERRORS))
def test_sdpa_shape_errors(case):
    check(lambda t: t.nn.functional.scaled_dot_product_attention(*SDPA_SHAPE_ERRORS[case](t)))


@pytest.mark.parametrize('case', ['non_divisible', 'two_dim'])
def test_sdpa_gqa_errors(case):
    def f(t):
        if case == 'two_dim':
            q, k, v = t.tensor(_q4[0, 0]), t.tensor(_k4[0, 0]), t.tensor(_v4[0, 0])
        else:
            q, k, v = t.tensor(_q4), t.tensor(_k4[:, :2]), t.tensor(_v4[:, :1])
        return t.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    check(f)


def test_sdpa_positional_scale_is_rejected():
    check(lambda t: t.nn.functional.scaled_dot_product_attention(t.tensor(_q4), t.tensor(_k4), t.tensor(_v4),
                                                                 None, 0.0, False, 2.0))


def test_sdpa_dropout_one_gives_zeros():
    check(lambda t: t.nn.functional.scaled_dot_product_attention(t.tensor(_q4), t.tensor(_k4), t.tensor(_v4),
                                                                 dropout_p=1.0))


def test_sdpa_dropout_drops_and_rescales_attention_weights():
    """With value = identity the output is the attention matrix itself: every entry must be 0 or torch's
    undropped weight / (1 - p), about a fraction p of them 0; the draw follows torchlike's global seed."""
    p = 0.4
    q, k = arr(4, 16, 8), arr(4, 32, 8)
    eye = np.broadcast_to(np.eye(32, dtype=np.float32), (4, 32, 32)).copy()
    ref = to_np(torch.nn.functional.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(eye)))
    F = torchlike.nn.functional
    torchlike.manual_seed(7)
    out = to_np(F.scaled_dot_product_attention(torchlike.tensor(q), torchlike.tensor(k), torchlike.tensor(eye),
                                               dropout_p=p))
    zero = out == 0
    np.testing.assert_allclose(out[~zero], ref[~zero] / (1 - p), rtol=1e-5, atol=1e-7)
    assert abs(zero.mean() - p) < 0.05
    torchlike.manual_seed(7)
    again = to_np(F.scaled_dot_product_attention(torchlike.tensor(q), torchlike.tensor(k), torchlike.tensor(eye),
                                                 dropout_p=p))
    np.testing.assert_array_equal(out, again)
    other = to_np(F.scaled_dot_product_attention(torchlike.tensor(q), torchlike.tensor(k), torchlike.tensor(eye),
                                                 dropout_p=p))
    assert not np.array_equal(out == 0, other == 0)


# ---- MultiheadAttention ----------------------------------------------------------------------------------

def _mha(**kw):
    def build(t):
        return t.nn.MultiheadAttention(8, 2, **kw)
    return build


MHA_CASES = {
    # name: (ctor kwargs, forward options, (L, S), self-attention?, batched?)
    'self_masks': (dict(), dict(kpm='bool', attn_mask='bool2d'), (4, 4), True, True),
    'self_batch_first_sdpa': (dict(batch_first=True), dict(need_weights=False, kpm='float', attn_mask='float3d'),
                              (4, 4), True, True),
    'cross_batch_first': (dict(batch_first=True), dict(kpm='bool'), (4, 6), False, True),
    'kdim_vdim_not_averaged': (dict(kdim=5, vdim=3), dict(average_attn_weights=False, attn_mask='float3d'),
                               (4, 6), False, True),
    'kdim_vdim_batch_first_sdpa': (dict(kdim=5, vdim=3, batch_first=True), dict(need_weights=False, kpm='bool'),
                                   (4, 6), False, True),
    'bias_kv_zero_attn_masks': (dict(add_bias_kv=True, add_zero_attn=True),
                                dict(kpm='bool', attn_mask='bool2d'), (4, 6), False, True),
    'zero_attn_sdpa': (dict(add_zero_attn=True), dict(need_weights=False, attn_mask='float3d'), (4, 6), False, True),
    'no_bias': (dict(bias=False), {}, (4, 4), True, True),
    'causal_hint_sdpa': (dict(batch_first=True), dict(need_weights=False, attn_mask='causal', is_causal=True),
                         (4, 4), True, True),
    'causal_hint_with_weights': (dict(), dict(attn_mask='causal', is_causal=True), (4, 4), True, True),
    'unbatched': (dict(), dict(kpm='bool', attn_mask='float3d'), (4, 6), False, False),
    'unbatched_kdim_vdim_sdpa': (dict(kdim=5, vdim=3), dict(need_weights=False, kpm='bool', attn_mask='bool2d'),
                                 (4, 6), False, False),
}


@pytest.mark.parametrize('case', list(MHA_CASES))
def test_multihead_attention_matches_torch(case):
    ctor, fkw, (L, S), self_attn, batched = MHA_CASES[case]
    N, H, E = 2, 2, 8
    bf = ctor.get('batch_first', False)
    kdim, vdim = ctor.get('kdim', E), ctor.get('vdim', E)

    def shape(n, f):
        if not batched:
            return (n, f)
        return (N, n, f) if bf else (n, N, f)
    q = arr(*shape(L, E))
    k = q if self_attn else arr(*shape(S, kdim))
    v = q if self_attn else arr(*shape(S, vdim))
    kpm = attn = None
    if fkw.get('kpm'):
        b = _bool(N, S) if batched else _bool(S)
        kpm = ~b if fkw['kpm'] == 'bool' else np.where(b, 0.0, -np.inf).astype(np.float32)
    if fkw.get('attn_mask') == 'bool2d':
        attn = ~_bool(L, S)
    elif fkw.get('attn_mask') == 'float3d':
        attn = arr(N * H if batched else H, L, S)
    elif fkw.get('attn_mask') == 'causal':
        attn = np.triu(np.full((L, S), -np.inf, np.float32), 1)
    extra = {n: fkw[n] for n in ('need_weights', 'average_attn_weights', 'is_causal') if n in fkw}
    inputs = [q] if self_attn else [q, k, v]

    def call(mod, *ins, lib):
        qq, kk, vv = (ins[0],) * 3 if self_attn else ins
        m = [None if a is None else lib.tensor(a) for a in (kpm, attn)]
        return mod(qq, kk, vv, key_padding_mask=m[0], attn_mask=m[1], **extra)
    run_module(_mha(**ctor), inputs, call)


def test_multihead_attention_parameters_and_init():
    for kw in (dict(), dict(kdim=5, vdim=3, add_bias_kv=True), dict(bias=False)):
        th = torch.nn.MultiheadAttention(8, 2, **kw)
        tl = torchlike.nn.MultiheadAttention(8, 2, **kw)
        assert [(n, tuple(p.shape)) for n, p in tl.named_parameters()] == \
               [(n, tuple(p.shape)) for n, p in th.named_parameters()]
        assert list(tl.state_dict()) == list(th.state_dict())
        assert type(tl.out_proj).__name__ == 'NonDynamicallyQuantizableLinear'
        for name in ('in_proj_weight', 'q_proj_weight', 'k_proj_weight', 'v_proj_weight'):
            p = getattr(tl, name)
            if p is None:
                assert getattr(th, name) is None
                continue
            bound = math.sqrt(6.0 / (p.shape[0] + p.shape[1]))       # xavier_uniform_
            a = to_np(p)
            assert np.abs(a).max() <= bound and np.abs(a).max() > 0.8 * bound
            assert abs(a.std() - bound / math.sqrt(3)) < 0.25 * bound / math.sqrt(3)
        if th.in_proj_bias is not None:
            assert (to_np(tl.in_proj_bias) == 0).all() and (to_np(tl.out_proj.bias) == 0).all()
        for name in ('bias_k', 'bias_v'):
            if getattr(th, name) is not None:
                assert not (to_np(getattr(tl, name)) == 0).all()


def test_multihead_attention_dropout_only_in_training():
    torch.manual_seed(0)
    th = torch.nn.MultiheadAttention(8, 2, dropout=0.5)
    tl = torchlike.nn.MultiheadAttention(8, 2, dropout=0.5)
    copy_state(th, tl)
    x = arr(5, 3, 8)
    tl.eval()
    th.eval()
    out_tl, w_tl = tl(torchlike.tensor(x), torchlike.tensor(x), torchlike.tensor(x))
    out_th, w_th = th(torch.tensor(x), torch.tensor(x), torch.tensor(x))
    assert_same(out_tl, out_th)
    tl.train()
    _, w_train = tl(torchlike.tensor(x), torchlike.tensor(x), torchlike.tensor(x), average_attn_weights=False)
    w = to_np(w_train)
    assert (w == 0).mean() > 0.2
    ref = to_np(th(torch.tensor(x), torch.tensor(x), torch.tensor(x), average_attn_weights=False)[1])
    np.testing.assert_allclose(w[w != 0], 2 * ref[w != 0], rtol=1e-4)


MHA_ERRORS = {
    'embed_dim_not_divisible': lambda t: t.nn.MultiheadAttention(10, 3),
    'nonpositive_heads': lambda t: t.nn.MultiheadAttention(8, 0),
    'kpm_wrong_batch': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(4, 2, 8),) * 3,
                                                                key_padding_mask=t.zeros(3, 4, dtype=t.bool)),
    'kpm_3d': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(4, 2, 8),) * 3,
                                                       key_padding_mask=t.zeros(1, 2, 4, dtype=t.bool)),
    'attn_mask_2d_shape': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(4, 2, 8),) * 3,
                                                                   attn_mask=t.zeros(3, 4)),
    'attn_mask_3d_shape': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(4, 2, 8),) * 3,
                                                                   attn_mask=t.zeros(2, 4, 4)),
    'int_attn_mask': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(4, 2, 8),) * 3,
                                                              attn_mask=t.zeros(4, 4, dtype=t.int64)),
    'causal_without_mask': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(4, 2, 8),) * 3, is_causal=True),
    'query_4d': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(1, 4, 2, 8),) * 3),
    'key_2d_query_3d': lambda t: t.nn.MultiheadAttention(8, 2)(t.ones(4, 2, 8), t.ones(4, 8), t.ones(4, 8)),
    'embed_mismatch': lambda t: t.nn.MultiheadAttention(8, 2)(*(t.ones(4, 2, 6),) * 3),
    'kv_shape_mismatch': lambda t: t.nn.MultiheadAttention(8, 2)(t.ones(4, 2, 8), t.ones(4, 2, 8), t.ones(5, 2, 8)),
}


@pytest.mark.parametrize('case', list(MHA_ERRORS))
def test_multihead_attention_errors(case):
    check(MHA_ERRORS[case])


def test_mismatched_mask_dtypes_warn_as_torch():
    def f(t):
        m = t.nn.MultiheadAttention(8, 2)
        x = t.ones(4, 2, 8)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            m(x, x, x, key_padding_mask=t.zeros(2, 4, dtype=t.bool), attn_mask=t.zeros(4, 4))
        return [str(x.message) for x in w if 'mismatched' in str(x.message)]
    assert f(torch) == f(torchlike) and f(torch)


def test_functional_mha_static_kv_and_separate_weights():
    """F.multi_head_attention_forward with static_k/static_v and use_separate_proj_weight."""
    E, H, L, S, N = 8, 2, 3, 4, 2
    q, k, v = arr(L, N, E), arr(S, N, 5), arr(S, N, 3)
    wq, wk, wv, b, wo, bo = arr(E, E), arr(E, 5), arr(E, 3), arr(3 * E), arr(E, E), arr(E)
    sk, sv = arr(N * H, 6, E // H), arr(N * H, 6, E // H)
    res = {}
    for lib in LIBS:
        ts = [tens(lib, a, True) for a in (q, k, v, wq, wk, wv, b, wo, bo, sk, sv)]
        out, w = lib.nn.functional.multi_head_attention_forward(
            ts[0], ts[1], ts[2], E, H, None, ts[6], None, None, False, 0.0, ts[7], ts[8], training=False,
            use_separate_proj_weight=True, q_proj_weight=ts[3], k_proj_weight=ts[4], v_proj_weight=ts[5],
            static_k=ts[9], static_v=ts[10])
        backward(out, lib)
        res[lib] = [out, w] + [t.grad for t in ts]
    assert_same(res[torchlike], res[torch])


def test_functional_mha_errors():
    def f(t, case):
        E, H = 8, 2
        x = t.ones(3, 2, E)
        w, b, wo = t.ones(3 * E, E), t.zeros(3 * E), t.ones(E, E)
        kw = {}
        bk = bv = None
        if case == 'static_k_size':
            kw = dict(static_k=t.ones(3, 3, E // H))
        elif case == 'bias_k_only':
            bk = t.ones(1, 1, E)
        elif case == 'bias_with_static':
            bk, bv = t.ones(1, 1, E), t.ones(1, 1, E)
            kw = dict(static_k=t.ones(4, 3, E // H))
        elif case == 'no_in_proj':
            w = None
        return t.nn.functional.multi_head_attention_forward(x, x, x, E, H, w, b, bk, bv, False, 0.0, wo, None, **kw)
    for case in ('static_k_size', 'bias_k_only', 'bias_with_static', 'no_in_proj'):
        check(lambda t: f(t, case))


# ---- transformer layers ----------------------------------------------------------------------------------

def _causal(n):
    return np.triu(np.full((n, n), -np.inf, np.float32), 1)


def _enc_layer(**kw):
    def build(t):
        act = kw.get('activation', 'relu')
        if act == 'F.gelu':
            act = t.nn.functional.gelu
        elif act == 'GELU()':
            act = t.nn.GELU()
        return t.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, **{**kw, 'activation': act})
    return build


ENC_LAYER_CASES = {
    'post_norm': dict(),
    'pre_norm': dict(norm_first=True),
    'gelu_str_batch_first': dict(activation='gelu', batch_first=True),
    'gelu_callable_pre_norm': dict(activation='F.gelu', norm_first=True),
    'gelu_module': dict(activation='GELU()'),
    'no_bias': dict(bias=False, layer_norm_eps=1e-3),
}


@pytest.mark.parametrize('case', list(ENC_LAYER_CASES))
@pytest.mark.parametrize('masks', ['none', 'masks'])
def test_encoder_layer_matches_torch(case, masks):
    kw = ENC_LAYER_CASES[case]
    bf = kw.get('batch_first', False)
    x = arr(2, 4, 8) if bf else arr(4, 2, 8)
    kpm = ~_bool(2, 4)

    def call(mod, src, lib):
        if masks == 'none':
            return mod(src)
        return mod(src, src_mask=lib.tensor(_causal(4)), src_key_padding_mask=lib.tensor(kpm), is_causal=True)
    run_module(_enc_layer(**kw), [x], call)


def test_encoder_layer_unbatched():
    kpm = ~_bool(4)
    run_module(_enc_layer(norm_first=True), [arr(4, 8)],
               lambda mod, src, lib: mod(src, src_key_padding_mask=lib.tensor(kpm)))


def _dec_layer(**kw):
    def build(t):
        act = t.nn.functional.gelu if kw.get('activation') == 'F.gelu' else kw.get('activation', 'relu')
        return t.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, **{**kw, 'activation': act})
    return build


@pytest.mark.parametrize('kw', [dict(), dict(norm_first=True, activation='F.gelu'),
                                dict(batch_first=True, activation='gelu')], ids=['post', 'pre_gelu', 'batch_first'])
def test_decoder_layer_matches_torch(kw):
    bf = kw.get('batch_first', False)
    tgt = arr(2, 4, 8) if bf else arr(4, 2, 8)
    mem = arr(2, 6, 8) if bf else arr(6, 2, 8)
    tkpm, mkpm, mmask = ~_bool(2, 4), ~_bool(2, 6), ~_bool(4, 6)

    def call(mod, t_, m_, lib):
        return mod(t_, m_, tgt_mask=lib.tensor(_causal(4)), memory_mask=lib.tensor(mmask),
                   tgt_key_padding_mask=lib.tensor(tkpm), memory_key_padding_mask=lib.tensor(mkpm),
                   tgt_is_causal=True)
    run_module(_dec_layer(**kw), [tgt, mem], call)


def test_encoder_and_decoder_stacks_match_torch():
    def build_enc(t):
        layer = t.nn.TransformerEncoderLayer(8, 2, 16, 0.0)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return t.nn.TransformerEncoder(layer, 2, norm=t.nn.LayerNorm(8))

    kpm = ~_bool(2, 4)

    def call_enc(mod, src, lib):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(4)
        return mod(src, mask=mask, src_key_padding_mask=lib.tensor(kpm))
    tl, th = run_module(build_enc, [arr(4, 2, 8)], call_enc)
    assert tl.layers[0].linear1.weight is not tl.layers[1].linear1.weight

    def build_dec(t):
        return t.nn.TransformerDecoder(t.nn.TransformerDecoderLayer(8, 2, 16, batch_first=True), 2)

    def call_dec(mod, tgt, mem, lib):
        return mod(tgt, mem, tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(4))
    run_module(build_dec, [arr(2, 4, 8), arr(2, 6, 8)], call_dec)


@pytest.mark.parametrize('batch_first', [False, True])
def test_full_transformer_matches_torch(batch_first):
    def build(t):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return t.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                    dim_feedforward=16, batch_first=batch_first)
    src = arr(2, 6, 8) if batch_first else arr(6, 2, 8)
    tgt = arr(2, 4, 8) if batch_first else arr(4, 2, 8)
    skpm, tkpm = ~_bool(2, 6), ~_bool(2, 4)

    def call(mod, s, t_, lib):
        tgt_mask = lib.nn.Transformer.generate_square_subsequent_mask(4)
        return mod(s, t_, tgt_mask=tgt_mask, src_key_padding_mask=lib.tensor(skpm),
                   tgt_key_padding_mask=lib.tensor(tkpm), memory_key_padding_mask=lib.tensor(skpm))
    run_module(build, [src, tgt], call)


def test_transformer_init_matches_torch_distribution():
    """Transformer._reset_parameters: xavier_uniform_ on every >1-D parameter; LayerNorm weights 1, attention
    biases 0, Linear biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)) as torch."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tl = torchlike.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                      dim_feedforward=16)
        th = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                  dim_feedforward=16)
    assert list(tl.state_dict()) == list(th.state_dict())
    fan_in = {n: p.shape[1] for n, p in th.named_parameters() if p.dim() == 2}
    for (n, p), (_, q) in zip(tl.named_parameters(), th.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape), n
        a, b = to_np(p), to_np(q)
        if p.dim() > 1:
            bound = math.sqrt(6.0 / (p.shape[0] + p.shape[1]))
            assert np.abs(a).max() <= bound, n
        elif (b == b[0]).all():
            np.testing.assert_array_equal(a, b, err_msg=n)          # constant: LayerNorm, attention biases
        else:
            bound = 1 / math.sqrt(fan_in[n[:-len('bias')] + 'weight'])
            assert np.abs(a).max() <= bound and len(np.unique(a)) == len(a), n


def test_generate_square_subsequent_mask():
    for kw in ({}, {'dtype': 'float64'}):
        def f(t):
            k = {'dtype': getattr(t, kw['dtype'])} if kw else {}
            return t.nn.Transformer.generate_square_subsequent_mask(4, **k)
        check(f)


@pytest.mark.parametrize('nested', [True, False])
def test_encoder_nested_tensor_fast_path_zeroes_padding(nested):
    """torch's nested-tensor inference path (enable_nested_tensor, eval, no_grad, left-aligned padding)
    returns zeros at padded positions; with grad enabled, with enable_nested_tensor=False or with padding
    that is not left-aligned, every position is computed."""
    def build(t):
        layer = t.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        return t.nn.TransformerEncoder(layer, 2, norm=t.nn.LayerNorm(8), enable_nested_tensor=nested)
    kpm = np.zeros((2, 4), bool)
    kpm[1, 2:] = True
    kpm2 = kpm.copy()
    kpm2[0, 1] = True
    x = arr(2, 4, 8)

    def call(mask):
        def f(mod, src, lib):
            with lib.no_grad():
                return mod(src, src_key_padding_mask=lib.tensor(mask))
        return f
    tl, _ = run_module(build, [x], call(kpm), grad=False)
    with torchlike.no_grad():
        out = to_np(tl(torchlike.tensor(x), src_key_padding_mask=torchlike.tensor(kpm)))
    bias = to_np(tl.norm.bias)
    assert np.allclose(out[1, 2:], bias) == nested         # LayerNorm of a zero row is its bias
    run_module(build, [x], call(kpm2), grad=False)
    if nested:
        run_module(build, [x], lambda mod, src, lib: mod(src, src_key_padding_mask=lib.tensor(kpm)))


def test_encoder_nested_tensor_warning_matches_torch():
    def f(t):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            enc = t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(8, 2, 16), 2)
            t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1)
            t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(8, 2, 16), 1, enable_nested_tensor=False)
        return [str(x.message) for x in w], enc.use_nested_tensor, enc.enable_nested_tensor
    assert f(torchlike) == f(torch)


def test_reprs_match_torch():
    def f(t):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return [repr(t.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                                          dim_feedforward=16)),
                    repr(t.nn.TransformerEncoderLayer(8, 2, 16, activation=t.nn.GELU())),
                    repr(t.nn.MultiheadAttention(8, 2, kdim=4, vdim=3, bias=False))]
    assert f(torchlike) == f(torch)


def test_transformer_errors():
    def layer_bad_activation(t):
        return t.nn.TransformerEncoderLayer(8, 2, activation='tanh')

    def batch_mismatch(t):
        m = t.nn.Transformer(8, 2, 1, 1, 16)
        return m(t.ones(3, 2, 8), t.ones(3, 4, 8))

    def feature_mismatch(t):
        m = t.nn.Transformer(8, 2, 1, 1, 16)
        return m(t.ones(3, 2, 8), t.ones(3, 2, 6))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for f in (layer_bad_activation, batch_mismatch, feature_mismatch):
            check(f)
