"""The timing loop and report of every workload script, PyTorch-style (_harness.py) or JAX (_jax_harness.py).

A script first runs one step alone, timed (it includes every compile), then warm-up steps up to --warmup. Then:
- standalone: --repeats timed chunks of --steps steps each, then the report;
- ``--serve`` (what scripts/bench.py uses to interleave variants that live in separate processes): it prints
  ``BENCH_READY`` and waits; each ``go`` line on stdin runs one chunk of --steps steps and answers
  ``BENCH_REPEAT <seconds per step>``; ``end`` prints the report and returns. Idle, it blocks on stdin, so it
  takes no CPU from the variant being timed.
A step ends by reading the loss to a Python float (``loss.item()``), so nothing is in flight when a chunk's clock
stops. The report is one line ``BENCH_JSON {...}``: per-chunk seconds per step, first-step seconds, peak RSS
(ru_maxrss), and the change of the library's counters (compiles, syncs, ...) from the end of warm-up to the end.
"""
import json
import resource
import sys
import time


def add_args(ap):
    ap.add_argument('--steps', type=int, default=50, help='steps per timed chunk')
    ap.add_argument('--repeats', type=int, default=3, help='timed chunks (standalone)')
    ap.add_argument('--warmup', type=int, default=10, help='steps before timing starts (the first included)')
    ap.add_argument('--serve', action='store_true', help='run a chunk per "go" line on stdin (scripts/bench.py)')


def run(one, counters, args, record):
    """``one(i)`` runs step i and returns its loss (a float); ``counters()`` -> {name: number}; ``record``: the
    report's fixed fields (workload, library, ...)."""
    t0 = time.perf_counter()
    loss = one(0)
    first = time.perf_counter() - t0
    for i in range(1, max(args.warmup, 1)):
        loss = one(i)
    before = counters()
    i = max(args.warmup, 1)
    times = []

    def chunk():
        nonlocal i, loss
        t0 = time.perf_counter()
        for _ in range(args.steps):
            loss = one(i)
            i += 1
        times.append((time.perf_counter() - t0) / args.steps)
        return times[-1]

    if args.serve:
        print('BENCH_READY', flush=True)
        for line in sys.stdin:
            if line.strip() != 'go':
                break
            print(f'BENCH_REPEAT {chunk()}', flush=True)
    else:
        for _ in range(args.repeats):
            chunk()
    after = counters()
    rec = dict(record, first_step_s=first, step_s=times, timed_steps=args.steps * len(times), final_loss=loss,
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               counters={k: after[k] - before.get(k, 0) for k in after}, counters_total=after)
    print('BENCH_JSON ' + json.dumps(rec), flush=True)
