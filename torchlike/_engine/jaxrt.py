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

Note [Compilation cache]: with TORCHLIKE_CACHE_DIR set, every XLA program torchlike compiles is also
written to JAX's persistent compilation cache in that folder, so a second run of the same script loads its
programs instead of compiling them: measured on a small CNN training script (5 steps), 3.5 s of compiling
the first time, 0.5 s the second (all programs cached, threshold 0 s; a 0.05 s threshold left 1.0 s).
It is not on by default yet: with it on, the test suite (2 xdist workers) wrote 26,000 entries in 10
minutes and the workers ran at 30-50 % CPU, waiting on the cache folder (JAX's size-capped LRU cache
scans it), so the suite slowed ~3x. Turning it on by default needs a threshold and a cap that keep a
long run fast -- measured, not guessed. JAX_COMPILATION_CACHE_DIR in the environment is JAX's own switch
and is left alone.
"""
import os

import jax
import jax.numpy as jnp
from jax import lax

jax.config.update('jax_enable_x64', True)
if 'JAX_CPU_ENABLE_ASYNC_DISPATCH' not in os.environ:
    jax.config.update('jax_cpu_enable_async_dispatch', False)


_CACHE_DIR = os.environ.get('TORCHLIKE_CACHE_DIR')
if _CACHE_DIR and 'JAX_COMPILATION_CACHE_DIR' not in os.environ:
    jax.config.update('jax_compilation_cache_dir', _CACHE_DIR)
    jax.config.update('jax_persistent_cache_min_compile_time_secs', 0.0)
    jax.config.update('jax_compilation_cache_max_size', 2 << 30)

__all__ = ['jax', 'jnp', 'lax']
