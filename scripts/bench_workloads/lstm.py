"""Workload 3: the reference `LSTMModel` (examples/char_lstm.py): Embedding(65, 128) -> 2-layer bidirectional
LSTM(128, 256, dropout 0.2) over pack_padded_sequence(enforce_sorted=False) -> pad_packed_sequence -> each
sequence's last step -> Dropout -> Linear(512, 65); seq 35, batch 32, CrossEntropyLoss, Adam(lr=1e-3).

The batches are a pool of 4 with random lengths in [8, 35] (the longest always 35), cycled: a packed batch's
shapes depend on its lengths, so each pool entry is its own program for a compiler, all met during warm-up.
A plain PyTorch script: `python lstm.py`, `python -m torchlike [--mode lazy] lstm.py`, `--compile` wraps the
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
from char_lstm import LSTMModel  # noqa: E402  (the one definition of the reference model)

VOCAB, EMB, HIDDEN, SEQ, BATCH, DROPOUT, POOL = 65, 128, 256, 35, 32, 0.2, 4


def make_batches():
    """POOL batches of (text (SEQ, BATCH) int64 padded with 0, lengths (BATCH,) CPU int64, targets (BATCH,))."""
    rng = np.random.default_rng(0)
    out = []
    for _ in range(POOL):
        lengths = rng.integers(8, SEQ + 1, BATCH)
        lengths[0] = SEQ
        text = rng.integers(1, VOCAB, (SEQ, BATCH))
        text[np.arange(SEQ)[:, None] >= lengths[None, :]] = 0
        out.append((torch.from_numpy(text), torch.from_numpy(lengths), torch.from_numpy(rng.integers(0, VOCAB, BATCH))))
    return out


def main():
    args = _harness.parse_args()
    torch.manual_seed(0)
    model = _harness.maybe_compile(LSTMModel(VOCAB, EMB, HIDDEN, VOCAB, DROPOUT), args)
    model.train()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(text, lengths, targets):
        optimizer.zero_grad()
        loss = criterion(model(text, lengths), targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    _harness.run(step, make_batches(), args, 'lstm')


if __name__ == '__main__':
    main()
