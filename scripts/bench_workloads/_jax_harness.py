"""What the hand-written JAX workloads share: PyTorch's optimizers and initialisers written in jax.numpy (optax
and flax are not installed here) and the command line; the loop and report are _loop.py's, as for the PyTorch
scripts.

A training step is one ``jax.jit`` of (loss, grads, optimizer update) with the parameters and optimizer state
donated -- what a JAX user writes, and the practical limit of the backend torchlike runs on. The step returns
the loss and the loop reads it with ``float()``, as the PyTorch scripts call ``loss.item()``.
"""
import argparse
import math

import jax
import jax.numpy as jnp
import numpy as np

import _loop


def parse_args(argv=None):
    ap = argparse.ArgumentParser()
    _loop.add_args(ap)
    return ap.parse_args(argv)


# ---- initialisers: PyTorch's defaults, so the losses start where torch's do -----------------------------------

def linear(rng, fan_in, fan_out):
    """nn.Linear's default init (kaiming_uniform(a=sqrt 5) = U(-1/sqrt(fan_in), 1/sqrt(fan_in))), weight (out, in)."""
    b = 1.0 / math.sqrt(fan_in)
    return {'w': jnp.asarray(rng.uniform(-b, b, (fan_out, fan_in)), jnp.float32),
            'b': jnp.asarray(rng.uniform(-b, b, (fan_out,)), jnp.float32)}


def dense(p, x):
    return x @ p['w'].T + p['b']


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=-1))


# ---- optimizers: torch.optim's update rules -------------------------------------------------------------------

def adam_init(params):
    z = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {'m': z, 'v': jax.tree_util.tree_map(jnp.zeros_like, params), 't': jnp.zeros((), jnp.float32)}


def adam_update(params, grads, state, lr, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0, decay_mask=None):
    """torch.optim.Adam, or AdamW when weight_decay > 0 (decoupled decay on the leaves decay_mask marks)."""
    t = state['t'] + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state['m'], grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state['v'], grads)
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    if decay_mask is None:
        decay_mask = jax.tree_util.tree_map(lambda _: weight_decay > 0, params)

    def upd(p, m, v, d):
        if d:
            p = p * (1 - lr * weight_decay)
        return p - lr * (m / c1) / (jnp.sqrt(v / c2) + eps)
    return jax.tree_util.tree_map(upd, params, m, v, decay_mask), {'m': m, 'v': v, 't': t}


def sgd_init(params):
    return {'buf': jax.tree_util.tree_map(jnp.zeros_like, params), 't': jnp.zeros((), jnp.int32)}


def sgd_update(params, grads, state, lr, momentum=0.9):
    """torch.optim.SGD with momentum (dampening 0): the first step's buffer is the gradient itself."""
    first = state['t'] == 0
    buf = jax.tree_util.tree_map(lambda b, g: jnp.where(first, g, momentum * b + g), state['buf'], grads)
    return (jax.tree_util.tree_map(lambda p, b: p - lr * b, params, buf), {'buf': buf, 't': state['t'] + 1})


# ---- the loop --------------------------------------------------------------------------------------------------

def run(step, carry, batches, args, name, jitted):
    """``carry, loss = step(carry, i, *batch)`` over ``batches``, cycled (_loop.run); ``jitted``: the jax.jit
    function, whose cache size counts its compiles."""
    state = [carry]

    def one(i):
        state[0], loss = step(state[0], i, *batches[i % len(batches)])
        return float(loss)
    _loop.run(one, lambda: {'compiles': jitted._cache_size()}, args,
              {'workload': name, 'library': 'jax', 'compile': True})


def rng(seed=0):
    return np.random.default_rng(seed)
