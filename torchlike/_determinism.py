"""Determinism and float32 precision flags: torch.use_deterministic_algorithms, set_float32_matmul_precision,
and the flag state behind torch.backends.cudnn / torch.backends.cuda.matmul (those modules are views of it).

Note [Matmul precision]
PyTorch's float32 matmul precision is a *permission*: 'highest' computes in float32, 'high' allows TF32 or
bf16x3, 'medium' allows bfloat16. JAX has one process-wide switch, ``jax_default_matmul_precision``, which
sets the precision of every float32 dot *and* convolution in programs traced afterwards; JAX includes it in
its jit cache key, so already-compiled op programs are re-traced under the new value on their next call
(tested in compat_tests/test_determinism.py). torch's two permissions map onto the one switch by taking the
stricter: convolutions may use TF32 only when ``cudnn.allow_tf32`` (default True) allows it, so XLA gets
'highest' whenever either the matmul precision is 'highest' or ``cudnn.allow_tf32`` is False. Running more
precisely than permitted is what torch itself does where a faster kernel is missing (all of torch's CPU).
JAX's own default is DEFAULT precision, which is TF32 on recent NVIDIA GPUs and one bfloat16 pass on TPUs;
torch's default is 'highest', so the switch is set at import. An op that passes ``precision=`` to jnp/lax
itself overrides the switch: today the matmul and convolution ops in _ops/linalg.py and _ops/nn_conv.py pass
HIGHEST, so for them 'high' and 'medium' still compute in float32 -- allowed by torch's permission semantics,
but slower than asked (compat_tests/test_determinism.py::test_precision_reaches_op_programs, a strict xfail,
tracks it).

Note [Deterministic XLA]
On the CPU every XLA program is deterministic. On GPU, XLA makes scatter/reductions and convolution
autotuning deterministic with ``--xla_gpu_deterministic_ops=true`` in XLA_FLAGS, which XLA reads once, when
the backend starts (torchlike starts it lazily: see _engine/jaxrt.py and _device.gpu_devices). So
``use_deterministic_algorithms(True)`` (or ``cudnn.deterministic = True``) before the backend starts adds
the flag; afterwards it warns if a GPU backend is running without it. Under that flag XLA runs deterministic
versions of every op, so no op raises the RuntimeError torch raises for ops that lack a deterministic kernel.
"""
import os
import warnings

from ._engine.jaxrt import jax

__all__ = ['use_deterministic_algorithms', 'are_deterministic_algorithms_enabled',
           'is_deterministic_algorithms_warn_only_enabled', 'set_deterministic_debug_mode',
           'get_deterministic_debug_mode', 'set_float32_matmul_precision', 'get_float32_matmul_precision']

_XLA_DET_FLAG = '--xla_gpu_deterministic_ops=true'
_JAX_PRECISION = {'highest': 'highest', 'high': 'high', 'medium': 'bfloat16'}


class _Flags:
    """The flags' values; defaults are torch 2.13's (CPU build)."""
    deterministic = False
    warn_only = False
    matmul_precision = 'highest'
    cudnn_enabled = True
    cudnn_benchmark = False
    cudnn_deterministic = False
    cudnn_allow_tf32 = True
    added_xla_flag = False       # whether XLA_FLAGS holds the flag because of us (so it can be taken back)
    fill_uninitialized_memory = True   # torch.utils.deterministic.fill_uninitialized_memory (see _ops/creation.py)


flags = _Flags()


def check_bool(value, what):
    """torch's C++ setters take only a real bool and raise RuntimeError otherwise."""
    if type(value) is not bool:
        raise RuntimeError(f'{what} expects a bool, but got {type(value).__name__}')


# ---- precision -------------------------------------------------------------------------------

def apply_precision():
    """Push the flags onto JAX's matmul/conv precision (Note [Matmul precision])."""
    p = 'highest' if not flags.cudnn_allow_tf32 else flags.matmul_precision
    jax.config.update('jax_default_matmul_precision', _JAX_PRECISION[p])


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f'set_float32_matmul_precision expects a str, but got {type(precision).__name__}')
    if precision not in _JAX_PRECISION:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    flags.matmul_precision = precision
    apply_precision()


def get_float32_matmul_precision():
    return flags.matmul_precision


# ---- determinism -----------------------------------------------------------------------------

def _backends_started():
    from jax._src import xla_bridge
    return xla_bridge.backends_are_initialized()


def apply_determinism():
    """Make XLA's GPU ops deterministic when torch's flags ask for it (Note [Deterministic XLA])."""
    want = flags.deterministic or flags.cudnn_deterministic
    xla_flags = os.environ.get('XLA_FLAGS', '')
    have = _XLA_DET_FLAG in xla_flags.split()
    if not _backends_started():
        if want and not have:
            os.environ['XLA_FLAGS'] = (xla_flags + ' ' + _XLA_DET_FLAG).strip()
            flags.added_xla_flag = True
        elif not want and have and flags.added_xla_flag:
            os.environ['XLA_FLAGS'] = ' '.join(f for f in xla_flags.split() if f != _XLA_DET_FLAG)
            flags.added_xla_flag = False
        return
    if want and not have and _gpu_backend_running():
        warnings.warn('torchlike: deterministic algorithms were requested after the JAX GPU backend started; '
                      f'XLA reads {_XLA_DET_FLAG} only at start-up, so GPU scatter/reduction ops may stay '
                      'nondeterministic. Call torch.use_deterministic_algorithms(True) before the first tensor '
                      'operation, or set XLA_FLAGS yourself.', UserWarning, stacklevel=3)


def _gpu_backend_running():
    from jax._src import xla_bridge
    try:
        return any(k in ('cuda', 'rocm', 'gpu') for k in xla_bridge.backends())
    except RuntimeError:
        return False


def use_deterministic_algorithms(mode, *, warn_only=False):
    if type(mode) is not bool:
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    if type(warn_only) is not bool:
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    flags.deterministic = mode
    flags.warn_only = warn_only           # torch keeps it even with mode=False
    apply_determinism()


def are_deterministic_algorithms_enabled():
    return flags.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return flags.warn_only


def set_deterministic_debug_mode(debug_mode):
    if not isinstance(debug_mode, (int, str)):      # a bool passes, as in torch, and means 0 / 1
        raise TypeError(f'debug_mode must be str or int, but got {type(debug_mode)}')
    if isinstance(debug_mode, str):
        modes = {'default': 0, 'warn': 1, 'error': 2}
        if debug_mode not in modes:
            raise RuntimeError('invalid value of debug_mode, expected one of `default`, '
                               f'`warn`, `error`, but got {debug_mode}')
        debug_mode = modes[debug_mode]
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    elif debug_mode == 1:
        use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        use_deterministic_algorithms(True)
    else:
        raise RuntimeError(f'invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}')


def get_deterministic_fill_uninitialized_memory():
    return flags.fill_uninitialized_memory


def set_deterministic_fill_uninitialized_memory(mode):
    """Whether torch.empty & co. fill their memory (NaN / the integer maximum) under deterministic algorithms."""
    if type(mode) is not bool:
        raise RuntimeError(f'expected a bool, but got {type(mode).__name__}')
    flags.fill_uninitialized_memory = mode


def get_deterministic_debug_mode():
    if not flags.deterministic:
        return 0
    return 1 if flags.warn_only else 2


apply_precision()
