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
"""
import os

import jax
import jax.numpy as jnp
from jax import lax

jax.config.update('jax_enable_x64', True)
if 'JAX_CPU_ENABLE_ASYNC_DISPATCH' not in os.environ:
    jax.config.update('jax_cpu_enable_async_dispatch', False)

__all__ = ['jax', 'jnp', 'lax']
