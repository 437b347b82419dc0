"""Workload 1 hand-written in JAX (see mlp.py): MLP 784-512-512-10, batch 128, Adam(lr=1e-3), one jitted donated step."""
import jax
import jax.numpy as jnp
import numpy as np

import _jax_harness as H

BATCH = 128


def main():
    args = H.parse_args()
    r = H.rng(0)
    params = [H.linear(r, 784, 512), H.linear(r, 512, 512), H.linear(r, 512, 10)]

    def loss_fn(params, x, y):
        h = jax.nn.relu(H.dense(params[0], x))
        h = jax.nn.relu(H.dense(params[1], h))
        return H.cross_entropy(H.dense(params[2], h), y)

    def update(params, opt, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        params, opt = H.adam_update(params, grads, opt, 1e-3)
        return params, opt, loss
    train_step = jax.jit(update, donate_argnums=(0, 1))

    def step(carry, i, x, y):
        params, opt, loss = train_step(*carry, x, y)
        return (params, opt), loss

    rng = np.random.default_rng(0)
    batches = [(jnp.asarray(rng.standard_normal((BATCH, 784)).astype(np.float32)),
                jnp.asarray(rng.integers(0, 10, BATCH).astype(np.int32))) for _ in range(8)]
    H.run(step, (params, H.adam_init(params)), batches, args, 'mlp', train_step)


if __name__ == '__main__':
    main()
