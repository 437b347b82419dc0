"""Determinism and precision flags (torch.use_deterministic_algorithms, set_float32_matmul_precision,
torch.backends.*) against real torch, their effect on JAX/XLA, and same-seed => bit-identical training."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import torchlike
from torchlike import _determinism
from torchlike._engine import registry
from torchlike._engine.jaxrt import jax


def _snapshot(lib):
    return (lib.are_deterministic_algorithms_enabled(), lib.is_deterministic_algorithms_warn_only_enabled(),
            lib.get_float32_matmul_precision(), lib.backends.cudnn.enabled, lib.backends.cudnn.benchmark,
            lib.backends.cudnn.deterministic, lib.backends.cudnn.allow_tf32)


def _restore(lib, snap):
    det, warn, prec, _enabled, bench, cdet, tf32 = snap
    lib.use_deterministic_algorithms(det, warn_only=warn)
    lib.set_float32_matmul_precision(prec)
    lib.backends.cudnn.benchmark = bench
    lib.backends.cudnn.deterministic = cdet
    lib.backends.cudnn.allow_tf32 = tf32


@pytest.fixture(autouse=True)
def _keep_flags():
    """Every test leaves both libraries' global flags as it found them."""
    # torch.testing's common_utils (imported by the OpInfo tests in the same worker) freezes torch's cudnn
    # flags with disable_global_flags(); this test file compares the settable behaviour, so it lifts that
    allow = getattr(torch.backends, '__allow_nonbracketed_mutation')
    with allow():
        snaps = [(lib, _snapshot(lib)) for lib in (torch, torchlike)]
        env = os.environ.get('XLA_FLAGS')
        yield
        for lib, s in snaps:
            _restore(lib, s)
    if env is None:
        os.environ.pop('XLA_FLAGS', None)
    else:
        os.environ['XLA_FLAGS'] = env


def _observe(lib, steps):
    """Run ``steps`` (callables of lib) and record each result or exception type, plus the flags after it."""
    out = []
    for step in steps:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try:
                r = step(lib)
                out.append(('ok', r))
            except Exception as e:  # noqa: BLE001 - the oracle's exception type is the expectation
                out.append(('raise', type(e).__name__))
        out.append(('warned', sorted({x.category.__name__ for x in w})))
        out.append(_snapshot(lib))
    return out


def _same(steps):
    assert _observe(torchlike, steps) == _observe(torch, steps)


def test_defaults_match_torch():
    assert _snapshot(torchlike) == _snapshot(torch)
    assert torchlike.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
    assert torchlike.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
    assert torchlike.backends.mps.is_available() == torch.backends.mps.is_available()
    assert torchlike.backends.mps.is_built() == torch.backends.mps.is_built()
    # both are CPU-only builds here: no cuDNN, no CUDA
    assert torchlike.backends.cudnn.is_available() == torch.backends.cudnn.is_available()
    assert torchlike.backends.cudnn.version() == torch.backends.cudnn.version()
    assert torchlike.backends.cuda.is_built() == torch.backends.cuda.is_built()
    assert torchlike.backends.cudnn.benchmark_limit == torch.backends.cudnn.benchmark_limit
    assert not hasattr(torchlike, 'set_deterministic') and not hasattr(torch, 'set_deterministic')


def test_use_deterministic_algorithms_sequence():
    _same([
        lambda t: t.use_deterministic_algorithms(True),
        lambda t: t.get_deterministic_debug_mode(),
        lambda t: t.use_deterministic_algorithms(True, warn_only=True),
        lambda t: t.get_deterministic_debug_mode(),
        lambda t: t.use_deterministic_algorithms(False, warn_only=True),
        lambda t: t.use_deterministic_algorithms(1),
        lambda t: t.use_deterministic_algorithms(None),
        lambda t: t.use_deterministic_algorithms(True, warn_only=1),
        lambda t: t.use_deterministic_algorithms(mode=False),
    ])


@pytest.mark.parametrize('mode', ['default', 'warn', 'error', 0, 1, 2, 3, -1, 'x', None, 1.0, True, False])
def test_deterministic_debug_mode(mode):
    _same([lambda t: t.set_deterministic_debug_mode(mode), lambda t: t.get_deterministic_debug_mode()])


