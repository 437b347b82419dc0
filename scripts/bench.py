#!/usr/bin/env python
"""Training throughput of four workloads under five variants, interleaved in one run (issue 5).

    python scripts/bench.py                          # the full run (< 10 min on 2 cores)
    python scripts/bench.py --quick                  # a few steps of each, for development
    python scripts/bench.py --workloads mlp,gpt --variants torch,lazy,jax --rounds 5 --steps 40 [--json PATH]

Workloads (scripts/bench_workloads/, one PyTorch-style script each, run unchanged under every variant):
  mlp   MLP 784-512-512-10, batch 128, Adam
  cnn   the reference Net (examples/image_classification.py), 3x32x32, batch 64, SGD momentum
  lstm  the reference LSTMModel (examples/char_lstm.py), 2-layer bidirectional, emb 128, hidden 256, seq 35,
        batch 32, packed sequences, Adam
  gpt   nanoGPT-style Transformer, 4 layers, 4 heads, d=128, block 64, batch 12, AdamW, cosine LR, dropout 0.1
Variants:
  torch    real PyTorch eager             python W.py
  eager    torchlike eager                python -m torchlike --mode eager W.py
  lazy     torchlike lazy, the default python -m torchlike --mode lazy W.py
  compile  torchlike + torch.compile      python -m torchlike W.py --compile   (the script wraps its model)
  jax      hand-written JAX, jitted and donated, optimizers written in jax.numpy (jax_W.py), XLA's defaults
  jax-opt  the same JAX with the compiler options of lazy mode's step programs, given as XLA_FLAGS (Note [CPU
           compile options] in torchlike/_engine/jaxrt.py: convolutions left to XLA's own kernels), so that
           lazy/jax-opt compares like with like where lazy/jax includes what the options give

How it measures. Per workload, one process per variant is started (one at a time, so that compiles do not compete),
runs its first step (timed alone: "first-step s", compiles included, from a cold start: each torchlike process gets
an empty compilation cache) and warm-up steps, then waits. Then --rounds rounds: in each, every variant in turn (the
order rotated each round) runs one chunk of --steps steps while the others sleep on their stdin; a chunk's seconds
per step is one sample. The table gives the median over the rounds, as steps/s, and the ratios between variants'
medians. "recompiles" counts the programs compiled from the end of warm-up to the end of the run (lazy:
torch.debug.metrics()['compiles']; compile: torch.compile traces; jax: the jitted step's cache), "syncs/step" the
lazy engine's syncs per timed step; "RSS MB" is each process's peak (ru_maxrss). Real torch runs with
OMP_WAIT_POLICY=PASSIVE: on a loaded shared machine its OpenMP threads otherwise spin against other processes and its
step times jump erratically (measured on the MLP: 12-20 ms passive, 90-480 ms spinning); --torch-spin keeps torch's
default. Every variant runs with the glibc allocator settings that `python -m torchlike` gives itself (Note
[Allocator settings] in torchlike/_allocator.py: freed buffers are reused instead of faulted in anew each step;
hand-written JAX and torch gain from them too, so all five get them); --default-malloc runs all five with glibc's
defaults.

Targets (issue 5): lazy >= 0.9x jax on all four; lazy >= 1.0x torch on the MLP; eager within 3x of torch on the
MLP (eager/torch >= 0.33); zero recompiles after warm-up.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from torchlike import _allocator

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WL = os.path.join(HERE, 'bench_workloads')
WORKLOADS = ('mlp', 'cnn', 'lstm', 'gpt')
VARIANTS = ('torch', 'eager', 'lazy', 'compile', 'jax', 'jax-opt')
# Steps per chunk in the full run, chosen so that the whole run fits in 10 minutes on 2 cores: the LSTM's steps
# are ~0.3-0.8 s under every variant, so it gets fewer (its 5 x 10 = 50 timed steps still count its recompiles).
STEPS = {'mlp': 40, 'cnn': 40, 'lstm': 10, 'gpt': 30}


def command(workload, variant):
    py = sys.executable
    script = os.path.join(WL, workload + '.py')
    return {'torch': [py, script],
            'eager': [py, '-m', 'torchlike', '--mode', 'eager', script],
            'lazy': [py, '-m', 'torchlike', '--mode', 'lazy', script],
            'compile': [py, '-m', 'torchlike', script, '--compile'],
            'jax': [py, os.path.join(WL, f'jax_{workload}.py')],
            'jax-opt': [py, os.path.join(WL, f'jax_{workload}.py')]}[variant]


def xla_flags():
    """Lazy mode's compiler options as XLA_FLAGS for the jax-opt variant (they are lists of enum names there,
    written in lower case without the type's prefix)."""
    from torchlike._engine import jaxrt
    return ' '.join(f"--{k}={v.lower().replace('library_fusion_type_', '')}" for k, v in jaxrt.compiler_options().items())


