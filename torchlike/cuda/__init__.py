"""torch.cuda on JAX: 'cuda' devices are JAX's GPUs.

Without GPUs (a CPU-only JAX) this module behaves as a CPU-only build of PyTorch: ``is_available()`` is
False, ``device_count()`` is 0, calls that need a device raise AssertionError("Torch not compiled with CUDA
enabled"), and the seeding calls are deferred (applied if generators are ever created), as torch queues
them. With GPUs, properties come from the JAX device objects and memory figures from XLA's allocator
statistics (``Device.memory_stats()``): 'allocated' is XLA's bytes in use, 'reserved' its pool.
"""
import collections

from .._device import gpu_devices, cuda_current, device as _torch_device
from .._ops import random as _r

_state = {'initialized': False}


def is_available():
    return bool(gpu_devices())


def device_count():
    return len(gpu_devices())


def is_initialized():
    return _state['initialized']


def _lazy_init():
    if _state['initialized']:
        return
    if not gpu_devices():
        raise AssertionError("Torch not compiled with CUDA enabled")
    _state['initialized'] = True


def init():
    _lazy_init()


def _get_device_index(device, optional=False):
    """An int index for a cuda device given as int, str or torch.device (None: the current device)."""
    if device is None:
        return current_device() if optional else -1
    if isinstance(device, str):
        device = _torch_device(device)
    if isinstance(device, _torch_device):
        if device.type != 'cuda':
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if device.index is None:
            if not optional:
                raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
            return current_device()
        return device.index
    if isinstance(device, bool) or not isinstance(device, int):
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    return device


def _jax_gpu(device=None):
    _lazy_init()
    idx = _get_device_index(device, optional=True)
    gpus = gpu_devices()
    if not 0 <= idx < len(gpus):
        raise AssertionError("Invalid device id")
    return gpus[idx]


def current_device():
    _lazy_init()
    return cuda_current[0]


def set_device(device):
    idx = _get_device_index(device)
    if idx < 0:
        return
    if not gpu_devices():
        # torch's CPU build fails here with an AttributeError (its C module has no _cuda_setDevice)
        raise AttributeError("torch.cuda.set_device: no CUDA device (JAX reports no GPU)")
    _lazy_init()
    if idx >= len(gpu_devices()):
        raise RuntimeError("CUDA error: invalid device ordinal")
    cuda_current[0] = idx


class device:
    """Context manager that changes the current CUDA device."""

    def __init__(self, device):
        self.idx = -1 if device is None else _get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return
        if not gpu_devices():
            raise RuntimeError("torchlike: no CUDA device (JAX reports no GPU)")
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            set_device(self.idx)

    def __exit__(self, *args):
        if self.idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager that makes the device of ``obj`` (a Tensor) current, if it is a CUDA tensor."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def synchronize(device=None):
    """Wait for the work queued on the device: XLA runs a device's programs in order, so a trivial program
    queued after them completes after them."""
    d = _jax_gpu(device)
    from .._engine.jaxrt import jax, jnp
    _sync_fn(jax.device_put(jnp.zeros((), jnp.int32), d)).block_until_ready()


def _sync_fn(x):
    from .._engine.jaxrt import jax
    f = _SYNC.get('f')
    if f is None:
        f = _SYNC['f'] = jax.jit(lambda v: v + 1)
    return f(x)


_SYNC = {}


class _CudaDeviceProperties:
    """What torch.cuda.get_device_properties returns, filled from the JAX device."""

    def __init__(self, d):
        self.name = getattr(d, 'device_kind', 'GPU')
        cc = str(getattr(d, 'compute_capability', '0.0'))
        major, _, minor = cc.partition('.')
        self.major = int(major) if major.isdigit() else 0
        self.minor = int(minor) if minor.isdigit() else 0
        stats = _stats(d)
        self.total_memory = int(stats.get('bytes_limit', 0))
        self.multi_processor_count = int(getattr(d, 'core_count', 0) or 0)
        self.is_integrated = False
        self.is_multi_gpu_board = False

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    return _CudaDeviceProperties(_jax_gpu(device))


