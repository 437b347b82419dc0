#!/usr/bin/env python
"""Convolutions on the CPU: XLA's defaults vs lazy mode's compiler options (Note [CPU compile options] in
torchlike/_engine/jaxrt.py), with real PyTorch for scale.

    python scripts/bench_conv.py [--repeat N]

For each shape (N, C_in, H=W, C_out, kernel, stride, padding) it times a jitted forward (sum of squares of the
output) and a jitted forward+backward (gradients of input and weight) under jax.jit with XLA's defaults and with
torchlike's options, and torch's forward and forward+backward, interleaved, and prints median milliseconds and
the ratios default/options (above 1: the options are faster) and torch/options. Torch runs with
OMP_WAIT_POLICY=PASSIVE unless it is set, as in bench.py.
"""
import argparse
import os
import statistics
import time

os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')    # torch's OpenMP threads would spin against XLA's (see bench.py)

import jax
import jax.numpy as jnp
import numpy as np
import torch
from jax import lax

from torchlike._engine import jaxrt

SHAPES = [(64, 3, 32, 6, 5, 1, 0), (64, 6, 14, 16, 5, 1, 0), (32, 3, 32, 64, 3, 1, 1), (32, 64, 32, 64, 3, 1, 1),
          (16, 128, 16, 128, 3, 1, 1), (16, 3, 224, 64, 7, 2, 3), (16, 256, 14, 256, 3, 1, 1), (32, 64, 32, 128, 1, 1, 0)]


def median_ms(fns, repeat):
    """Median ms of each zero-argument callable, run in turn ``repeat`` times."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for t, f in zip(times, fns):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
    return [1e3 * statistics.median(t) for t in times]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeat', type=int, default=15)
    args = ap.parse_args()
    opts = jaxrt.compiler_options()
    if not opts:
        raise SystemExit('this XLA takes no CPU compile options (or TORCHLIKE_XLA_CPU_OPTIONS=0): nothing to compare')
    rng = np.random.default_rng(0)
    print(f'# {opts}')
    print(f"{'shape (N, C, H, O, k, s, p)':30} {'pass':8} {'default':>8} {'options':>8} {'torch':>8} "
          f"{'def/opt':>8} {'torch/opt':>9}")
    for N, C, H, O, k, s, p in SHAPES:
        x = rng.standard_normal((N, C, H, H)).astype(np.float32)
        w = (rng.standard_normal((O, C, k, k)) * 0.1).astype(np.float32)

        def loss(x, w):
            y = lax.conv_general_dilated(x, w, (s, s), [(p, p), (p, p)], dimension_numbers=('NCHW', 'OIHW', 'NCHW'))
            return (y * y).sum()
        xj, wj = jnp.asarray(x), jnp.asarray(w)
        xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)

        def torch_fwd():
            with torch.no_grad():
                (torch.nn.functional.conv2d(xt, wt, stride=s, padding=p) ** 2).sum()

        def torch_bwd():
            xt.grad = wt.grad = None
            (torch.nn.functional.conv2d(xt, wt, stride=s, padding=p) ** 2).sum().backward()
        for name, f, tf in (('forward', loss, torch_fwd), ('fwd+bwd', jax.grad(loss, argnums=(0, 1)), torch_bwd)):
            a, b = jax.jit(f), jax.jit(f, compiler_options=opts)
            jax.block_until_ready((a(xj, wj), b(xj, wj)))
            tf()
            ta, tb, tt = median_ms([lambda: jax.block_until_ready(a(xj, wj)), lambda: jax.block_until_ready(b(xj, wj)),
                                    tf], args.repeat if H < 100 else max(3, args.repeat // 3))
            print(f'{str((N, C, H, O, k, s, p)):30} {name:8} {ta:8.2f} {tb:8.2f} {tt:8.2f} {ta / tb:8.2f} {tt / tb:9.2f}')


if __name__ == '__main__':
    main()
