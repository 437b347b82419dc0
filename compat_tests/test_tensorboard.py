"""torch.utils.tensorboard.SummaryWriter: the same calls through torch's writer and torchlike's write two
log folders; both are read back (TensorBoard's own event reader) and compared value by value."""
import io
import os
import re

import numpy as np
import pytest
import torch
from google.protobuf import text_format
from PIL import Image
from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig
from torch.utils.tensorboard import SummaryWriter as TorchWriter

import torchlike
from torchlike.utils.tensorboard import SummaryWriter as TLWriter

WRITERS = {torch: TorchWriter, torchlike: TLWriter}
R = np.random.RandomState(0)


def _pixels(png):
    return np.asarray(Image.open(io.BytesIO(png)))


def _normalise(event):
    """An Event as a comparable value: wall time and writer name dropped, PNGs decoded to pixels, hparams content parsed."""
    event.wall_time = 0
    event.ClearField('source_metadata')       # names the library that wrote the file (tensorboard's writer)
    extra = []
    for v in event.summary.value:
        if v.HasField('image'):
            extra.append(_pixels(v.image.encoded_image_string).tolist())
            v.image.encoded_image_string = b''
        if v.metadata.plugin_data.plugin_name == 'hparams':
            extra.append(HParamsPluginData.FromString(v.metadata.plugin_data.content))
            v.metadata.plugin_data.content = b''
    if event.graph_def:
        extra.append(GraphDef.FromString(event.graph_def))
        event.graph_def = b''
    return event, extra


def _read(logdir):
    """{run folder relative to logdir: [normalised events of its event files, in order]}."""
    runs = {}
    for d, _, files in sorted(os.walk(logdir)):
        evs = []
        for f in sorted(x for x in files if x.startswith('events.out.tfevents')):
            evs.extend(_normalise(e) for e in LegacyEventFileLoader(os.path.join(d, f)).Load())
        if evs:
            runs[os.path.relpath(d, logdir)] = evs
    return runs


def _both(tmp_path, log, **kw):
    """Run ``log(lib, writer)`` with each library's writer; return both folders' contents."""
    out = {}
    for lib, cls in WRITERS.items():
        d = tmp_path / lib.__name__
        with cls(str(d), **kw) as w:
            log(lib, w)
        out[lib] = _read(str(d))
    return out[torchlike], out[torch]


def _compare(tmp_path, log, **kw):
    got, exp = _both(tmp_path, log, **kw)
    assert sorted(got) == sorted(exp)
    for run in exp:
        assert len(got[run]) == len(exp[run]), run
        for (ge, gx), (ee, ex) in zip(got[run], exp[run]):
            assert ge == ee, f'{run}:\n{ge}\n!=\n{ee}'
            assert gx == ex
    return got


def _t(lib, a):
    return lib.tensor(a)


# ---- scalars, histograms, text --------------------------------------------------------------------

def test_scalars(tmp_path):
    def log(lib, w):
        w.add_scalar('loss', 0.5, 0)
        w.add_scalar('loss', _t(lib, np.float32(0.25)), 1)
        w.add_scalar('loss', _t(lib, np.array([0.125], np.float64)), 2)      # one element, squeezed
        w.add_scalar('np', np.float64(1.5), 3, walltime=12.0)
        w.add_scalar('ns', _t(lib, np.float32(2.5)), 4, new_style=True)
        w.add_scalar('ns/double', 1 / 3, 5, new_style=True, double_precision=True)
        w.add_scalar('odd tag:with(chars)', 7, 6)        # torch keeps the tag as given
        w.add_scalars('run/main', {'a': 1.0, 'b': _t(lib, np.float32(2.0))}, 7)
        w.add_scalars('run/main', {'a': 3.0}, 8)
    got = _compare(tmp_path, log)
    assert {'.', 'run_main_a', 'run_main_b'} <= set(got)
    vals = [v.simple_value for e, _ in got['.'] for v in e.summary.value if v.tag == 'loss']
    assert vals == [0.5, 0.25, 0.125]


def test_scalar_errors(tmp_path):
    for lib, cls in WRITERS.items():
        with cls(str(tmp_path / lib.__name__)) as w:
            with pytest.raises(AssertionError):
                w.add_scalar('x', _t(lib, np.ones(3, np.float32)))
            with pytest.raises(NotImplementedError):
                w.add_scalar('x', object())


def test_purge_step_and_suffix(tmp_path):
    def log(lib, w):
        w.add_scalar('a', 1.0, 10)
    got = _compare(tmp_path, log, purge_step=5, filename_suffix='.sfx')
    first = got['.'][1][0]
    assert first.step == 5 and first.file_version == 'brain.Event:2'
    for lib in WRITERS:
        files = os.listdir(tmp_path / lib.__name__)
        assert len(files) == 1 and files[0].endswith('.sfx')


