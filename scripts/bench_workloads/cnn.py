"""Workload 2: the reference `Net` CNN (examples/image_classification.py), batch 64 of random 3x32x32 images,
CrossEntropyLoss, SGD(lr=0.001, momentum=0.9) -- the CIFAR-10 tutorial's training step.

A plain PyTorch script: `python cnn.py`, `python -m torchlike [--mode lazy] cnn.py`, `--compile` wraps the
model in torch.compile. Timing and report: _harness.py.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

import _harness

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                'examples'))
from image_classification import Net  # noqa: E402  (the one definition of the reference model)

BATCH = 64


def main():
    args = _harness.parse_args()
    torch.manual_seed(0)
    net = _harness.maybe_compile(Net(), args)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    rng = np.random.default_rng(0)
    batches = [(torch.from_numpy(rng.standard_normal((BATCH, 3, 32, 32)).astype(np.float32)),
                torch.from_numpy(rng.integers(0, 10, BATCH))) for _ in range(8)]

    def step(inputs, labels):
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    _harness.run(step, batches, args, 'cnn')


if __name__ == '__main__':
    main()
