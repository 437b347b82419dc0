"""torch.utils.data.DataLoader, default_collate and default_convert against real torch.

Batches are compared one by one (values, dtypes, shapes, and the exact container types of nested
batches), with and without worker processes. torchlike's workers start from a fork server, torch's by
fork (Note [DataLoader workers] in torchlike/utils/data/dataloader.py): the datasets used with workers
are module-level classes returning numpy / Python data or building tensors of the library they are
given by name, and this module imports real torch only inside tests (``_torch()``), so that a
torchlike worker unpickling a dataset class imports this module cheaply. Worker tests use two workers
and tiny datasets; the shuffled order cannot equal torch's (a different random stream), so shuffling
is tested by its properties.
"""
import collections
import importlib
import itertools
import os
import re
import time
import warnings

import numpy as np
import pytest

import torchlike
from torchlike.utils.data import DataLoader, Dataset, get_worker_info, IterableDataset


# torch forks its workers from this (JAX-running) process; they never run JAX, so JAX's warning is moot
pytestmark = pytest.mark.filterwarnings('ignore:os.fork\\(\\) was called:RuntimeWarning')


def _torch():
    import torch
    return torch


Point = collections.namedtuple('Point', ['x', 'y'])


class AttrDict(dict):
    """A dict subclass with an instance attribute: collate and convert must keep both (they copy, then
    update the copy)."""


def attr_dict(**items):
    d = AttrDict(**items)
    d.tag = 'kept'
    return d


# ------------------------------------------------------------------------------------------------
# comparison of nested batches


def assert_tree(tl, th, path='batch'):
    torch = _torch()
    from conftest import assert_same
    if isinstance(th, torch.Tensor):
        assert isinstance(tl, torchlike.Tensor), f'{path}: expected a Tensor, got {type(tl)}'
        assert_same(tl, th, atol=0, rtol=0)
        return
    assert type(tl) is type(th), f'{path}: type {type(tl)} != {type(th)}'
    if isinstance(th, np.ndarray):
        assert tl.dtype == th.dtype and tl.shape == th.shape
        np.testing.assert_array_equal(tl, th)
    elif isinstance(th, collections.abc.Mapping):
        assert list(tl.keys()) == list(th.keys()), path
        for k in th:
            assert_tree(tl[k], th[k], f'{path}[{k!r}]')
        if hasattr(th, '__dict__'):
            assert tl.__dict__ == th.__dict__, path
    elif isinstance(th, (list, tuple)):
        assert len(tl) == len(th), path
        for i, (a, b) in enumerate(zip(tl, th)):
            assert_tree(a, b, f'{path}[{i}]')
    else:
        assert tl == th, f'{path}: {tl!r} != {th!r}'


def both(fn):
    """fn(lib) under torch and torchlike: equal nested results, or the same exception type and message."""
    torch = _torch()
    results = []
    for lib in (torch, torchlike):
        try:
            results.append((fn(lib), None))
        except Exception as e:  # noqa: BLE001 - torch's exception is the expectation
            results.append((None, e))
    (expected, exp_exc), (got, got_exc) = results
    if exp_exc is not None:
        assert got_exc is not None, f'torch raised {exp_exc!r}, torchlike returned {got!r}'
        assert type(got_exc) is type(exp_exc), f'torch raised {exp_exc!r}, torchlike raised {got_exc!r}'
        assert str(got_exc) == str(exp_exc)
        return
    if got_exc is not None:
        raise got_exc
    assert_tree(got, expected)


# ------------------------------------------------------------------------------------------------
# default_collate / default_convert