DEFAULT_MALLOC = False       # --default-malloc


def environment(variant, torch_spin):
    env = dict(os.environ)
    env.pop('TORCHLIKE_MODE', None)           # the variant alone picks the mode
    if variant == 'torch' and not torch_spin:
        env['OMP_WAIT_POLICY'] = 'PASSIVE'
    if DEFAULT_MALLOC:
        env['TORCHLIKE_MALLOC'] = '0'
        for k in _allocator.SETTINGS:
            env.pop(k, None)
    else:
        env.update(_allocator.SETTINGS)
    if variant == 'jax-opt':
        env['XLA_FLAGS'] = (env.get('XLA_FLAGS', '') + ' ' + xla_flags()).strip()
    if variant in ('eager', 'lazy', 'compile'):
        # a cold start, as the JAX variants' (jax keeps no compilation cache unless told): an empty one per run
        env['TORCHLIKE_CACHE_DIR'] = tempfile.mkdtemp(dir=_COLD_CACHE.name)
    env['PYTHONPATH'] = ROOT + os.pathsep + env.get('PYTHONPATH', '')
    return env


_COLD_CACHE = tempfile.TemporaryDirectory(prefix='bench-xla-cache-')


class Worker:
    """One variant's process, serving timed chunks on request (scripts/bench_workloads/_loop.py, --serve)."""

    def __init__(self, workload, variant, steps, warmup, torch_spin):
        self.name = variant
        self.err = tempfile.TemporaryFile(mode='w+')
        self.proc = subprocess.Popen(command(workload, variant) + ['--serve', '--steps', str(steps),
                                                                   '--warmup', str(warmup)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True,
                                     cwd=ROOT, env=environment(variant, torch_spin))
        self.failed = None

    def _expect(self, prefix):
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line[len(prefix):].strip()
        self.proc.wait()
        self.failed = self.stderr_tail() or f'exit status {self.proc.returncode}'
        return None

    def ready(self):
        return self._expect('BENCH_READY') is not None

    def chunk(self):
        if self.failed:
            return None
        self.proc.stdin.write('go\n')
        self.proc.stdin.flush()
        out = self._expect('BENCH_REPEAT')
        return None if out is None else float(out)

    def finish(self):
        if self.failed:
            return None
        self.proc.stdin.write('end\n')
        self.proc.stdin.flush()
        out = self._expect('BENCH_JSON')
        self.proc.wait()
        if out is None:
            return None
        rec = json.loads(out)
        rec['graph_breaks'] = self.stderr().count('Warning: torch.compile: graph break')
        return rec

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def stderr_tail(self):
        lines = [ln for ln in self.stderr().strip().splitlines() if ln.strip()]
        return lines[-1][:200] if lines else ''


def bench_workload(workload, variants, rounds, steps, warmup, torch_spin, log):
    workers = []
    for v in variants:
        t0 = time.perf_counter()
        w = Worker(workload, v, steps, warmup, torch_spin)
        ok = w.ready()
        log(f'  {workload}/{v}: {"ready" if ok else "FAILED: " + w.failed} ({time.perf_counter() - t0:.1f} s)')
        workers.append(w)
    for r in range(rounds):
        k = r % len(workers)
        for w in workers[k:] + workers[:k]:
            w.chunk()
    out = {}
    for w in workers:
        rec = w.finish()
        out[w.name] = rec if rec is not None else {'error': w.failed}
    return out


def summarize(rec):
    if 'error' in rec:
        return None
    c = rec.get('counters', {})
    if rec['library'] == 'jax':
        recompiles = c.get('compiles')
    elif rec['compile']:
        recompiles = c.get('traces', 0) + c.get('compiles', 0)
    elif rec['library'] == 'torchlike' and c.get('syncs'):
        recompiles = c.get('compiles')
    else:
        recompiles = None            # torch eager, torchlike eager: nothing to count
    syncs = c.get('syncs', 0) / rec['timed_steps'] if c.get('syncs') else None
    return {'steps_per_s': 1.0 / statistics.median(rec['step_s']), 'first_s': rec['first_step_s'],
            'recompiles': recompiles, 'syncs_per_step': syncs, 'rss_mb': rec['peak_rss_mb'],
            'timed_steps': rec['timed_steps'], 'graph_breaks': rec.get('graph_breaks', 0),
            'spread': (max(rec['step_s']) - min(rec['step_s'])) / statistics.median(rec['step_s'])}


def fmt(x, spec):
    return '-' if x is None else format(x, spec)


def table(results, variants):
    lines = []
    head = f"{'workload':8} {'variant':8} {'steps/s':>8} {'spread':>6} {'first s':>7} {'recomp':>6} " \
           f"{'sync/st':>7} {'RSS MB':>7}  notes"
    lines += [head, '-' * len(head)]
    for wname, per in results.items():
        s = {v: summarize(per[v]) for v in variants if v in per}
        for v in variants:
            if v not in per:
                continue
            if s[v] is None:
                lines.append(f'{wname:8} {v:8} FAILED: {per[v]["error"]}')
                continue
            x = s[v]
            notes = f"{x['graph_breaks']} graph-break warning(s)" if x['graph_breaks'] else ''
            lines.append(f"{wname:8} {v:8} {x['steps_per_s']:8.1f} {x['spread']:6.0%} {x['first_s']:7.2f} "
                         f"{fmt(x['recompiles'], 'd'):>6} {fmt(x['syncs_per_step'], '.1f'):>7} {x['rss_mb']:7.0f}  "
                         f"{notes}")
        ratios = []
        for a, b, target in (('lazy', 'jax', 0.9), ('lazy', 'torch', 1.0 if wname == 'mlp' else None),
                             ('eager', 'torch', 1 / 3 if wname == 'mlp' else None), ('compile', 'jax', None),
                             ('jax', 'torch', None), ('lazy', 'jax-opt', None), ('jax-opt', 'jax', None)):
            if s.get(a) and s.get(b):
                r = s[a]['steps_per_s'] / s[b]['steps_per_s']
                mark = '' if target is None else (' ok' if r >= target else f' MISS (target {target:.2f})')
                ratios.append(f'{a}/{b} {r:.2f}{mark}')
        if ratios:
            lines.append(f"{'':8} ratios: " + ', '.join(ratios))
        lines.append('')
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='2 rounds of 3 steps, warm-up 3: for development')
    ap.add_argument('--workloads', default=','.join(WORKLOADS))
    ap.add_argument('--variants', default=','.join(VARIANTS))
    ap.add_argument('--steps', type=int, default=None, help='steps per chunk (default: per workload, see STEPS)')
    ap.add_argument('--rounds', type=int, default=5, help='timed chunks per variant, interleaved')
    ap.add_argument('--warmup', type=int, default=10, help='steps before timing (the first included)')
    ap.add_argument('--torch-spin', action='store_true', help="keep torch's default OMP_WAIT_POLICY")
    ap.add_argument('--default-malloc', action='store_true',
                    help="glibc's default allocator settings for every variant (see Note [Allocator settings])")
    ap.add_argument('--json', default=None, help='write every raw record here')
    args = ap.parse_args()
    global DEFAULT_MALLOC
    DEFAULT_MALLOC = args.default_malloc
    if args.quick:
        args.rounds, args.warmup = 2, 3
        args.steps = args.steps or 3
    workloads = [w for w in args.workloads.split(',') if w]
    variants = [v for v in args.variants.split(',') if v]
    for name, given, known in (('workload', workloads, WORKLOADS), ('variant', variants, VARIANTS)):
        bad = [x for x in given if x not in known]
        if bad:
            ap.error(f'unknown {name}(s) {bad}; choose from {",".join(known)}')

    def log(msg):
        print(msg, file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    results = {}
    for w in workloads:
        steps = args.steps or STEPS[w]
        log(f'{w}: {args.rounds} rounds x {steps} steps, warm-up {args.warmup}')
        results[w] = bench_workload(w, variants, args.rounds, steps, args.warmup, args.torch_spin, log)
    print(f'# scripts/bench.py: {args.rounds} interleaved rounds per variant, median steps/s; spread = '
          f'(max - min) / median of the per-round step times; recomp = programs compiled after warm-up; '
          f'torch with OMP_WAIT_POLICY={"default" if args.torch_spin else "PASSIVE"}; '
          f'{"glibc default" if args.default_malloc else "reusing"} allocator; '
          f'{os.cpu_count()} CPUs; total {time.perf_counter() - t0:.0f} s')
    print(table(results, variants))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)


if __name__ == '__main__':
    main()