@pytest.mark.parametrize('bins', ['tensorflow', 'auto', 'fd', 10])
def test_histograms(tmp_path, bins):
    data = R.randn(500).astype(np.float32)

    def log(lib, w):
        w.add_histogram('h', _t(lib, data), 0, bins=bins)
        w.add_histogram('h', _t(lib, data * 3 + 1), 1, bins=bins, max_bins=7)
        w.add_histogram('h_np', data.astype(np.float64), 2, bins=bins)
        w.add_histogram('h_int', _t(lib, np.arange(20)), 3, bins=bins)
    got = _compare(tmp_path, log)
    h = got['.'][1][0].summary.value[0].histo
    assert h.num == 500 and h.min == float(data.min()) and sum(h.bucket) == 500


def test_histogram_raw_and_text(tmp_path):
    def log(lib, w):
        w.add_histogram_raw('raw', 0.0, 4.0, 10, 20.0, 50.0, [1.0, 2.0, 4.0], [3, 3, 4], 1)
        w.add_text('notes', 'hello **world** é', 2)
        w.add_text('notes', 'second', 3)
    got = _compare(tmp_path, log)
    texts = [v.tensor.string_val[0].decode() for e, _ in got['.'] for v in e.summary.value
             if v.tag == 'notes/text_summary']
    assert texts == ['hello **world** é', 'second']
    for lib, cls in WRITERS.items():
        with cls(str(tmp_path / ('e' + lib.__name__))) as w, pytest.raises(ValueError):
            w.add_histogram_raw('raw', 0, 1, 1, 1, 1, [1.0, 2.0], [1])


# ---- images -----------------------------------------------------------------------------------

def test_images(tmp_path):
    chw = R.rand(3, 5, 7).astype(np.float32)
    out_of_range = (R.randn(1, 6, 6) * 2).astype(np.float32)     # clipped to [0, 255] after scaling
    hwc_u8 = R.randint(0, 256, (5, 7, 3)).astype(np.uint8)
    hw = R.rand(4, 6).astype(np.float64)
    nchw = R.rand(5, 3, 4, 4).astype(np.float32)

    def log(lib, w):
        w.add_image('chw', _t(lib, chw), 0)
        w.add_image('gray', _t(lib, out_of_range), 1)
        w.add_image('hwc', _t(lib, hwc_u8), 2, dataformats='HWC')
        w.add_image('hw', _t(lib, hw), 3, dataformats='HW')
        w.add_image('np', chw, 4)
        w.add_images('batch', _t(lib, nchw), 5)
        w.add_images('batch_nhwc', _t(lib, nchw.transpose(0, 2, 3, 1)), 6, dataformats='NHWC')
    got = _compare(tmp_path, log)
    ev, (pix,) = got['.'][1]
    assert np.array_equal(np.asarray(pix, np.uint8), (chw.transpose(1, 2, 0) * 255).astype(np.uint8))


