"""torch.save / torch.load against real torch, both ways (Note [Checkpoint format] in torchlike/serialization.py)."""
import collections
import io
import os
import pathlib
import pickle

import numpy as np
import pytest
import torch

import torchlike

from conftest import assert_same, check

DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32', 'int16', 'int8', 'uint8', 'bool',
          'complex64', 'complex128']


def _values(T, dtype):
    x = T.arange(-3, 9).reshape(3, 4)
    if dtype == 'bool':
        return x > 2
    if dtype.startswith('complex'):
        return (x + 0.5j * x).to(getattr(T, dtype))
    return x.to(getattr(T, dtype))


def _payload(T):
    """A checkpoint-shaped object: every dtype, views sharing storage, 0-dim/empty tensors, a model-like
    state_dict with _metadata and an optimizer-like state_dict."""
    base = T.arange(12.).reshape(3, 4)
    sd = collections.OrderedDict([('fc.weight', base), ('fc.bias', T.zeros(4))])
    sd._metadata = collections.OrderedDict([('', {'version': 1}), ('fc', {'version': 1})])
    return {
        'dtypes': {d: _values(T, d) for d in DTYPES},
        'views': [base, base[1], base.t(), base[:, 1:3]],
        'scalar': T.tensor(2.5), 'empty': T.zeros(0, 3),
        'grad': T.ones(2, requires_grad=True),
        'state_dict': sd,
        'optim': {'state': {0: {'step': T.tensor(3.), 'exp_avg': T.ones(4)}},
                  'param_groups': [{'lr': 0.01, 'betas': (0.9, 0.999), 'params': [0]}]},
        'meta': [T.Size([2, 3]), T.float16, T.device('cpu'), 3, 2.5, 'x', None, True, (1, 2)],
    }


def _cmp(tl, th):
    if isinstance(th, torch.Tensor):
        assert_same(tl, th, atol=0, rtol=0)
        assert tl.requires_grad == th.requires_grad
        assert type(tl).__name__ == type(th).__name__
    elif isinstance(th, dict):
        assert type(tl).__name__ == type(th).__name__ and list(tl) == list(th)
        for k in th:
            _cmp(tl[k], th[k])
        assert _plain(getattr(tl, '_metadata', None)) == _plain(getattr(th, '_metadata', None))
    elif isinstance(th, (list, tuple)):
        assert type(tl).__name__ == type(th).__name__ and len(tl) == len(th)
        for a, b in zip(tl, th):
            _cmp(a, b)
    elif isinstance(th, (torch.dtype, torch.device, torch.Size)):
        assert str(tl) == str(th) and repr(tl) == repr(th)
    else:
        assert tl == th and type(tl) is type(th)


def _plain(x):
    return None if x is None else {k: dict(v) for k, v in x.items()}


def test_torch_file_loads_in_torchlike(tmp_path):
    path = tmp_path / 'ckpt.pt'
    torch.save(_payload(torch), path)
    _cmp(torchlike.load(path), torch.load(path))


def test_torchlike_file_loads_in_torch_weights_only(tmp_path):
    path = tmp_path / 'ckpt.pt'
    torchlike.save(_payload(torchlike), path)
    _cmp(torchlike.load(path), torch.load(path, weights_only=True))
    # and equals what torch itself builds
    _cmp(torchlike.load(path), _payload(torch))


def test_views_share_storage_both_ways(tmp_path):
    p1, p2 = tmp_path / 'a.pt', tmp_path / 'b.pt'
    base = torchlike.arange(12.).reshape(3, 4)
    torchlike.save([base, base[1], base.t()], p1)
    a, b, c = torch.load(p1)
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() == c.untyped_storage().data_ptr()
    assert (b.storage_offset(), c.stride()) == (4, (1, 4))
    tb = torch.arange(12.).reshape(3, 4)
    torch.save([tb, tb[1], tb.t()], p2)
    for T, (x, row, t) in ((torch, torch.load(p2)), (torchlike, torchlike.load(p2))):
        x.mul_(10)             # a write through one alias is seen by the others
        np.testing.assert_array_equal(np.asarray(row.tolist()), np.arange(4., 8.) * 10)
        np.testing.assert_array_equal(np.asarray(t.tolist()), np.arange(12.).reshape(3, 4).T * 10)


def test_file_is_pytorchs_zip_layout(tmp_path):
    import zipfile
    path = tmp_path / 'm.pt'
    torchlike.save({'w': torchlike.ones(3)}, path)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        assert names[0] == 'm/data.pkl'
        assert {'m/byteorder', 'm/version', 'm/.format_version', 'm/data/0'} <= set(names)
        raw = path.read_bytes()
        for info in z.infolist():          # every record's data 64-byte aligned, stored uncompressed
            n, m = int.from_bytes(raw[info.header_offset + 26:info.header_offset + 28], 'little'), \
                int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], 'little')
            assert (info.header_offset + 30 + n + m) % 64 == 0 and info.compress_type == zipfile.ZIP_STORED


