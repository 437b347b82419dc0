"""What the PyTorch-style workload scripts share: their command line, the torch.compile switch, and torchlike's
counters for the report. The loop and report themselves: _loop.py.

Plain PyTorch code: ``import torch`` is real torch under ``python script.py`` and torchlike under
``python -m torchlike [--mode lazy] script.py``; the scripts never ask which. Only the counters look at
``torch.__name__``, to read torchlike's (lazy programs compiled, syncs, ...; traces made by ``torch.compile``).
"""
import argparse

import torch

import _loop


def parse_args(argv=None):
    ap = argparse.ArgumentParser()
    _loop.add_args(ap)
    ap.add_argument('--compile', action='store_true', help='wrap the model in torch.compile')
    ap.add_argument('--threads', type=int, default=None, help='torch.set_num_threads (real torch)')
    args = ap.parse_args(argv)
    if args.threads and torch.__name__ == 'torch':
        torch.set_num_threads(args.threads)
    return args


def maybe_compile(model, args):
    """The model itself, or torch.compile(model) under --compile."""
    return torch.compile(model) if args.compile else model


def _counters():
    """torchlike's counters (lazy engine, torch.compile traces); {} under real torch."""
    if torch.__name__ != 'torchlike':
        return {}
    from torchlike._engine import traced       # torchlike-only internals: the report, not the loop
    c = {k: v for k, v in torch.debug.metrics().items() if isinstance(v, (int, float))}
    c['traces'] = traced.stats['traces']
    return c


def run(step, batches, args, name):
    """Time ``step(*batch)`` (which returns the loss as a float) over ``batches``, cycled (_loop.run)."""
    _loop.run(lambda i: step(*batches[i % len(batches)]), _counters, args,
              {'workload': name, 'library': torch.__name__, 'compile': args.compile})
