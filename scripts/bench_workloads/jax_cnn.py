"""Workload 2 hand-written in JAX (see cnn.py): the tutorial `Net`, batch 64 of 3x32x32, SGD(lr=0.001,
momentum=0.9), one jitted donated step. NCHW / OIHW, as PyTorch lays them out."""
import math

import jax
import jax.numpy as jnp
import numpy as np

import _jax_harness as H

BATCH = 64


def conv_init(rng, cin, cout, k):
    b = 1.0 / math.sqrt(cin * k * k)
    return {'w': jnp.asarray(rng.uniform(-b, b, (cout, cin, k, k)), jnp.float32),
            'b': jnp.asarray(rng.uniform(-b, b, (cout,)), jnp.float32)}


def conv(p, x):
    y = jax.lax.conv_general_dilated(x, p['w'], (1, 1), 'VALID', dimension_numbers=('NCHW', 'OIHW', 'NCHW'))
    return y + p['b'][None, :, None, None]


def pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), 'VALID')


def main():
    args = H.parse_args()
    r = H.rng(0)
    params = {'conv1': conv_init(r, 3, 6, 5), 'conv2': conv_init(r, 6, 16, 5), 'fc1': H.linear(r, 400, 120),
              'fc2': H.linear(r, 120, 84), 'fc3': H.linear(r, 84, 10)}

    def loss_fn(p, x, y):
        x = pool(jax.nn.relu(conv(p['conv1'], x)))
        x = pool(jax.nn.relu(conv(p['conv2'], x)))
        x = x.reshape(-1, 400)
        x = jax.nn.relu(H.dense(p['fc1'], x))
        x = jax.nn.relu(H.dense(p['fc2'], x))
        return H.cross_entropy(H.dense(p['fc3'], x), y)

    def update(params, opt, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        params, opt = H.sgd_update(params, grads, opt, 0.001, 0.9)
        return params, opt, loss
    train_step = jax.jit(update, donate_argnums=(0, 1))

    def step(carry, i, x, y):
        params, opt, loss = train_step(*carry, x, y)
        return (params, opt), loss

    rng = np.random.default_rng(0)
    batches = [(jnp.asarray(rng.standard_normal((BATCH, 3, 32, 32)).astype(np.float32)),
                jnp.asarray(rng.integers(0, 10, BATCH).astype(np.int32))) for _ in range(8)]
    H.run(step, (params, H.sgd_init(params)), batches, args, 'cnn', train_step)


if __name__ == '__main__':
    main()