def test_parameters_and_module_state_dict(tmp_path):
    path = tmp_path / 'p.pt'
    for T in (torch, torchlike):
        T.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    torch.save({'p': torch.nn.Parameter(torch.ones(2)), 'sd': m.state_dict()}, path)
    got = torchlike.load(path)
    assert isinstance(got['p'], torchlike.nn.Parameter) and got['p'].requires_grad
    _cmp(got['sd'], torch.load(path)['sd'])
    tm = torchlike.nn.Sequential(torchlike.nn.Linear(3, 4), torchlike.nn.BatchNorm1d(4))
    tm.load_state_dict(got['sd'])
    torchlike.save({'p': torchlike.nn.Parameter(torchlike.ones(2)), 'sd': tm.state_dict()}, path)
    back = torch.load(path, weights_only=True)
    assert isinstance(back['p'], torch.nn.Parameter)
    m.load_state_dict(back['sd'])
    _cmp(tm.state_dict(), m.state_dict())


def test_file_objects_paths_and_bytesio(tmp_path):
    for f in (io.BytesIO(), str(tmp_path / 's.pt'), pathlib.Path(tmp_path / 'p.pt')):
        torchlike.save({'a': torchlike.arange(3)}, f)
        if isinstance(f, io.BytesIO):
            f.seek(0)
            data = f.getvalue()
            got, ref = torchlike.load(io.BytesIO(data)), torch.load(io.BytesIO(data))
        else:
            got, ref = torchlike.load(f), torch.load(f)
        _cmp(got, ref)


def test_legacy_format(tmp_path):
    path = tmp_path / 'old.pt'
    x = torch.arange(6.).reshape(2, 3)
    torch.save({'a': x, 'b': [torch.arange(3), torch.tensor(True)], 'c': 1.5}, path,
               _use_new_zipfile_serialization=False)
    _cmp(torchlike.load(path), torch.load(path))


class Custom:
    def __init__(self, v=1):
        self.v = v


def test_weights_only_rejects_unknown_globals(tmp_path):
    path = tmp_path / 'c.pt'
    torch.save({'obj': Custom(), 't': torch.ones(1)}, path)
    check(lambda T: T.load(path))                         # pickle.UnpicklingError in both
    for T in (torch, torchlike):
        with pytest.raises(pickle.UnpicklingError, match='add_safe_globals'):
            T.load(path, weights_only=True)
        with T.serialization.safe_globals([Custom]):
            assert T.load(path)['obj'].v == 1
        assert Custom not in T.serialization.get_safe_globals()
        T.serialization.add_safe_globals([Custom])
        try:
            assert T.load(path)['obj'].v == 1
        finally:
            T.serialization.clear_safe_globals()
        assert T.load(path, weights_only=False)['obj'].v == 1


def test_whole_module_with_weights_only_false(tmp_path):
    path = tmp_path / 'model.pt'
    m = torchlike.nn.Sequential(torchlike.nn.Linear(3, 2), torchlike.nn.ReLU())
    torchlike.save(m, path)
    with pytest.raises(pickle.UnpicklingError):
        torchlike.load(path)
    m2 = torchlike.load(path, weights_only=False)
    assert repr(m2) == repr(m)
    x = torchlike.ones(1, 3)
    assert_same(m2(x), torch.tensor(m(x).tolist()), atol=0, rtol=0)


def test_map_location(tmp_path):
    path = tmp_path / 'm.pt'
    torch.save({'a': torch.ones(2)}, path)
    for ml in ('cpu', torch.device('cpu'), {'cpu': 'cpu'}, lambda storage, loc: storage, None):
        tml = torchlike.device('cpu') if isinstance(ml, torch.device) else ml
        _cmp(torchlike.load(path, map_location=tml), torch.load(path, map_location=ml))


def test_mmap(tmp_path):
    path = tmp_path / 'mm.pt'
    torch.save({'a': torch.arange(100.)}, path)
    _cmp(torchlike.load(path, mmap=True), torch.load(path, mmap=True))
    check(lambda T: T.load(io.BytesIO(path.read_bytes()), mmap=True))     # ValueError: needs a path


def test_corrupt_or_truncated_files_raise_like_torch(tmp_path):
    good = tmp_path / 'g.pt'
    torch.save({'a': torch.ones(3)}, good)
    raw = good.read_bytes()
    bad = tmp_path / 'bad.pt'
    for content in (raw[:len(raw) // 2], b'not a checkpoint at all', b''):
        bad.write_bytes(content)
        check(lambda T: T.load(bad))


def test_save_is_atomic(tmp_path):
    path = tmp_path / 'ckpt.pt'
    torchlike.save({'a': torchlike.ones(2)}, path)
    before = path.read_bytes()

    class Boom:
        def __reduce__(self):
            raise RuntimeError('interrupted mid-save')
    with pytest.raises(RuntimeError, match='interrupted'):
        torchlike.save({'a': torchlike.zeros(2), 'b': Boom()}, path)
    assert path.read_bytes() == before                    # the old checkpoint is intact
    assert os.listdir(tmp_path) == ['ckpt.pt']            # and no temporary file is left behind
