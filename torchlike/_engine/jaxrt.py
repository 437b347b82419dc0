"""The only place that imports jax for the engine and sets its global config.

Note [x64]: torch's default integer is int64 and float64 exists, so JAX's x64 mode is
enabled. Setting the flag does not start a backend; every op passes explicit dtypes so
float32 stays the default float. Importing jax also does not start a backend, which
`jax.distributed.initialize` needs.

Note [CPU dispatch]: eager torch on the CPU is synchronous, and so is torchlike's eager mode there.
With JAX's asynchronous CPU dispatch, XLA hands some small programs (its cost model picks those
with transcendental ops: tanh, where/select chains) to a worker thread, and the caller's next
dependent dispatch then waits for a thread hand-off; measured with scripts/bench_ops.py at 16x16,
that made relu forward 4.5x and tanh forward+backward 2x slower than synchronous execution, and
changed nothing measurable at 1024x1024. Setting JAX_CPU_ENABLE_ASYNC_DISPATCH in the environment
keeps the user's choice.

Note [Compilation cache]: XLA programs that took at least TORCHLIKE_CACHE_MIN_SECS (default 0.2 s) to
compile are written to JAX's persistent compilation cache in TORCHLIKE_CACHE_DIR (default
$XDG_CACHE_HOME/torchlike/xla, i.e. ~/.cache/torchlike/xla; an empty value turns the cache off), so a second
run of the same script loads its lazy step programs and other large programs instead of compiling them.
The threshold is what makes it safe to have on by default: with it at 0 the test suite (2 xdist workers)
wrote 26,000 small per-op programs in 10 minutes and ran ~3x slower, because JAX's size-capped cache lists
the whole folder on every write; small eager programs compile in 10-100 ms, while a training step's program
takes 0.3-3 s, so at 0.2 s only those are written. A run that wants every program cached (to measure, or for
a short script run many times) sets TORCHLIKE_CACHE_MIN_SECS=0. JAX_COMPILATION_CACHE_DIR in the environment
is JAX's own switch and is left alone.

Note [CPU compile options]: lazy mode compiles its step programs through ``jit`` below, which on the CPU
backend passes compiler options that leave convolutions to XLA's own kernels instead of YNNPACK, keeping
YNNPACK's dots and reductions (XLA's default library fusions minus INDIVIDUAL_CONVOLUTION: the same program
as XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=-individual_convolution, compared HLO for HLO).
Measured on the 2-core CPU with jaxlib 0.10.2: YNNPACK ran the reference CNN's first weight gradient (3 input
channels: a convolution with a 28x28 window) at ~6 GFLOP/s, 7 of the step's 18 ms; without it the step
took 12.4-12.5 ms instead of 15.4-17.3 (hand-written JAX), and the lazy CNN 50.7 -> 63.5 steps/s.
`python scripts/bench_conv.py` times convolutions of other shapes both ways. Only the step programs get
them: jax refuses compiler options on a jit nested in another, and op programs, fused backwards and
torch.compile's programs are nested in step programs in lazy mode. Eager mode's fused backward (one
top-level program per hot backward graph, where the convolutions' gradients are) gets them too, from its own
jit of the same function; eager op programs keep XLA's defaults (the forward convolutions gain little). The options
are probed once with a tiny compile: an XLA without them (another jaxlib) gets its defaults, and
TORCHLIKE_XLA_CPU_OPTIONS=0 turns them off.
"""
import os

import jax
import jax.numpy as jnp
from jax import lax

jax.config.update('jax_enable_x64', True)
try:  # the concrete array class, for exact-type fast paths (isinstance on jax.Array is slower)
    from jax._src.array import ArrayImpl
except ImportError:
    ArrayImpl = None
if 'JAX_CPU_ENABLE_ASYNC_DISPATCH' not in os.environ:
    jax.config.update('jax_cpu_enable_async_dispatch', False)


def _cache_dir():
    d = os.environ.get('TORCHLIKE_CACHE_DIR')
    if d is not None:
        return d
    return os.path.join(os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache'),
                        'torchlike', 'xla')


_CACHE_DIR = _cache_dir()
if _CACHE_DIR and 'JAX_COMPILATION_CACHE_DIR' not in os.environ:
    jax.config.update('jax_compilation_cache_dir', _CACHE_DIR)
    jax.config.update('jax_persistent_cache_min_compile_time_secs',
                      float(os.environ.get('TORCHLIKE_CACHE_MIN_SECS', '0.2')))
    jax.config.update('jax_compilation_cache_max_size', 2 << 30)

# XLA's default YNNPACK fusions except INDIVIDUAL_CONVOLUTION (compiler_options takes whole enum lists, not
# XLA_FLAGS' "-individual_convolution")
_CPU_OPTIONS = {'xla_cpu_experimental_ynn_fusion_type': 'LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE'}
_options = []


def compiler_options():
    """The options ``jit`` passes (Note [CPU compile options]); resolved on first use, which starts the backend."""
    if not _options:
        _options.append(_probe())
    return _options[0]


def _probe():
    if os.environ.get('TORCHLIKE_XLA_CPU_OPTIONS') == '0' or jax.default_backend() != 'cpu':
        return {}
    try:
        jax.jit(lambda x: x + 1, compiler_options=_CPU_OPTIONS).lower(1.0).compile()
    except Exception:       # (jax reports an unknown option or enum value as a runtime error of the compile)
        return {}
    return dict(_CPU_OPTIONS)


def jit(fn, **kw):
    """``jax.jit`` with the engine's compiler options, for a program never nested in another (Note [CPU
    compile options])."""
    opts = compiler_options()
    if opts:
        kw['compiler_options'] = opts
    return jax.jit(fn, **kw)


__all__ = ['jax', 'jnp', 'lax', 'jit', 'ArrayImpl']
