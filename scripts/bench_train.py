#!/usr/bin/env python
"""Training-loop benchmarks: torchlike eager vs real PyTorch (CPU).

    python scripts/bench_train.py [--repeat 20] [--json PATH]

The benchmarks are plain PyTorch code; each library runs them in a phase of its own, a child process started as
`python scripts/bench_train.py --phase` (real torch) or `python -m torchlike scripts/bench_train.py --phase`, one
after the other, so that one library's threads do not load the other's timings. Each figure is the median over
--repeat timed repeats after warm-up repeats (the first compile torchlike's programs).

optimizer step: ``Adam.step()`` alone over a ~10M-parameter model (four 1024x2048 and one 1024x1536 Linear-sized
weights and biases, float32), gradients set once; ms per step. torchlike's figure is synchronised on the last
parameter (block_until_ready), torch's is synchronous.

image classification: the training step of examples/image_classification.py (its `Net`, batch 64 of 3x32x32,
CrossEntropyLoss, SGD(lr=0.001, momentum=0.9), `loss.item()` each step, which synchronises); steps/s over
--steps steps per repeat.

char LSTM: the training step of examples/char_lstm.py (its `LSTMModel` with the example's default sizes, dropout
0.2, Adam, batches of 64 windows of lengths 8..24 from the shipped text, packed with enforce_sorted=False, in the
example's text order); steps/s over one pass of --steps batches, the same batches in every repeat (so torchlike's
programs for their shapes are compiled in the warm-up).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _median_time(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _sync(torch, t):
    """Wait for ``t``'s value: torchlike runs asynchronously, torch's CPU ops are synchronous."""
    if torch.__name__ == 'torchlike':
        t._value().block_until_ready()


def bench_adam_step(torch, np, repeat):
    rng = np.random.default_rng(0)
    shapes = [(1024, 2048), (2048,)] * 4 + [(1024, 1536), (1536,)]
    ps = [torch.nn.Parameter(torch.tensor(rng.standard_normal(s).astype(np.float32) * 0.02)) for s in shapes]
    for p in ps:
        p.grad = torch.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 1e-3)
    opt = torch.optim.Adam(ps, lr=1e-3)

    def step():
        opt.step()
        _sync(torch, ps[-1])
    return {'adam_step_params': sum(p.numel() for p in ps), 'adam_step_ms': _median_time(step, repeat, 3) * 1e3}


def bench_image(torch, np, repeat, steps):
    from image_classification import Net
    torch.manual_seed(0)
    net = Net()
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    rng = np.random.default_rng(0)
    batches = [(torch.from_numpy(rng.standard_normal((64, 3, 32, 32)).astype(np.float32)),
                torch.from_numpy(rng.integers(0, 10, 64))) for _ in range(steps)]

    def epoch():
        running_loss = 0.0
        for inputs, labels in batches:
            optimizer.zero_grad()
            loss = criterion(net(inputs), labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
    return {'image_steps_per_s': steps / _median_time(epoch, repeat, 2)}


def bench_char_lstm(torch, np, repeat, steps):
    import char_lstm as ex
    args = ex.parse_args([])
    with open(ex.TEXT, encoding='utf-8') as f:
        text = f.read()
    vocab = ex.Vocab(text)
    dataset = ex.Windows(vocab.encode(text), args.min_len, args.max_len, args.stride)
    loader = torch.utils.data.DataLoader(dataset, batch_size=64, shuffle=False, collate_fn=ex.collate)
    batches = [b for _, b in zip(range(steps), loader)]
    torch.manual_seed(0)
    model = ex.build_model(len(vocab), args)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    def epoch():
        running_loss = 0.0
        for text_batch, lengths, targets in batches:
            optimizer.zero_grad()
            loss = criterion(model(text_batch, lengths), targets)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
    return {'char_lstm_steps_per_s': len(batches) / _median_time(epoch, repeat, 1)}


def phase(args):
    """One library's benchmarks (``torch`` is whichever library this process was started with)."""
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(ROOT, 'examples'))
    res = {'library': torch.__name__}
    res.update(bench_adam_step(torch, np, args.repeat))
    res.update(bench_image(torch, np, max(3, args.repeat // 4), args.steps))
    res.update(bench_char_lstm(torch, np, max(3, args.repeat // 4), args.steps))
    print(json.dumps(res))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeat', type=int, default=20, help='timed Adam steps; the loops time repeat // 4 (>= 3)')
    ap.add_argument('--steps', type=int, default=20, help='training steps per timed loop repeat')
    ap.add_argument('--json', default=None)
    ap.add_argument('--phase', action='store_true', help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        return phase(args)
    res = {}
    child = [__file__, '--phase', '--repeat', str(args.repeat), '--steps', str(args.steps)]
    for name, runner in (('torchlike', [sys.executable, '-m', 'torchlike']), ('torch', [sys.executable])):
        out = subprocess.run(runner + child, check=True, capture_output=True, text=True).stdout
        res[name] = json.loads(out.strip().splitlines()[-1])
    tl, th = res['torchlike'], res['torch']
    print(f"Adam.step over {tl['adam_step_params'] / 1e6:.1f}M params: torchlike {tl['adam_step_ms']:.2f} ms, "
          f"torch {th['adam_step_ms']:.2f} ms (ratio {tl['adam_step_ms'] / th['adam_step_ms']:.2f})")
    for key, what in (('image_steps_per_s', 'image classification (Net, batch 64, SGD momentum)'),
                      ('char_lstm_steps_per_s', 'char LSTM (packed, batch 64, Adam)')):
        print(f"{what}: torchlike {tl[key]:.1f} steps/s, torch {th[key]:.1f} steps/s "
              f"(ratio {tl[key] / th[key]:.2f})")
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(res, f, indent=1)


if __name__ == '__main__':
    main()
