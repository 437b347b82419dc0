"""torch.nn end to end against real torch: the reference ``Net`` CNN (shared/REFERENCE_MODELS.md) with weights
copied from torch (forward, CrossEntropyLoss, every parameter gradient, a few hand-written SGD steps, the
tutorial's accuracy idiom), ``repr`` of a model that uses every container and 20+ layer types, and the default
initialisation of the layers that test_nn_init.py (conv layers) and test_nn_rnn.py (RNN bounds) do not cover.

Every model is built by one function of the library namespace, so torch and torchlike run the same code.
"""
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import torchlike
import torchlike.nn  # noqa: F401  (until torchlike imports nn itself)
from conftest import assert_same

ATOL = RTOL = 1e-4


def copy_state(src, dst):
    """torch module -> torchlike module: state_dict (parameters and buffers) through numpy, strict."""
    dst.load_state_dict(OrderedDict((k, torchlike.tensor(v.detach().numpy())) for k, v in src.state_dict().items()))


# ---- the reference Net -----------------------------------------------------------------------------------------

def make_net(T):
    """The CIFAR-10 tutorial CNN, written once against the library ``T`` (torch or torchlike)."""
    nn, F = T.nn, T.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 5 * 5)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x
    return Net()


_rng = np.random.default_rng(0)
X = _rng.standard_normal((8, 3, 32, 32)).astype(np.float32)
Y = _rng.integers(0, 10, (8,))


@pytest.fixture(scope='module')
def nets():
    torch.manual_seed(0)
    tm = make_net(torch)
    lm = make_net(torchlike)
    copy_state(tm, lm)
    return tm, lm


def _step(T, net, x, y):
    criterion = T.nn.CrossEntropyLoss()
    net.zero_grad()
    outputs = net(T.tensor(x))
    loss = criterion(outputs, T.tensor(y))
    loss.backward()
    return outputs, loss


def test_net_structure(nets):
    tm, lm = nets
    assert repr(lm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in lm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]


def test_net_forward_loss_and_gradients(nets):
    tm, lm = nets
    to, tloss = _step(torch, tm, X, Y)
    lo, lloss = _step(torchlike, lm, X, Y)
    assert_same(lo, to, ATOL, RTOL)
    assert_same(lloss, tloss, ATOL, RTOL)
    tg = dict((n, p.grad) for n, p in tm.named_parameters())
    lg = dict((n, p.grad) for n, p in lm.named_parameters())
    assert list(lg) == list(tg)
    for n in tg:
        assert lg[n] is not None, n
        assert_same(lg[n], tg[n], ATOL, RTOL)
    # the tutorial's accuracy idiom
    acc = []
    for T, out in ((torch, to), (torchlike, lo)):
        with T.no_grad():
            _, predicted = T.max(out.data, 1)
            acc.append((predicted == T.tensor(Y)).sum().item())
    assert acc[1] == acc[0]


def test_net_manual_sgd_steps():
    torch.manual_seed(1)
    tm = make_net(torch)
    lm = make_net(torchlike)
    copy_state(tm, lm)
    lr = 0.05
    for i in range(3):
        x, y = X[2 * i:2 * i + 4], Y[2 * i:2 * i + 4]
        losses = []
        for T, net in ((torch, tm), (torchlike, lm)):
            _, loss = _step(T, net, x, y)
            with T.no_grad():
                for p in net.parameters():
                    p -= lr * p.grad
            losses.append(loss)
        assert_same(losses[1], losses[0], ATOL, RTOL)
    for (n, a), (m, b) in zip(lm.named_parameters(), tm.named_parameters()):
        assert n == m and a.requires_grad and a.is_leaf
        assert_same(a, b, ATOL, RTOL)


# ---- repr of a model using every container and many layer types ------------------------------------------------

