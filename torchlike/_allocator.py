"""glibc's allocator settings for ``python -m torchlike``.

Note [Allocator settings]
XLA:CPU allocates a program's large buffers (activations, a step's temporaries, the VJP residuals) with
malloc on every run and frees them at its end. glibc serves allocations above its mmap threshold with
fresh mmaps and gives freed memory at the top of its heap back to the OS, so every training step faults
in and zeroes its buffers anew: the bidirectional-LSTM step of scripts/bench.py took ~28,000 minor page
faults (~110 MB) per step, 15-20% of its time, and a step split in two programs faulted less and ran
faster than the whole-step program for that reason alone. With the mmap threshold and the trim threshold
at 4 GiB, freed buffers stay in the heap and the next step reuses them: 0 faults per step after warm-up and
the LSTM step 182 -> 152 ms; in two bench runs an hour apart the GPT went 13.5 -> 20.3 steps/s (hand-written
JAX 13.5 -> 18.3 with the same settings, which is why scripts/bench.py gives them to every variant).
This is what PyTorch's CPU launcher does with LD_PRELOAD'ed jemalloc/tcmalloc
(``python -m torch.backends.xeon.run_cpu``); the price is the allocator's usual one: the process keeps
its peak heap instead of returning it to the OS.

glibc reads these settings (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) only at startup, and
``mallopt`` refuses an mmap threshold above 32 MiB, so the runner re-executes the interpreter with them
in the environment before anything else is imported. Never when they (or GLIBC_TUNABLES) are already set,
off Linux/glibc, or with TORCHLIKE_MALLOC=0. ``import torchlike`` in a user's own interpreter changes
nothing: set the two variables in its environment to get the same.
"""
import os
import sys

SETTINGS = {'MALLOC_MMAP_THRESHOLD_': str(1 << 32), 'MALLOC_TRIM_THRESHOLD_': str(1 << 32)}


def _started_as_runner():
    argv = getattr(sys, 'orig_argv', ())
    # while ``python -m torchlike`` imports the package, sys.argv[0] is still '-m'
    return sys.argv[:1] == ['-m'] and 'torchlike' in argv and argv[argv.index('torchlike') - 1] == '-m'


def reexec_with_settings():
    """Replace this ``python -m torchlike`` process by one with SETTINGS in its environment, if wanted."""
    if not _started_as_runner() or os.environ.get('TORCHLIKE_MALLOC') == '0':
        return
    if not sys.platform.startswith('linux'):
        return
    if 'GLIBC_TUNABLES' in os.environ or any(k in os.environ for k in SETTINGS):
        return
    try:
        if not os.confstr('CS_GNU_LIBC_VERSION').startswith('glibc'):
            return
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**os.environ, **SETTINGS})
    except (OSError, ValueError):
        return
