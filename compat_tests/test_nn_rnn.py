"""Recurrent layers (RNN, LSTM, GRU, the cells) and nn.utils.rnn against real torch.

Each module test builds the layer under torch (torch.manual_seed), copies its state_dict into the torchlike
layer through numpy, runs the same inputs, and compares outputs, final states, and the gradients of the
inputs, the initial states and every parameter (float32, atol/rtol 1e-4). Every distinct configuration
costs a compile of the scan and of its VJP, so each case below combines several options.
"""
from collections import OrderedDict

import numpy as np
import pytest
import torch

import torchlike
import torchlike.nn  # noqa: F401

from conftest import assert_same, check

LIBS = (torch, torchlike)
pytestmark = pytest.mark.filterwarnings('ignore:LSTM with projections is not supported with oneDNN')
_rng = np.random.default_rng(0)


def _r(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def _t(lib, a, grad=False):
    t = lib.tensor(a)
    if grad:
        t.requires_grad_(True)
    return t


def copy_state(src, dst):
    dst.load_state_dict(OrderedDict((k, torchlike.tensor(v.detach().numpy())) for k, v in src.state_dict().items()))


def _flat(x):
    """The tensors of an output: PackedSequence -> data, tuples flattened."""
    if isinstance(x, (torch.nn.utils.rnn.PackedSequence, torchlike.nn.utils.rnn.PackedSequence)):
        return [x.data]
    if isinstance(x, (tuple, list)):
        return [t for e in x for t in _flat(e)]
    return [x]


def run_module(cls, ctor, make_inputs, train=False):
    """Build ``cls`` in both libraries with weights from torch, run ``make_inputs(lib)`` -> (args, leaves),
    backward a random projection of every output; compare outputs, leaf grads and parameter grads."""
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(*ctor[0], **ctor[1])
    lm = getattr(torchlike.nn, cls)(*ctor[0], **ctor[1])
    copy_state(tm, lm)
    tm.train(train)
    lm.train(train)
    res = {}
    for lib, m in ((torch, tm), (torchlike, lm)):
        args, leaves = make_inputs(lib)
        outs = m(*args)
        flat = _flat(outs)
        loss = sum((o * lib.tensor(np.cos(np.arange(o.numel(), dtype=np.float32)).reshape(tuple(o.shape)))).sum()
                   for o in flat)
        loss.backward()
        res[lib] = (outs, flat, [x.grad for x in leaves], OrderedDict((k, p.grad) for k, p in m.named_parameters()))
    (t_outs, t_flat, t_lg, t_pg), (l_outs, l_flat, l_lg, l_pg) = res[torch], res[torchlike]
    assert type(l_outs).__name__ == type(t_outs).__name__
    assert_same(l_flat, t_flat)
    assert_same(l_lg, t_lg)
    assert list(l_pg) == list(t_pg)
    for k in t_pg:
        assert_same(l_pg[k], t_pg[k])
    return res


# ---- RNN / LSTM / GRU over padded sequences ------------------------------------------------------------

T, B, I, H = 5, 3, 4, 6

# (class, ctor kwargs, pass initial state, unbatched)
CASES = [
    ('RNN', dict(num_layers=2, bidirectional=True, batch_first=True), True, False),
    ('RNN', dict(nonlinearity='relu', bias=False), True, True),
    ('LSTM', dict(num_layers=2, proj_size=3, batch_first=True), True, False),
    ('LSTM', dict(proj_size=3, bidirectional=True), False, True),
    ('GRU', dict(num_layers=2, bidirectional=True, batch_first=True, bias=False), False, False),
    ('GRU', dict(), True, True),
]


def _state_shapes(cls, kw, batch):
    d = (2 if kw.get('bidirectional') else 1) * kw.get('num_layers', 1)
    out = kw.get('proj_size', 0) or H
    lead = (d, batch) if batch else (d,)
    return [lead + (out,), lead + (H,)] if cls == 'LSTM' else [lead + (out,)]


@pytest.mark.parametrize('case', CASES, ids=lambda c: f'{c[0]}-{"-".join(f"{k}={v}" for k, v in c[1].items())}'
                         f'{"-h0" if c[2] else ""}{"-unbatched" if c[3] else ""}')
def test_module(case):
    cls, kw, with_state, unbatched = case
    x = _r(T, I) if unbatched else (_r(B, T, I) if kw.get('batch_first') else _r(T, B, I))
    states = [_r(*s) for s in _state_shapes(cls, kw, None if unbatched else B)]

    def inputs(lib):
        leaves = [_t(lib, x, True)]
        args = [leaves[0]]
        if with_state:
            hs = [_t(lib, s, True) for s in states]
            leaves += hs
            args.append(tuple(hs) if cls == 'LSTM' else hs[0])
        return args, leaves
    run_module(cls, ((I, H), kw), inputs)


def test_functional_kernels():
    """torch.gru / torch.lstm_cell & co. called directly (the kernels the modules use)."""
    wg = [_r(3 * H, I), _r(3 * H, H), _r(3 * H), _r(3 * H)]
    x, h, c = _r(T, 1, I), _r(1, 1, H), _r(1, 1, H)
    # the shapes of test_flat_weights_follow_assignment's forward: the two share the compiled program
    check(lambda t: t.gru(_t(t, x), _t(t, h), [_t(t, a) for a in wg], True, 1, 0.0, False, False, False))
    for name, g in (('rnn_tanh_cell', 1), ('rnn_relu_cell', 1), ('gru_cell', 3)):
        wc = [_r(g * H, I), _r(g * H, H), _r(g * H), _r(g * H)]
        check(lambda t: getattr(t, name)(_t(t, x[0]), _t(t, h[0]), *[_t(t, a) for a in wc]))
        check(lambda t: getattr(t, name)(_t(t, x[0]), _t(t, h[0]), *[_t(t, a) for a in wc[:2]]))
    # the packed overload: (data, batch_sizes, hx, params, ...)
    data, bs, h4 = _r(9, I), np.array([4, 3, 2]), _r(1, 4, H)
    check(lambda t: t.gru(_t(t, data), t.tensor(bs), _t(t, h4), [_t(t, a) for a in wg], True, 1, 0.0, False,
                          False))
    check(lambda t: t.gru_cell(*[_t(t, a.astype(np.float64)) for a in (x[0], h[0], wg[0], wg[1])]))
    w = [_r(4 * H, I), _r(4 * H, H), _r(4 * H), _r(4 * H)]
    check(lambda t: t.lstm_cell(_t(t, x[0]), (_t(t, h[0]), _t(t, c[0])), *[_t(t, a) for a in w]))


# ---- packed sequences through the layers ---------------------------------------------------------------

# (class, ctor kwargs, enforce_sorted, lengths, pass initial state, rebuild). The LSTM case has the reference
# LSTMModel's shapes, so the two share their compiled programs. ``rebuild`` packs the sequence anew from
# its fields, which drops the padded grid pack_padded_sequence keeps (Note [Packed sequences keep their
# padded source]): the RNN then unpacks ``data`` itself, the general path.
PACKED = [
    ('LSTM', dict(num_layers=2, bidirectional=True), False, [5, 7, 2, 7], False, False),
    ('GRU', dict(), True, [5, 4, 4, 1], True, True),
    ('RNN', dict(bidirectional=True, batch_first=True), True, [5, 3, 3, 2], False, False),
    ('RNN', dict(nonlinearity='relu', num_layers=2), False, [2, 5, 3, 3], True, True),
]


@pytest.mark.parametrize('case', PACKED, ids=lambda c: f'{c[0]}-sorted={c[2]}-rebuild={c[5]}')
def test_packed(case):
    cls, kw, enforce_sorted, lengths, with_state, rebuild = case
    bf = kw.get('batch_first', False)
    nb = len(lengths)
    x = _r(nb, max(lengths), I) if bf else _r(max(lengths), nb, I)
    states = [_r(*s) for s in _state_shapes(cls, kw, nb)]

    def inputs(lib):
        U = lib.nn.utils.rnn
        xl = _t(lib, x, True)
        p = U.pack_padded_sequence(xl, lengths, batch_first=bf, enforce_sorted=enforce_sorted)
        if rebuild:
            p = U.PackedSequence(p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices)
        args, leaves = [p], [xl]
        if with_state:
            hs = [_t(lib, s, True) for s in states]
            leaves += hs
            args.append(tuple(hs) if cls == 'LSTM' else hs[0])
        return args, leaves
    res = run_module(cls, ((I, H), kw), inputs)
    (t_out, t_h), (l_out, l_h) = res[torch][0], res[torchlike][0]
    assert_same(l_out.batch_sizes, t_out.batch_sizes)
    if t_out.unsorted_indices is None:
        assert l_out.sorted_indices is None and l_out.unsorted_indices is None
    else:
        assert_same([l_out.sorted_indices, l_out.unsorted_indices], [t_out.sorted_indices, t_out.unsorted_indices])
    # padded positions of the unpacked output are zero, as torch's
    assert_same(torchlike.nn.utils.rnn.pad_packed_sequence(l_out, batch_first=bf)[0],
                torch.nn.utils.rnn.pad_packed_sequence(t_out, batch_first=bf)[0])


def test_packed_data_written_in_place():
    """An in-place write to a packed sequence's data (or to the padded input it came from) is seen by the
    RNN and by pad_packed_sequence, as in torch."""
    x = _r(5, 4, I)

    def f(t):
        U = t.nn.utils.rnn
        xl = _t(t, x)
        p = U.pack_padded_sequence(xl, [5, 4, 4, 1])
        p.data.mul_(2)
        q = U.pack_padded_sequence(xl, [5, 4, 4, 1])
        xl.add_(1)
        return U.pad_packed_sequence(p)[0], U.pad_packed_sequence(q, padding_value=-1.)[0], q.data
    check(f)
    torch.manual_seed(0)
    tm, lm = torch.nn.GRU(I, H), torchlike.nn.GRU(I, H)
    copy_state(tm, lm)
    outs = []
    for lib, m in ((torch, tm), (torchlike, lm)):
        p = lib.nn.utils.rnn.pack_padded_sequence(_t(lib, x), [5, 4, 4, 1])
        p.data.mul_(2)
        outs.append(lib.nn.utils.rnn.pad_packed_sequence(m(p)[0])[0])
    assert_same(outs[1], outs[0])


# ---- cells ---------------------------------------------------------------------------------------------

CELLS = [('RNNCell', dict(), True, False), ('RNNCell', dict(nonlinearity='relu', bias=False), False, True),
         ('LSTMCell', dict(), True, True), ('LSTMCell', dict(bias=False), False, False),
         ('GRUCell', dict(), True, False)]


@pytest.mark.parametrize('case', CELLS, ids=lambda c: f'{c[0]}-{c[1]}-h={c[2]}-unbatched={c[3]}')
def test_cell(case):
    cls, kw, with_state, unbatched = case
    lead = () if unbatched else (B,)
    x = _r(*lead, I)
    states = [_r(*lead, H) for _ in range(2 if cls == 'LSTMCell' else 1)]

    def inputs(lib):
        leaves = [_t(lib, x, True)]
        args = [leaves[0]]
        if with_state:
            hs = [_t(lib, s, True) for s in states]
            leaves += hs
            args.append(tuple(hs) if cls == 'LSTMCell' else hs[0])
        return args, leaves
    run_module(cls, ((I, H), kw), inputs)


# ---- module surface: names, shapes, repr, init, dropout, errors ----------------------------------------

SURFACE = [('RNN', (4, 6, 2), dict(nonlinearity='relu', bias=False, batch_first=True, dropout=0.25)),
           ('LSTM', (4, 6), dict(num_layers=2, bidirectional=True, proj_size=3)),
           ('GRU', (4, 6, 3), dict(bidirectional=True)),
           ('RNNCell', (4, 6), dict(nonlinearity='relu')), ('LSTMCell', (4, 6, False), {}), ('GRUCell', (4, 6), {})]


@pytest.mark.parametrize('case', SURFACE, ids=lambda c: c[0])
def test_surface(case):
    cls, args, kw = case
    tm, lm = getattr(torch.nn, cls)(*args, **kw), getattr(torchlike.nn, cls)(*args, **kw)
    assert repr(lm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in lm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert list(lm.state_dict()) == list(tm.state_dict())
    if hasattr(tm, '_flat_weights_names'):
        assert lm._flat_weights_names == tm._flat_weights_names
        assert [[tuple(p.shape) for p in ws] for ws in lm.all_weights] == \
            [[tuple(p.shape) for p in ws] for ws in tm.all_weights]
        assert all(a is b for a, b in zip(lm._flat_weights, lm.parameters()))
        assert lm.flatten_parameters() is None
    # default init: U(-1/sqrt(hidden), 1/sqrt(hidden)) for every parameter
    bound = 1 / np.sqrt(6)
    vals = np.concatenate([p.detach().numpy().ravel() for p in lm.parameters()])
    assert vals.min() >= -bound and vals.max() <= bound
    assert abs(vals.std() - bound / np.sqrt(3)) < 0.1 * bound


def test_flat_weights_follow_assignment():
    """Assigning a parameter attribute updates _flat_weights, which the forward reads."""
    torch.manual_seed(0)
    tm, lm = torch.nn.GRU(I, H), torchlike.nn.GRU(I, H)
    copy_state(tm, lm)
    for lib, m in ((torch, tm), (torchlike, lm)):
        m.weight_hh_l0 = lib.nn.Parameter(lib.ones(3 * H, H) * 0.1)
        assert m._flat_weights[1] is m.weight_hh_l0
    assert_same(lm(torchlike.ones(T, 1, I))[0], tm(torch.ones(T, 1, I))[0])


def test_dropout_between_layers():
    x = _r(T, B, I)

    def run(lib, p, train=True, seed=0):
        lib.manual_seed(0)
        m = lib.nn.LSTM(I, H, num_layers=2, dropout=p)
        if lib is torchlike:
            copy_state((torch.manual_seed(0), torch.nn.LSTM(I, H, num_layers=2, dropout=p))[1], m)
        m.train(train)
        lib.manual_seed(seed)
        return m(_t(lib, x))[0]
    # p == 1 zeroes the second layer's input: deterministic, so torch can answer
    assert_same(run(torchlike, 1.0), run(torch, 1.0))
    # eval mode ignores dropout
    assert_same(run(torchlike, 0.5, train=False), run(torch, 0.5, train=False))
    a, b, c = run(torchlike, 0.5), run(torchlike, 0.5), run(torchlike, 0.5, seed=1)
    ev = run(torchlike, 0.5, train=False)
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())        # same seed, same mask
    assert not np.allclose(a.detach().numpy(), c.detach().numpy())       # another seed, another mask
    assert not np.allclose(a.detach().numpy(), ev.detach().numpy())      # training mode drops


ERRORS = [     # (I, H) = (4, 6) throughout, so the parameter initialisation programs are shared
    lambda t: t.nn.LSTM(4, 6, dropout=1.5),
    lambda t: t.nn.LSTM(4, 6, dropout=True),
    lambda t: t.nn.LSTM(4, 6, proj_size=6),
    lambda t: t.nn.LSTM(4, 6, proj_size=-1),
    lambda t: t.nn.GRU(4, 6, proj_size=2),
    lambda t: t.nn.RNN(4, 6, nonlinearity='sigmoid'),
    lambda t: t.nn.RNN(4, 0),
    lambda t: t.nn.RNN(4.0, 6),
    lambda t: t.nn.RNN(4, 6, bias=1),
    lambda t: t.nn.RNN(4, 6, batch_first=None),
    lambda t: t.nn.GRU(4, 6, num_layers=0),
    lambda t: t.nn.LSTM(4, 6)(t.ones(2, 3, 5)),                                    # wrong input size
    lambda t: t.nn.LSTM(4, 6)(t.ones(2, 3, 4, 1)),                                 # 4-D input
    lambda t: t.nn.RNN(4, 6)(t.ones(4)),                                           # 1-D input
    lambda t: t.nn.GRU(4, 6)(t.ones(2, 3, 4, dtype=t.float64)),                    # dtype mismatch
    lambda t: t.nn.GRU(4, 6)(t.ones(2, 3, 4), t.zeros(1, 2, 6)),                   # hidden batch mismatch
    lambda t: t.nn.GRU(4, 6)(t.ones(2, 3, 4), t.zeros(3, 6)),                      # 2-D hx for 3-D input
    lambda t: t.nn.RNN(4, 6)(t.ones(2, 4), t.zeros(1, 1, 6)),                      # 3-D hx for 2-D input
    lambda t: t.nn.LSTM(4, 6)(t.ones(2, 3, 4), (t.zeros(1, 3, 6), t.zeros(1, 3, 5))),
    lambda t: t.nn.LSTM(4, 6)(t.ones(2, 3, 4), (t.zeros(1, 3, 6), t.zeros(3, 6))),
    lambda t: t.nn.LSTM(4, 6, proj_size=2)(t.ones(2, 3, 4), (t.zeros(1, 3, 6), t.zeros(1, 3, 6))),
    lambda t: t.nn.LSTMCell(4, 6)(t.ones(2, 5)),
    lambda t: t.nn.LSTMCell(4, 6)(t.ones(2, 4), (t.zeros(3, 6), t.zeros(2, 6))),
    lambda t: t.nn.LSTMCell(4, 6)(t.ones(2, 4), (t.zeros(2, 6), t.zeros(2, 6, 1))),
    lambda t: t.nn.GRUCell(4, 6)(t.ones(2, 4), t.zeros(2, 5)),
    lambda t: t.nn.GRUCell(4, 6)(t.ones(2, 4, 1)),
    lambda t: t.nn.RNNCell(4, 6)(t.ones(2, 4), t.zeros(2, 6, 1)),
    lambda t: t.nn.RNNCell(4, 6, nonlinearity='foo')(t.ones(2, 4)),
    lambda t: t.nn.GRUCell(4, 6)(t.ones(2, 4, dtype=t.float64)),
    lambda t: t.gru(t.ones(2, 1, 4, dtype=t.float64), t.zeros(1, 1, 6, dtype=t.float64), [t.ones(18, 4), t.ones(18, 6)],
                    False, 1, 0., False, False, False),
    lambda t: t.gru(t.ones(2, 1, 4), t.zeros(1, 1, 6), [t.ones(18, 4)], False, 1, 0., False, False, False),
]


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    check(ERRORS[i])


# ---- nn.utils.rnn ----------------------------------------------------------------------------------------

def test_pack_pad_roundtrip_and_grads():
    x = _r(5, 4, 3)
    # (lengths, pack batch_first, pad batch_first, enforce_sorted)
    for lengths, bf, pbf, es in (([5, 3, 3, 1], False, False, True), ([2, 5, 3, 5], True, False, False),
                                 (torch.tensor([4, 1, 5, 2]), False, True, False)):
        def f(t):
            xl = _t(t, x, True)
            ln = t.tensor(lengths.numpy()) if isinstance(lengths, torch.Tensor) and t is torchlike else lengths
            p = t.nn.utils.rnn.pack_padded_sequence(xl, ln, batch_first=bf, enforce_sorted=es)
            out, lens = t.nn.utils.rnn.pad_packed_sequence(p, batch_first=pbf, padding_value=-2.0, total_length=6)
            (out * t.arange(out.numel()).reshape(out.shape).float()).sum().backward()
            return (p.data, p.batch_sizes, p.sorted_indices if p.sorted_indices is not None else t.zeros(0),
                    p.unsorted_indices if p.unsorted_indices is not None else t.zeros(0), out, lens, xl.grad)
        check(f)


UTIL_CASES = [
    lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2, 3), t.arange(12.).reshape(4, 3), t.zeros(1, 3)]),
    lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2), t.arange(4.)], batch_first=True, padding_value=9.),
    lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2), t.arange(4.)], padding_side='left', padding_value=-1.),
    lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2, dtype=t.int64), t.arange(4.)]),
    lambda t: t.nn.utils.rnn.pad_sequence(t.ones(3, 4)),
    lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2, 3), t.ones(3, 2)]),
    lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2, 3), t.ones(3, 1)]),
    lambda t: t.nn.utils.rnn.pad_sequence([]),
    lambda t: t.nn.utils.rnn.pad_sequence(5),
    lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2)], padding_side='top'),
    lambda t: t.nn.utils.rnn.unpack_sequence(t.nn.utils.rnn.pack_sequence(
        [t.arange(3.), t.arange(5.), t.ones(1)], enforce_sorted=False)),
    lambda t: t.nn.utils.rnn.pack_sequence([t.arange(3.), t.arange(5.)]),
    lambda t: tuple(t.nn.utils.rnn.pack_sequence([t.arange(5.), t.arange(5.), t.ones(2)]))[:2],
    lambda t: t.nn.utils.rnn.unpad_sequence(t.arange(24.).reshape(4, 3, 2), t.tensor([4, 2, 1])),
    lambda t: t.nn.utils.rnn.unpad_sequence(t.arange(24.).reshape(3, 4, 2), t.tensor([1, 4, 2]), batch_first=True),
    lambda t: t.nn.utils.rnn.invert_permutation(t.tensor([2, 0, 3, 1])),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(4, 3, 2), [4, 3, 5]),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(4, 3, 2), [4, 3, 0]),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(4, 3, 2), [4, 3]),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(4, 3, 2), t.tensor([[4, 3, 2]])),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(4), [4]),
    lambda t: t.nn.utils.rnn.pack_padded_sequence(t.ones(4, 3, 2), t.tensor([4., 3., 2.])).batch_sizes,
    lambda t: t.nn.utils.rnn.pad_packed_sequence(t.nn.utils.rnn.pack_padded_sequence(t.ones(4, 3, 2), [4, 3, 2]),
                                                 total_length=3),
]