COLLATE_CASES = {
    'ints': lambda lib: [0, 1, 2, 3],
    'floats': lambda lib: [0.5, 1.0, -2.25],
    'bools': lambda lib: [True, False, True],
    'int_then_float': lambda lib: [1, 2.5],
    'strings': lambda lib: ['a', 'bc', ''],
    'bytes': lambda lib: [b'a', b'bc'],
    'np_arrays': lambda lib: [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)],
    'np_int32': lambda lib: [np.array([1, 2], np.int32), np.array([3, 4], np.int32)],
    'np_uint8': lambda lib: [np.array([1, 255], np.uint8), np.array([3, 4], np.uint8)],
    'np_bool': lambda lib: [np.array([True, False]), np.array([False, False])],
    'np_float16': lambda lib: [np.array([1.5, 2], np.float16), np.array([3, 4], np.float16)],
    'np_0d': lambda lib: [np.array(1.5), np.array(2.5)],
    'np_scalars_f32': lambda lib: [np.float32(1.5), np.float32(2)],
    'np_scalars_i64': lambda lib: [np.int64(7), np.int64(-1)],
    'np_scalars_i16': lambda lib: [np.int16(7), np.int16(-1)],
    'np_scalars_bool': lambda lib: [np.bool_(True), np.bool_(False)],
    'tensors': lambda lib: [lib.arange(6).reshape(2, 3), lib.ones(2, 3, dtype=lib.int64)],
    'tensors_f16': lambda lib: [lib.ones(3, dtype=lib.float16), lib.zeros(3, dtype=lib.float16)],
    'tensors_0d': lambda lib: [lib.tensor(1.5), lib.tensor(2.5)],
    'dicts': lambda lib: [{'a': 1, 'b': 2.0, 's': 'x'}, {'a': 3, 'b': 4.0, 's': 'y'}],
    'ordered_dicts': lambda lib: [collections.OrderedDict(b=1, a=np.ones(2)),
                                  collections.OrderedDict(b=2, a=np.zeros(2))],
    'attr_dicts': lambda lib: [attr_dict(v=1), attr_dict(v=2)],
    'namedtuples': lambda lib: [Point(1, 2.0), Point(3, 4.0)],
    'tuples_become_lists': lambda lib: [(1, 'a', 2.0), (3, 'b', 4.0)],
    'lists': lambda lib: [[1, 2], [3, 4], [5, 6]],
    'nested': lambda lib: [{'img': lib.ones(2, 2), 'meta': (Point(1, np.int32(2)), ['p', 'q']), 'y': [0.5]},
                           {'img': lib.zeros(2, 2), 'meta': (Point(3, np.int32(4)), ['r', 's']), 'y': [1.5]}],
    'tensor_and_label': lambda lib: [(lib.arange(3.), 0), (lib.arange(3.) + 1, 1)],
}


@pytest.mark.parametrize('case', sorted(COLLATE_CASES))
def test_default_collate(case):
    both(lambda lib: lib.utils.data.default_collate(COLLATE_CASES[case](lib)))


COLLATE_ERRORS = {
    'ragged_lists': lambda lib: [[1, 2], [3]],
    'object': lambda lib: [object(), object()],
    'none': lambda lib: [None, None],
    'np_strings': lambda lib: [np.array(['a', 'b']), np.array(['c', 'd'])],
    'np_objects': lambda lib: [np.array([object()]), np.array([object()])],
    'nested_unsupported': lambda lib: [{'a': [1, None]}, {'a': [2, None]}],
}


@pytest.mark.parametrize('case', sorted(COLLATE_ERRORS))
def test_default_collate_errors(case):
    both(lambda lib: lib.utils.data.default_collate(COLLATE_ERRORS[case](lib)))


def test_default_collate_ragged_tensors():
    torch = _torch()
    with pytest.raises(RuntimeError):
        torch.utils.data.default_collate([torch.ones(2), torch.ones(3)])
    with pytest.raises(RuntimeError):
        torchlike.utils.data.default_collate([torchlike.ones(2), torchlike.ones(3)])


CONVERT_CASES = {
    'int': lambda lib: 3,
    'float': lambda lib: 2.5,
    'str': lambda lib: 'text',
    'np_array': lambda lib: np.arange(4, dtype=np.int16),
    'np_float64': lambda lib: np.linspace(0, 1, 5),
    'np_scalar': lambda lib: np.float32(3.5),
    'np_bool_scalar': lambda lib: np.bool_(True),
    'np_str_scalar': lambda lib: np.str_('s'),
    'np_string_array_unchanged': lambda lib: np.array(['a', 'b']),
    'tensor': lambda lib: lib.arange(3),
    'dict': lambda lib: {'a': np.ones(2, np.float32), 'b': 1, 'c': [np.int64(2), 'x']},
    'attr_dict': lambda lib: attr_dict(v=np.ones(1)),
    'namedtuple': lambda lib: Point(np.array(0), np.array(1.5)),
    'tuple_becomes_list': lambda lib: (np.ones(2), 3),
    'list': lambda lib: [np.array([0, 1]), np.array([2, 3])],
    'range_becomes_list': lambda lib: range(3),
    'nested': lambda lib: [{'x': (np.zeros((2, 2), np.float32),)}, Point(np.uint8(3), 'y')],
}


