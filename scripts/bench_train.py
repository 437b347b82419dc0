#!/usr/bin/env python
"""Training-loop benchmarks: torchlike eager vs real PyTorch (CPU).

    python scripts/bench_train.py [--repeat 20] [--json PATH]

optimizer step: ``Adam.step()`` alone over a ~10M-parameter model (four 1024x2048 and one 1024x1536 Linear-sized
weights and biases, float32), gradients set once; median ms over --repeat steps after warm-up steps
(the first compiles torchlike's fused group step). torch and torchlike are timed in separate phases so
that one library's threads do not load the other's timings. torchlike's figure is synchronised on the
last parameter (block_until_ready), torch's is synchronous.
"""
import argparse
import json
import statistics
import time

import numpy as np

import torch
import torchlike as tl


def _params(lib, rng):
    shapes = [(1024, 2048), (2048,)] * 4 + [(1024, 1536), (1536,)]
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(np.float32) * 0.02)) for s in shapes]
    for p in ps:
        p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 1e-3)
    return ps


def bench_adam_step(lib, repeat, warmup=3):
    ps = _params(lib, np.random.default_rng(0))
    opt = lib.optim.Adam(ps, lr=1e-3)
    sync = (lambda: ps[-1]._value().block_until_ready()) if lib is tl else (lambda: None)
    for _ in range(warmup):
        opt.step()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        opt.step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), sum(p.numel() for p in ps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeat', type=int, default=20)
    ap.add_argument('--json', default=None)
    args = ap.parse_args()
    tl_ms, n = bench_adam_step(tl, args.repeat)
    th_ms, _ = bench_adam_step(torch, args.repeat)
    res = {'adam_step_params': n, 'torchlike_ms': tl_ms, 'torch_ms': th_ms}
    print(f"Adam.step over {n / 1e6:.1f}M params: torchlike {tl_ms:.2f} ms, torch {th_ms:.2f} ms "
          f"(ratio {tl_ms / th_ms:.2f})")
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(res, f, indent=1)


if __name__ == '__main__':
    main()