@pytest.mark.parametrize('i', range(len(UTIL_CASES)))
def test_utils(i):
    check(UTIL_CASES[i])


def test_packed_sequence_class():
    def f(t):
        U = t.nn.utils.rnn
        p = U.pack_padded_sequence(t.arange(24.).reshape(4, 3, 2), [2, 4, 3], enforce_sorted=False)
        assert isinstance(p, tuple) and p._fields == ('data', 'batch_sizes', 'sorted_indices', 'unsorted_indices')
        data, bs, si, ui = p
        assert p.to('cpu') is p and p.float() is p and p.is_cuda is False
        d = p.double()
        assert type(d) is U.PackedSequence and d.batch_sizes is p.batch_sizes
        q = U.PackedSequence(p.data, p.batch_sizes, p.sorted_indices)    # unsorted_indices derived
        r = U.PackedSequence((p.data, p.batch_sizes))
        return (d.data, d.sorted_indices, d.unsorted_indices, p.long().data, q.unsorted_indices, r.data, bs,
                str(U.PackedSequence(t.ones(2), t.tensor([1, 1]))).replace('torchlike', 'torch'))
    check(f)


# ---- the reference LSTMModel (shared/REFERENCE_MODELS.md) --------------------------------------------------

def _lstm_model(t):
    nn = t.nn

    class LSTMModel(nn.Module):
        def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, p):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embedding_dim)
            self.lstm = nn.LSTM(embedding_dim, hidden_dim, num_layers=2, dropout=p, bidirectional=True)
            self.dropout = nn.Dropout(p)
            self.fc = nn.Linear(2 * hidden_dim, output_dim)

        def forward(self, text, lengths):
            embedded = self.embedding(text)
            packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths, enforce_sorted=False)
            out, (h, c) = self.lstm(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out)
            return self.fc(self.dropout(out[-1]))
    return LSTMModel(20, I, H, 5, 0.3)


def test_reference_lstm_model():
    text = _rng.integers(0, 20, (7, 4))
    lengths = [5, 7, 2, 7]
    target = _rng.integers(0, 5, (4,))
    torch.manual_seed(0)
    tm = _lstm_model(torch)
    lm = _lstm_model(torchlike)
    assert repr(lm) == repr(tm)
    copy_state(tm, lm)
    res = {}
    for lib, m in ((torch, tm), (torchlike, lm)):
        m.eval()
        out = m(lib.tensor(text), lib.tensor(lengths))
        loss = lib.nn.CrossEntropyLoss()(out, lib.tensor(target))
        loss.backward()
        res[lib] = (out, loss, [(n, p.grad) for n, p in m.named_parameters()])
    assert_same(res[torchlike][0], res[torch][0])
    assert_same(res[torchlike][1], res[torch][1])
    assert [n for n, _ in res[torchlike][2]] == [n for n, _ in res[torch][2]]
    assert_same([g for _, g in res[torchlike][2]], [g for _, g in res[torch][2]])
