#!/usr/bin/env python
"""Training-step latency of the reference models (shared/REFERENCE_MODELS.md): torchlike eager vs real PyTorch
(CPU, float32), with a hand-written jitted JAX version of Net as a third column.

    python scripts/bench_nn.py                       # both models
    python scripts/bench_nn.py --models net --repeat 50 [--json PATH] [--torch-threads N]

Each figure is one forward+backward: ``net.zero_grad(); loss = criterion(net(x), y); loss.backward()``,
synchronised on every parameter gradient (torchlike: block_until_ready; torch is synchronous):
  net    the CIFAR-10 tutorial CNN, batch 64 of 3x32x32, CrossEntropyLoss
  lstm   LSTMModel: Embedding(65, 64) -> 2-layer bidirectional LSTM(64, 128, dropout=0.2) over
         pack_padded_sequence(enforce_sorted=False) -> pad_packed_sequence -> last step -> Dropout -> Linear(256, 65);
         seq 32, batch 32, random lengths in [1, 32], CrossEntropyLoss; training mode
  jax    Net's loss written directly in JAX (lax.conv_general_dilated, reduce_window) and
         ``jax.jit(jax.value_and_grad(loss))`` -- what a jitted program costs, for scale (no LSTM version)
The median of --repeat timed calls after warm-up calls (which compile) is reported in ms, with the ratios
torchlike/torch and torchlike/jax. A model torchlike cannot build or run yet is reported as missing.
On a loaded shared machine torch's default OpenMP threads spin against other processes and its figures
inflate erratically (measured: Net 9 ms -> 265-730 ms); --torch-threads 1 gives stable torch figures there.
"""
import argparse
import contextlib
import importlib.util
import json
import os
import statistics
import sys
import time

import numpy as np

import jax
import jax.numpy as jnp
import torch
import torchlike as tl
import torchlike.nn  # noqa: F401  (until torchlike imports nn itself)
from torchlike._runner import TorchAliasFinder


# ---- the models, written once against a library namespace T (torch or torchlike) ----------------------------

def make_net(T):
    """The CIFAR-10 tutorial CNN: examples/image_classification.py's ``Net``, the one definition of it."""
    return _example('image_classification', T).Net()


def _example(name, T):
    """examples/<name>.py loaded as a module of its own whose ``import torch`` gives library T."""
    spec = importlib.util.spec_from_file_location(f'_{name}_{T.__name__}', os.path.join(EXAMPLES, name + '.py'))
    mod = importlib.util.module_from_spec(spec)
    with _torch_means(T):
        spec.loader.exec_module(mod)
    return mod


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'examples')


@contextlib.contextmanager
def _torch_means(T):
    """While the block runs, ``import torch[.X]`` gives library T's module. For torchlike: its alias finder
    (Note [The torch alias] in torchlike/_runner.py), with the real torch modules this process has already
    imported set aside meanwhile (an import would find them first) and put back after."""
    if T is torch:
        yield
        return

    def torch_modules():
        return {k: v for k, v in sys.modules.items() if k == 'torch' or k.startswith('torch.')}
    real = torch_modules()
    for k in real:
        del sys.modules[k]
    finder = TorchAliasFinder()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in torch_modules():
            del sys.modules[k]
        sys.modules.update(real)


VOCAB, EMB, HID, OUT, P = 65, 64, 128, 65, 0.2


def make_lstm_model(T):
    nn = T.nn

    class LSTMModel(nn.Module):
        def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, p):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embedding_dim)
            self.lstm = nn.LSTM(embedding_dim, hidden_dim, num_layers=2, dropout=p, bidirectional=True)
            self.dropout = nn.Dropout(p)
            self.fc = nn.Linear(2 * hidden_dim, output_dim)

        def forward(self, text, lengths):
            embedded = self.embedding(text)
            packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths, enforce_sorted=False)
            out, _ = self.lstm(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out)
            return self.fc(self.dropout(out[-1]))
    return LSTMModel(VOCAB, EMB, HID, OUT, P)


def _inputs(model):
    rs = np.random.RandomState(0)
    if model == 'net':
        x = rs.standard_normal((64, 3, 32, 32)).astype(np.float32)
        y = rs.randint(0, 10, 64)
        return (x,), y
    seq, batch = 32, 32
    text = rs.randint(0, VOCAB, (seq, batch))
    lengths = rs.randint(1, seq + 1, batch)
    lengths[0] = seq                       # pad_packed_sequence's length is the longest sequence
    y = rs.randint(0, OUT, batch)
    return (text, lengths), y


MAKERS = {'net': make_net, 'lstm': make_lstm_model}


def _step_fn(T, model, sync):
    """A zero-arg callable doing one training step's forward+backward with library T, synchronised."""
    torch.manual_seed(0)
    m = MAKERS[model](T)
    m.train()
    args, y = _inputs(model)
    targs = [T.tensor(a) for a in args]
    if model == 'lstm':
        targs[1] = T.tensor(args[1])       # lengths: a CPU int64 tensor, as the tutorial passes them
    ty = T.tensor(y)
    crit = T.nn.CrossEntropyLoss()
    params = list(m.parameters())

    def step():
        m.zero_grad()
        loss = crit(m(*targs), ty)
        loss.backward()
        sync(loss, params)
    return step, m


