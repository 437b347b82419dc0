"""torch.nn.functional (activations, losses, normalisation, dropout, embedding, linear, distances) against
real torch: values, dtypes, shapes, input gradients, grad_fn names, in-place forms, exception types."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import torchlike
import torchlike.nn.functional as LF
from conftest import assert_same, check

rng = np.random.RandomState(0)
X = rng.randn(4, 6).astype(np.float32)
X[0, :3] = [0.0, 1.0, -1.0]                      # kinks: relu/hardtanh/leaky_relu edges
X3 = rng.randn(2, 3, 4).astype(np.float32)
X4 = rng.randn(2, 4, 3, 3).astype(np.float32)
EDGES = np.array([-3.0, 3.0, -1.0, 1.0, 0.0, 6.0, -0.5, 0.5, 20.0, 25.0], np.float32)
LP = rng.randn(7, 3, 5).astype(np.float32)


def _name(t):
    g = t.grad_fn
    if g is None:
        return None
    return type(g).__name__ if isinstance(t, torch.Tensor) else g.name()


def run_both(fn, arrays, atol=1e-4, grad=True):
    """fn(T, F, *tensors) under torch and torchlike: output, grad_fn name and input gradients must agree."""
    res = []
    for T, F in ((torch, TF), (torchlike, LF)):
        ts = [T.tensor(a, requires_grad=grad and a.dtype.kind == 'f') for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            out = fn(T, F, *ts)
        grads = None
        if grad and out.requires_grad:
            (out.sum() if out.ndim else out).backward()
            grads = [t.grad for t in ts if t.requires_grad]
        res.append((out, _name(out), grads))
    (o1, n1, g1), (o2, n2, g2) = res
    assert_same(o2, o1, atol=atol, rtol=atol)
    assert n2 == n1, (n2, n1)
    if g1 is not None:
        assert g2 is not None
        assert_same(g2, g1, atol=atol, rtol=atol)


# ---- activations -------------------------------------------------------------------------------------
ACTS = [
    ('relu', lambda T, F, x: F.relu(x)),
    ('relu6', lambda T, F, x: F.relu6(x * 4)),
    ('leaky_relu', lambda T, F, x: F.leaky_relu(x, 0.2)),
    ('elu', lambda T, F, x: F.elu(x, 0.7)),
    ('selu', lambda T, F, x: F.selu(x)),
    ('celu', lambda T, F, x: F.celu(x, 2.0)),
    ('gelu', lambda T, F, x: F.gelu(x)),
    ('gelu_tanh', lambda T, F, x: F.gelu(x, approximate='tanh')),
    ('silu', lambda T, F, x: F.silu(x)),
    ('mish', lambda T, F, x: F.mish(x)),
    ('sigmoid', lambda T, F, x: F.sigmoid(x)),
    ('tanh', lambda T, F, x: F.tanh(x)),
    ('hardtanh', lambda T, F, x: F.hardtanh(x)),
    ('hardtanh_range', lambda T, F, x: F.hardtanh(x, -0.5, 0.5)),
    ('hardsigmoid', lambda T, F, x: F.hardsigmoid(x * 4)),
    ('hardswish', lambda T, F, x: F.hardswish(x * 4)),
    ('softplus', lambda T, F, x: F.softplus(x)),
    ('softplus_beta', lambda T, F, x: F.softplus(x * 10, beta=2, threshold=5)),
    ('softsign', lambda T, F, x: F.softsign(x)),
    ('softshrink', lambda T, F, x: F.softshrink(x, 0.3)),
    ('hardshrink', lambda T, F, x: F.hardshrink(x, 0.3)),
    ('tanhshrink', lambda T, F, x: F.tanhshrink(x)),
    ('threshold', lambda T, F, x: F.threshold(x, 0.1, -2.0)),
    ('logsigmoid', lambda T, F, x: F.logsigmoid(x)),
    ('glu', lambda T, F, x: F.glu(x)),
    ('glu_dim0', lambda T, F, x: F.glu(x, 0)),
    ('prelu_1', lambda T, F, x: F.prelu(x, x[0, 1:2] * 0.25)),
    ('prelu_c', lambda T, F, x: F.prelu(x.reshape(2, 3, 4), x[1, :3] * 1)),
    ('rrelu_eval', lambda T, F, x: F.rrelu(x)),
    ('softmax', lambda T, F, x: F.softmax(x, 1)),
    ('softmax_dtype', lambda T, F, x: F.softmax(x, 0, dtype=T.float64)),
    ('log_softmax', lambda T, F, x: F.log_softmax(x, -1)),
    ('softmin', lambda T, F, x: F.softmin(x, 1)),
    ('softmax_legacy_dim', lambda T, F, x: F.softmax(x)),
    ('softmax_legacy_dim3', lambda T, F, x: F.log_softmax(x.reshape(2, 3, 4))),
]


@pytest.mark.parametrize('name,fn', ACTS, ids=[a[0] for a in ACTS])
def test_activation(name, fn):
    run_both(fn, [X])


@pytest.mark.parametrize('name,fn', [a for a in ACTS if a[0] in ('relu', 'relu6', 'hardtanh', 'hardsigmoid',
                                                                   'hardswish', 'threshold', 'leaky_relu',
                                                                   'softshrink', 'hardshrink', 'elu', 'softplus')],
                         ids=lambda v: v if isinstance(v, str) else '')
def test_activation_kinks(name, fn):
    # gradients exactly at the clamp / kink points follow torch's derivative formulas
    run_both(lambda T, F, x: fn(T, F, x.reshape(2, 5) * 1), [EDGES])


INPLACE = [
    ('relu', lambda F, y: F.relu(y, inplace=True)),
    ('relu_', lambda F, y: F.relu_(y)),
    ('relu6', lambda F, y: F.relu6(y, inplace=True)),
    ('leaky_relu', lambda F, y: F.leaky_relu(y, 0.1, True)),
    ('leaky_relu_', lambda F, y: F.leaky_relu_(y, 0.1)),
    ('elu', lambda F, y: F.elu(y, inplace=True)),
    ('selu', lambda F, y: F.selu(y, True)),
    ('celu', lambda F, y: F.celu(y, 1.5, True)),
    ('hardtanh', lambda F, y: F.hardtanh(y, inplace=True)),
    ('hardtanh_', lambda F, y: F.hardtanh_(y)),
    ('threshold', lambda F, y: F.threshold(y, 0.2, 5.0, True)),
    ('silu', lambda F, y: F.silu(y, inplace=True)),
    ('mish', lambda F, y: F.mish(y, inplace=True)),
    ('hardswish', lambda F, y: F.hardswish(y, True)),
    ('hardsigmoid', lambda F, y: F.hardsigmoid(y, True)),
    ('rrelu_eval', lambda F, y: F.rrelu(y, inplace=True)),
]


@pytest.mark.parametrize('name,fn', INPLACE, ids=[a[0] for a in INPLACE])
def test_activation_inplace(name, fn):
    def f(T, F, x):
        y = x * 1
        r = fn(F, y)
        assert r is y and y._version == 1
        return y
    run_both(f, [X])


def test_inplace_on_leaf_raises():
    check(lambda T: (T.nn.functional.relu(T.ones(3, requires_grad=True), inplace=True)))
    check(lambda T: (T.nn.functional.elu(T.ones(3, requires_grad=True), inplace=True)))


def test_rrelu_training():
    x = torchlike.tensor(X, requires_grad=True)
    y = LF.rrelu(x, 0.1, 0.3, training=True)
    assert y.grad_fn.name() == 'RreluWithNoiseBackward0'
    xv, yv = X, y.detach().numpy()
    pos = xv > 0
    np.testing.assert_array_equal(yv[pos], xv[pos])
    neg = xv < 0
    slope = yv[neg] / xv[neg]
    assert (slope >= 0.1 - 1e-6).all() and (slope <= 0.3 + 1e-6).all() and len(set(np.round(slope, 5))) > 3
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[neg], slope, rtol=1e-5)
    np.testing.assert_array_equal(x.grad.numpy()[pos], 1.0)


def test_gumbel_softmax():
    x = torchlike.tensor(X, requires_grad=True)
    torchlike.manual_seed(0)
    y = LF.gumbel_softmax(x, tau=0.5)
    np.testing.assert_allclose(y.detach().numpy().sum(1), 1.0, rtol=1e-5)
    assert y.grad_fn.name() == 'SoftmaxBackward0'
    h = LF.gumbel_softmax(x, hard=True)
    hv = h.detach().numpy()
    assert ((hv == 0) | (hv == 1)).all() and (hv.sum(1) == 1).all()
    assert h.grad_fn.name() == 'AddBackward0'
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 0, atol=1e-5)       # d(sum of a one-hot straight-through)/dx = 0


def test_softmax_legacy_warns():
    with pytest.warns(UserWarning, match='Implicit dimension choice for softmax'):
        LF.softmax(torchlike.tensor(X))


ACT_ERRORS = [
    lambda T: T.nn.functional.elu(T.tensor([1, 2])),
    lambda T: T.nn.functional.gelu(T.tensor([1, 2])),
    lambda T: T.nn.functional.gelu(T.ones(2), approximate='fast'),
    lambda T: T.nn.functional.relu(T.tensor([True])),
    lambda T: T.nn.functional.hardtanh(T.tensor([True])),
    lambda T: T.nn.functional.hardtanh(T.ones(2), 2.0, 1.0),
    lambda T: T.nn.functional.glu(T.ones(2, 3)),
    lambda T: T.nn.functional.glu(T.tensor(1.0)),
    lambda T: T.nn.functional.softshrink(T.ones(2), -1.0),
    lambda T: T.nn.functional.prelu(T.ones(2, 3), T.ones(2)),
    lambda T: T.nn.functional.prelu(T.ones(2, 3), T.ones(1, 3)),
    lambda T: T.nn.functional.softmax(T.tensor([1, 2]), 0),
    lambda T: T.nn.functional.leaky_relu(T.tensor([1, 2])),
    lambda T: T.nn.functional.celu(T.ones(2), 0.0),
    lambda T: T.nn.functional.relu6(T.tensor([-3, 2, 9])),
    lambda T: T.nn.functional.threshold(T.tensor([-3, 2, 9]), 1.5, 7.0),
]


@pytest.mark.parametrize('i', range(len(ACT_ERRORS)))
def test_activation_errors_and_ints(i):
    check(ACT_ERRORS[i])


# ---- losses ------------------------------------------------------------------------------------------
T4 = np.array([1, 0, 3, 5])
LOSSES = [
    ('l1', lambda T, F, x, r: F.l1_loss(x, x.detach().flip(0), reduction=r)),
    ('l1_bcast', lambda T, F, x, r: F.l1_loss(x, x.detach()[0], reduction=r)),
    ('l1_weight', lambda T, F, x, r: F.l1_loss(x, x.detach() * 0, reduction=r, weight=x.detach().abs())),
    ('mse', lambda T, F, x, r: F.mse_loss(x, x.detach().flip(1), reduction=r)),
    ('mse_weight', lambda T, F, x, r: F.mse_loss(x, x.detach() * 0, reduction=r, weight=x.detach().abs())),
    ('ce', lambda T, F, x, r: F.cross_entropy(x, T.tensor(T4), reduction=r)),
    ('ce_weight_ignore', lambda T, F, x, r: F.cross_entropy(x, T.tensor(T4), T.arange(6.) + 1, ignore_index=0,
                                                            reduction=r)),
    ('ce_smooth', lambda T, F, x, r: F.cross_entropy(x, T.tensor(T4), reduction=r, label_smoothing=0.2)),
    ('ce_smooth_weight', lambda T, F, x, r: F.cross_entropy(x, T.tensor(T4), T.arange(6.) + 1, ignore_index=3,
                                                            reduction=r, label_smoothing=0.3)),
    ('ce_probs', lambda T, F, x, r: F.cross_entropy(x, x.detach().flip(0).softmax(1), reduction=r)),
    ('ce_probs_smooth_w', lambda T, F, x, r: F.cross_entropy(x, x.detach().softmax(1), T.arange(6.), reduction=r,
                                                             label_smoothing=0.1)),
    ('ce_kdim', lambda T, F, x, r: F.cross_entropy(x.reshape(2, 3, 4), T.tensor([[1, 0, 2, 2], [0, 0, 1, 2]]),
                                                   reduction=r)),
    ('ce_4d', lambda T, F, x, r: F.cross_entropy(x.reshape(1, 2, 3, 4), T.tensor([[[1, 0, 1, 1], [0, 0, 1, 1],
                                                                                 [1, 1, 1, 0]]]), reduction=r)),
    ('ce_1d', lambda T, F, x, r: F.cross_entropy(x[0], T.tensor(2), reduction=r)),
    ('nll', lambda T, F, x, r: F.nll_loss(x.log_softmax(1), T.tensor(T4), reduction=r)),
    ('nll_5d', lambda T, F, x, r: F.nll_loss(x.reshape(1, 2, 3, 2, 2), T.tensor([[[[1, 0], [1, 1]], [[0, 0],
                                                                                [1, -100]], [[1, 1], [0, 0]]]]),
                                               reduction=r)),
    ('bce', lambda T, F, x, r: F.binary_cross_entropy(x.sigmoid(), (x.detach() > 0).float() * 0.7, reduction=r)),
    ('bce_weight', lambda T, F, x, r: F.binary_cross_entropy(x.sigmoid(), x.detach().flip(0).sigmoid(),
                                                             x.detach()[0].abs(), reduction=r)),
    ('bce_logits', lambda T, F, x, r: F.binary_cross_entropy_with_logits(x * 5, x.detach().flip(1).sigmoid(),
                                                                         reduction=r)),
    ('bce_logits_pw', lambda T, F, x, r: F.binary_cross_entropy_with_logits(x, (x.detach() > 0).float(),
                                                                            T.arange(4.)[:, None],
                                                                            pos_weight=T.arange(6.), reduction=r)),
    ('kl', lambda T, F, x, r: F.kl_div(x.log_softmax(1), x.detach().flip(0).softmax(1), reduction=r)),
    ('kl_log_target', lambda T, F, x, r: F.kl_div(x, x.detach().flip(0), reduction=r, log_target=True)),
    ('smooth_l1', lambda T, F, x, r: F.smooth_l1_loss(x, x.detach().flip(0), reduction=r, beta=0.5)),
    ('smooth_l1_beta0', lambda T, F, x, r: F.smooth_l1_loss(x, x.detach().flip(0), reduction=r, beta=0.0)),
    ('huber', lambda T, F, x, r: F.huber_loss(x, x.detach().flip(0), reduction=r, delta=0.7)),
    ('soft_margin', lambda T, F, x, r: F.soft_margin_loss(x, x.detach().flip(1).sign(), reduction=r)),
    ('multilabel_soft_margin', lambda T, F, x, r: F.multilabel_soft_margin_loss(x, (x.detach() > 0).float(),
                                                                                T.arange(6.), reduction=r)),
    ('multi_margin', lambda T, F, x, r: F.multi_margin_loss(x, T.tensor(T4), reduction=r)),
    ('multi_margin_p2_w', lambda T, F, x, r: F.multi_margin_loss(x, T.tensor(T4), p=2, margin=0.5,
                                                                 weight=T.arange(6.), reduction=r)),
    ('multilabel_margin', lambda T, F, x, r: F.multilabel_margin_loss(
        x, T.tensor([[1, 2, -1, 0, 0, 0], [3, 0, -1, 1, 1, 1], [5, 4, 3, 2, 1, 0], [-1, 0, 0, 0, 0, 0]]),
        reduction=r)),
    ('margin_ranking', lambda T, F, x, r: F.margin_ranking_loss(x[0], x[1], x[2].detach().sign(), 0.2,
                                                                reduction=r)),
    ('hinge_embedding', lambda T, F, x, r: F.hinge_embedding_loss(x, x.detach().flip(0).sign(), 0.5, reduction=r)),
    ('cosine_embedding', lambda T, F, x, r: F.cosine_embedding_loss(x, x.flip(0), T.tensor([1, -1, 1, -1]), 0.1,
                                                                    reduction=r)),
    ('triplet', lambda T, F, x, r: F.triplet_margin_loss(x, x.flip(0), x * 0.5, reduction=r)),
    ('triplet_swap_p1', lambda T, F, x, r: F.triplet_margin_loss(x, x.flip(0), x * 0.5, p=1, swap=True,
                                                                 reduction=r)),
    ('triplet_distance', lambda T, F, x, r: F.triplet_margin_with_distance_loss(
        x, x.flip(0), x * 0.5, distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), swap=True,
        reduction=r)),
    ('poisson_nll', lambda T, F, x, r: F.poisson_nll_loss(x, x.detach().flip(0).abs() * 3, reduction=r)),
    ('poisson_nll_full', lambda T, F, x, r: F.poisson_nll_loss(x.abs(), x.flip(0).abs() * 3, log_input=False,
                                                               full=True, reduction=r)),
    ('gaussian_nll', lambda T, F, x, r: F.gaussian_nll_loss(x, x.detach().flip(0), x.abs() + 0.1, reduction=r)),
    ('gaussian_nll_full', lambda T, F, x, r: F.gaussian_nll_loss(x, x.flip(0), x[:, :1].abs(), full=True,
                                                                 eps=0.3, reduction=r)),
]


# 'sum' and 'none' share the body with 'mean' (only the final reduction and the grad_fn name differ), so they
# run on subsets that cover every reduction branch and node name (keeps the file fast)
_SUM = ('l1', 'mse', 'ce_smooth_weight', 'ce_probs', 'nll_5d', 'kl', 'multilabel_margin', 'poisson_nll_full')
_NONE = ('l1', 'l1_weight', 'mse', 'ce_weight_ignore', 'ce_smooth_weight', 'ce_probs', 'ce_kdim', 'ce_4d', 'ce_1d',
         'nll_5d', 'bce_weight', 'bce_logits_pw', 'kl', 'kl_log_target', 'smooth_l1', 'huber', 'soft_margin',
         'multilabel_soft_margin', 'multi_margin_p2_w', 'multilabel_margin', 'margin_ranking', 'hinge_embedding',
         'cosine_embedding', 'triplet', 'poisson_nll', 'poisson_nll_full', 'gaussian_nll_full')
LOSS_CASES = [(n, f, r) for n, f in LOSSES
              for r in ('mean',) + (('none',) if n in _NONE else ()) + (('sum',) if n in _SUM else ())]


@pytest.mark.parametrize('name,fn,reduction', LOSS_CASES, ids=[f'{c[0]}-{c[2]}' for c in LOSS_CASES])
def test_loss(name, fn, reduction):
    run_both(lambda T, F, x: fn(T, F, x, reduction), [X])


def test_kl_batchmean():
    run_both(lambda T, F, x: F.kl_div(x.log_softmax(1), x.detach().flip(0).softmax(1), reduction='batchmean'), [X])


def test_ctc_loss():
    tg = np.array([[1, 2, 2], [1, 1, 0], [3, 4, 1]])
    run_both(lambda T, F, lp: F.ctc_loss(lp.log_softmax(2), T.tensor(tg), T.tensor([7, 6, 5]), T.tensor([3, 2, 0]),
                                         reduction='mean'), [LP])
    # raw (not log_softmax-normalised) log_probs: torch's gradient formula, not the true derivative
    run_both(lambda T, F, lp: F.ctc_loss(lp, T.tensor(tg), (7, 6, 5), (3, 2, 1), blank=4, reduction='none'), [LP])


def test_ctc_loss_forms():
    # concatenated 1-D targets, and an impossible alignment (3 repeated labels in 2 steps: inf) zeroed by
    # zero_infinity
    run_both(lambda T, F, lp: F.ctc_loss(lp.log_softmax(2), T.tensor([1, 1, 1, 1, 1, 3]), (2, 6, 5), (3, 2, 1),
                                         reduction='sum', zero_infinity=True), [LP])


def test_legacy_reduction_args():
    for sa, rd in ((None, False), (False, None), (True, True), (False, True)):
        run_both(lambda T, F, x: F.mse_loss(x, x.detach() * 0, size_average=sa, reduce=rd), [X])
        run_both(lambda T, F, x: F.cross_entropy(x, T.tensor(T4), size_average=sa, reduce=rd), [X])
    with pytest.warns(UserWarning, match='size_average and reduce args will be deprecated'):
        LF.l1_loss(torchlike.ones(2), torchlike.zeros(2), reduce=False)


LOSS_ERRORS = [
    lambda T: T.nn.functional.nll_loss(T.ones(4, 5), T.zeros(4)),
    lambda T: T.nn.functional.nll_loss(T.ones(4, 5), T.zeros(4, dtype=T.int32)),
    lambda T: T.nn.functional.nll_loss(T.ones(4, 5), T.zeros(3, dtype=T.long)),
    lambda T: T.nn.functional.nll_loss(T.ones(4, 5), T.tensor([0, 1, 2, 7])),
    lambda T: T.nn.functional.nll_loss(T.ones(4, 5), T.tensor([0, 1, 2, -3])),
    lambda T: T.nn.functional.nll_loss(T.ones(4, 5), T.tensor([0, 1, 2, 3]), weight=T.ones(3)),
    lambda T: T.nn.functional.nll_loss(T.ones(2, 3, 4), T.zeros(2, 5, dtype=T.long)),
    lambda T: T.nn.functional.nll_loss(T.ones(4, 5), T.tensor([-100] * 4)),
    lambda T: T.nn.functional.cross_entropy(T.ones(4, 5), T.zeros(4, 5, dtype=T.long)),
    lambda T: T.nn.functional.cross_entropy(T.ones(4, 5), T.zeros(4, 5), ignore_index=1),
    lambda T: T.nn.functional.cross_entropy(T.ones(4, 5), T.zeros(4, 4)),
    lambda T: T.nn.functional.cross_entropy(T.ones(4, 5), T.tensor([0, 1, 2, 3]), label_smoothing=1.5),
    lambda T: T.nn.functional.cross_entropy(T.ones(4, 5, dtype=T.long), T.tensor([0, 1, 2, 3])),
    lambda T: T.nn.functional.binary_cross_entropy(T.ones(4) * 2, T.ones(4)),
    lambda T: T.nn.functional.binary_cross_entropy(T.ones(4) * 0.5, T.ones(3)),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.ones(4), T.ones(3)),
    lambda T: T.nn.functional.mse_loss(T.ones(4, 5), T.ones(4, 4)),
    lambda T: T.nn.functional.mse_loss(T.ones(3, dtype=T.long), T.ones(3, dtype=T.long)),
    lambda T: T.nn.functional.mse_loss(T.ones(3), T.ones(3), reduction='avg'),
    lambda T: T.nn.functional.l1_loss(T.ones(3), T.ones(3), weight=T.ones(2)),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(4, 5), T.tensor([0, 1, 2, 7])),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3, 4), T.tensor([0, 1])),
    lambda T: T.nn.functional.multi_margin_loss(T.ones(4, 5), T.tensor([0, 1, 2, 3]), p=3),
    lambda T: T.nn.functional.multilabel_margin_loss(T.ones(4, 5), T.tensor([0, 1, 2, 3])),
    lambda T: T.nn.functional.smooth_l1_loss(T.ones(3), T.ones(3), beta=-1.0),
    lambda T: T.nn.functional.huber_loss(T.ones(3), T.ones(3), delta=0.0),
    lambda T: T.nn.functional.cosine_embedding_loss(T.ones(4, 5), T.ones(4, 5), T.ones(3)),
    lambda T: T.nn.functional.triplet_margin_loss(T.ones(4, 5), T.ones(4, 5), T.ones(4), margin=1.0),
    lambda T: T.nn.functional.triplet_margin_loss(T.ones(4, 5), T.ones(4, 5), T.ones(4, 5), margin=0.0),
    lambda T: T.nn.functional.margin_ranking_loss(T.ones(4), T.ones(4), T.ones(4, 1)),
    lambda T: T.nn.functional.gaussian_nll_loss(T.ones(4, 5), T.ones(4, 5), -T.ones(4, 5)),
    lambda T: T.nn.functional.gaussian_nll_loss(T.ones(4, 5), T.ones(4, 5), T.ones(3, 2)),
    lambda T: T.nn.functional.poisson_nll_loss(T.ones(4), T.ones(4), reduction='max'),
    lambda T: T.nn.functional.ctc_loss(T.randn(5, 2, 4), T.tensor([[1, 2], [1, 1]]), (6, 5), (2, 2)),
]


@pytest.mark.parametrize('i', range(len(LOSS_ERRORS)))
def test_loss_errors(i):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(LOSS_ERRORS[i])


# ---- normalisation -----------------------------------------------------------------------------------
NORMS = [
    ('batch_norm_train', lambda T, F, x: F.batch_norm(x, T.zeros(4), T.ones(4), x[0, :, 0, 0] * 1,
                                                      x[1, :, 0, 0] * 1, training=True, momentum=0.3)),
    ('batch_norm_eval', lambda T, F, x: F.batch_norm(x, T.arange(4.), T.arange(4.) + 1, x[0, :, 0, 0] * 1,
                                                     None, training=False)),
    ('batch_norm_nostats', lambda T, F, x: F.batch_norm(x.reshape(2, 4, 9), None, None, training=True)),
    ('batch_norm_2d', lambda T, F, x: F.batch_norm(x.reshape(6, 12), None, None, x[0, 0, 0] .repeat(4) * 1,
                                                   training=True, eps=0.1)),
    ('instance_norm', lambda T, F, x: F.instance_norm(x, T.zeros(4), T.ones(4), x[0, :, 0, 0] * 1,
                                                      x[1, :, 0, 0] * 1)),
    ('instance_norm_eval', lambda T, F, x: F.instance_norm(x, T.arange(4.), T.arange(4.) + 1,
                                                           use_input_stats=False)),
    ('layer_norm', lambda T, F, x: F.layer_norm(x, (3, 3), x[0, 0] * 1, x[1, 1] * 1)),
    ('layer_norm_noaffine', lambda T, F, x: F.layer_norm(x, [4, 3, 3], eps=0.01)),
    ('group_norm', lambda T, F, x: F.group_norm(x, 2, x[0, :, 0, 0] * 1, x[1, :, 1, 1] * 1)),
    ('group_norm_noaffine', lambda T, F, x: F.group_norm(x.reshape(2, 4, 9), 4)),
    ('rms_norm', lambda T, F, x: F.rms_norm(x, (3,), x[0, 0, 0] * 1)),
    ('rms_norm_eps', lambda T, F, x: F.rms_norm(x, (3, 3), eps=0.1)),
    ('local_response_norm', lambda T, F, x: F.local_response_norm(x, 3)),
    ('local_response_norm_3d', lambda T, F, x: F.local_response_norm(x.reshape(2, 4, 9), 2, 1e-2, 0.5, 2.0)),
    ('normalize', lambda T, F, x: F.normalize(x)),
    ('normalize_p1_dim', lambda T, F, x: F.normalize(x, 1.0, -1)),
]


@pytest.mark.parametrize('name,fn', NORMS, ids=[a[0] for a in NORMS])
def test_norm(name, fn):
    run_both(fn, [X4])


def test_batch_norm_running_stats():
    out = []
    for T, F in ((torch, TF), (torchlike, LF)):
        rm, rv = T.zeros(4), T.ones(4)
        view = rm[1:3]
        x = T.tensor(X4)
        F.batch_norm(x, rm, rv, training=True, momentum=0.25)
        F.batch_norm(x * 2 + 1, rm, rv, training=True, momentum=0.5)
        out.append((rm, rv, view * 1))
        irm, irv = T.zeros(4), T.ones(4)
        F.instance_norm(x, irm, irv, momentum=0.4)
        out[-1] += (irm, irv)
    assert_same(out[1], out[0])


NORM_ERRORS = [
    lambda T: T.nn.functional.batch_norm(T.ones(1, 3), None, None, training=True),
    lambda T: T.nn.functional.batch_norm(T.ones(2, 3), T.zeros(2), T.ones(3), training=True),
    lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (4,)),
    lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (3,), T.ones(4)),
    lambda T: T.nn.functional.group_norm(T.ones(2, 3, 4), 2),
    lambda T: T.nn.functional.instance_norm(T.ones(2, 3, 1)),
    lambda T: T.nn.functional.local_response_norm(T.ones(2, 3), 2),
]


@pytest.mark.parametrize('i', range(len(NORM_ERRORS)))
def test_norm_errors(i):
    check(NORM_ERRORS[i])


# ---- linear, distances, embedding, one_hot, channel_shuffle ------------------------------------------
MISC = [
    ('linear', lambda T, F, x: F.linear(x, x[:3] * 1, x[0, :3] * 1)),
    ('linear_nobias', lambda T, F, x: F.linear(x, x[:3] * 1)),
    ('linear_3d', lambda T, F, x: F.linear(x.reshape(2, 2, 6), x[:3] * 1, x[0, :3] * 1)),
    ('linear_3d_nobias', lambda T, F, x: F.linear(x.reshape(2, 2, 6), x[:3] * 1)),
    ('linear_1d', lambda T, F, x: F.linear(x[0], x[:3] * 1, x[0, :3] * 1)),
    ('linear_1d_nobias', lambda T, F, x: F.linear(x[0], x[:3] * 1)),
    ('bilinear', lambda T, F, x: F.bilinear(x, x.flip(0), x.reshape(4, 1, 6).expand(4, 6, 6) * 1, x[0, :4] * 1)),
    ('bilinear_nobias', lambda T, F, x: F.bilinear(x[:, :2], x, x.reshape(2, 2, 6) * 1)),
    ('cosine_similarity', lambda T, F, x: F.cosine_similarity(x, x.flip(1))),
    ('cosine_similarity_bcast', lambda T, F, x: F.cosine_similarity(x, x[1:2] * 1, dim=-1, eps=0.5)),
    ('cosine_similarity_zero', lambda T, F, x: F.cosine_similarity(x * 0, x)),
    ('pairwise_distance', lambda T, F, x: F.pairwise_distance(x, x.flip(1))),
    ('pairwise_distance_p', lambda T, F, x: F.pairwise_distance(x, x.flip(1), p=3, keepdim=True)),
    ('pairwise_distance_inf', lambda T, F, x: F.pairwise_distance(x, x.flip(1), p=float('inf'))),
    ('pdist', lambda T, F, x: F.pdist(x)),
    ('pdist_p1', lambda T, F, x: F.pdist(x, p=1)),
    ('pdist_dup_rows', lambda T, F, x: F.pdist(T.cat([x, x[:1]]))),
    ('channel_shuffle', lambda T, F, x: F.channel_shuffle(x.reshape(1, 6, 4), 3)),
    ('embedding', lambda T, F, w: F.embedding(T.tensor([[0, 2, 2], [3, 0, 1]]), w)),
    ('embedding_pad_freq', lambda T, F, w: F.embedding(T.tensor([[0, 2, 2], [3, 0, 1]]), w, padding_idx=2,
                                                       scale_grad_by_freq=True)),
    ('embedding_neg_pad', lambda T, F, w: F.embedding(T.tensor([3, 0, 3]), w, padding_idx=-1)),
    ('embedding_int32', lambda T, F, w: F.embedding(T.tensor([3, 0, 3], dtype=T.int32), w)),
    ('embedding_bag_mean', lambda T, F, w: F.embedding_bag(T.tensor([0, 2, 2, 3, 0, 1]), w, T.tensor([0, 2, 2]))),
    ('embedding_bag_sum_pad', lambda T, F, w: F.embedding_bag(T.tensor([0, 2, 2, 3, 0, 1]), w, T.tensor([0, 2, 5]),
                                                              mode='sum', padding_idx=0)),
    ('embedding_bag_mean_pad', lambda T, F, w: F.embedding_bag(T.tensor([[0, 2], [0, 0], [3, 1]]), w,
                                                               padding_idx=0)),
    ('embedding_bag_max', lambda T, F, w: F.embedding_bag(T.tensor([[0, 2], [3, 1]]), w, mode='max')),
    ('embedding_bag_psw', lambda T, F, w: F.embedding_bag(T.tensor([0, 2, 2, 3, 0, 1]), w, T.tensor([0, 2, 5, 6]),
                                                          mode='sum', per_sample_weights=T.arange(6.),
                                                          include_last_offset=True)),
]


@pytest.mark.parametrize('name,fn', MISC, ids=[a[0] for a in MISC])
def test_misc(name, fn):
    run_both(fn, [X])


def test_embedding_max_norm_renorms_in_place():
    res = []
    for T, F in ((torch, TF), (torchlike, LF)):
        w = T.tensor(X * 3, requires_grad=True)
        out = F.embedding(T.tensor([[0, 2], [2, 1]]), w, max_norm=1.5, norm_type=1.0)
        out.sum().backward()
        res.append((w.detach() * 1, out, w.grad, T.tensor(w._version)))
        bw = T.tensor(X * 3)
        F.embedding_bag(T.tensor([1, 3]), bw, T.tensor([0]), max_norm=2.0)
        res[-1] += (bw,)
    assert_same(res[1], res[0])


def test_one_hot():
    check(lambda T: T.nn.functional.one_hot(T.tensor([0, 3, 1])))
    check(lambda T: T.nn.functional.one_hot(T.tensor([[0, 3], [1, 1]]), 6))
    check(lambda T: T.nn.functional.one_hot(T.zeros(0, dtype=T.long), 3))
    for bad in (lambda T: T.nn.functional.one_hot(T.tensor([0.0, 1.0])),
                lambda T: T.nn.functional.one_hot(T.tensor([0, -1])),
                lambda T: T.nn.functional.one_hot(T.tensor([0, 3]), 3),
                lambda T: T.nn.functional.one_hot(T.zeros(0, dtype=T.long))):
        check(bad)


MISC_ERRORS = [
    lambda T: T.nn.functional.linear(T.ones(2, 3), T.ones(4, 5)),
    lambda T: T.nn.functional.linear(T.ones(2, 3), T.ones(4, 3, dtype=T.float64)),
    lambda T: T.nn.functional.embedding(T.tensor([0, 5]), T.ones(5, 2)),
    lambda T: T.nn.functional.embedding(T.tensor([0.0, 1.0]), T.ones(5, 2)),
    lambda T: T.nn.functional.embedding(T.tensor([0, 1]), T.ones(5, 2), padding_idx=5),
    lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(5, 2)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[0, 1]]), T.ones(5, 2), T.tensor([0])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(5, 2), T.tensor([0]), mode='max',
                                            scale_grad_by_freq=True),
    lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(5, 2), T.tensor([0]),
                                            per_sample_weights=T.ones(2)),
    lambda T: T.nn.functional.pdist(T.ones(2, 3, 4)),
    lambda T: T.nn.functional.channel_shuffle(T.ones(2, 5, 3), 2),
    lambda T: T.nn.functional.channel_shuffle(T.ones(2, 6), 2),
    lambda T: T.nn.functional.cosine_similarity(T.ones(2, 3), T.ones(4, 3)),
    lambda T: T.nn.functional.bilinear(T.ones(2, 3), T.ones(2, 4), T.ones(5, 3, 3)),
    lambda T: T.nn.functional.dropout(T.ones(3), 1.5),
    lambda T: T.nn.functional.dropout1d(T.ones(3), 0.5),
]


@pytest.mark.parametrize('i', range(len(MISC_ERRORS)))
def test_misc_errors(i):
    check(MISC_ERRORS[i])


def test_embedding_sparse_not_implemented():
    with pytest.raises(NotImplementedError, match='sparse'):
        LF.embedding(torchlike.tensor([0]), torchlike.ones(2, 2), sparse=True)


# ---- dropout -----------------------------------------------------------------------------------------

def test_dropout_eval_and_p0_return_input():
    for T, F in ((torch, TF), (torchlike, LF)):
        x = T.tensor(X3)
        for f in (lambda: F.dropout(x, 0.5, False), lambda: F.dropout(x, 0.0), lambda: F.alpha_dropout(x, 0.5),
                  lambda: F.feature_alpha_dropout(x, 0.5, False), lambda: F.dropout1d(x, 0.3, False),
                  lambda: F.dropout(x[:0], 0.5)):
            r = f()
            assert r is x or (r.numel() == 0 and r.shape == x[:0].shape)


def test_embedding_bag_scale_grad_by_freq():
    # torch's dense embedding_bag backward divides each row's gradient by the count of the *previous* unique
    # index (an off-by-one in EmbeddingBag.cpp); torchlike divides by the row's own count, as F.embedding
    # does, so this compares with F.embedding's gradient instead of torch's embedding_bag.
    idx = [2, 2, 3, 0, 0, 1]
    w1 = torch.ones(6, 2, requires_grad=True)
    TF.embedding(torch.tensor(idx), w1, scale_grad_by_freq=True).sum().backward()
    w2 = torchlike.ones(6, 2, requires_grad=True)
    LF.embedding_bag(torchlike.tensor(idx), w2, torchlike.tensor([0, 2]), mode='sum',
                     scale_grad_by_freq=True).sum().backward()
    assert_same(w2.grad, w1.grad)


def test_dropout_p1_zeroes():
    run_both(lambda T, F, x: F.dropout(x, 1.0), [X])
    run_both(lambda T, F, x: F.alpha_dropout(x, 1.0, True), [X])


def test_dropout_statistics_and_grad():
    torchlike.manual_seed(0)
    x = torchlike.ones(200, 100, requires_grad=True)
    y = LF.dropout(x, 0.3)
    assert y.grad_fn.name() == 'MulBackward0'
    v = y.detach().numpy()
    kept = v != 0
    np.testing.assert_allclose(v[kept], 1 / 0.7, rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.01
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), v)           # d(x * mask / (1-p))/dx = mask / (1-p)
    y2 = LF.dropout(x, 0.3)
    assert not np.array_equal(y2.detach().numpy(), v)      # the generator advances
    torchlike.manual_seed(0)
    assert np.array_equal(LF.dropout(x, 0.3).detach().numpy(), v)


def test_feature_dropout_masks_whole_channels():
    torchlike.manual_seed(1)
    x = torchlike.ones(8, 16, 5, 5)
    for y in (LF.dropout2d(x, 0.5), LF.dropout3d(x[None], 0.5)[0], LF.dropout1d(x[:, :, 0], 0.5)[..., None, None],
              LF.feature_alpha_dropout(x, 0.5, True)):
        v = y.numpy().reshape(8, 16, -1)
        assert (v == v[:, :, :1]).all()                    # one value per (sample, channel)
        assert len(np.unique(v)) == 2


def test_alpha_dropout_keeps_mean_and_std():
    torchlike.manual_seed(2)
    x = torchlike.randn(400, 400)
    y = LF.alpha_dropout(x, 0.2, True)
    assert y.grad_fn is None
    assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1) < 0.02
    xr = torchlike.randn(20, 20, requires_grad=True)
    assert LF.alpha_dropout(xr, 0.2, True).grad_fn.name() == 'AddBackward0'


def test_dropout_inplace():
    torchlike.manual_seed(3)
    x = torchlike.ones(50, 50)
    r = LF.dropout(x, 0.5, True, True)
    assert r is x and x._version == 1
    assert set(np.unique(x.numpy())) == {0.0, 2.0}


def test_ctc_loss_unbatched():
    check(lambda T: T.nn.functional.ctc_loss(T.tensor(LP[:, 0]).log_softmax(1), T.tensor([1, 2]), T.tensor(6),
                                             T.tensor(2)))