def get_device_name(device=None):
    return get_device_properties(device).name


def get_device_capability(device=None):
    p = get_device_properties(device)
    return (p.major, p.minor)


def is_bf16_supported(including_emulation=True):
    if not is_available():
        return False
    return including_emulation or get_device_capability()[0] >= 8


def is_tf32_supported():
    if not is_available():
        return False
    return get_device_capability()[0] >= 8


# ---- memory: XLA's allocator statistics ----------------------------------------------------

def _stats(d):
    try:
        s = d.memory_stats()
    except Exception:
        s = None
    return s or {}


def _device_stats(device):
    if not _state['initialized'] and not gpu_devices():
        return {}
    return _stats(_jax_gpu(device))


def memory_stats(device=None):
    """A subset of torch's keys, from XLA's allocator (empty without GPUs, as torch before CUDA init)."""
    s = _device_stats(device)
    out = collections.OrderedDict()
    for key, xla in (('allocated_bytes.all.current', 'bytes_in_use'), ('allocated_bytes.all.peak', 'peak_bytes_in_use'),
                     ('reserved_bytes.all.current', 'pool_bytes'), ('reserved_bytes.all.peak', 'peak_pool_bytes'),
                     ('num_alloc_retries', None)):
        if xla is not None and xla in s:
            out[key] = int(s[xla])
    if s:
        out['num_allocs'] = int(s.get('num_allocs', 0))
    return out


def memory_allocated(device=None):
    return memory_stats(device).get('allocated_bytes.all.current', 0)


def max_memory_allocated(device=None):
    return memory_stats(device).get('allocated_bytes.all.peak', 0)


def memory_reserved(device=None):
    return memory_stats(device).get('reserved_bytes.all.current', 0)


def max_memory_reserved(device=None):
    return memory_stats(device).get('reserved_bytes.all.peak', 0)


def empty_cache():
    """No-op: XLA owns device memory and frees buffers when their arrays die; there is no cache to flush."""
    return None


# ---- random state of the CUDA generators -------------------------------------------------

def manual_seed(seed):
    seed = _r._check_seed(int(seed))
    if gpu_devices():
        _r.cuda_generators()[cuda_current[0]].manual_seed(seed)


def manual_seed_all(seed):
    _r.cuda_seed_all(_r._check_seed(int(seed)))


def seed():
    if gpu_devices():
        _r.cuda_generators()[cuda_current[0]].seed()


def seed_all():
    if gpu_devices():
        s = _r._random_seed()
        _r.cuda_seed_all(s)


def initial_seed():
    _lazy_init()
    return _r.cuda_generators()[cuda_current[0]].initial_seed()


def _gen(device):
    _lazy_init()
    if device == 'cuda' or device is None:
        idx = cuda_current[0]
    else:
        idx = _get_device_index(device, optional=True)
    gens = _r.cuda_generators()
    if not 0 <= idx < len(gens):
        raise RuntimeError("CUDA error: invalid device ordinal")
    return gens[idx]


def get_rng_state(device='cuda'):
    return _gen(device).get_state()


def set_rng_state(new_state, device='cuda'):
    if not gpu_devices():
        return None     # torch defers the call until CUDA initialises; without CUDA it never runs
    _gen(device).set_state(new_state)


def get_rng_state_all():
    return [g.get_state() for g in _r.cuda_generators()]


def set_rng_state_all(new_states):
    for g, s in zip(_r.cuda_generators(), new_states):
        g.set_state(s)


def __getattr__(name):
    if name == 'default_generators':
        return _r.cuda_generators()
    raise AttributeError(f"module 'torchlike.cuda' has no attribute '{name}'")


from . import amp  # noqa: E402,F401  (torch.cuda.amp)