def test_figures(tmp_path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    def fig(k):
        f = plt.figure(figsize=(2, 1.5), dpi=40)
        plt.plot([0, 1, 2], [0, k, 1])
        return f

    def log(lib, w):
        w.add_figure('fig', fig(1), 0)
        w.add_figure('figs', [fig(2), fig(3)], 1)
    got = _compare(tmp_path, log)
    img = got['.'][1][0].summary.value[0].image
    assert (img.height, img.width) == (60, 80)


# ---- hparams ----------------------------------------------------------------------------------

def test_hparams(tmp_path):
    def log(lib, w):
        w.add_hparams({'lr': 0.1, 'bsize': 32, 'opt': 'adam', 'nesterov': True, 'skip': None,
                       'wd': _t(lib, np.array([0.5], np.float32))},
                      {'hparam/accuracy': 0.9, 'hparam/loss': _t(lib, np.float32(0.25))},
                      hparam_domain_discrete={'opt': ['adam', 'sgd'], 'bsize': [16, 32]},
                      run_name='trial', global_step=3)
    got = _compare(tmp_path, log)
    data = [x for _, extra in got['trial'] for x in extra]
    exp = data[0].experiment
    assert [h.name for h in exp.hparam_infos] == ['lr', 'bsize', 'opt', 'nesterov', 'wd']
    assert [m.name.tag for m in exp.metric_infos] == ['hparam/accuracy', 'hparam/loss']
    assert data[1].session_start_info.hparams['opt'].string_value == 'adam'


@pytest.mark.parametrize('args', [
    ([1], {}), ({}, [1]), ({'a': 1}, {}, {'a': [1.5]}), ({'a': 1}, {}, {'b': [1]}), ({'a': 1}, {}, [1]),
    ({'a': [1]}, {}), ({'a': object()}, {}),
])
def test_hparams_errors(tmp_path, args):
    types = []
    for lib, cls in WRITERS.items():
        with cls(str(tmp_path / lib.__name__)) as w:
            try:
                w.add_hparams(*args, run_name='r')
                types.append(None)
            except Exception as e:  # noqa: BLE001 - the oracle's exception type is the expectation
                types.append(type(e))
    assert types[0] is not None and types[0] is types[1]


# ---- pr curves --------------------------------------------------------------------------------

def test_pr_curves(tmp_path):
    labels = R.randint(0, 2, 100)
    preds = R.rand(100).astype(np.float32)
    weights = R.rand(100)

    def log(lib, w):
        w.add_pr_curve('pr', _t(lib, labels), _t(lib, preds), 0)
        w.add_pr_curve('pr', _t(lib, labels), _t(lib, preds), 1, num_thresholds=20, weights=weights)
        w.add_pr_curve('pr_np', labels, preds, 2, num_thresholds=500)
        w.add_pr_curve_raw('raw', [10, 5], [3, 1], [0, 2], [0, 5], [0.7, 0.8], [1.0, 0.5], 3, num_thresholds=2)
    got = _compare(tmp_path, log)
    t = got['.'][1][0].summary.value[0].tensor
    assert [d.size for d in t.tensor_shape.dim] == [6, 127]
    assert t.float_val[0] == float(labels.sum())      # true positives at threshold 0: every positive


# ---- embeddings -------------------------------------------------------------------------------

def test_embedding(tmp_path):
    mat = R.randn(9, 4).astype(np.float32)
    meta = [f'p{i}' for i in range(9)]
    imgs = R.rand(9, 3, 6, 6).astype(np.float32)
    table = [[f'p{i}', i % 3] for i in range(9)]

    def log(lib, w):
        w.add_embedding(_t(lib, mat), metadata=meta, label_img=_t(lib, imgs))
        w.add_embedding(_t(lib, mat[:4]), metadata=table[:4], metadata_header=['name', 'cls'], global_step=2,
                        tag='feat/1')
        w.add_embedding(mat, global_step=3, tag='plain')
    _compare(tmp_path, log)
    files = {}
    for lib in WRITERS:
        root = tmp_path / lib.__name__
        files[lib] = {os.path.relpath(os.path.join(d, f), root): open(os.path.join(d, f), 'rb').read()
                      for d, _, fs in os.walk(root) for f in fs if not f.startswith('events')}
    assert sorted(files[torchlike]) == sorted(files[torch])
    for name, data in files[torch].items():
        if name.endswith('.png'):
            assert np.array_equal(_pixels(files[torchlike][name]), _pixels(data)), name
        elif name.endswith('.pbtxt'):
            a = text_format.Parse(files[torchlike][name].decode(), ProjectorConfig())
            b = text_format.Parse(data.decode(), ProjectorConfig())
            assert a == b and len(b.embeddings) == 3
            assert files[torchlike][name] == data
        else:
            assert files[torchlike][name] == data, name
    rows = files[torchlike]['00000/default/tensors.tsv'].decode().splitlines()
    np.testing.assert_array_equal(np.array([r.split('\t') for r in rows], np.float32), mat)


def test_embedding_errors(tmp_path):
    for lib, cls in WRITERS.items():
        with cls(str(tmp_path / lib.__name__)) as w:
            with pytest.raises(AssertionError):
                w.add_embedding(_t(lib, R.randn(3, 2)), metadata=['a'])
            with pytest.raises(AssertionError):
                w.add_embedding(_t(lib, R.randn(3, 2, 1)), global_step=1)


# ---- graph ------------------------------------------------------------------------------------

def _models(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)

        def forward(self, x):
            return self.bn(self.conv(x)).relu()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 4 * 4, 5), nn.ReLU(), nn.Linear(5, 2))

        def forward(self, img):
            return self.head(self.block(img))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.act, self.fc2 = nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))
    return Net, Mlp


def _graph(tmp_path, lib, model, args, **kw):
    d = tmp_path / ('g' + lib.__name__)
    with WRITERS[lib](str(d)) as w:
        w.add_graph(model, args, **kw)
    (g,) = [x for _, extra in _read(str(d))['.'] for x in extra]
    return g


def _io(g):
    return [(n.name, n.op, [[d.size for d in s.dim] for s in n.attr['_output_shapes'].list.shape])
            for n in g.node if n.op == 'IO Node']


def _op_nodes(g):
    return [n for n in g.node if n.op.startswith('aten::')]


