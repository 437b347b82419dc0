"""torch.device and its mapping onto JAX devices ('cuda' -> JAX GPUs, 'xla'/'tpu' -> the default backend)."""
import re

_TYPES = ('cpu', 'cuda', 'ipu', 'xpu', 'mkldnn', 'opengl', 'opencl', 'ideep', 'hip', 've', 'fpga', 'maia', 'xla',
          'lazy', 'vulkan', 'mps', 'meta', 'hpu', 'mtia', 'privateuseone', 'tpu')


class device:
    __slots__ = ('type', 'index')

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and index is None:
            # a bare index names the current accelerator, as in torch
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            if not gpus_known():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            self.type, self.index = 'cuda', type
            return
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({_tn(type)})")
        m = re.fullmatch(r'([a-z_]+)(?::(\d+))?', type)
        if not m or m.group(1) not in _TYPES:
            raise RuntimeError("Expected one of " + ', '.join(t for t in _TYPES if t != 'tpu') +
                               f" device type at start of device string: {type}")
        if m.group(2) is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            index = int(m.group(2))
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative")
        self.type, self.index = m.group(1), index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f'{self.type}:{self.index}'

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _tn(x):
    return type(x).__name__


def as_device(d):
    if d is None or isinstance(d, device):
        return d
    return device(d)


def _jax():
    from ._engine.jaxrt import jax
    return jax


_gpus = []          # [list of JAX GPU devices] once queried (the device set is fixed once JAX has started)
cuda_current = [0]  # torch.cuda.current_device(): the GPU that 'cuda' without an index names


def gpu_devices():
    """JAX's GPUs (starts JAX's backends on first call; cached afterwards)."""
    if not _gpus:
        jax = _jax()
        try:
            g = list(jax.devices('gpu'))
        except RuntimeError:
            g = []
        _gpus.append(g)
    return _gpus[0]


def gpus_known():
    """Whether JAX has GPUs (so tensors may live on 'cuda')."""
    return bool(gpu_devices())


def jax_device(d):
    """The JAX device for a torch device (raises as torch does when CUDA is absent)."""
    d = as_device(d)
    jax = _jax()
    if d is None or d.type == 'cpu' or d.type == 'meta':
        return jax.devices('cpu')[0]
    if d.type == 'cuda':
        g = gpu_devices()
        if not g:
            raise AssertionError("Torch not compiled with CUDA enabled")
        i = cuda_current[0] if d.index is None else d.index
        if i >= len(g):
            raise RuntimeError("CUDA error: invalid device ordinal")
        return g[i]
    if d.type in ('xla', 'tpu'):
        devs = jax.devices()
        return devs[d.index or 0]
    raise RuntimeError(f"Could not run on device type '{d.type}': torchlike maps only cpu, cuda, xla and tpu onto JAX")


def cpu_target(d):
    """The JAX CPU device that a new array for torch device ``d`` (None: JAX's default device) lands on, or
    None when it lands on an accelerator. Creation ops build small constants on the host for a CPU target
    (numpy + one transfer), so that no XLA program is compiled per shape (see Note [Bucketed draws])."""
    from ._engine.state import state
    if state.mode == 'traced':      # inside torch.compile's trace everything must stay symbolic
        return None
    jax = _jax()
    if d is None:
        if jax.config.jax_default_device is not None:
            return None
        jd = jax.devices()[0]
    else:
        jd = jax_device(d)
    return jd if jd.platform == 'cpu' else None


def from_jax(jd):
    p = jd.platform
    if p == 'cpu':
        return CPU
    if p in ('gpu', 'cuda', 'rocm'):
        return device('cuda', jd.id if hasattr(jd, 'id') else 0)
    return device('xla', jd.id)


CPU = device('cpu')
