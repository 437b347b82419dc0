#!/usr/bin/env python
"""Where a lazy-mode training step's time goes (issue 5: the profile behind bench.py's MLP and CNN figures).

    python -m torchlike scripts/step_parts.py [mlp|cnn] [--steps N]

Runs the workload's step (the same model, loss and optimizer as scripts/bench_workloads/) after warm-up and prints
the median microseconds of each part: zero_grad, the forward (module calls: recording), the loss, backward
(recording), optimizer.step up to the program (recording the update, keying the graph at the sync), the step's XLA
program (timed by the lazy engine's observer hook, blocking), the rest of the sync, and loss.item(). "python" is the
step minus its program. Then the forward again right after itself ("forward, warm": the same Python with the caches
still holding it), which shows how much of the recording cost is the cold start after the program; and the forward after reading a
32 MB array instead of a program ("after reading 32 MB": the same Python calls, the caches evicted by plain numpy),
which shows that the cold start is the caches, not something the program leaves behind.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'bench_workloads'))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'examples'))


def build(name):
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    if name == 'mlp':
        from mlp import MLP, BATCH
        model = MLP()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        xs = rng.standard_normal((8, BATCH, 784)).astype(np.float32)
    else:
        from image_classification import Net
        from cnn import BATCH
        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
        xs = rng.standard_normal((8, BATCH, 3, 32, 32)).astype(np.float32)
    batches = [(torch.from_numpy(x), torch.from_numpy(rng.integers(0, 10, BATCH))) for x in xs]
    return model, nn.CrossEntropyLoss(), opt, batches


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('workload', nargs='?', default='mlp', choices=('mlp', 'cnn'))
    ap.add_argument('--steps', type=int, default=300)
    args = ap.parse_args()
    if torch.__name__ != 'torchlike' or torch.get_execution_mode() != 'lazy':
        sys.exit('run it as: python -m torchlike scripts/step_parts.py (lazy mode)')
    from torchlike._engine import lazy
    model, crit, opt, batches = build(args.workload)
    pc = time.perf_counter_ns
    prog = []
    lazy.observers.append(lambda name, t0, t1: prog.append((t0, t1)))
    parts = {}
    for i in range(args.steps + 20):
        x, y = batches[i % len(batches)]
        del prog[:]
        t0 = pc(); opt.zero_grad()
        t1 = pc(); out = model(x)
        t2 = pc(); loss = crit(out, y)
        t3 = pc(); loss.backward()
        t4 = pc(); opt.step()
        t5 = pc(); loss.item()
        t6 = pc()
        out = loss = None
        if i < 20 or len(prog) != 1:
            continue
        p0, p1 = prog[0]
        for k, v in (('zero_grad', t1 - t0), ('forward', t2 - t1), ('loss', t3 - t2), ('backward', t4 - t3),
                     ('step: record + sync keying', p0 - t4), ('step: XLA program', p1 - p0),
                     ('step: after the program', t5 - p1), ('item', t6 - t5), ('python (step - program)', t6 - t0 - (p1 - p0)),
                     ('whole step', t6 - t0)):
            parts.setdefault(k, []).append(v / 1e3)
    lazy.observers.clear()
    warm, cold, read = [], [], []
    big = np.ones(8 << 20, np.float32)                  # 32 MB: more than this CPU's L2 and L3 caches
    for i in range(100):
        x, y = batches[i % len(batches)]
        opt.zero_grad()
        crit(model(x), y).backward()
        opt.step()                                      # the step's program runs, as before a step's forward
        t0 = pc(); model(x); t1 = pc(); model(x); t2 = pc()
        big.sum()                                       # no program: only the caches evicted
        t3 = pc(); model(x); t4 = pc()
        cold.append((t1 - t0) / 1e3)
        warm.append((t2 - t1) / 1e3)
        read.append((t4 - t3) / 1e3)
    parts['forward, right after a program'] = cold
    parts['forward, warm (right after itself)'] = warm
    parts['forward, after reading 32 MB'] = read
    print(f'{args.workload}: median microseconds over {len(parts["whole step"])} steps (lazy mode)')
    for k, v in parts.items():
        print(f'  {k:36s} {statistics.median(v):9.0f}')


if __name__ == '__main__':
    main()
