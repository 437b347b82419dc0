"""Workload 1: an MLP 784-512-512-10 (ReLU), batch 128 of random 784-vectors, CrossEntropyLoss, Adam(lr=1e-3).

A plain PyTorch script: `python mlp.py`, `python -m torchlike [--mode lazy] mlp.py`, `--compile` wraps the
model in torch.compile. Timing and report: _harness.py.
"""
import numpy as np
import torch
import torch.nn as nn

import _harness

BATCH = 128


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                 nn.Linear(512, 10))

    def forward(self, x):
        return self.net(x)


def main():
    args = _harness.parse_args()
    torch.manual_seed(0)
    model = _harness.maybe_compile(MLP(), args)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    batches = [(torch.from_numpy(rng.standard_normal((BATCH, 784)).astype(np.float32)),
                torch.from_numpy(rng.integers(0, 10, BATCH))) for _ in range(8)]

    def step(x, y):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    _harness.run(step, batches, args, 'mlp')


if __name__ == '__main__':
    main()