def make_zoo(T):
    # sizes are shared between layers where the repr does not suffer: every new parameter shape costs torchlike
    # an XLA compilation of its random initialiser
    nn = T.nn
    m = nn.Module()
    m.features = nn.Sequential(OrderedDict([
        ('conv', nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)),
        ('bn', nn.BatchNorm2d(8, momentum=0.2)),
        ('act', nn.ReLU(inplace=True)),
        ('pool', nn.MaxPool2d(2, stride=1, ceil_mode=True)),
        ('avg', nn.AvgPool2d(3, padding=1, count_include_pad=False)),
        ('adapt', nn.AdaptiveAvgPool2d((4, None))),
        ('pad', nn.ReflectionPad2d((1, 2, 0, 1))),
        ('zpad', nn.ZeroPad2d(1)),
        ('up', nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False)),
        ('drop', nn.Dropout2d(0.1)),
        ('gn', nn.GroupNorm(2, 8)),
        ('inorm', nn.InstanceNorm2d(8, affine=True)),
        ('convt', nn.ConvTranspose2d(8, 4, 3, stride=2, output_padding=1, groups=2)),
        ('flat', nn.Flatten()),
    ]))
    m.blocks = nn.ModuleList([nn.Linear(16, 32), nn.GELU(approximate='tanh'), nn.LayerNorm(32, eps=1e-6),
                              nn.Dropout(p=0.25), nn.LeakyReLU(0.1), nn.Identity()])
    m.heads = nn.ModuleDict({'cls': nn.Linear(32, 16, bias=False), 'act': nn.Softmax(dim=-1),
                             'lsm': nn.LogSoftmax(dim=1), 'unflat': nn.Unflatten(1, (2, 16))})
    m.params = nn.ParameterList([nn.Parameter(T.zeros(3, 4)), nn.Parameter(T.ones(2), requires_grad=False)])
    m.pdict = nn.ParameterDict({'scale': nn.Parameter(T.ones(5)), 'shift': nn.Parameter(T.zeros(1, 2))})
    m.embed = nn.Embedding(100, 16, padding_idx=0, max_norm=2.0)
    m.bag = nn.EmbeddingBag(50, 8, mode='max')
    m.misc = nn.Sequential(nn.Conv1d(4, 4, 3, padding='same', padding_mode='circular', dilation=2),
                           nn.BatchNorm1d(4, affine=False), nn.PReLU(4), nn.ELU(alpha=0.5), nn.SiLU(), nn.Mish(),
                           nn.Hardtanh(-2.0, 2.0), nn.Softplus(beta=2.0), nn.Threshold(0.1, 20.0),
                           nn.Tanh(), nn.Sigmoid(), nn.Hardswish(), nn.CELU(), nn.SELU(), nn.GLU(),
                           nn.MaxPool1d(2, return_indices=False), nn.AdaptiveMaxPool1d(3), nn.ReplicationPad1d(2),
                           nn.ConstantPad1d((1, 0), 0.5), nn.PixelShuffle(2), nn.Conv3d(2, 2, (1, 3, 3)),
                           nn.Bilinear(3, 4, 5), nn.RMSNorm([4]), nn.LocalResponseNorm(2), nn.AlphaDropout(0.2),
                           nn.CrossEntropyLoss(label_smoothing=0.1), nn.MSELoss(reduction='sum'))
    m.rnns = nn.ModuleList([nn.LSTM(8, 16, num_layers=2, bidirectional=True, dropout=0.1),
                            nn.GRU(8, 16, batch_first=True), nn.RNN(16, 16, nonlinearity='relu'), nn.LSTMCell(8, 16)])
    m.attn = nn.MultiheadAttention(16, 4, batch_first=True)
    m.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0,
                                                                 norm_first=True), num_layers=2,
                                      enable_nested_tensor=False)
    return m


