"""Devices and torch.cuda against real torch.

The oracle here is torch's CPU build; torchlike's 'cuda' is JAX's GPUs. On a machine where JAX has no
GPU both must behave as a CPU-only PyTorch; where JAX has GPUs (and torch is still the CPU build) only
the torchlike-side checks of the GPU branch run.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import torchlike
from torchlike._engine.jaxrt import jax
from conftest import assert_same, to_np

HAS_GPU = bool(torchlike._device.gpu_devices())
cpu_only = pytest.mark.skipif(HAS_GPU, reason='JAX has a GPU: torch (CPU build) is no oracle for cuda here')
gpu_only = pytest.mark.skipif(not HAS_GPU, reason='JAX has no GPU')


def outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            return 'ok', fn()
        except Exception as e:     # noqa: BLE001
            return 'err', e


def same_outcome(fn, msg=False):
    """fn(lib) returns equal values or raises the same exception type in both libraries."""
    (ka, a), (kb, b) = outcome(lambda: fn(torchlike)), outcome(lambda: fn(torch))
    assert ka == kb, (a, b)
    if ka == 'err':
        assert type(a) is type(b), (a, b)
        if msg:
            assert str(a) == str(b)
    else:
        if isinstance(b, (torch.Tensor, torch.Generator)) or type(b).__name__ == 'OrderedDict':
            return a, b
        assert a == b, (a, b)
    return a, b


# ---- torch.cuda without GPUs ---------------------------------------------------------------

CUDA_CALLS = ['is_available', 'device_count', 'current_device', 'synchronize', 'get_device_name',
              'get_device_properties', 'get_device_capability', 'empty_cache', 'memory_allocated',
              'max_memory_allocated', 'memory_reserved', 'max_memory_reserved', 'is_bf16_supported', 'is_initialized',
              'init', 'initial_seed', 'seed', 'seed_all', 'get_rng_state', 'get_rng_state_all', 'is_tf32_supported']


@cpu_only
@pytest.mark.parametrize('name', CUDA_CALLS)
def test_cuda_module_without_gpu(name):
    same_outcome(lambda t: getattr(t.cuda, name)(), msg=True)


@cpu_only
def test_cuda_memory_stats_and_seeding_without_gpu():
    a, b = same_outcome(lambda t: t.cuda.memory_stats())
    assert dict(a) == dict(b) == {}
    same_outcome(lambda t: t.cuda.manual_seed(3))
    same_outcome(lambda t: t.cuda.manual_seed_all(3))
    same_outcome(lambda t: t.cuda.set_rng_state(t.zeros(16, dtype=t.uint8)))
    same_outcome(lambda t: tuple(t.cuda.default_generators))
    same_outcome(lambda t: t.cuda.memory_allocated(0))
    same_outcome(lambda t: t.cuda.get_device_properties(0), msg=True)
    same_outcome(lambda t: t.cuda.get_rng_state(0), msg=True)


@cpu_only
@pytest.mark.parametrize('dev', [0, 'cuda:0', 'cuda', 'cpu', -1, torch.device('cpu')], ids=str)
def test_cuda_set_device_without_gpu(dev):
    d = torchlike.device(str(dev)) if isinstance(dev, torch.device) else dev
    (ka, a), (kb, b) = outcome(lambda: torchlike.cuda.set_device(d)), outcome(lambda: torch.cuda.set_device(dev))
    assert ka == kb and (ka == 'ok' or type(a) is type(b)), (a, b)


@cpu_only
@pytest.mark.parametrize('dev', [0, -1, 'cpu'], ids=str)
def test_cuda_device_context_without_gpu(dev):
    def run(t):
        with t.cuda.device(dev):
            return 1
    same_outcome(run)


@cpu_only
@pytest.mark.parametrize('make', [
    lambda t: t.zeros(3).cuda(),
    lambda t: t.zeros(3, device='cuda'),
    lambda t: t.ones(2, 2, device='cuda:0'),
    lambda t: t.tensor([1, 2], device='cuda'),
    lambda t: t.zeros(3).to('cuda'),
    lambda t: t.zeros(3).to('cuda:1'),
    lambda t: t.zeros(3).to(t.device('cuda')),
    lambda t: t.zeros(3).to(device='cuda', dtype=t.float64),
    lambda t: t.rand(3, device='cuda'),
    lambda t: t.randn(3, device='cuda'),
    lambda t: t.randint(0, 5, (3,), device='cuda'),
    lambda t: t.randperm(4, device='cuda'),
    lambda t: t.normal(0., 1., (3,), device='cuda'),
    lambda t: t.rand_like(t.zeros(3), device='cuda'),
    lambda t: t.arange(3, device='cuda'),
    lambda t: t.eye(2, device='cuda'),
    lambda t: t.full((2,), 1., device='cuda'),
])
def test_cuda_tensors_raise_without_gpu(make):
    (ka, a), (kb, b) = outcome(lambda: make(torchlike)), outcome(lambda: make(torch))
    assert ka == kb == 'err'
    assert type(a) is type(b) is AssertionError
    assert str(a) == str(b) == 'Torch not compiled with CUDA enabled'


@cpu_only
def test_generator_cuda_without_gpu():
    same_outcome(lambda t: t.Generator(device='cuda'))
    same_outcome(lambda t: t.Generator('cuda:0'))


@cpu_only
def test_cuda_idiom_picks_cpu():
    for t in (torch, torchlike):
        d = t.device('cuda' if t.cuda.is_available() else 'cpu')
        assert str(d) == 'cpu' and d.type == 'cpu'
        x = t.ones(2, 3, device=d)
        assert x.device == d and not x.is_cuda
        y = t.rand(2, device=d)
        assert y.device.type == 'cpu'


# ---- cpu placement ---------------------------------------------------------------------

@pytest.mark.parametrize('make', [
    lambda t: t.zeros(3),
    lambda t: t.zeros(3).cpu(),
    lambda t: t.zeros(3).to('cpu'),
    lambda t: t.zeros(3).to(t.device('cpu')),
    lambda t: t.zeros(3).to('cpu', t.float64),
    lambda t: t.zeros(3, device='cpu'),
    lambda t: t.zeros(3, device=t.device('cpu')),
    lambda t: t.tensor([1., 2.], device='cpu'),
    lambda t: t.rand(3, device='cpu'),
    lambda t: t.randn(3, device=t.device('cpu')),
    lambda t: t.randint(0, 4, (3,), device='cpu'),
    lambda t: t.randperm(3, device='cpu'),
    lambda t: t.normal(0., 1., (2,), device='cpu'),
    lambda t: t.randn_like(t.zeros(2), device='cpu'),
    lambda t: t.randint_like(t.zeros(2), 3, device='cpu'),
    lambda t: t.rand(3, device='cpu:0'),
])
def test_cpu_tensors(make):
    a, b = make(torchlike), make(torch)
    assert a.device == torchlike.device('cpu')
    assert str(a.device) == str(b.device) == 'cpu'
    assert repr(a.device) == repr(b.device)
    assert a.is_cuda is b.is_cuda is False
    assert a.is_cpu is b.is_cpu is True
    assert a.get_device() == b.get_device() == -1
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)


def test_to_cpu_keeps_values_and_grad():
    for t in (torch, torchlike):
        x = t.tensor([1., 2., 3.], requires_grad=True)
        y = x.to('cpu') * 2
        y.sum().backward()
        assert x.grad.tolist() == [2., 2., 2.]
        assert x.cpu().tolist() == [1., 2., 3.]


def test_xla_device_maps_to_jax_default():
    x = torchlike.zeros(3, device='xla')
    assert next(iter(x._value().devices())) == jax.devices()[0]
    y = torchlike.rand(2, device='xla')
    assert next(iter(y._value().devices())) == jax.devices()[0]
    z = torchlike.ones(2).to('xla')
    assert to_np(z).tolist() == [1., 1.]
    assert torchlike.Generator(device='xla').device.type == 'xla'


def test_import_does_not_start_backend():
    code = ("import torchlike, sys; import torchlike.cuda, torchlike.random; from jax._src import xla_bridge as xb; "
            "torchlike.cuda.manual_seed_all(1); torchlike.cuda.empty_cache(); torchlike.device('cuda'); "
            "assert 'torch' not in sys.modules; assert not xb._backends, 'backend started'")
    subprocess.run([sys.executable, '-c', code], check=True)


def test_cuda_module_is_importable():
    import importlib
    m = importlib.import_module('torchlike.cuda')
    assert m is torchlike.cuda
    r = importlib.import_module('torchlike.random')
    assert r is torchlike.random
    assert hasattr(torchlike.cuda, 'amp') is False or torchlike.cuda.amp is not None


# ---- with GPUs (runs only where JAX has a GPU) -----------------------------------------------

@gpu_only
def test_cuda_with_gpu():
    c = torchlike.cuda
    assert c.is_available() and c.device_count() == len(jax.devices('gpu'))
    assert c.current_device() == 0
    p = c.get_device_properties(0)
    assert p.name == jax.devices('gpu')[0].device_kind and p.total_memory >= 0
    assert isinstance(c.get_device_name(), str)
    x = torchlike.ones(1000, device='cuda')
    c.synchronize()
    assert x.is_cuda and x.device == torchlike.device('cuda', 0) and x.get_device() == 0
    assert c.memory_allocated() > 0 and c.max_memory_allocated() >= c.memory_allocated()
    assert x.cpu().device.type == 'cpu' and torchlike.zeros(2).cuda().is_cuda
    # CUDA generators: seeded by torch.manual_seed, separate from the CPU one
    torchlike.manual_seed(3)
    a = to_np(torchlike.rand(4, device='cuda'))
    torchlike.cuda.manual_seed(3)
    b = to_np(torchlike.rand(4, device='cuda'))
    np.testing.assert_array_equal(a, b)
    st = c.get_rng_state()
    u = to_np(torchlike.randn(3, device='cuda'))
    c.set_rng_state(st)
    np.testing.assert_array_equal(u, to_np(torchlike.randn(3, device='cuda')))
    g = torchlike.Generator(device='cuda')
    assert g.device.type == 'cuda'
    with c.device(0):
        assert c.current_device() == 0
    assert_same(torchlike.ones(2, 3, device='cuda') @ torchlike.ones(3, 2, device='cuda'),
                torch.ones(2, 3) @ torch.ones(3, 2))