@pytest.mark.parametrize('case', sorted(CONVERT_CASES))
def test_default_convert(case):
    both(lambda lib: lib.utils.data.default_convert(CONVERT_CASES[case](lib)))


def _collate_module(lib):
    return importlib.import_module(lib.__name__ + '.utils.data._utils.collate')


def _double(batch, *, collate_fn_map):
    return [2 * b for b in batch]


def test_collate_fn_map_is_extensible():
    def run(lib):
        mod = _collate_module(lib)
        return mod.collate([{'a': 1, 'b': (2.0, 'u')}, {'a': 3, 'b': (4.0, 'v')}],
                           collate_fn_map={int: _double, float: mod.collate_float_fn, str: mod.collate_str_fn})
    both(run)
    both(lambda lib: _collate_module(lib).collate([2.0, 3.0], collate_fn_map={int: _double}))  # no entry: TypeError


# ------------------------------------------------------------------------------------------------
# datasets (module level: worker processes unpickle them by reference)


class MapDS(Dataset):
    """Samples of mixed types: (int, float, numpy array, str)."""

    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * i, float(i) / 2, np.full((2,), i, np.float32), f's{i}'


class LibTensorDS(Dataset):
    """Samples that are tensors of the library named ``lib`` (imported where the sample is made)."""

    def __init__(self, lib, n=7):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        lib = importlib.import_module(self.lib)
        return {'x': lib.arange(3, dtype=lib.float32) + i, 'y': lib.tensor(i % 3)}


def _worker_info():
    """get_worker_info() of whichever library's worker this is (torch's workers are forked from pytest)."""
    import sys
    info = get_worker_info()
    real_torch = sys.modules.get('torch')
    if info is None and real_torch is not None and real_torch is not torchlike:
        info = real_torch.utils.data.get_worker_info()
    return info


class _RangeIter:
    """range(start, stop), split between workers by get_worker_info() (torch's documented recipe);
    in a worker each sample is (value, worker id, num_workers)."""

    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __len__(self):
        return self.stop - self.start

    def __iter__(self):
        info = _worker_info()
        if info is None:
            return iter(range(self.start, self.stop))
        return iter((i, info.id, info.num_workers) for i in range(self.start + info.id, self.stop, info.num_workers))


class RangeIterDS(_RangeIter, IterableDataset):
    pass


def range_iter_ds(lib, start, stop):
    if lib is torchlike:
        return RangeIterDS(start, stop)
    # torch forks its workers, so its dataset class need not be importable
    return type('RangeIterDS', (_RangeIter, lib.utils.data.IterableDataset), {})(start, stop)


