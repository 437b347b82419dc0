"""torch.backends.cudnn on JAX: XLA calls cuDNN itself for GPU convolutions, so these flags become XLA
settings (see torchlike/_determinism.py):

* ``deterministic``: True asks XLA for deterministic GPU ops (Note [Deterministic XLA]).
* ``allow_tf32``: False makes XLA compute float32 convolutions (and matmuls: XLA has one switch for both)
  at full precision (Note [Matmul precision]).
* ``benchmark``: XLA always autotunes convolution algorithms on GPU, which is what ``benchmark=True``
  permits; with ``deterministic`` set, XLA's autotuner picks only deterministic algorithms, which is what
  ``benchmark=False`` is used for. The value is kept and read back.
* ``enabled``: XLA always uses cuDNN for GPU convolutions; setting False raises NotImplementedError
  instead of being silently ignored.
"""
import contextlib
import sys
import types

from .. import _determinism as _d

__all__ = ['is_available', 'version', 'is_acceptable', 'set_flags', 'flags']


def _cuda_versions():
    # jax's CUDA plugin, found without starting a backend (torch's answer is a build property too)
    from jax._src import lib
    return lib.cuda_versions


def is_available():
    return _cuda_versions() is not None


def version():
    v = _cuda_versions()
    if v is None:
        return None
    try:
        return int(v.cudnn_get_version())
    except Exception:  # noqa: BLE001 - the plugin is installed but its cuDNN cannot load: torch returns None
        return None


def is_acceptable(tensor):
    if not _d.flags.cudnn_enabled:
        return False
    return tensor.device.type == 'cuda' and is_available()


def _set_enabled(v):
    _d.check_bool(v, 'set_enabled_cudnn')
    if not v:
        raise NotImplementedError('torch.backends.cudnn.enabled = False: XLA chooses cuDNN for GPU '
                                  'convolutions itself and torchlike cannot turn it off')
    _d.flags.cudnn_enabled = v


def _set_benchmark(v):
    _d.check_bool(v, 'set_benchmark_cudnn')
    _d.flags.cudnn_benchmark = v


def _set_deterministic(v):
    _d.check_bool(v, 'set_deterministic_cudnn')
    _d.flags.cudnn_deterministic = v
    _d.apply_determinism()


def _set_allow_tf32(v):
    _d.check_bool(v, 'set_allow_tf32_cudnn')
    _d.flags.cudnn_allow_tf32 = v
    _d.apply_precision()


_SETTERS = {'enabled': _set_enabled, 'benchmark': _set_benchmark, 'deterministic': _set_deterministic,
            'allow_tf32': _set_allow_tf32}


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None):
    """Set the given flags; return the previous ones (in this argument order) for restoring."""
    f = _d.flags
    orig = (f.cudnn_enabled, f.cudnn_benchmark, None, f.cudnn_deterministic, f.cudnn_allow_tf32)
    for name, v in (('enabled', _enabled), ('benchmark', _benchmark), ('deterministic', _deterministic),
                    ('allow_tf32', _allow_tf32)):
        if v is not None:
            _SETTERS[name](v)
    if _benchmark_limit is not None and is_available():
        raise NotImplementedError('torch.backends.cudnn benchmark_limit: XLA autotunes every algorithm')
    return orig


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    orig = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    try:
        yield
    finally:
        set_flags(*orig)


class _CudnnModule(types.ModuleType):
    # module attributes that read and write the flags, as torch's CudnnModule (a PropModule) does
    enabled = property(lambda self: _d.flags.cudnn_enabled, lambda self, v: _set_enabled(v))
    benchmark = property(lambda self: _d.flags.cudnn_benchmark, lambda self, v: _set_benchmark(v))
    deterministic = property(lambda self: _d.flags.cudnn_deterministic, lambda self, v: _set_deterministic(v))
    allow_tf32 = property(lambda self: _d.flags.cudnn_allow_tf32, lambda self, v: _set_allow_tf32(v))
    # torch has benchmark_limit only when cuDNN is available; without it the attribute is None
    benchmark_limit = property(lambda self: None)


sys.modules[__name__].__class__ = _CudnnModule