def test_float32_matmul_precision_sequence():
    _same([
        lambda t: t.set_float32_matmul_precision('high'),
        lambda t: t.backends.cuda.matmul.allow_tf32,
        lambda t: t.set_float32_matmul_precision('medium'),
        lambda t: t.backends.cuda.matmul.allow_tf32,
        lambda t: t.set_float32_matmul_precision('HIGH'),      # warns, no effect
        lambda t: t.set_float32_matmul_precision('bad'),
        lambda t: t.set_float32_matmul_precision(None),
        lambda t: t.set_float32_matmul_precision(3),
        lambda t: t.set_float32_matmul_precision('highest'),
        lambda t: setattr(t.backends.cuda.matmul, 'allow_tf32', True),
        lambda t: t.get_float32_matmul_precision(),
        lambda t: setattr(t.backends.cuda.matmul, 'allow_tf32', False),
        lambda t: t.get_float32_matmul_precision(),
        lambda t: setattr(t.backends.cuda.matmul, 'allow_tf32', 1),
        lambda t: t.backends.cuda.matmul.no_such_flag,
        lambda t: setattr(t.backends.cuda.matmul, 'no_such_flag', True),
    ])


def test_cudnn_flags_sequence():
    def in_flags(t):
        with t.backends.cudnn.flags(enabled=True, benchmark=True, deterministic=True, allow_tf32=False):
            inside = _snapshot(t)
        return inside

    _same([
        lambda t: setattr(t.backends.cudnn, 'deterministic', True),
        lambda t: setattr(t.backends.cudnn, 'benchmark', True),
        lambda t: setattr(t.backends.cudnn, 'allow_tf32', False),
        lambda t: setattr(t.backends.cudnn, 'deterministic', 1),
        lambda t: setattr(t.backends.cudnn, 'benchmark', None),
        lambda t: setattr(t.backends.cudnn, 'allow_tf32', 'yes'),
        lambda t: setattr(t.backends.cudnn, 'enabled', 0),
        lambda t: setattr(t.backends.cudnn, 'enabled', True),
        in_flags,
        lambda t: t.backends.cudnn.is_acceptable(t.ones(2)),
    ])


def test_cudnn_disable_is_refused_not_ignored():
    # XLA picks cuDNN itself; accepting enabled=False and ignoring it would be a silent lie
    with pytest.raises(NotImplementedError, match='cudnn.enabled'):
        torchlike.backends.cudnn.enabled = False
    assert torchlike.backends.cudnn.enabled is True


# ---- effect on JAX ----------------------------------------------------------------------------

def test_precision_reaches_jax():
    cfg = lambda: jax.config.jax_default_matmul_precision  # noqa: E731
    assert cfg() == 'highest'                      # torch's default, not JAX's DEFAULT (TF32 on GPUs)
    torchlike.set_float32_matmul_precision('high')
    assert cfg() == 'high'
    torchlike.set_float32_matmul_precision('medium')
    assert cfg() == 'bfloat16'
    torchlike.backends.cudnn.allow_tf32 = False    # convolutions must stay float32: XLA has one switch
    assert cfg() == 'highest'
    torchlike.backends.cudnn.allow_tf32 = True
    assert cfg() == 'bfloat16'
    torchlike.backends.cuda.matmul.allow_tf32 = False
    assert cfg() == 'highest'


def _mm_program():
    """torchlike.mm's cached jitted program for 8x8 float32 inputs (and the inputs)."""
    a = torchlike.randn(8, 8)
    torchlike.mm(a, a)
    fns = [f for f in registry.REGISTRY['mm'].cache.values() if hasattr(f, '_cache_size')]
    return a, fns


