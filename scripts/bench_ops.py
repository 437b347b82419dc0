#!/usr/bin/env python
"""Per-op eager latency: torchlike vs raw jax.numpy vs real PyTorch (CPU, float32).

    python scripts/bench_ops.py                      # all ops, sizes 16x16 and 1024x1024
    python scripts/bench_ops.py --ops add matmul --sizes 16 --repeat 50 [--json PATH]

For each op and size (x, y are (n, n) float32 with values in [-1, 1]):
  tl fwd      torchlike ``y = op(x)``, synchronised (block_until_ready on the result)
  jnp fwd     the same computation written directly with jax.numpy, eager, synchronised
  torch fwd   real torch ``op(x)``
  tl f+b      torchlike ``y = op(x); y.sum().backward()`` with x requiring grad (synchronised on x.grad)
  torch f+b   the same in torch
Targets (from the issue): torchlike forward <= 2x raw jnp forward; forward+backward <= 4x raw jnp
forward. Each figure is the median over --repeat timed calls after warm-up calls (which compile), the
JAX-side variants timed round-robin so that load from other processes affects them alike (torch's in a
phase of their own, see bench());
``!`` marks a missed target. Ops torchlike lacks are reported as missing.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

import jax
import jax.numpy as jnp
import torch
import torchlike as tl


def _relu_jnp(x):
    return jnp.maximum(x, 0)


def _softmax_jnp(x):
    return jax.nn.softmax(x, axis=-1)


def _max_dim_jnp(x):
    return jnp.max(x, axis=1), jnp.argmax(x, axis=1)


# name -> (torch-API function of (T, x, y) used for both torch and torchlike, jnp function of (x, y))
OPS = {
    'add': (lambda T, x, y: T.add(x, y), lambda x, y: jnp.add(x, y)),
    'mul': (lambda T, x, y: T.mul(x, y), lambda x, y: jnp.multiply(x, y)),
    'exp': (lambda T, x, y: T.exp(x), lambda x, y: jnp.exp(x)),
    'sin': (lambda T, x, y: T.sin(x), lambda x, y: jnp.sin(x)),
    'tanh': (lambda T, x, y: T.tanh(x), lambda x, y: jnp.tanh(x)),
    'relu': (lambda T, x, y: T.relu(x), lambda x, y: _relu_jnp(x)),
    'sum': (lambda T, x, y: T.sum(x), lambda x, y: jnp.sum(x)),
    'mean': (lambda T, x, y: T.mean(x), lambda x, y: jnp.mean(x)),
    'matmul': (lambda T, x, y: T.matmul(x, y), lambda x, y: jnp.matmul(x, y)),
    'softmax': (lambda T, x, y: T.softmax(x, dim=-1), lambda x, y: _softmax_jnp(x)),
    'transpose+reshape': (lambda T, x, y: x.transpose(0, 1).reshape(-1), lambda x, y: x.T.reshape(-1)),
    'cat': (lambda T, x, y: T.cat([x, y]), lambda x, y: jnp.concatenate([x, y])),
    'index[1:]': (lambda T, x, y: x[1:], lambda x, y: x[1:]),
    'where': (lambda T, x, y: T.where(x > 0, x, y), lambda x, y: jnp.where(x > 0, x, y)),
    'max(dim)': (lambda T, x, y: T.max(x, dim=1)[0], lambda x, y: _max_dim_jnp(x)),
}


def _measure(fns, repeat, warmup=3, budget_s=3.0):
    """Median microseconds of each callable in ``fns`` ({label: fn}), timed round-robin so that load from
    other processes on a shared machine hits every variant alike."""
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
    return {k: statistics.median(v) * 1e6 for k, v in times.items()}


def _sync_tl(t):
    if isinstance(t, (tuple, list)):
        for v in t:
            _sync_tl(v)
        return
    jax.block_until_ready(t._materialize())


def bench(name, n, repeat):
    tfn, jfn = OPS[name]
    rs = np.random.RandomState(0)
    xa = rs.uniform(-1, 1, (n, n)).astype(np.float32)
    ya = rs.uniform(-1, 1, (n, n)).astype(np.float32)
    row = {'op': name, 'n': n}
    fns = {}

    # raw jax.numpy (eager)
    xj, yj = jnp.asarray(xa), jnp.asarray(ya)
    fns['jnp_fwd'] = lambda: jax.block_until_ready(jfn(xj, yj))

    # real torch
    xt, yt = torch.from_numpy(xa.copy()), torch.from_numpy(ya.copy())
    fns['torch_fwd'] = lambda: tfn(torch, xt, yt)
    xtg = xt.clone().requires_grad_(True)

    def torch_fb():
        xtg.grad = None
        tfn(torch, xtg, yt).sum().backward()
    fns['torch_fb'] = torch_fb

    # torchlike
    x, y = tl.tensor(xa), tl.tensor(ya)
    xg = tl.tensor(xa, requires_grad=True)

    def tl_fwd():
        _sync_tl(tfn(tl, x, y))

    def tl_fb():
        xg.grad = None
        tfn(tl, xg, y).sum().backward()
        _sync_tl(xg.grad)
    try:
        tl_fwd()
        fns['tl_fwd'] = tl_fwd
    except (AttributeError, NotImplementedError, TypeError) as e:
        row['missing'] = f'{type(e).__name__}: {e}'.splitlines()[0][:100]
    if 'missing' not in row:
        try:
            tl_fb()
            fns['tl_fb'] = tl_fb
        except Exception as e:
            row['missing_bwd'] = f'{type(e).__name__}: {e}'.splitlines()[0][:100]
    # torch and JAX are timed in separate round-robin phases: right after a torch backward, torch's
    # OpenMP workers keep spinning on the second core for a while, which (measured) triples the
    # latency of the next JAX dispatch that needs XLA's worker thread -- an artefact of sharing one
    # process that no real program has.
    row.update(_measure({k: f for k, f in fns.items() if not k.startswith('torch')}, repeat))
    row.update(_measure({k: f for k, f in fns.items() if k.startswith('torch')}, repeat))
    return row


def _fmt(v):
    if v is None:
        return '-'
    return f'{v:.0f}' if v >= 100 else f'{v:.1f}'


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--ops', nargs='+', default=list(OPS), choices=list(OPS), metavar='OP')
    ap.add_argument('--sizes', nargs='+', type=int, default=[16, 1024])
    ap.add_argument('--repeat', type=int, default=100, help='timed calls per measurement (capped at ~2s each)')
    ap.add_argument('--json', metavar='PATH')
    ap.add_argument('--torch-threads', type=int, default=0, help='torch.set_num_threads (default: torch\'s own)')
    a = ap.parse_args(argv)
    if a.torch_threads:
        torch.set_num_threads(a.torch_threads)
    print(f'jax {jax.__version__} ({jax.default_backend()}), torch {torch.__version__}, '
          f'{torch.get_num_threads()} torch threads; times in microseconds (median)')
    hdr = (f'{"op":<18}{"n":>5}{"tl fwd":>10}{"jnp fwd":>10}{"torch fwd":>10}{"tl f+b":>10}{"torch f+b":>10}'
           f'{"fwd/jnp":>9}{"f+b/jnp":>9}{"fwd/torch":>10}')
    print(hdr)
    print('-' * len(hdr))
    rows = []
    missed = 0
    for n in a.sizes:
        for name in a.ops:
            r = bench(name, n, a.repeat)
            rows.append(r)
            if 'missing' in r:
                print(f'{name:<18}{n:>5}  missing in torchlike ({r["missing"]})'
                      f'   [jnp {_fmt(r["jnp_fwd"])}, torch {_fmt(r["torch_fwd"])}]', flush=True)
                continue
            rf = r['tl_fwd'] / r['jnp_fwd']
            rb = r['tl_fb'] / r['jnp_fwd'] if 'tl_fb' in r else None
            rt = r['tl_fwd'] / r['torch_fwd']
            r['ratio_fwd_jnp'], r['ratio_fb_jnp'], r['ratio_fwd_torch'] = rf, rb, rt
            mf = '!' if rf > 2 else ' '
            mb = '!' if rb is not None and rb > 4 else ' '
            missed += (mf == '!') + (mb == '!')
            line = (f'{name:<18}{n:>5}{_fmt(r["tl_fwd"]):>10}{_fmt(r["jnp_fwd"]):>10}{_fmt(r["torch_fwd"]):>10}'
                    f'{_fmt(r.get("tl_fb")):>10}{_fmt(r["torch_fb"]):>10}'
                    f'{rf:>8.2f}{mf}{(f"{rb:.2f}" if rb is not None else "-"):>8}{mb}{rt:>10.2f}')
            if 'missing_bwd' in r:
                line += f'  backward fails: {r["missing_bwd"]}'
            print(line, flush=True)
    have = [r for r in rows if 'missing' not in r]
    print()
    print(f'{len(have)}/{len(rows)} measured; targets missed (! : fwd > 2x jnp, f+b > 4x jnp fwd): {missed}')
    if have:
        gm = float(np.exp(np.mean([np.log(r['ratio_fwd_jnp']) for r in have])))
        print(f'geometric mean torchlike fwd / jnp fwd: {gm:.2f}')
        fb = [r['ratio_fb_jnp'] for r in have if r.get('ratio_fb_jnp')]
        if fb:
            print(f'geometric mean torchlike f+b / jnp fwd: {float(np.exp(np.mean(np.log(fb)))):.2f}')
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(rows, f, indent=1)
        print(f'wrote {a.json}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
