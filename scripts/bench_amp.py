#!/usr/bin/env python
"""Mixed-precision training benchmark: float32 vs bfloat16 autocast, torchlike and real PyTorch (CPU).

    python scripts/bench_amp.py [--steps 8] [--repeat 3] [--json PATH]

Each library runs in a child process of its own (`python scripts/bench_amp.py --phase torch|torchlike`), one
after the other, so one library's threads do not load the other's timings. A figure is steps/s: the median over
--repeat timed runs of --steps training steps (zero_grad, forward under ``torch.autocast('cpu')`` or not,
backward, SGD step, ``loss.item()`` at the end of the run), after one warm-up run (torchlike compiles then).

mlp: the matmul-heavy case, batch 256 through Linear(2048, 2048) x3 with ReLUs, MSE loss to a fixed target.
transformer: nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True,
dropout=0), batch 32 x 64 tokens, MSE loss.
A configuration that raises prints the error instead of a figure.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _models(torch, np):
    rng = np.random.default_rng(0)

    def mlp():
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(2048, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 2048),
                                torch.nn.ReLU(), torch.nn.Linear(2048, 2048))
        x = torch.tensor(rng.standard_normal((256, 2048)).astype(np.float32))
        y = torch.tensor(rng.standard_normal((256, 2048)).astype(np.float32))
        return m, x, y

    def transformer():
        torch.manual_seed(0)
        m = torch.nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.0, batch_first=True)
        x = torch.tensor(rng.standard_normal((32, 64, 256)).astype(np.float32))
        y = torch.tensor(rng.standard_normal((32, 64, 256)).astype(np.float32))
        return m, x, y
    return {'mlp': mlp, 'transformer': transformer}


def _steps_per_s(torch, make, amp, steps, repeat):
    m, x, y = make()
    opt = torch.optim.SGD(m.parameters(), lr=1e-3)

    def run():
        for _ in range(steps):
            opt.zero_grad()
            with torch.autocast('cpu', dtype=torch.bfloat16, enabled=amp):
                loss = torch.nn.functional.mse_loss(m(x), y)
            loss.backward()
            opt.step()
        return loss.item()

    run()                                    # warm-up (torchlike compiles its programs here)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return steps / statistics.median(times)


def phase(lib, steps, repeat):
    import numpy as np
    if lib == 'torch':
        import torch
    else:
        import torchlike as torch
    out = {}
    for name, make in _models(torch, np).items():
        for amp in (False, True):
            key = f'{name}/{"bf16" if amp else "fp32"}'
            try:
                out[key] = _steps_per_s(torch, make, amp, steps, repeat)
            except Exception as e:  # noqa: BLE001 - reported, the other configurations still run
                out[key] = f'{type(e).__name__}: {str(e)[:100]}'
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--steps', type=int, default=8)
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--json')
    ap.add_argument('--phase', choices=['torch', 'torchlike'])
    a = ap.parse_args()
    if a.phase:
        return phase(a.phase, a.steps, a.repeat)
    res = {}
    for lib in ('torch', 'torchlike'):
        cmd = [sys.executable, os.path.abspath(__file__), '--phase', lib, '--steps', str(a.steps),
               '--repeat', str(a.repeat)]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        if p.returncode:
            print(p.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f'{lib} phase failed')
        res[lib] = json.loads(p.stdout.strip().splitlines()[-1])
    print(f'{"config":20s} {"torch steps/s":>14s} {"torchlike steps/s":>18s}')
    for key in res['torch']:
        row = []
        for lib in ('torch', 'torchlike'):
            v = res[lib].get(key)
            row.append(f'{v:.2f}' if isinstance(v, float) else 'error')
        print(f'{key:20s} {row[0]:>14s} {row[1]:>18s}')
    for lib in ('torch', 'torchlike'):
        for key, v in res[lib].items():
            if not isinstance(v, float):
                print(f'  {lib} {key}: {v}')
    print('bf16 autocast / fp32 speed-up:')
    for name in ('mlp', 'transformer'):
        for lib in ('torch', 'torchlike'):
            f32, b16 = res[lib].get(f'{name}/fp32'), res[lib].get(f'{name}/bf16')
            if isinstance(f32, float) and isinstance(b16, float):
                print(f'  {name:12s} {lib:10s} {b16 / f32:5.2f}x')
    if a.json:
        with open(a.json, 'w') as fh:
            json.dump(res, fh, indent=1)


if __name__ == '__main__':
    main()
