"""Workload 3 hand-written in JAX (see lstm.py): Embedding -> 2-layer bidirectional LSTM -> last step -> Dropout ->
Linear, seq 35, batch 32, Adam(lr=1e-3), one jitted donated step.

What a JAX user writes for packed sequences: the padded batch and its lengths are data, not shapes. Each layer
is one ``lax.scan`` over time running both directions at once (weights stacked on a direction axis); the
backward direction reads each sequence reversed within its own length (a gather), and a state stops updating
past a sequence's end, so the outputs equal pack_padded_sequence's. The input projections of all time steps
are one matmul before the scan. One program serves every mix of lengths.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np

import _jax_harness as H

VOCAB, EMB, HIDDEN, SEQ, BATCH, DROPOUT, POOL = 65, 128, 256, 35, 32, 0.2, 4


def lstm_layer_init(rng, n_in):
    """Both directions' weights, PyTorch's layout and init U(-1/sqrt(H), 1/sqrt(H)), stacked on axis 0."""
    b = 1.0 / math.sqrt(HIDDEN)

    def u(*shape):
        return jnp.asarray(rng.uniform(-b, b, (2,) + shape), jnp.float32)
    return {'w_ih': u(4 * HIDDEN, n_in), 'w_hh': u(4 * HIDDEN, HIDDEN), 'b_ih': u(4 * HIDDEN), 'b_hh': u(4 * HIDDEN)}


def reverse_index(lengths):
    """(T, B) time index reading each sequence backwards within its length (padding positions map to themselves)."""
    t = jnp.arange(SEQ)[:, None]
    return jnp.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)


def lstm_layer(p, x, lengths, rev):
    """x (T, B, n_in) -> (T, B, 2H), zeros past each sequence's end."""
    xr = jnp.take_along_axis(x, rev[:, :, None], axis=0)
    xs = jnp.stack([x, xr], axis=1)                                              # (T, 2, B, n_in)
    gx = jnp.einsum('tdbi,dgi->tdbg', xs, p['w_ih']) + (p['b_ih'] + p['b_hh'])[None, :, None, :]
    mask = (jnp.arange(SEQ)[:, None] < lengths[None, :])[:, None, :, None]       # (T, 1, B, 1)

    def cell(carry, inp):
        h, c = carry
        g, m = inp
        g = g + jnp.einsum('dbh,dgh->dbg', h, p['w_hh'])
        i, f, gg, o = jnp.split(g, 4, axis=-1)
        c2 = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(gg)
        h2 = jax.nn.sigmoid(o) * jnp.tanh(c2)
        h, c = jnp.where(m, h2, h), jnp.where(m, c2, c)
        return (h, c), jnp.where(m, h2, 0.0)
    zeros = jnp.zeros((2, BATCH, HIDDEN), jnp.float32)
    _, out = jax.lax.scan(cell, (zeros, zeros), (gx, mask))                      # (T, 2, B, H)
    back = jnp.take_along_axis(out[:, 1], rev[:, :, None], axis=0)               # undo the reversal
    return jnp.concatenate([out[:, 0], back], axis=-1)


def dropout(key, x):
    keep = jax.random.bernoulli(key, 1 - DROPOUT, x.shape)
    return jnp.where(keep, x / (1 - DROPOUT), 0.0)


def make_batches():
    rng = np.random.default_rng(0)
    out = []
    for _ in range(POOL):
        lengths = rng.integers(8, SEQ + 1, BATCH)
        lengths[0] = SEQ
        text = rng.integers(1, VOCAB, (SEQ, BATCH))
        text[np.arange(SEQ)[:, None] >= lengths[None, :]] = 0
        out.append((jnp.asarray(text, jnp.int32), jnp.asarray(lengths, jnp.int32),
                    jnp.asarray(rng.integers(0, VOCAB, BATCH), jnp.int32)))
    return out


def main():
    args = H.parse_args()
    r = H.rng(0)
    params = {'emb': jnp.asarray(r.standard_normal((VOCAB, EMB)), jnp.float32),
              'l0': lstm_layer_init(r, EMB), 'l1': lstm_layer_init(r, 2 * HIDDEN), 'fc': H.linear(r, 2 * HIDDEN, VOCAB)}

    def loss_fn(p, key, text, lengths, targets):
        k1, k2 = jax.random.split(key)
        rev = reverse_index(lengths)
        x = p['emb'][text]
        x = lstm_layer(p['l0'], x, lengths, rev)
        x = lstm_layer(p['l1'], dropout(k1, x), lengths, rev)
        last = x[lengths - 1, jnp.arange(BATCH)]
        return H.cross_entropy(H.dense(p['fc'], dropout(k2, last)), targets)

    def update(params, opt, key, text, lengths, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, key, text, lengths, targets)
        params, opt = H.adam_update(params, grads, opt, 1e-3)
        return params, opt, loss
    train_step = jax.jit(update, donate_argnums=(0, 1))
    base = jax.random.PRNGKey(0)

    def step(carry, i, text, lengths, targets):
        params, opt, loss = train_step(*carry, jax.random.fold_in(base, i), text, lengths, targets)
        return (params, opt), loss

    H.run(step, (params, H.adam_init(params)), make_batches(), args, 'lstm', train_step)


if __name__ == '__main__':
    main()