def test_graph_mlp_matches_torch(tmp_path):
    """A model whose ops are one aten op each on both sides: the same nodes, scopes, edges and shapes."""
    x = R.randn(5, 4).astype(np.float32)
    gs = {}
    for lib in WRITERS:
        lib.manual_seed(0)
        gs[lib] = _graph(tmp_path, lib, _models(lib)[1](), lib.tensor(x))
    g, e = gs[torchlike], gs[torch]
    assert sorted(_io(g)) == sorted(_io(e))
    for a, b in zip(_op_nodes(g), _op_nodes(e)):
        assert a.op == b.op
        assert a.name.rsplit('/', 1)[0] == b.name.rsplit('/', 1)[0]          # the module scope
        assert a.attr['_output_shapes'] == b.attr['_output_shapes']
        # the same producers: inputs by scope (torch adds a value name after the last '/')
        # parameters: torch's node is <scope>/<attr>/<value name>, torchlike's <scope>/<attr>
        assert [i if 'weight' in i or 'bias' in i else None for i in a.input] == \
               [i.rsplit('/', 1)[0] if 'weight' in i or 'bias' in i else None for i in b.input]
    assert len(_op_nodes(g)) == len(_op_nodes(e)) == 3
    by_name = {n.name: n for n in g.node}
    (out,) = [n for n in g.node if n.name.startswith('output/')]
    assert by_name[out.input[0]].name.startswith('Mlp/Linear[fc2]/')
    assert by_name[_op_nodes(g)[0].input[0]].name == 'input/x'


def test_graph_nested_scopes(tmp_path):
    x = R.randn(2, 3, 4, 4).astype(np.float32)
    gs = {}
    for lib in WRITERS:
        lib.manual_seed(0)
        model = _models(lib)[0]()
        model.train()
        gs[lib] = _graph(tmp_path, lib, model, (lib.tensor(x),))
        assert model.training                                   # add_graph restores the mode
    g, e = gs[torchlike], gs[torch]
    assert sorted(_io(g)) == sorted(_io(e))
    scopes = lambda gr: {n.name.rsplit('/', 1)[0] for n in _op_nodes(gr)}  # noqa: E731
    assert scopes(g) == scopes(e)
    assert 'Net/Block[block]/Conv2d[conv]' in scopes(g)
    assert 'Net/Sequential[head]/Linear[3]' in scopes(g)
    names = {n.name for n in g.node}
    for n in g.node:
        assert all(i in names for i in n.input), n       # every edge ends at a node of the graph
    # batch norm ran in eval mode: no batch statistics were computed (its running stats are inputs)
    assert any(n.name == 'Net/Block[block]/BatchNorm2d[bn]/running_mean' for n in g.node)


def test_graph_strict_trace(tmp_path):
    for lib in WRITERS:
        class D(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)

            def forward(self, x):
                return {'a': self.lin(x)}

        x = lib.tensor(R.randn(1, 2).astype(np.float32))
        with pytest.raises(RuntimeError):
            _graph(tmp_path, lib, D(), x)
        g = _graph(tmp_path, lib, D(), x, use_strict_trace=False)
        assert [n.name for n in g.node if n.op == 'IO Node'][-1].startswith('output/')


# ---- lifetime ---------------------------------------------------------------------------------

def test_flush_close_reopen(tmp_path):
    for lib, cls in WRITERS.items():
        d = str(tmp_path / lib.__name__)
        w = cls(d, flush_secs=10000, max_queue=1000)
        w.add_scalar('a', 1.0, 0)
        w.flush()
        assert [v.simple_value for e, _ in _read(d)['.'] for v in e.summary.value] == [1.0]
        w.close()
        w.close()                                          # a second close is a no-op
        w.add_scalar('a', 2.0, 1)                          # a closed writer opens a new event file
        w.close()
        files = sorted(f for f in os.listdir(d) if f.startswith('events'))
        assert len(files) == 2
        # both files keep their events (two writers in one second must not share a file name)
        assert sorted(v.simple_value for e, _ in _read(d)['.'] for v in e.summary.value) == [1.0, 2.0]
        assert re.fullmatch(r'events\.out\.tfevents\.\d{10}\..+\.%d\.\d+' % os.getpid(), files[0]), files
        assert w.get_logdir() == d


def test_default_logdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for lib, cls in WRITERS.items():
        w = cls(comment='_c' + lib.__name__)
        w.close()
        assert re.fullmatch(r'runs/[A-Z][a-z]{2}\d\d_\d\d-\d\d-\d\d_.+_c' + lib.__name__, w.get_logdir())
        assert os.path.isdir(w.get_logdir())


def test_import_is_on_demand():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, '-c', 'import sys, torchlike; '
                        'print("tensorboardX" in sys.modules, "torchlike.utils.tensorboard" in sys.modules)'],
                       capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ['False', 'False'], r.stderr
