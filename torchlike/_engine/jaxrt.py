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
"""
import os

import jax
import jax.numpy as jnp
from jax import lax

jax.config.update('jax_enable_x64', True)
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

__all__ = ['jax', 'jnp', 'lax']