def test_precision_change_recompiles_cached_op_programs(eager_mode):
    """The op cache holds jitted programs; JAX keys them on the precision config, so a change must compile
    a new executable instead of running the old one (eager: in lazy mode the op is recorded, not run)."""
    a, fns = _mm_program()
    sizes = [f._cache_size() for f in fns]
    torchlike.set_float32_matmul_precision('medium')
    r = torchlike.mm(a, a)
    grown = [f for f, s in zip(fns, sizes) if f._cache_size() > s]
    assert len(grown) == 1, 'the cached mm program was not recompiled for the new precision'
    torchlike.set_float32_matmul_precision('highest')
    # on the CPU the precision does not change float32 results
    np.testing.assert_array_equal(np.asarray(r._materialize()), np.asarray(torchlike.mm(a, a)._materialize()))


def test_precision_reaches_op_programs():
    a, fns = _mm_program()
    x = a._materialize()
    torchlike.set_float32_matmul_precision('medium')
    assert all('precision = [DEFAULT, DEFAULT]' in f.lower(x, x).as_text() for f in fns)
    torchlike.set_float32_matmul_precision('highest')
    assert all('precision = [HIGHEST, HIGHEST]' in f.lower(x, x).as_text() for f in fns)


_FRESH = r'''
import os, warnings
os.environ.pop('XLA_FLAGS', None)
import torchlike
flag = '--xla_gpu_deterministic_ops=true'
torchlike.use_deterministic_algorithms(True)
a = flag in os.environ.get('XLA_FLAGS', '').split()
torchlike.use_deterministic_algorithms(False)
b = flag in os.environ.get('XLA_FLAGS', '').split()
torchlike.backends.cudnn.deterministic = True
c = flag in os.environ.get('XLA_FLAGS', '').split()
torchlike.ones(2).sum().item()                     # starts the backend with the flag set
from jax._src import xla_bridge
torchlike.backends.cudnn.deterministic = False       # too late to take it back: stays
d = flag in os.environ.get('XLA_FLAGS', '').split()
print(a, b, c, d, xla_bridge.backends_are_initialized())
'''


def test_xla_deterministic_flag_before_backend_start():
    r = subprocess.run([sys.executable, '-c', _FRESH], capture_output=True, text=True, timeout=120,
                       env={k: v for k, v in os.environ.items() if k != 'XLA_FLAGS'})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['True', 'False', 'True', 'True', 'True']


def test_xla_deterministic_flag_after_backend_start(monkeypatch):
    torchlike.ones(1).sum().item()                 # the backend is running in this process
    os.environ['XLA_FLAGS'] = ''
    with warnings.catch_warnings():
        warnings.simplefilter('error')             # the CPU is deterministic already: no warning
        torchlike.use_deterministic_algorithms(True)
    assert os.environ['XLA_FLAGS'] == ''           # a flag set now would not be read: not added
    torchlike.use_deterministic_algorithms(False)
    # a running GPU backend without the flag cannot be made deterministic any more: warn
    monkeypatch.setattr(_determinism, '_gpu_backend_running', lambda: True)
    with pytest.warns(UserWarning, match='xla_gpu_deterministic_ops'):
        torchlike.use_deterministic_algorithms(True)
    with pytest.warns(UserWarning, match='xla_gpu_deterministic_ops'):
        torchlike.backends.cudnn.deterministic = True
    os.environ['XLA_FLAGS'] = '--xla_gpu_deterministic_ops=true'
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        torchlike.use_deterministic_algorithms(True)


# ---- reproducibility --------------------------------------------------------------------------

def _train(seed):
    t = torchlike
    t.manual_seed(seed)
    model = t.nn.Sequential(t.nn.Linear(6, 16), t.nn.ReLU(), t.nn.Dropout(0.3), t.nn.Linear(16, 3))
    opt = t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    xs, ys = t.randn(40, 6), t.randint(0, 3, (40,))
    loader = t.utils.data.DataLoader(t.utils.data.TensorDataset(xs, ys), batch_size=8, shuffle=True)
    for _ in range(2):
        for x, y in loader:
            opt.zero_grad()
            t.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    return [np.asarray(p.detach()._materialize()).copy() for p in model.parameters()]


