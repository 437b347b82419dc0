"""The only place that imports jax for the engine and sets its global config.

Note [x64]: torch's default integer is int64 and float64 exists, so JAX's x64 mode is
enabled. Setting the flag does not start a backend; every op passes explicit dtypes so
float32 stays the default float. Importing jax also does not start a backend, which
`jax.distributed.initialize` needs.
"""
import jax
import jax.numpy as jnp
from jax import lax

jax.config.update('jax_enable_x64', True)

__all__ = ['jax', 'jnp', 'lax']
