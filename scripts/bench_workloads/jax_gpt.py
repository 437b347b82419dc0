"""Workload 4 hand-written in JAX (see gpt.py): the nanoGPT-style Transformer (4 layers, 4 heads, d=128, block 64,
dropout 0.1, tied lm_head), batch 12, AdamW (decay on matrices) with the warm-up + cosine LR passed in as an
argument each step, global-norm clipping at 1.0, one jitted donated step."""
import math

import jax
import jax.numpy as jnp
import numpy as np

import _jax_harness as H

N_LAYER, N_HEAD, N_EMBD, BLOCK, VOCAB, DROPOUT, BATCH = 4, 4, 128, 64, 65, 0.1, 12
LR, MIN_LR, WARMUP, DECAY_ITERS = 1e-3, 1e-4, 10, 300


def get_lr(it):
    if it < WARMUP:
        return LR * (it + 1) / (WARMUP + 1)
    if it > DECAY_ITERS:
        return MIN_LR
    ratio = (it - WARMUP) / (DECAY_ITERS - WARMUP)
    return MIN_LR + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (LR - MIN_LR)


def init(rng):
    def normal(*shape, std=0.02):
        return jnp.asarray(rng.standard_normal(shape) * std, jnp.float32)

    def lin(n_in, n_out, std=0.02):
        return {'w': normal(n_out, n_in, std=std), 'b': jnp.zeros((n_out,), jnp.float32)}

    def ln():
        return {'g': jnp.ones((N_EMBD,), jnp.float32), 'b': jnp.zeros((N_EMBD,), jnp.float32)}
    proj_std = 0.02 / math.sqrt(2 * N_LAYER)
    blocks = [{'ln_1': ln(), 'c_attn': lin(N_EMBD, 3 * N_EMBD), 'attn_proj': lin(N_EMBD, N_EMBD, proj_std),
               'ln_2': ln(), 'c_fc': lin(N_EMBD, 4 * N_EMBD), 'mlp_proj': lin(4 * N_EMBD, N_EMBD, proj_std)}
              for _ in range(N_LAYER)]
    return {'wte': normal(VOCAB, N_EMBD), 'wpe': normal(BLOCK, N_EMBD), 'h': blocks, 'ln_f': ln()}


def layer_norm(p, x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * p['g'] + p['b']


def dropout(key, x):
    keep = jax.random.bernoulli(key, 1 - DROPOUT, x.shape)
    return jnp.where(keep, x / (1 - DROPOUT), 0.0)


def attention(p, key, x):
    B, T, C = x.shape
    k1, k2 = jax.random.split(key)
    q, k, v = jnp.split(H.dense(p['c_attn'], x), 3, axis=-1)
    q, k, v = (a.reshape(B, T, N_HEAD, C // N_HEAD).transpose(0, 2, 1, 3) for a in (q, k, v))
    att = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(C // N_HEAD)
    att = jnp.where(jnp.tril(jnp.ones((T, T), bool)), att, -jnp.inf)
    att = dropout(k1, jax.nn.softmax(att, axis=-1))
    y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
    return dropout(k2, H.dense(p['attn_proj'], y))


def loss_fn(params, key, idx, targets):
    keys = jax.random.split(key, 2 * N_LAYER + 1)
    x = dropout(keys[0], params['wte'][idx] + params['wpe'][None, :idx.shape[1]])
    for i, p in enumerate(params['h']):
        x = x + attention(p, keys[2 * i + 1], layer_norm(p['ln_1'], x))
        h = jax.nn.gelu(H.dense(p['c_fc'], layer_norm(p['ln_2'], x)), approximate=False)
        x = x + dropout(keys[2 * i + 2], H.dense(p['mlp_proj'], h))
    logits = layer_norm(params['ln_f'], x) @ params['wte'].T
    return H.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))


def main():
    args = H.parse_args()
    params = init(H.rng(0))
    decay = jax.tree_util.tree_map(lambda a: a.ndim >= 2, params)

    def update(params, opt, key, lr, idx, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, key, idx, targets)
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
        scale = jnp.minimum(1.0, 1.0 / (norm + 1e-6))
        grads = jax.tree_util.tree_map(lambda g: g * scale, grads)
        params, opt = H.adam_update(params, grads, opt, lr, b2=0.99, weight_decay=0.1, decay_mask=decay)
        return params, opt, loss
    train_step = jax.jit(update, donate_argnums=(0, 1))
    base = jax.random.PRNGKey(0)

    def step(carry, i, idx, targets):
        params, opt, loss = train_step(*carry, jax.random.fold_in(base, i), jnp.float32(get_lr(i)), idx, targets)
        return (params, opt), loss

    rng = np.random.default_rng(0)
    data = rng.integers(0, VOCAB, 20000)
    batches = []
    for _ in range(8):
        ix = rng.integers(0, len(data) - BLOCK - 1, BATCH)
        batches.append((jnp.asarray(np.stack([data[i:i + BLOCK] for i in ix]), jnp.int32),
                        jnp.asarray(np.stack([data[i + 1:i + 1 + BLOCK] for i in ix]), jnp.int32)))
    H.run(step, (params, H.adam_init(params)), batches, args, 'gpt', train_step)


if __name__ == '__main__':
    main()
