"""Workload 4: a nanoGPT-style character Transformer (Karpathy's nanoGPT model.py/train.py, trimmed): 4 layers,
4 heads, d=128, block 64, vocab 65, dropout 0.1, weight-tied lm_head, batch 12; AdamW(lr 1e-3, betas (0.9, 0.99),
weight decay 0.1 on the matrices only) with nanoGPT's warm-up + cosine LR set into the param groups each step,
and clip_grad_norm_(1.0).

A plain PyTorch script: `python gpt.py`, `python -m torchlike [--mode lazy] gpt.py`, `--compile` wraps the
model in torch.compile. Timing and report: _harness.py.
"""
import math

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

import _harness

N_LAYER, N_HEAD, N_EMBD, BLOCK, VOCAB, DROPOUT, BATCH = 4, 4, 128, 64, 65, 0.1, 12
LR, MIN_LR, WARMUP, DECAY_ITERS = 1e-3, 1e-4, 10, 300


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)
        self.resid_dropout = nn.Dropout(DROPOUT)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(N_EMBD, dim=2)
        k = k.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        q = q.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        v = v.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=DROPOUT if self.training else 0,
                                           is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * N_EMBD, N_EMBD)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(VOCAB, N_EMBD), wpe=nn.Embedding(BLOCK, N_EMBD), drop=nn.Dropout(DROPOUT),
            h=nn.ModuleList([Block() for _ in range(N_LAYER)]), ln_f=nn.LayerNorm(N_EMBD)))
        self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
        self.transformer.wte.weight = self.lm_head.weight          # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * N_LAYER))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def configure_optimizer(model):
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{'params': [p for p in params if p.dim() >= 2], 'weight_decay': 0.1},
              {'params': [p for p in params if p.dim() < 2], 'weight_decay': 0.0}]
    return torch.optim.AdamW(groups, lr=LR, betas=(0.9, 0.99))


def get_lr(it):
    """nanoGPT's schedule: linear warm-up, cosine decay to MIN_LR over DECAY_ITERS, then MIN_LR."""
    if it < WARMUP:
        return LR * (it + 1) / (WARMUP + 1)
    if it > DECAY_ITERS:
        return MIN_LR
    ratio = (it - WARMUP) / (DECAY_ITERS - WARMUP)
    return MIN_LR + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (LR - MIN_LR)


def make_batches(n=8):
    rng = np.random.default_rng(0)
    data = rng.integers(0, VOCAB, 20000)
    out = []
    for _ in range(n):
        ix = rng.integers(0, len(data) - BLOCK - 1, BATCH)
        x = np.stack([data[i:i + BLOCK] for i in ix])
        y = np.stack([data[i + 1:i + 1 + BLOCK] for i in ix])
        out.append((torch.from_numpy(x), torch.from_numpy(y)))
    return out


def main():
    args = _harness.parse_args()
    torch.manual_seed(0)
    raw = GPT()
    model = _harness.maybe_compile(raw, args)
    model.train()
    optimizer = configure_optimizer(raw)
    it = [0]

    def step(x, y):
        lr = get_lr(it[0])
        for group in optimizer.param_groups:
            group['lr'] = lr
        loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        it[0] += 1
        return loss.item()

    _harness.run(step, make_batches(), args, 'gpt')


if __name__ == '__main__':
    main()
