"""Activation, loss, normalisation, dropout, embedding, distance and channel-shuffle layers against real
torch: repr, parameter/buffer names and shapes, default initialisation, forward values and gradients of
inputs and parameters with torch's weights copied in, running statistics, state_dict loading."""
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import torchlike
import torchlike.nn as tnn
from conftest import assert_same, check

rng = np.random.RandomState(0)

SPECS = [
    ('ReLU', (), {}), ('ReLU', (True,), {}), ('ReLU6', (), {'inplace': True}), ('LeakyReLU', (0.2, True), {}),
    ('PReLU', (3,), {}), ('PReLU', (), {'init': 0.1}), ('RReLU', (0.1, 0.2), {}), ('ELU', (0.5,), {}), ('SELU', (), {}),
    ('CELU', (), {'inplace': True}), ('GELU', ('tanh',), {}), ('GELU', (), {}), ('SiLU', (), {}), ('Mish', (), {}),
    ('Sigmoid', (), {}), ('Tanh', (), {}), ('Hardtanh', (-2., 2.), {}), ('Hardsigmoid', (), {}),
    ('Hardswish', (True,), {}), ('Softplus', (2., 10.), {}), ('Softsign', (), {}), ('Softshrink', (0.3,), {}),
    ('Hardshrink', (), {}), ('Tanhshrink', (), {}), ('Threshold', (0.1, 20.), {}), ('LogSigmoid', (), {}),
    ('GLU', (), {}), ('Softmax', (1,), {}), ('LogSoftmax', (), {'dim': 1}), ('Softmin', (), {}), ('Softmax2d', (), {}),
    ('L1Loss', (), {}), ('MSELoss', (), {'reduction': 'sum'}), ('CrossEntropyLoss', (), {'label_smoothing': 0.1}),
    ('NLLLoss', (), {'ignore_index': 2}), ('BCELoss', (), {}), ('BCEWithLogitsLoss', (), {}), ('KLDivLoss', (), {}),
    ('SmoothL1Loss', (), {}), ('HuberLoss', (), {}), ('CTCLoss', (), {}), ('TripletMarginLoss', (), {}),
    ('TripletMarginWithDistanceLoss', (), {}), ('MultiMarginLoss', (), {}), ('MarginRankingLoss', (0.3,), {}),
    ('PoissonNLLLoss', (), {}), ('GaussianNLLLoss', (), {}), ('SoftMarginLoss', (), {}),
    ('MultiLabelSoftMarginLoss', (), {}), ('MultiLabelMarginLoss', (), {}), ('HingeEmbeddingLoss', (), {}),
    ('CosineEmbeddingLoss', (), {}),
    ('BatchNorm1d', (3,), {}), ('BatchNorm2d', (3,), {'momentum': None}),
    ('BatchNorm3d', (3,), {'affine': False, 'track_running_stats': False}), ('BatchNorm2d', (3,), {'bias': False}),
    ('InstanceNorm1d', (3,), {}), ('InstanceNorm2d', (3,), {'affine': True, 'track_running_stats': True}),
    ('InstanceNorm3d', (3,), {}), ('LayerNorm', ((4, 5),), {}), ('LayerNorm', (5,), {'bias': False}),
    ('LayerNorm', (5,), {'elementwise_affine': False}), ('GroupNorm', (2, 4), {}), ('GroupNorm', (2, 4), {'affine': False}),
    ('RMSNorm', (5,), {}), ('RMSNorm', ([2, 5],), {'eps': 1e-3, 'elementwise_affine': False}),
    ('LocalResponseNorm', (2,), {}), ('SyncBatchNorm', (4,), {}),
    ('Dropout', (), {}), ('Dropout1d', (0.2,), {}), ('Dropout2d', (0.2,), {}), ('Dropout3d', (), {'inplace': True}),
    ('AlphaDropout', (), {}), ('FeatureAlphaDropout', (0.1, True), {}),
    ('Embedding', (10, 3), {}), ('Embedding', (10, 3), {'padding_idx': 1, 'max_norm': 1.0, 'norm_type': 1.0,
                                                       'scale_grad_by_freq': True}),
    ('EmbeddingBag', (10, 3), {}), ('EmbeddingBag', (10, 3), {'mode': 'sum', 'padding_idx': 2, 'max_norm': 2.0}),
    ('CosineSimilarity', (), {}), ('PairwiseDistance', (3.0,), {}), ('ChannelShuffle', (2,), {}),
]