def test_same_seed_bit_identical_training():
    torchlike.use_deterministic_algorithms(True)
    a, b, c = _train(7), _train(7), _train(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert any(not np.array_equal(x, y) for x, y in zip(a, c))


# ---- fill_uninitialized_memory -----------------------------------------------------------------

@pytest.fixture
def _keep_fill_flag():
    """torch.utils.deterministic.fill_uninitialized_memory is not in _snapshot; restore it here."""
    before = [(lib, lib.utils.deterministic.fill_uninitialized_memory) for lib in (torch, torchlike)]
    yield
    for lib, v in before:
        lib.utils.deterministic.fill_uninitialized_memory = v


def test_fill_uninitialized_memory_flag(_keep_fill_flag):
    def set_fill(v):
        def step(t):
            t.utils.deterministic.fill_uninitialized_memory = v
            return t.utils.deterministic.fill_uninitialized_memory
        return step
    _same([
        lambda t: t.utils.deterministic.fill_uninitialized_memory,      # default True
        set_fill(False), set_fill(True),
        set_fill(1), set_fill(None), set_fill('yes'),                   # only a real bool: RuntimeError
        lambda t: t.utils.deterministic.fill_uninitialized_memory,
    ])


_FILL_DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128', 'int8', 'uint8', 'int16',
                'int32', 'int64', 'uint16', 'uint32', 'uint64', 'bool']


def _np(x):
    if isinstance(x, torch.Tensor):
        return (x.float() if x.dtype == torch.bfloat16 else x).numpy()
    return np.asarray(x._materialize()).astype(np.float32) if x.dtype == torchlike.bfloat16 \
        else np.asarray(x._materialize())


def _check_filled(make, warn_only=False):
    """make(lib) under use_deterministic_algorithms(True): torchlike's contents equal torch's (NaN,
    NaN+0j, the integer maximum, True)."""
    out = []
    for lib in (torch, torchlike):
        lib.use_deterministic_algorithms(True, warn_only=warn_only)
        out.append(make(lib))
    th, tl = out
    assert str(tl.dtype) == str(th.dtype) and tuple(tl.shape) == tuple(th.shape)
    assert tl.requires_grad == th.requires_grad
    np.testing.assert_array_equal(_np(tl.detach()), _np(th.detach()))   # NaN == NaN here
    return th


@pytest.mark.parametrize('dtype', _FILL_DTYPES)
def test_empty_filled_under_determinism(dtype):
    th = _check_filled(lambda t: t.empty(2, 3, dtype=getattr(t, dtype)))
    assert th.numel() == 6 and not (_np(th) == 0).all()        # the oracle filled it (it is not zeros)


@pytest.mark.parametrize('make', [
    lambda t: t.empty((2, 3)),
    lambda t: t.empty(4, requires_grad=True),
    lambda t: t.empty_like(t.ones(2, 2, dtype=t.int32)),
    lambda t: t.empty_like(t.ones(3), dtype=t.float64),
    lambda t: t.empty_strided((2, 3), (1, 2)),
    lambda t: t.empty_strided((2, 3), (3, 1), dtype=t.int16),
    lambda t: t.empty(5, out=t.ones(2)),                 # the out tensor is resized and filled
], ids=['size', 'requires_grad', 'like', 'like_dtype', 'strided', 'strided_int', 'out'])
def test_empty_variants_filled_under_determinism(make):
    _check_filled(make)


def test_empty_filled_under_warn_only():
    _check_filled(lambda t: t.empty(3), warn_only=True)


def test_new_empty_filled_under_determinism():
    _check_filled(lambda t: t.ones(2, dtype=t.float64).new_empty(3))


@pytest.mark.parametrize('det,fill', [(True, False), (False, True)])
def test_no_fill_unless_both_flags(det, fill, _keep_fill_flag):
    # torch's contents are then arbitrary (it answers only dtype and shape); torchlike must not fill
    out = []
    for lib in (torch, torchlike):
        lib.use_deterministic_algorithms(det)
        lib.utils.deterministic.fill_uninitialized_memory = fill
        out.append((lib.empty(3), lib.empty(3, dtype=lib.int32)))
    for th, tl in zip(*out):
        assert str(tl.dtype) == str(th.dtype) and tuple(tl.shape) == tuple(th.shape)
    f, i = out[1]
    assert not np.isnan(_np(f)).any() and not (_np(i) == np.iinfo(np.int32).max).any()