def _sync_torch(loss, params):
    pass                                    # torch CPU is synchronous


def _sync_tl(loss, params):
    jax.block_until_ready([loss._materialize()] + [p.grad._materialize() for p in params])


# ---- Net in plain JAX -------------------------------------------------------------------------------------------

def _jax_net_step(torch_net):
    """jit(value_and_grad) of Net's loss, with torch_net's initial weights (same math as the module)."""
    params = {k: jnp.asarray(v.detach().numpy()) for k, v in torch_net.state_dict().items()}
    (x,), y = _inputs('net')
    x, y = jnp.asarray(x), jnp.asarray(y)
    dn = ('NCHW', 'OIHW', 'NCHW')

    def conv(h, w, b):
        return jax.lax.conv_general_dilated(h, w, (1, 1), 'VALID', dimension_numbers=dn) + b[None, :, None, None]

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), 'VALID')

    def loss_fn(p, x, y):
        h = pool(jax.nn.relu(conv(x, p['conv1.weight'], p['conv1.bias'])))
        h = pool(jax.nn.relu(conv(h, p['conv2.weight'], p['conv2.bias'])))
        h = h.reshape(-1, 400)
        h = jax.nn.relu(h @ p['fc1.weight'].T + p['fc1.bias'])
        h = jax.nn.relu(h @ p['fc2.weight'].T + p['fc2.bias'])
        logits = h @ p['fc3.weight'].T + p['fc3.bias']
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    vg = jax.jit(jax.value_and_grad(loss_fn))

    def step():
        jax.block_until_ready(vg(params, x, y))
    return step


# ---- timing -----------------------------------------------------------------------------------------------------

def _measure(fns, repeat, warmup=3, budget_s=20.0):
    """Median milliseconds of each callable in ``fns`` ({label: fn}), timed round-robin so that load from other
    processes on a shared machine hits every variant alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {k: [] for k in fns}
    t_end = time.perf_counter() + budget_s
    for i in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
        if i >= 4 and time.perf_counter() > t_end:
            break
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


def bench(model, repeat):
    row = {'model': model}
    jax_side = {}
    try:
        tl_step, _ = _step_fn(tl, model, _sync_tl)
        tl_step()
        jax_side['tl'] = tl_step
    except Exception as e:   # noqa: BLE001 - anything torchlike cannot do yet is reported, not fatal
        row['missing'] = f'{type(e).__name__}: {e}'.splitlines()[0][:160]
    th_step, th_model = _step_fn(torch, model, _sync_torch)
    if model == 'net':
        jax_side['jax'] = _jax_net_step(th_model)
    # torch and JAX are timed in separate round-robin phases (see scripts/bench_ops.py bench(): after a torch
    # backward, torch's OpenMP workers keep spinning on the second core, which slows the next JAX dispatch)
    row.update(_measure(jax_side, repeat))
    row.update(_measure({'torch': th_step}, repeat))
    return row


def _fmt(v):
    return '-' if v is None else f'{v:.2f}' if v < 10 else f'{v:.1f}'


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--models', nargs='+', default=list(MAKERS), choices=list(MAKERS))
    ap.add_argument('--repeat', type=int, default=30, help='timed calls per measurement (capped at ~20s each)')
    ap.add_argument('--json', metavar='PATH')
    ap.add_argument('--torch-threads', type=int, default=0, help='torch.set_num_threads (default: torch\'s own)')
    a = ap.parse_args(argv)
    if a.torch_threads:
        torch.set_num_threads(a.torch_threads)
    print(f'jax {jax.__version__} ({jax.default_backend()}), torch {torch.__version__}, '
          f'{torch.get_num_threads()} torch threads; forward+backward, median ms')
    hdr = f'{"model":<8}{"torchlike":>11}{"torch":>10}{"jax jit":>10}{"tl/torch":>10}{"tl/jax":>9}'
    print(hdr)
    print('-' * len(hdr))
    rows = []
    for model in a.models:
        r = bench(model, a.repeat)
        rows.append(r)
        if 'missing' in r:
            print(f'{model:<8}{"missing":>11}{_fmt(r["torch"]):>10}{_fmt(r.get("jax")):>10}'
                  f'   torchlike: {r["missing"]}', flush=True)
            continue
        r['ratio_torch'] = r['tl'] / r['torch']
        r['ratio_jax'] = r['tl'] / r['jax'] if 'jax' in r else None
        rj = f'{r["ratio_jax"]:.2f}' if r['ratio_jax'] else '-'
        print(f'{model:<8}{_fmt(r["tl"]):>11}{_fmt(r["torch"]):>10}{_fmt(r.get("jax")):>10}'
              f'{r["ratio_torch"]:>10.2f}{rj:>9}', flush=True)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(rows, f, indent=1)
        print(f'wrote {a.json}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