def test_repr_of_every_container_and_many_layers():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tm = make_zoo(torch)
        lm = make_zoo(torchlike)
    kinds = {type(mod).__name__ for mod in tm.modules()}
    assert len(kinds - {'Module', 'Sequential', 'ModuleList', 'ModuleDict'}) >= 20
    assert {'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict'} <= kinds
    r_t, r_l = repr(tm), repr(lm)
    if r_l != r_t:      # show the first differing line, not two 100-line blobs
        for a, b in zip(r_l.splitlines(), r_t.splitlines()):
            assert a == b
        assert len(r_l.splitlines()) == len(r_t.splitlines())
    assert r_l == r_t
    assert [n for n, _ in lm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert list(lm.state_dict()) == list(tm.state_dict())


# ---- default initialisation (layers not covered by test_nn_init.py / test_nn_rnn.py) ---------------------------

N_SIGMA = 6          # sampling-error bound for iid samples (a false failure is ~1e-9 likely)


def _close_stats(a, b, what):
    """Two iid samples of the same distribution: means and stds agree within sampling error."""
    n = min(a.size, b.size)
    s = max(a.std(), b.std(), 1e-12)
    assert abs(a.mean() - b.mean()) < N_SIGMA * s * math.sqrt(2 / n), (what, a.mean(), b.mean())
    assert abs(a.std() - b.std()) < N_SIGMA * s * math.sqrt(1 / n) * 1.5, (what, a.std(), b.std())


# (constructor, {parameter: (kind, bound)}): kind 'uniform' (support [-bound, bound], reached), 'normal' (std
# bound), 'const' (every value == bound). Bounds are derived from torch's documented rules and also checked
# against torch's own sample.
INIT = [
    (lambda nn: nn.Linear(200, 300), {'weight': ('uniform', 1 / math.sqrt(200)),
                                      'bias': ('uniform', 1 / math.sqrt(200))}),
    (lambda nn: nn.Bilinear(20, 30, 40), {'weight': ('uniform', 1 / math.sqrt(20)),
                                          'bias': ('uniform', 1 / math.sqrt(20))}),
    (lambda nn: nn.Embedding(500, 64), {'weight': ('normal', 1.0)}),
    (lambda nn: nn.LayerNorm(64), {'weight': ('const', 1.0), 'bias': ('const', 0.0)}),
    (lambda nn: nn.BatchNorm2d(64), {'weight': ('const', 1.0), 'bias': ('const', 0.0)}),
    (lambda nn: nn.LSTM(64, 96, num_layers=2, bidirectional=True),
     {'*': ('uniform', 1 / math.sqrt(96))}),
    (lambda nn: nn.MultiheadAttention(64, 4),   # in_proj: xavier_uniform over (3E, E); out_proj: Linear's rule
     {'in_proj_weight': ('uniform', math.sqrt(6 / (64 + 3 * 64))), 'in_proj_bias': ('const', 0.0),
      'out_proj.weight': ('uniform', 1 / math.sqrt(64)), 'out_proj.bias': ('const', 0.0)}),
]


@pytest.mark.parametrize('i', range(len(INIT)), ids=[f'init{i}' for i in range(len(INIT))])
def test_layer_default_init(i):
    make, rules = INIT[i]
    torch.manual_seed(0)
    torchlike.manual_seed(0)
    tm, lm = make(torch.nn), make(torchlike.nn)
    pt, pl = dict(tm.named_parameters()), dict(lm.named_parameters())
    assert list(pl) == list(pt)
    groups = {}   # rule -> (torch values, torchlike values), parameters with one rule pooled
    for name in pt:
        assert tuple(pl[name].shape) == tuple(pt[name].shape) and pl[name].requires_grad, name
        rule = rules.get(name, rules.get('*'))
        assert rule is not None, f'no rule for {name}'
        a, b = groups.setdefault((name if '*' not in rules else '*'), (rule, [], []))[1:]
        a.append(pt[name].detach().numpy().astype(np.float64).ravel())
        b.append(pl[name].detach().numpy().astype(np.float64).ravel())
    for key, (rule, a, b) in groups.items():
        kind, bound = rule
        a, b = np.concatenate(a), np.concatenate(b)
        for lib, v in (('torch', a), ('torchlike', b)):
            if kind == 'const':
                assert (v == bound).all(), (key, lib)
            elif kind == 'uniform':
                b32 = bound * (1 + 1e-6)      # the bound itself rounded to float32
                assert -b32 <= v.min() and v.max() <= b32, (key, lib, v.min(), v.max())
                if v.size > 1000:     # the support is reached (a narrower distribution would not)
                    assert v.max() > 0.98 * bound and v.min() < -0.98 * bound, (key, lib)
                    # the std of U(-b, b) is b/sqrt(3); its sampling error is ~0.26 b/sqrt(n)
                    assert abs(v.std() - bound / math.sqrt(3)) < N_SIGMA * 0.26 * bound / math.sqrt(v.size), \
                        (key, lib, v.std())
            else:
                # N(0, s): the sample std's error is s/sqrt(2n)
                assert abs(v.std() - bound) < N_SIGMA * 0.71 * bound / math.sqrt(v.size), (key, lib, v.std())
                assert abs(v.mean()) < N_SIGMA * bound / math.sqrt(v.size), (key, lib, v.mean())
        if kind != 'const':
            _close_stats(a, b, key)
