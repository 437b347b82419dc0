"""torch.random: seeding and state of the default generator, and fork_rng.

The generators and the sampling ops live in ``torchlike/_ops/random.py`` (see its Note [Randomness is
explicit]); this module is the public ``torch.random`` namespace.
"""
import contextlib

from ._ops.random import (Generator, default_generator, manual_seed, seed, initial_seed,  # noqa: F401
                          get_rng_state, set_rng_state)
from ._ops import random as _r

__all__ = ['Generator', 'default_generator', 'fork_rng', 'get_rng_state', 'initial_seed', 'manual_seed', 'seed',
           'set_rng_state']


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller='fork_rng', _devices_kw='devices', device_type=None):
    """Save the CPU generator's state (and that of the listed devices'), run the block, restore them.

    ``devices`` are CUDA indices (default: all of JAX's GPUs); the states are the generators' exact
    (seed, offset) pairs, so the numbers drawn after the block are those that would have come without it.
    """
    if device_type is None:
        device_type = 'cuda'
    if device_type == 'meta' or not enabled:
        yield
        return
    if device_type != 'cuda':
        raise RuntimeError(f"torch has no module of {device_type}, you should register a module by "
                           "`torch._register_device_module`.")
    from . import cuda
    if devices is None:
        devices = list(range(cuda.device_count())) if cuda.is_available() else []
    else:
        devices = list(devices)
    gens = [_device_generator(d) for d in devices]
    saved = [(g._seed, g._offset) for g in [default_generator] + gens]
    try:
        yield
    finally:
        for g, (s, o) in zip([default_generator] + gens, saved):
            g._seed, g._offset = s, o


def _device_generator(d):
    from . import cuda
    from ._device import device as _dev
    idx = d if isinstance(d, int) else _dev(d).index
    cuda._lazy_init()
    gens = _r.cuda_generators()
    i = cuda.current_device() if idx is None else idx
    if not 0 <= i < len(gens):
        raise RuntimeError("CUDA error: invalid device ordinal")
    return gens[i]