def _ids(specs):
    return [f'{s[0]}-{i}' for i, s in enumerate(specs)]


@pytest.mark.parametrize('name,args,kwargs', SPECS, ids=_ids(SPECS))
def test_repr_and_state(name, args, kwargs):
    m1 = getattr(torch.nn, name)(*args, **kwargs)
    m2 = getattr(tnn, name)(*args, **kwargs)
    assert repr(m2) == repr(m1)
    s1, s2 = m1.state_dict(), m2.state_dict()
    assert list(s2) == list(s1)
    for k in s1:
        assert tuple(s2[k].shape) == tuple(s1[k].shape) and str(s2[k].dtype) == str(s1[k].dtype), k
    assert [n for n, _ in m2.named_parameters()] == [n for n, _ in m1.named_parameters()]
    assert [p.requires_grad for p in m2.parameters()] == [p.requires_grad for p in m1.parameters()]


def test_repr_nested():
    def build(nn):
        return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(inplace=True), nn.Dropout(0.1),
                             nn.LayerNorm(8), nn.GELU(approximate='tanh'), nn.Embedding(5, 2, padding_idx=0),
                             nn.Softmax(dim=-1), nn.CrossEntropyLoss(ignore_index=3))
    assert repr(build(tnn)) == repr(build(torch.nn))


def test_default_init():
    torchlike.manual_seed(0)
    assert (tnn.PReLU(4).weight.detach().numpy() == 0.25).all()
    e = tnn.Embedding(400, 100, padding_idx=3).weight.detach().numpy()
    assert (e[3] == 0).all()
    assert abs(e.mean()) < 0.01 and abs(e.std() - 1) < 0.01
    bag = tnn.EmbeddingBag(400, 100).weight.detach().numpy()
    assert abs(bag.mean()) < 0.01 and abs(bag.std() - 1) < 0.01
    for m in (tnn.BatchNorm2d(5), tnn.LayerNorm(5), tnn.GroupNorm(1, 5), tnn.InstanceNorm1d(5, affine=True)):
        assert (m.weight.detach().numpy() == 1).all() and (m.bias.detach().numpy() == 0).all()
    bn = tnn.BatchNorm1d(5)
    assert (bn.running_mean.numpy() == 0).all() and (bn.running_var.numpy() == 1).all()
    assert bn.num_batches_tracked.item() == 0 and str(bn.num_batches_tracked.dtype) == 'torch.int64'
    assert (tnn.RMSNorm(5).weight.detach().numpy() == 1).all()


def _copy(m1, m2):
    sd = OrderedDict((k, torchlike.tensor(v.detach().numpy())) for k, v in m1.state_dict().items())
    m2.load_state_dict(sd)


