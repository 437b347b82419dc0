"""safetensors interop: an unchanged ``from safetensors.torch import save_file, load_file`` script runs under
``python -m torchlike`` (``torch`` aliased to torchlike), and files cross between real torch and torchlike.

Real torch writes and reads files in this process; the torchlike side runs once, in a subprocess under the
alias, and reports what it loaded (values, dtypes, shapes, tensor types) and the exceptions it saw. Files
it writes are read back here with real torch's safetensors. See torchlike/storage.py (Note [Byte storage]).
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import safetensors.torch as st
import torch

import torchlike

# The tensors both sides build from the same NumPy data (bfloat16 values are exact in bfloat16).
DATA = {
    'f32': (np.arange(12, dtype=np.float32).reshape(3, 4) / 7, 'float32'),
    'f64': (np.linspace(-1, 1, 5), 'float64'),
    'f16': (np.array([[0.5, -1.25], [65504, 1e-3]], np.float32), 'float16'),
    'bf16': (np.array([1.5, -2.0, 3.140625, 1e30], np.float32), 'bfloat16'),
    'i8': (np.array([-128, 0, 127], np.int64), 'int8'),
    'u8': (np.array([0, 200, 255], np.int64), 'uint8'),
    'i16': (np.array([-300, 300], np.int64), 'int16'),
    'i32': (np.array([[1 << 30, -5]], np.int64), 'int32'),
    'i64': (np.array([1 << 40, -1], np.int64), 'int64'),
    'bool': (np.array([True, False, True]), 'bool'),
    'scalar': (np.array(2.5, np.float32), 'float32'),
    'empty': (np.zeros((0, 3), np.float32), 'float32'),
}
META = {'format': 'pt', 'note': 'torchlike'}


def _torch_tensors():
    return {k: torch.from_numpy(np.array(a)).to(getattr(torch, d)) for k, (a, d) in DATA.items()}


def _np(t):
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def _same(loaded, expected):
    assert sorted(loaded) == sorted(expected)
    for k, e in expected.items():
        got = loaded[k]
        assert got['dtype'] == str(e.dtype), (k, got['dtype'], e.dtype)
        assert got['shape'] == list(e.shape), (k, got['shape'], e.shape)
        assert got['type'] == 'torchlike._tensor.Tensor', (k, got['type'])
        np.testing.assert_array_equal(np.asarray(got['values'], _np(e).dtype).reshape(e.shape), _np(e))


SCRIPT = r'''
import json, sys, traceback
import numpy as np
import torch                                   # torchlike, through the alias
from safetensors import safe_open
from safetensors.torch import load_file, save_file, load, save, save_model, load_model

work = sys.argv[1]
data = np.load(work + '/data.npz')
dtypes = json.load(open(work + '/dtypes.json'))
report = {'torch_module': torch.__name__}


def describe(d):
    out = {}
    for k, t in d.items():
        v = t.float() if t.dtype == torch.bfloat16 else t
        out[k] = {'dtype': str(t.dtype), 'shape': list(t.shape), 'type': type(t).__module__ + '.' + type(t).__name__,
                  'values': v.reshape(-1).tolist()}
    return out


def part(name, fn):
    try:
        report[name] = {'ok': fn()}
    except Exception as e:                      # reported to the test, which compares with real torch
        report[name] = {'error': type(e).__name__, 'message': str(e)[:300], 'tb': traceback.format_exc()[-1500:]}


src = work + '/from_torch.safetensors'
part('load_file', lambda: describe(load_file(src)))
part('load_file_pread', lambda: describe(load_file(src, backend='pread')))
part('load_bytes', lambda: describe(load(open(src, 'rb').read())))


def opened():
    with safe_open(src, framework='pt', device='cpu') as f:
        sl = f.get_slice('f32')
        return {'keys': sorted(f.keys()), 'metadata': f.metadata(), 'one': describe({'x': f.get_tensor('bf16')}),
                'slice': describe({'x': sl[1:, :3]}), 'slice_shape': sl.get_shape(), 'slice_dtype': sl.get_dtype()}
part('safe_open', opened)

tensors = {k: torch.from_numpy(data[k]).to(getattr(torch, dtypes[k])) for k in dtypes}


def saving():
    save_file(tensors, work + '/from_torchlike.safetensors', metadata={'format': 'pt', 'note': 'torchlike'})
    open(work + '/from_torchlike.bytes', 'wb').write(save(tensors))
    m = torch.nn.Linear(3, 2)
    with torch.no_grad():
        m.weight.copy_(torch.arange(6.).reshape(2, 3))
        m.bias.copy_(torch.tensor([-1., 1.]))
    save_model(m, work + '/model.safetensors')
    m2 = torch.nn.Linear(3, 2)
    missing, unexpected = load_model(m2, work + '/model.safetensors')
    w = torch.arange(6.).reshape(2, 3)
    return {'reload': describe(m2.state_dict()), 'missing': sorted(missing), 'unexpected': list(unexpected),
            'row': describe({'row': w[1]}), 'row_roundtrip': describe(load(save({'row': w[1]})))}
part('save', saving)


def errors():
    w = torch.arange(6.).reshape(2, 3)
    out = []
    for fn in (lambda: save_file({'a': w, 'b': w}, work + '/x.safetensors'),      # the same storage twice
               lambda: save_file({'a': w.t()}, work + '/x.safetensors'),          # not contiguous
               lambda: save_file({'a': [1, 2]}, work + '/x.safetensors'),
               lambda: load_file(work + '/missing.safetensors')):
        try:
            fn()
            out.append(None)
        except Exception as e:
            out.append(type(e).__name__)
    return out
part('errors', errors)
json.dump(report, open(work + '/report.json', 'w'))
'''


def _probe(fn):
    try:
        fn()
        return True
    except (NotImplementedError, TypeError):
        return False


# Parts of the alias path that need torchlike's Tensor.data_ptr / untyped_storage (torchlike/_tensor.py) and
# Tensor.view(dtype=...) (torchlike/_ops/shape.py): strict xfail until those land, plain tests after.
HAS_DATA_PTR = _probe(lambda: torchlike.zeros(2).data_ptr())
HAS_VIEW_DTYPE_KW = _probe(lambda: torchlike.zeros(4, dtype=torchlike.uint8).view(dtype=torchlike.int16))
needs_view_kw = pytest.mark.xfail(not HAS_VIEW_DTYPE_KW, strict=True,
                                  reason='safe_open(mmap) calls Tensor.view(dtype=...)')
needs_data_ptr = pytest.mark.xfail(not HAS_DATA_PTR, strict=True, reason='save_file reads Tensor.data_ptr()')


@pytest.fixture(scope='module', params=['eager', 'lazy'])   # the script in both execution modes
def alias_run(tmp_path_factory, request):
    work = tmp_path_factory.mktemp('safetensors')
    np.savez(work / 'data.npz', **{k: a for k, (a, _) in DATA.items()})
    (work / 'dtypes.json').write_text(json.dumps({k: d for k, (_, d) in DATA.items()}))
    st.save_file(_torch_tensors(), str(work / 'from_torch.safetensors'), metadata=META)
    (work / 'run.py').write_text(textwrap.dedent(SCRIPT))
    env = dict(os.environ)
    env.pop('PYTHONSAFEPATH', None)
    r = subprocess.run([sys.executable, '-m', 'torchlike', '--mode', request.param, str(work / 'run.py'), str(work)],
                       capture_output=True, text=True, timeout=240, env=env, cwd=str(work))
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads((work / 'report.json').read_text())
    assert report['torch_module'] == 'torchlike'
    return work, report


def _ok(report, name):
    res = report[name]
    assert 'ok' in res, f"{name}: {res.get('error')}: {res.get('message')}\n{res.get('tb')}"
    return res['ok']


def test_torch_file_loads_with_pread_and_from_bytes(alias_run):
    _, report = alias_run
    _same(_ok(report, 'load_file_pread'), _torch_tensors())
    _same(_ok(report, 'load_bytes'), _torch_tensors())


@needs_view_kw
def test_torch_file_loads_with_load_file(alias_run):
    _, report = alias_run
    _same(_ok(report, 'load_file'), _torch_tensors())


@needs_view_kw
def test_safe_open(alias_run):
    work, report = alias_run
    got = _ok(report, 'safe_open')
    with st.safe_open(str(work / 'from_torch.safetensors'), framework='pt') as f:
        sl = f.get_slice('f32')
        assert got['keys'] == sorted(f.keys())
        assert got['metadata'] == f.metadata()
        assert got['slice_shape'] == sl.get_shape() and got['slice_dtype'] == sl.get_dtype()
        _same(got['one'], {'x': f.get_tensor('bf16')})
        _same(got['slice'], {'x': sl[1:, :3]})


@needs_data_ptr
def test_torchlike_file_loads_in_torch(alias_run):
    work, report = alias_run
    _ok(report, 'save')
    expected = _torch_tensors()
    for loaded in (st.load_file(str(work / 'from_torchlike.safetensors')),
                   st.load((work / 'from_torchlike.bytes').read_bytes())):
        assert sorted(loaded) == sorted(expected)
        for k, e in expected.items():
            assert loaded[k].dtype == e.dtype and loaded[k].shape == e.shape, k
            assert torch.equal(loaded[k], e), k
    with st.safe_open(str(work / 'from_torchlike.safetensors'), framework='pt') as f:
        assert f.metadata() == META
    # the same tensors give the same file, byte for byte
    assert (work / 'from_torchlike.bytes').read_bytes() == st.save(expected)


@needs_data_ptr
def test_save_model_load_model_and_views(alias_run):
    work, report = alias_run
    got = _ok(report, 'save')
    m = torch.nn.Linear(3, 2)
    with torch.no_grad():
        m.weight.copy_(torch.arange(6.).reshape(2, 3))
        m.bias.copy_(torch.tensor([-1., 1.]))
    _same(got['reload'], m.state_dict())
    assert got['missing'] == [] and got['unexpected'] == []
    on_disk = st.load_file(str(work / 'model.safetensors'))
    assert all(torch.equal(on_disk[k], v) for k, v in m.state_dict().items())
    w = torch.arange(6.).reshape(2, 3)
    _same(got['row'], {'row': w[1]})                  # a contiguous view saves its own elements
    _same(got['row_roundtrip'], {'row': st.load(st.save({'row': w[1]}))['row']})


@needs_data_ptr
def test_save_errors_match_torch(alias_run):
    work, report = alias_run
    w = torch.arange(6.).reshape(2, 3)
    expected = []
    for fn in (lambda: st.save_file({'a': w, 'b': w}, str(work / 'y.safetensors')),
               lambda: st.save_file({'a': w.t()}, str(work / 'y.safetensors')),
               lambda: st.save_file({'a': [1, 2]}, str(work / 'y.safetensors')),
               lambda: st.load_file(str(work / 'missing.safetensors'))):
        try:
            fn()
            expected.append(None)
        except Exception as e:  # noqa: BLE001 - the oracle's exception type is the expectation
            expected.append(type(e).__name__)
    assert _ok(report, 'errors') == expected


def test_frombuffer_and_untyped_storage_match_torch():
    raw = bytes(range(16))
    for lib in (torch, torchlike):
        lib_res = lib.frombuffer(bytearray(raw), dtype=lib.int16, count=3, offset=2)
        assert lib_res.tolist() == torch.frombuffer(bytearray(raw), dtype=torch.int16, count=3, offset=2).tolist()
    got = torchlike.frombuffer(raw, dtype=torchlike.bfloat16)
    exp = torch.frombuffer(bytearray(raw), dtype=torch.bfloat16)
    assert str(got.dtype) == str(exp.dtype) and got.float().tolist() == exp.float().tolist()
    for fn in (lambda L: L.frombuffer(bytearray(), dtype=L.float32),
               lambda L: L.frombuffer(bytearray(b'abc'), dtype=L.float32),
               lambda L: L.frombuffer(bytearray(b'abcd'), dtype=L.int8, offset=5),
               lambda L: L.frombuffer(bytearray(b'abcd'), dtype=L.int8, count=5),
               lambda L: L.frombuffer([1], dtype=L.int8),
               lambda L: L.frombuffer(bytearray(b'abcd'), dtype=L.int8, requires_grad=True)):
        errs = []
        for L in (torch, torchlike):
            try:
                fn(L)
                errs.append(None)
            except Exception as e:  # noqa: BLE001
                errs.append(type(e).__name__)
        assert errs[0] == errs[1] and errs[0] is not None
    s_th, s_tl = torch.UntypedStorage(5), torchlike.UntypedStorage(5)
    assert s_tl.nbytes() == s_th.nbytes() == len(s_tl) and s_tl.tolist() == [0] * 5
    s_tl[1] = 7
    assert s_tl[1:3].tolist() == [7, 0] and s_tl[1] == 7 and s_tl[1:3].nbytes() == 2
    assert torchlike.asarray(s_tl, dtype=torchlike.uint8).tolist() == [0, 7, 0, 0, 0]


def test_untyped_storage_from_file(tmp_path):
    path = tmp_path / 'blob.bin'
    path.write_bytes(bytes(range(10)))
    s_th = torch.UntypedStorage.from_file(str(path), shared=False, nbytes=10)
    s_tl = torchlike.UntypedStorage.from_file(str(path), shared=False, nbytes=10)
    assert s_tl.tolist() == s_th.tolist() and s_tl.untyped() is s_tl
    s_tl[0] = 99                                           # shared=False: copy-on-write, the file is unchanged
    assert path.read_bytes() == bytes(range(10))
    s_sh = torchlike.UntypedStorage.from_file(str(path), shared=True, nbytes=10)
    s_sh[0] = 42
    del s_sh
    assert path.read_bytes()[0] == 42