class WorkerReport(Dataset):
    """Each sample reports (index, worker id, num_workers, seed - worker id, pid)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = _worker_info()
        return i, info.id, info.num_workers, info.seed - info.id, os.getpid()


class FailingDS(Dataset):
    def __init__(self, exc_type, at=5):
        self.exc_type, self.at = exc_type, at

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.at:
            raise self.exc_type(f'bad index {i}')
        return i


class CrashingDS(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 3:
            os._exit(3)
        return i


class SlowDS(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 1:
            time.sleep(1.5)
        return i


def _init_marker(worker_id):
    os.environ['DL_TEST_WORKER_INIT'] = str(worker_id)


class InitMarkerDS(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i, int(os.environ.get('DL_TEST_WORKER_INIT', -1))


# ------------------------------------------------------------------------------------------------
# single-process loading

MAP_CONFIGS = {
    'default': dict(),
    'batch3': dict(batch_size=3),
    'batch4_drop_last': dict(batch_size=4, drop_last=True),
    'batch_none': dict(batch_size=None),
    'custom_collate': dict(batch_size=3, collate_fn=lambda batch: [b[0] for b in batch]),
    'batch_sampler': dict(batch_sampler=[[0, 1], [5, 2, 3], [9]]),
    'sampler_list': dict(sampler=[9, 0, 4, 4], batch_size=3),
}


@pytest.mark.parametrize('config', sorted(MAP_CONFIGS))
def test_map_style_batches_and_len(config):
    def run(lib):
        loader = lib.utils.data.DataLoader(MapDS(), **MAP_CONFIGS[config])
        return len(loader), list(loader), list(loader)    # two epochs
    both(run)


def test_tensor_dataset_batches():
    both(lambda lib: list(lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(lib.arange(10.).reshape(5, 2), lib.arange(5)), batch_size=2)))


def test_lib_tensor_samples():
    both(lambda lib: list(lib.utils.data.DataLoader(LibTensorDS(lib.__name__), batch_size=3)))


@pytest.mark.parametrize('kw', [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)])
def test_iterable_dataset(kw):
    def run(lib):
        loader = lib.utils.data.DataLoader(range_iter_ds(lib, 2, 12), **kw)
        return len(loader), list(loader)
    both(run)


def test_iterable_len_warning():
    class Longer(IterableDataset):
        def __len__(self):
            return 2

        def __iter__(self):
            return iter(range(4))

    torch = _torch()

    class TorchLonger(torch.utils.data.IterableDataset):
        __len__, __iter__ = Longer.__len__, Longer.__iter__

    msgs = []
    for loader in (torch.utils.data.DataLoader(TorchLonger(), batch_size=None),
                   DataLoader(Longer(), batch_size=None)):
        len(loader)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            list(loader)
        msgs.append([re.sub(r'object at 0x[0-9a-f]+', '', str(x.message)).replace('TorchLonger', 'Longer')
                     for x in w])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 2


def test_get_worker_info_in_main_process():
    assert get_worker_info() is None and _torch().utils.data.get_worker_info() is None


VALIDATION = {
    'negative_workers': dict(num_workers=-1),
    'negative_timeout': dict(timeout=-1),
    'prefetch_without_workers': dict(prefetch_factor=2),
    'negative_prefetch': dict(num_workers=1, prefetch_factor=-1),
    'persistent_without_workers': dict(persistent_workers=True),
    'sampler_and_shuffle': dict(sampler=[0, 1], shuffle=True),
    'batch_sampler_and_batch_size': dict(batch_sampler=[[0]], batch_size=2),
    'batch_sampler_and_shuffle': dict(batch_sampler=[[0]], shuffle=True),
    'batch_sampler_and_sampler': dict(batch_sampler=[[0]], sampler=[0]),
    'batch_sampler_and_drop_last': dict(batch_sampler=[[0]], drop_last=True),
    'batch_none_and_drop_last': dict(batch_size=None, drop_last=True),
    'context_without_workers': dict(multiprocessing_context='spawn'),
    'bad_context_string': dict(num_workers=1, multiprocessing_context='nope'),
    'bad_context_type': dict(num_workers=1, multiprocessing_context=3),
}


@pytest.mark.parametrize('case', sorted(VALIDATION))
def test_validation_errors(case):
    both(lambda lib: lib.utils.data.DataLoader(MapDS(), **VALIDATION[case]))


ITERABLE_VALIDATION = {'shuffle': dict(shuffle=True), 'sampler': dict(sampler=[0]),
                       'batch_sampler': dict(batch_sampler=[[0]])}


@pytest.mark.parametrize('case', sorted(ITERABLE_VALIDATION))
def test_iterable_validation_errors(case):
    def run(lib):
        ds = range_iter_ds(lib, 0, 3)
        msg = None
        try:
            lib.utils.data.DataLoader(ds, **ITERABLE_VALIDATION[case])
        except ValueError as e:
            msg = re.sub(r'0x[0-9a-f]+', '', str(e))
        return msg
    both(run)


def test_attributes_frozen_after_init():
    both(lambda lib: setattr(lib.utils.data.DataLoader(MapDS()), 'batch_size', 3))
    both(lambda lib: setattr(lib.utils.data.DataLoader(MapDS()), 'dataset', None))
    loader = DataLoader(MapDS())
    loader.num_workers = 0      # not frozen, as in torch
    assert loader.batch_size == 1 and loader.sampler.__class__.__name__ == 'SequentialSampler'


def test_timeout_without_workers_asserts():
    both(lambda lib: iter(lib.utils.data.DataLoader(MapDS(), timeout=1)))


def test_pin_memory():
    """Without an accelerator torch warns and loads unpinned; torchlike does the same (and with one it
    pins without warning). The batches are unchanged either way."""
    torch = _torch()
    out = []
    for lib in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            batches = list(lib.utils.data.DataLoader(MapDS(4), batch_size=2, pin_memory=True))
        out.append((batches, [str(x.message) for x in w if 'pin_memory' in str(x.message)]))
    assert_tree(out[1][0], out[0][0])
    assert len(out[0][1]) == 1        # torch (CPU-only build) warns
    assert out[1][1] == ([] if torchlike.cuda.is_available() else out[0][1])


def test_shuffle_is_a_reproducible_permutation():
    def epoch(loader):
        return [int(v) for batch in loader for v in batch]

    g = torchlike.Generator().manual_seed(0)
    loader = DataLoader(list(range(20)), batch_size=3, shuffle=True, generator=g)
    first, second = epoch(loader), epoch(loader)
    assert sorted(first) == list(range(20)) and sorted(second) == list(range(20))
    assert first != list(range(20)) and first != second      # reshuffled every epoch
    again = DataLoader(list(range(20)), batch_size=3, shuffle=True, generator=torchlike.Generator().manual_seed(0))
    assert epoch(again) == first and epoch(again) == second   # same seed, same sequence of epochs
    other = DataLoader(list(range(20)), batch_size=3, shuffle=True, generator=torchlike.Generator().manual_seed(1))
    assert epoch(other) != first
    assert type(DataLoader(list(range(4)), shuffle=True).sampler).__name__ == 'RandomSampler'
    assert [len(b) for b in loader] == [3] * 6 + [2]


# ------------------------------------------------------------------------------------------------
# worker processes


def test_workers_map_style_and_persistent_workers():
    def run(lib):
        out = [list(lib.utils.data.DataLoader(MapDS(9), batch_size=2, num_workers=2))]
        persistent = lib.utils.data.DataLoader(WorkerReport(), batch_size=3, num_workers=2, persistent_workers=True,
                                      prefetch_factor=1)
        epochs = [list(persistent), list(itertools.islice(persistent, 1)), list(persistent)]  # one cut short
        # (index, worker id, num_workers) per sample, epoch by epoch: the round-robin assignment is torch's
        out.append([[[row[:3] for row in zip(*[t.tolist() for t in b])] for b in e] for e in epochs])
        pids = [{int(p) for b in e for p in b[4]} for e in epochs]
        seeds = {int(s) for e in epochs for b in e for s in b[3]}
        out.append((len(pids[0]), pids[0] == pids[1] == pids[2], os.getpid() in pids[0], len(seeds)))
        return out
    both(run)


def test_workers_tensor_samples_and_tensor_dataset():
    def run(lib):
        ds = lib.utils.data.TensorDataset(lib.arange(12.).reshape(6, 2), lib.arange(6))
        return (list(lib.utils.data.DataLoader(LibTensorDS(lib.__name__), batch_size=2, num_workers=2)),
                list(lib.utils.data.DataLoader(ds, batch_size=4, num_workers=2, timeout=60)))
    both(run)


def test_workers_iterable_sharding_and_spawn():
    def run(lib):
        loader = lib.utils.data.DataLoader(range_iter_ds(lib, 0, 11), batch_size=2, num_workers=2,
                                           worker_init_fn=_init_marker)
        # torchlike's 'spawn' workers must give what torch's (forked) ones give
        spawned = lib.utils.data.DataLoader(LibTensorDS(lib.__name__, 3), num_workers=2,
                                   multiprocessing_context='spawn' if lib is torchlike else None)
        return len(loader), list(loader), list(spawned)
    both(run)


def test_workers_init_fn_and_in_order_false():
    def run(lib):
        ordered = list(lib.utils.data.DataLoader(InitMarkerDS(), batch_size=None, num_workers=2,
                                                 worker_init_fn=_init_marker))
        unordered = list(lib.utils.data.DataLoader(MapDS(8), batch_size=2, num_workers=2, in_order=False))
        return ordered, sorted(int(v) for b in unordered for v in b[0])
    both(run)


@pytest.mark.parametrize('exc_type', [ValueError, KeyError])
def test_worker_exception_is_reraised_with_traceback(exc_type):
    lines = []
    for lib in (_torch(), torchlike):
        it = iter(lib.utils.data.DataLoader(FailingDS(exc_type), batch_size=2, num_workers=2))
        with pytest.raises(exc_type) as info:
            list(it)
        lines.append(str(info.value).rstrip('\n').split('\n'))
        if lib is not torchlike:
            # torch's iterator is now in a reference cycle with the traceback, and its workers would wait
            # 5 s each at collection (see _WorkerPool in dataloader.py): stop them now
            it._shutdown_workers()
        del it, info
    torch_lines, got = lines
    assert torch_lines[:2] == [f'Caught {exc_type.__name__} in DataLoader worker process 0.',
                               'Original Traceback (most recent call last):']
    assert got[:2] == torch_lines[:2]
    assert got[-1] == torch_lines[-1] and 'bad index 5' in got[-1]     # the original exception line
    assert any('in __getitem__' in line for line in got)               # the worker's frames


def test_workers_stop_when_an_iterator_in_a_cycle_is_collected():
    import gc
    it = iter(DataLoader(FailingDS(ValueError), batch_size=2, num_workers=2))
    try:
        list(it)
    except ValueError as e:
        kept = e          # the exception's traceback holds the iterator's frames: a reference cycle
    workers = list(it._workers)
    assert all(w.is_alive() for w in workers)
    del it, kept
    start = time.monotonic()
    gc.collect()
    for w in workers:
        w.join(timeout=10)
    assert time.monotonic() - start < 2.5 and [w.exitcode for w in workers] == [0, 0]


def test_crashed_worker_raises():
    for lib in (_torch(), torchlike):
        start = time.monotonic()
        with pytest.raises(RuntimeError, match=r'^DataLoader worker \(pid\(s\) \d+\) exited unexpectedly$'):
            list(lib.utils.data.DataLoader(CrashingDS(), batch_size=2, num_workers=2))
        assert time.monotonic() - start < 30


def test_worker_timeout():
    msgs = []
    for lib in (_torch(), torchlike):
        with pytest.raises(RuntimeError) as info:
            list(lib.utils.data.DataLoader(SlowDS(), batch_size=None, num_workers=2, timeout=0.5))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1] == 'DataLoader timed out after 0.5 seconds'


def test_fork_context_is_refused():
    import multiprocessing
    for ctx in ('fork', multiprocessing.get_context('fork')):
        with pytest.raises(NotImplementedError, match="multiprocessing_context='fork'"):
            DataLoader(MapDS(), num_workers=2, multiprocessing_context=ctx)
    DataLoader(MapDS(), num_workers=2, multiprocessing_context='spawn')   # accepted


RUNNER_SCRIPT = """
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Squares(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return torch.tensor([i * i], dtype=torch.float32), get_worker_info().id


if __name__ == '__main__':
    w = torch.ones(1)       # the main process computes before its workers start
    for x, wid in DataLoader(Squares(), batch_size=2, num_workers=2):
        print((x + w).tolist(), wid.tolist(), x.dtype, wid.dtype, x.device)
"""


def test_unchanged_script_with_workers_under_the_runner(tmp_path):
    """A PyTorch script whose dataset lives in its __main__ runs under ``python -m torchlike`` with
    workers (they re-import the script, with ``torch`` aliased) and prints what it prints under torch, in lazy
    (the default) and in eager mode."""
    import subprocess
    import sys
    script = tmp_path / 'train.py'
    script.write_text(RUNNER_SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith('PYTEST')}
    outs = [subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
            for cmd in ([sys.executable, str(script)], [sys.executable, '-m', 'torchlike', str(script)],
                        [sys.executable, '-m', 'torchlike', '--mode', 'eager', str(script)])]
    for out in outs:
        assert out.returncode == 0, out.stderr
    assert outs[1].stdout == outs[2].stdout == outs[0].stdout and outs[0].stdout.count('\n') == 4


def test_too_many_workers_warning():
    count = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()
    msgs = []
    for lib in (_torch(), torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.utils.data.DataLoader(MapDS(), num_workers=count + 1)
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1 and f'create {count + 1} worker processes' in msgs[0][0]