def _compare(m1, m2, inputs, train=True, steps=1):
    """Forward (+ backward of the sum) under both, with m2 holding m1's weights; compare everything."""
    _copy(m1, m2)
    m1.train(train)
    m2.train(train)
    res = []
    for T, m in ((torch, m1), (torchlike, m2)):
        ts = [T.tensor(a, requires_grad=a.dtype.kind == 'f') if isinstance(a, np.ndarray) else a for a in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            for _ in range(steps):
                out = m(*ts)
        if out.requires_grad:
            (out.sum() if out.ndim else out).backward()
        res.append((out, [t.grad for t in ts if isinstance(t, T.Tensor) and t.requires_grad],
                    [p.grad for p in m.parameters()], [b * 1 for b in m.buffers()]))
    assert_same(res[1], res[0], atol=1e-4, rtol=1e-4)


X = rng.randn(4, 6).astype(np.float32)
X3 = rng.randn(2, 4, 5).astype(np.float32)
X4 = rng.randn(2, 4, 3, 3).astype(np.float32)
X5 = rng.randn(2, 4, 2, 2, 3).astype(np.float32)

FWD = [
    ('PReLU', (6,), {}, [X]), ('PReLU', (), {}, [X3]), ('Softmax2d', (), {}, [X4]), ('GLU', (1,), {}, [X]),
    ('Threshold', (0.2, -1.0), {}, [X]), ('Hardtanh', (-0.5, 0.5), {}, [X]), ('Softplus', (2.0, 3.0), {}, [X]),
    ('BatchNorm1d', (4,), {}, [X3]), ('BatchNorm1d', (6,), {}, [X]), ('BatchNorm2d', (4,), {'momentum': None}, [X4]),
    ('BatchNorm3d', (4,), {'affine': False}, [X5]), ('BatchNorm2d', (4,), {'track_running_stats': False}, [X4]),
    ('InstanceNorm1d', (4,), {'affine': True, 'track_running_stats': True}, [X3]),
    ('InstanceNorm1d', (4,), {}, [X3[0]]), ('InstanceNorm2d', (4,), {'affine': True}, [X4]),
    ('InstanceNorm3d', (4,), {'track_running_stats': True}, [X5]),
    ('LayerNorm', ((3, 3),), {}, [X4]), ('GroupNorm', (2, 4), {}, [X4]), ('RMSNorm', (3,), {}, [X4]),
    ('LocalResponseNorm', (3,), {}, [X4]), ('LocalResponseNorm', (2, 1e-2, 0.5, 2.0), {}, [X3]),
    ('Embedding', (10, 3), {'padding_idx': 2}, [np.array([[0, 2, 5], [2, 9, 0]])]),
    ('EmbeddingBag', (10, 3), {'mode': 'max'}, [np.array([[0, 2, 5], [2, 9, 0]])]),
    ('EmbeddingBag', (10, 3), {'mode': 'sum'}, [np.array([0, 2, 5, 2, 9, 0]), np.array([0, 4])]),
    ('CosineSimilarity', (), {}, [X, X[::-1].copy()]), ('PairwiseDistance', (1.0,), {}, [X, X[::-1].copy()]),
    ('ChannelShuffle', (2,), {}, [X4]), ('SyncBatchNorm', (4,), {}, [X4]),
]


@pytest.mark.parametrize('name,args,kwargs,inputs', FWD, ids=_ids(FWD))
def test_forward_backward(name, args, kwargs, inputs):
    for train in (True, False):
        torch.manual_seed(0)
        _compare(getattr(torch.nn, name)(*args, **kwargs), getattr(tnn, name)(*args, **kwargs), inputs, train)


def test_batchnorm_running_stats_over_steps():
    for kw in ({'momentum': None}, {'momentum': 0.3}):
        _compare(torch.nn.BatchNorm2d(4, **kw), tnn.BatchNorm2d(4, **kw), [X4], True, steps=3)
    m = tnn.BatchNorm1d(6, momentum=None)
    for _ in range(4):
        m(torchlike.tensor(X))
    assert m.num_batches_tracked.item() == 4
    m.reset_running_stats()
    assert m.num_batches_tracked.item() == 0 and (m.running_var.numpy() == 1).all()


LOSS_FWD = [
    ('CrossEntropyLoss', (), {'weight': 'w6', 'label_smoothing': 0.1}, [X, np.array([1, 0, 3, 5])]),
    ('NLLLoss', (), {'ignore_index': 0}, [X, np.array([1, 0, 3, 5])]),
    ('BCEWithLogitsLoss', (), {'pos_weight': 'w6'}, [X, (X > 0).astype(np.float32)]),
    ('BCELoss', (), {'weight': 'w6'}, [np.abs(np.tanh(X)), (X > 0).astype(np.float32)]),
    ('MultiMarginLoss', (), {'p': 2, 'weight': 'w6'}, [X, np.array([1, 0, 3, 5])]),
    ('KLDivLoss', (), {'reduction': 'batchmean', 'log_target': True}, [X, X[::-1].copy()]),
    ('MSELoss', (), {'size_average': False}, [X, X[::-1].copy()]),
    ('HuberLoss', (), {'delta': 0.5}, [X, X[::-1].copy()]),
    ('SmoothL1Loss', (), {'beta': 0.5, 'reduction': 'none'}, [X, X[::-1].copy()]),
    ('TripletMarginWithDistanceLoss', (), {'swap': True}, [X, X[::-1].copy(), X * 0.5]),
    ('TripletMarginLoss', (), {'p': 1.0}, [X, X[::-1].copy(), X * 0.5]),
    ('CosineEmbeddingLoss', (0.2,), {}, [X, X[::-1].copy(), np.array([1, -1, 1, -1])]),
    ('GaussianNLLLoss', (), {'full': True}, [X, X[::-1].copy(), np.abs(X) + 0.1]),
    ('PoissonNLLLoss', (), {}, [X, np.abs(X)]),
]


@pytest.mark.parametrize('name,args,kwargs,inputs', LOSS_FWD, ids=_ids(LOSS_FWD))
def test_loss_layers(name, args, kwargs, inputs):
    w = np.arange(1, 7).astype(np.float32)
    k1 = {k: (torch.tensor(w) if v == 'w6' else v) for k, v in kwargs.items()}
    k2 = {k: (torchlike.tensor(w) if v == 'w6' else v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m1, m2 = getattr(torch.nn, name)(*args, **k1), getattr(tnn, name)(*args, **k2)
    assert list(m2.state_dict()) == list(m1.state_dict())
    _compare(m1, m2, inputs)


def test_ctc_layer():
    lp = rng.randn(6, 2, 5).astype(np.float32)
    _compare(torch.nn.CTCLoss(blank=4, zero_infinity=True), tnn.CTCLoss(blank=4, zero_infinity=True),
             [lp, np.array([[1, 2], [3, 3]]), (6, 5), (2, 2)])


def test_batchnorm_load_old_checkpoint():
    # version-1 checkpoints have no num_batches_tracked: _load_from_state_dict fills it in, so no missing key
    res = []
    for T, nn in ((torch, torch.nn), (torchlike, tnn)):
        m = nn.BatchNorm1d(3)
        m.num_batches_tracked.add_(5)
        sd = OrderedDict((k, v * 1) for k, v in m.state_dict().items() if k != 'num_batches_tracked')
        for k in ('running_mean', 'running_var'):
            sd[k] = sd[k] + 2
        sd._metadata = OrderedDict({'': {'version': 1}})
        m2 = nn.BatchNorm1d(3)
        r = m2.load_state_dict(sd)
        sd2 = OrderedDict(sd)
        sd2._metadata = OrderedDict({'': {'version': 2}})
        with pytest.raises(RuntimeError, match='num_batches_tracked'):
            nn.BatchNorm1d(3).load_state_dict(sd2)
        res.append((list(r.missing_keys), list(r.unexpected_keys), m2.running_mean, m2.num_batches_tracked))
    assert res[1][:2] == res[0][:2]
    assert_same(list(res[1][2:]), list(res[0][2:]))


def test_instancenorm_unexpected_running_stats():
    for nn in (torch.nn, tnn):
        sd = nn.InstanceNorm1d(3, track_running_stats=True).state_dict()
        sd._metadata = OrderedDict()
        with pytest.raises(RuntimeError, match='Unexpected running stats buffer'):
            nn.InstanceNorm1d(3).load_state_dict(sd)


def test_embedding_from_pretrained():
    w = rng.randn(5, 3).astype(np.float32)
    for freeze in (True, False):
        e1 = torch.nn.Embedding.from_pretrained(torch.tensor(w), freeze=freeze, padding_idx=1)
        e2 = tnn.Embedding.from_pretrained(torchlike.tensor(w), freeze=freeze, padding_idx=1)
        assert repr(e2) == repr(e1) and e2.weight.requires_grad == e1.weight.requires_grad
        assert_same(e2(torchlike.tensor([[1, 4]])), e1(torch.tensor([[1, 4]])))
        b1 = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), freeze=freeze, mode='sum')
        b2 = tnn.EmbeddingBag.from_pretrained(torchlike.tensor(w), freeze=freeze, mode='sum')
        assert repr(b2) == repr(b1) and b2.weight.requires_grad == b1.weight.requires_grad
        assert_same(b2(torchlike.tensor([[1, 4]])), b1(torch.tensor([[1, 4]])))


def test_embedding_max_norm_layer():
    torch.manual_seed(0)
    _compare(torch.nn.Embedding(6, 3, max_norm=0.5), tnn.Embedding(6, 3, max_norm=0.5), [np.array([0, 2, 2, 5])])


def test_embedding_sparse_raises():
    e = tnn.Embedding(4, 2, sparse=True)
    assert repr(e) == 'Embedding(4, 2, sparse=True)'
    with pytest.raises(NotImplementedError, match='sparse'):
        e(torchlike.tensor([0]))


def test_dropout_layers_train_eval():
    torchlike.manual_seed(0)
    x = torchlike.ones(4, 8, 6, 6)
    for m in (tnn.Dropout(0.5), tnn.Dropout2d(0.5), tnn.Dropout3d(0.5), tnn.AlphaDropout(0.5),
              tnn.FeatureAlphaDropout(0.5), tnn.Dropout1d(0.5)):
        inp = x[:, :, 0] if isinstance(m, tnn.Dropout1d) else x
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            y = m(inp)
            assert not np.array_equal(y.numpy(), inp.numpy())
            m.eval()
            ye = m(inp)
            assert ye is inp or (isinstance(m, tnn.Dropout3d) and np.array_equal(ye.numpy(), inp.numpy()))
    r = tnn.ReLU(inplace=True)
    y = torchlike.tensor(X)
    assert r(y) is y and (y.numpy() >= 0).all()


def test_rrelu_layer_train_vs_eval():
    m = tnn.RReLU(0.1, 0.3)
    x = torchlike.tensor(-np.ones((50, 50), np.float32))
    y = m(x).numpy()
    assert len(np.unique(y)) > 100 and (y <= -0.1 + 1e-6).all() and (y >= -0.3 - 1e-6).all()
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), -0.2, rtol=1e-6)


LAYER_ERRORS = [
    lambda T: T.nn.Hardtanh(1.0, 0.5),
    lambda T: T.nn.Softmax2d()(T.ones(2, 3)),
    lambda T: T.nn.MultiMarginLoss(p=3),
    lambda T: T.nn.TripletMarginLoss(margin=0.0),
    lambda T: T.nn.HuberLoss(delta='1'),
    lambda T: T.nn.Dropout(1.5),
    lambda T: T.nn.GroupNorm(3, 4),
    lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 3)),
    lambda T: T.nn.BatchNorm1d(3)(T.ones(1, 3)),
    lambda T: T.nn.InstanceNorm1d(3, affine=True)(T.ones(2, 4, 5)),
    lambda T: T.nn.Embedding(3, 2, padding_idx=3),
    lambda T: T.nn.Embedding.from_pretrained(T.ones(3)),
    lambda T: T.nn.LayerNorm(4)(T.ones(2, 3)),
]


@pytest.mark.parametrize('i', range(len(LAYER_ERRORS)))
def test_layer_errors(i):
    check(LAYER_ERRORS[i])
