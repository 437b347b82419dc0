"""Randomness: torch.Generator, the default generators, seeding, and the random ops (rand, randn, randint,
randperm, normal, bernoulli, multinomial, poisson, the *_like factories and the in-place samplers
uniform_, normal_, bernoulli_, exponential_, geometric_, log_normal_, cauchy_, random_).

Note [Randomness is explicit]
A Generator is a (seed, offset) pair of Python ints. Every random op takes the pair as *data*: the
wrapper hands ``seed`` and ``offset`` to ``dispatch.apply`` as two dynamic Python ints, the compiled
program derives its key with ``fold_in(key(seed), offset)`` (see ``_key``), and the wrapper bumps the
generator's offset by one. So a program is compiled once per (op, shape, dtype) and never per call, no
key is baked into a program as a constant, and the same (seed, offset) gives the same numbers on every
run. ``get_state()`` is a 16-byte ByteTensor encoding (seed, offset) as two little-endian uint64s, so
state round-trips (``set_state``, ``fork_rng``, ``clone_state``) are exact. Creating a generator only
stores ints: the default generator exists at import without starting a JAX backend.
The numbers are JAX's threefry stream, not PyTorch's mt19937/philox: the same seed reproduces
torchlike's numbers, never torch's.

Samplers return zero gradients (torch's derivative of normal/bernoulli/poisson/uniform_... is zero):
their bodies read ``mean``/``std``/``p``/the overwritten tensor through ``lax.stop_gradient`` or not at all.
"""
import functools
import numbers
import os

import numpy as np

from .. import _dtype as D
from .._device import as_device, jax_device, gpu_devices, gpus_known, cuda_current, cpu_target
from .._engine.registry import op, public, method
from .._engine import dispatch
from .._engine.state import state as _state
from .._engine.jaxrt import jax, jnp, lax
from .linalg import sname, cname, broadcast_shapes, _expand_to

_U64 = 1 << 64
_I63 = 1 << 63
_DEFAULT_SEED = 67280421310721          # c10::default_rng_seed_val: a fresh Generator's seed


def _fmt(x):
    """A double as ATen prints it in messages (ostream, precision 6)."""
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, numbers.Integral):
        return str(int(x))
    return f'{float(x):g}'


def _num(v):
    """A scalar argument: Python number, or a 1-element Tensor read back (torch converts it to a double)."""
    if isinstance(v, dispatch.Tensor):
        return v.item()
    return v


# ---- Generator ---------------------------------------------------------------------------

def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -_I63 <= seed < _U64:
        raise ValueError("Overflow when unpacking long long")
    return seed % _U64


def _random_seed():
    return int.from_bytes(os.urandom(8), 'little')


class Generator:
    """torch.Generator: a (seed, offset) pair; see Note [Randomness is explicit]."""
    __slots__ = ('_seed', '_offset', '_device', '__weakref__')

    def __init__(self, device='cpu'):
        d = as_device('cpu' if device is None else device)
        if d.type == 'cuda':
            gpus = gpu_devices()
            if not gpus:
                raise RuntimeError("Cannot get CUDA generator without ATen_cuda library: JAX reports no GPU "
                                   "(torchlike maps 'cuda' onto JAX's GPUs).")
            idx = cuda_current[0] if d.index is None else d.index
            if idx >= len(gpus):
                raise RuntimeError("CUDA error: invalid device ordinal")
            d = as_device(f'cuda:{idx}')
        elif d.type not in ('cpu', 'xla', 'tpu'):
            raise RuntimeError(f"{d.type.upper()} device type not an accelerator.")
        self._device = d
        self._seed = _DEFAULT_SEED
        self._offset = 0

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        self._seed = _check_seed(seed)
        self._offset = 0
        return self

    def seed(self):
        s = _random_seed()
        self._seed = s
        self._offset = 0
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        from .creation import tensor
        return tensor(np.array([self._seed, self._offset], dtype='<u8').view(np.uint8))

    def set_state(self, new_state):
        self._seed, self._offset = _decode_state(new_state)
        return self

    def clone_state(self):
        g = Generator.__new__(Generator)
        g._device, g._seed, g._offset = self._device, self._seed, self._offset
        return g

    def get_offset(self):
        if self._device.type == 'cpu':
            raise RuntimeError("CPU Generator does not use offset")
        return self._offset

    def set_offset(self, offset):
        if self._device.type == 'cpu':
            raise RuntimeError("CPU Generator does not use offset")
        self._offset = int(offset)
        return self

    def graphsafe_get_state(self):
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def __reduce__(self):
        return (_rebuild_generator, (str(self._device), self._seed, self._offset))

    def _next(self):
        """(seed as a signed int64, offset) for one op call, and advance the offset."""
        off = self._offset
        self._offset = off + 1
        return signed_seed(self._seed), off


def signed_seed(s):
    """A seed (0 <= s < 2**64) as the int64 that op programs take (jax refuses Python ints past int64)."""
    return s - _U64 if s >= _I63 else s


def _rebuild_generator(device, seed, offset):
    g = Generator.__new__(Generator)
    g._device, g._seed, g._offset = as_device(device), seed, offset
    return g


def _decode_state(new_state):
    if not isinstance(new_state, dispatch.Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    if new_state.dtype is not D.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    n = new_state.numel()
    if n != 16:
        raise RuntimeError(f"Expected a torchlike generator state (seed, offset) of size 16 but found the input RNG "
                           f"state size to be {n}")
    seed, offset = np.ascontiguousarray(np.asarray(new_state._materialize()).reshape(-1)).view('<u8').tolist()
    return int(seed), int(offset)


# torch seeds its default CPU generator non-deterministically at start-up (initial_seed() differs per
# process); so does torchlike. os.urandom touches no JAX backend.
default_generator = Generator()
default_generator._seed = _random_seed()

_cuda = {'gens': None, 'pending_seed': None}


def cuda_generators():
    """The per-GPU default generators (created on first use; empty without GPUs)."""
    gens = _cuda['gens']
    if gens is None:
        gpus = gpu_devices()
        gens = []
        for i in range(len(gpus)):
            g = Generator.__new__(Generator)
            g._device, g._offset = as_device(f'cuda:{i}'), 0
            g._seed = _DEFAULT_SEED if _cuda['pending_seed'] is None else _cuda['pending_seed']
            gens.append(g)
        _cuda['gens'] = gens = tuple(gens)
    return gens


def cuda_seed_all(seed):
    """Seed every CUDA generator (lazily when none exists yet, as torch.cuda.manual_seed_all)."""
    _cuda['pending_seed'] = seed
    if _cuda['gens'] is not None:
        for g in _cuda['gens']:
            g.manual_seed(seed)


def manual_seed(seed):
    seed = int(seed)
    s = _check_seed(seed)
    cuda_seed_all(s)
    return default_generator.manual_seed(seed)


def seed():
    s = default_generator.seed()
    cuda_seed_all(s)
    return s


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def _gen(generator, device=None, fname='random op'):
    """The generator an op draws from: ``generator=``, else the default one of the device."""
    if generator is not None:
        if not isinstance(generator, Generator):
            raise TypeError(f"{fname}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")
        return generator
    if device is not None and device.type == 'cuda':
        jax_device(device)          # torch's errors for a missing GPU or a bad index
        gens = cuda_generators()
        i = cuda_current[0] if device.index is None else device.index
        return gens[i]
    return default_generator


def _gen_of(generator, t, fname):
    """The generator for an op on tensor ``t``: ``generator=``, else the default one of t's device."""
    if generator is not None:
        return _gen(generator, None, fname)
    if not _gpu_seen():
        return default_generator
    return _gen(None, t.device, fname)


def _gpu_seen():
    # Only a process whose JAX has GPUs can hold CUDA tensors; without them no device query is needed.
    return gpus_known()


# ---- the threefry stream, unrolled -------------------------------------------------------

# Note [Unrolled threefry]
# jax lowers its threefry2x32 hash on CPU as a rolled loop of five iterations (it compiles faster), and XLA
# fuses nothing across a loop: every draw is a loop over the whole array followed by the ops that use its bits
# (a dropout mask of 98k elements cost ~0.6 ms, and a small GPT's training step had 51 of them). The functions
# below compute the same bits as jax.random's key / fold_in / uniform / normal (tested bit for bit), with the
# hash written out, so XLA fuses it into its consumer (~3x faster on CPU; on GPU jax unrolls it too).
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _threefry(k1, k2, x1, x2):
    """Threefry-2x32 (20 rounds) of the counter pair (x1, x2) under the key (k1, k2): all uint32."""
    ks = (k1, k2, k1 ^ k2 ^ np.uint32(0x1BD11BDA))
    x1 = x1 + ks[0]
    x2 = x2 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 = x1 + x2
            x2 = ((x2 << np.uint32(r)) | (x2 >> np.uint32(32 - r))) ^ x1
        x1 = x1 + ks[(i + 1) % 3]
        x2 = x2 + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x1, x2


def _key(seed, offset):
    """The JAX key of a generator's (seed, offset): fold_in(fold_in(key(seed), offset_lo), offset_hi)."""
    s = lax.bitcast_convert_type(jnp.asarray(seed, jnp.int64), jnp.uint64)
    k1, k2 = (s >> np.uint64(32)).astype(jnp.uint32), s.astype(jnp.uint32)
    off = jnp.asarray(offset, jnp.int64)
    k1, k2 = _fold_in_data(k1, k2, (off & 0xFFFFFFFF).astype(jnp.uint32))
    k1, k2 = _fold_in_data(k1, k2, (off >> 32).astype(jnp.uint32))
    return jax.random.wrap_key_data(jnp.stack([k1, k2]))


def _fold_in_data(k1, k2, data):
    return _threefry(k1, k2, jnp.zeros((), jnp.uint32), data)


def fold_in(key, data):
    """jax.random.fold_in for a uint32-convertible scalar ``data``."""
    kd = jax.random.key_data(key)
    k1, k2 = _fold_in_data(kd[0], kd[1], jnp.asarray(data, jnp.uint32))
    return jax.random.wrap_key_data(jnp.stack([k1, k2]))


_UINT = {8: jnp.uint8, 16: jnp.uint16, 32: jnp.uint32, 64: jnp.uint64}


def _bits(key, nbits, shape):
    """jax.random.bits(key, shape, uint{nbits})."""
    n = int(np.prod(shape, dtype=np.int64))
    # the barrier keeps the key's own derivation (hashes of scalars: seed, offset, fold_in) out of the element
    # loop that XLA fuses the hash below into: fused, every element of each consumer hashed the key again (the
    # benchmark LSTM's dropout masks: its step program was ~12% slower than hand-written JAX's, now level)
    kd = lax.optimization_barrier(jax.random.key_data(key))
    c = lax.iota(jnp.uint32, n).reshape(shape) if shape else jnp.zeros((), jnp.uint32)
    b1, b2 = _threefry(kd[0], kd[1], jnp.zeros_like(c), c)
    if nbits == 64:
        return (b1.astype(jnp.uint64) << np.uint64(32)) | b2.astype(jnp.uint64)
    b = b1 ^ b2
    return b if nbits == 32 else b.astype(_UINT[nbits])


def uniform_draw(key, shape=(), dtype=jnp.float32, minval=0., maxval=1.):
    """jax.random.uniform, the same numbers."""
    dtype = jnp.dtype(dtype)
    shape = tuple(shape)
    if np.prod(shape, dtype=np.float64) >= 2 ** 32:
        return jax.random.uniform(key, shape, dtype, minval, maxval)
    minval = lax.broadcast_to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = lax.broadcast_to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    fi = jnp.finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    rng_bits = 8 if nmant < 8 else nbits
    u = _UINT[nbits]
    bits = _bits(key, rng_bits, shape).astype(u)
    fb = (bits >> np.array(rng_bits - nmant, u)) | np.array(1.0, dtype).view(u)
    floats = lax.bitcast_convert_type(fb, dtype) - np.array(1.0, dtype)
    return lax.max(minval, floats * (maxval - minval) + minval)


def keep_mask(key, shape, p, dtype):
    """Dropout's mask: bernoulli(1 - p) of ``shape`` for an input of ``dtype`` (uniforms in float64 for a float64
    input, float32 otherwise)."""
    w = jnp.float64 if dtype == jnp.float64 else jnp.float32
    return uniform_draw(key, shape, w) < 1 - jnp.asarray(p, w)


def normal_draw(key, shape=(), dtype=jnp.float32):
    """jax.random.normal for a real dtype, the same numbers."""
    dtype = jnp.dtype(dtype)
    lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
    u = uniform_draw(key, shape, dtype, lo, np.array(1., dtype))
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


# ---- sampling helpers (inside compiled programs) -----------------------------------------

def _real(dt):
    return {jnp.dtype(jnp.complex64): jnp.float32, jnp.dtype(jnp.complex128): jnp.float64}.get(jnp.dtype(dt), dt)


def _work(dt):
    """Float dtype to sample in for an output dtype: itself if floating, else float64."""
    dt = jnp.dtype(dt)
    return dt if jnp.issubdtype(dt, jnp.floating) else jnp.dtype(jnp.float64)


def _uniform(key, shape, dt, low, high):
    dt = jnp.dtype(dt)
    if jnp.issubdtype(dt, jnp.complexfloating):
        r = _real(dt)
        k1, k2 = jax.random.split(key)
        return lax.complex(uniform_draw(k1, shape, r, low, high), uniform_draw(k2, shape, r, low, high))
    return uniform_draw(key, shape, dt, jnp.asarray(low, dt), jnp.asarray(high, dt))


def _normal(key, shape, dt, mean, std):
    dt = jnp.dtype(dt)
    if jnp.issubdtype(dt, jnp.complexfloating):
        # torch: view_as_real(self).normal_(mean, std / sqrt(2)) -- both parts get the mean
        r = _real(dt)
        k1, k2 = jax.random.split(key)
        s = jnp.asarray(std, r) * np.sqrt(0.5).astype(r)
        m = jnp.asarray(mean, r)
        return lax.complex(normal_draw(k1, shape, r) * s + m, normal_draw(k2, shape, r) * s + m)
    z = normal_draw(key, shape, dt)
    return z * jnp.asarray(std, dt) + jnp.asarray(mean, dt)


def _randint(key, shape, dt, low, high):
    v = jax.random.randint(key, shape, jnp.asarray(low, jnp.int64), jnp.asarray(high, jnp.int64), jnp.int64)
    return v.astype(dt)


# ---- dtype checks (host side, on torch dtypes) ------------------------------------------

def _is_floatish(dt):
    return dt.is_floating_point or dt.is_complex


def _ni(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{sname(dt)}\'')


_INT_BOUNDS = {'bool': (0, 1), 'uint8': (0, 255), 'int8': (-128, 127), 'int16': (-(1 << 15), (1 << 15) - 1),
               'int32': (-(1 << 31), (1 << 31) - 1), 'int64': (-_I63, _I63 - 1)}
_FLOAT_DIGITS = {'float16': 11, 'bfloat16': 8, 'float32': 24, 'float64': 53}


def _check_from_to(lo, hi, dt):
    """ATen's random_from_to checks: from < to, then both within the dtype's range (hi exclusive)."""
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
    b = _INT_BOUNDS.get(dt.name)
    if b is not None:
        if not b[0] <= lo <= b[1]:
            raise RuntimeError(f"from is out of bounds for {cname(dt)}")
        if not b[0] <= hi - 1 <= b[1]:
            raise RuntimeError(f"to - 1 is out of bounds for {cname(dt)}")


def _int_arg(fname, argname, v):
    if isinstance(v, dispatch.Tensor):
        if v.numel() == 1 and not v.dtype.is_floating_point and not v.dtype.is_complex:
            return int(v.item())
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{fname}(): argument '{argname}' must be int, not {type(v).__name__}")
    v = int(v)
    if not -_I63 <= v < _I63:
        raise ValueError("Overflow when unpacking long long")
    return v


def _size(fname, args, size_kw):
    if size_kw is not None:
        if args:
            raise TypeError(f"{fname}() got multiple values for argument 'size'")
        args = (size_kw,)
    if not args:
        raise TypeError(f"{fname}() missing 1 required positional argument: 'size'")
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    out = []
    for s in args:
        if isinstance(s, dispatch.Tensor) and s.numel() == 1 and not s.dtype.is_floating_point:
            s = int(s.item())
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"{fname}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__}")
        out.append(int(s))
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    return tuple(out)


def _check_layout(layout):
    if layout is not None and str(layout) != 'torch.strided':
        raise NotImplementedError(f"torchlike random factories support only layout=torch.strided, got {layout}")


def _run(o, dyn, static, device):
    """dispatch.apply on ``device`` (JAX's default device when None)."""
    if device is None:
        return dispatch.apply(o, dyn, static)
    with jax.default_device(jax_device(device)):
        return dispatch.apply(o, dyn, static)


def _finish(t, out, requires_grad):
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    if out is not None:
        if not isinstance(out, dispatch.Tensor):
            raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
        out._set_value_inplace(t._value().astype(out._value().dtype), resize=True)
        return out
    return t


def _factory_dtype(dtype, out, default):
    if dtype is not None:
        return dtype
    if out is not None and isinstance(out, dispatch.Tensor):
        return out.dtype
    return default


# ---- factories ---------------------------------------------------------------------------

# Note [Bucketed draws]
# A program containing threefry takes ~0.3 s to compile on CPU, and a program is compiled per static
# shape: drawn per shape, building a model compiled one sampler per parameter shape (6 s for the CIFAR
# Net). JAX's threefry is partitionable (jax_threefry_partitionable, the default): element i of a draw
# depends on (key, i) only, so the first n numbers of a flat draw of any length m >= n are exactly the
# numbers of a draw of n. So samplers draw a flat "bucket" (one program per bucket size, sampler and
# dtype) and keep its prefix, reshaped. Buckets grow 16x up to 2**20 elements (drawing a few thousand
# spare numbers costs microseconds; a model's parameter shapes share 3 programs) and 2x above (where the
# spare numbers would cost more than a compile); on CPU the prefix is taken on the host (numpy view +
# device_put: no program at all), elsewhere by a small jitted slice. Draws above _MAX_BUCKET elements, and
# samplers that are not elementwise (orthogonal_'s QR), are drawn at their exact shape.
_MAX_BUCKET = 1 << 24


def _bucket(n):
    if n <= 1 << 12:
        return 1 << 12
    if n <= 1 << 20:
        return 1 << (4 * -(-(n - 1).bit_length() // 4))
    return 1 << (n - 1).bit_length()


def _sample_uniform(key, shape, dt, a, b):
    return _uniform(key, shape, dt, a, b)


def _sample_normal(key, shape, dt, a, b):
    return _normal(key, shape, dt, a, b)


def _sample_int(key, shape, dt, a, b):
    return _randint(key, shape, dt, a, b)


_SAMPLERS = {'uniform': (_sample_uniform, True), 'normal': (_sample_normal, True), 'int': (_sample_int, True)}
_FILL_SAMPLER = {}     # in-place fill op name -> its _SAMPLERS key


@op('_rand_draw', static=('sampler', 'shape', 'dtype'), function=False, method=False, differentiable=False)
def _rand_draw(seed, offset, a, b, *, sampler, shape, dtype):
    return _SAMPLERS[sampler][0](_key(seed, offset), shape, dtype.np, a, b)


@functools.lru_cache(maxsize=None)
def _prefix_fn(n, shape):
    return jax.jit(lambda flat: flat[:n].reshape(shape))


def _draw(sampler, seed, offset, a, b, shape, dtype, device):
    """``sampler``'s numbers for (seed, offset) as a Tensor of ``shape``; see Note [Bucketed draws]."""
    if device is not None and cpu_target(None) is not None and cpu_target(device) is not None:
        device = None       # the one CPU device: the default-device program (jit caches per device context)
    n = 1
    for d in shape:
        n *= d
    if n == 0 or n > _MAX_BUCKET or not _SAMPLERS[sampler][1] or _state.mode == 'lazy':
        # lazy mode records the exact-size draw into the step's graph (seed and offset are program inputs,
        # so a new step's draw compiles nothing); its numbers equal the bucketed prefix
        return _run(_rand_draw, (seed, offset, a, b), (sampler, tuple(shape), dtype), device)
    m = _bucket(n)
    flat = _run(_rand_draw, (seed, offset, a, b), (sampler, (m,), dtype), device)._value()
    host = cpu_target(device)
    if host is not None:
        arr = jax.device_put(np.asarray(flat)[:n].reshape(shape), host)
    else:
        arr = _prefix_fn(n, tuple(shape))(flat)
    return dispatch.wrap(arr)


@op('_rand_perm', static=('n', 'dtype'), function=False, method=False, differentiable=False)
def _rand_perm(seed, offset, *, n, dtype):
    return jax.random.permutation(_key(seed, offset), jnp.arange(n, dtype=jnp.int64)).astype(dtype.np)


@public('rand')
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, **kwargs):
    size = _size('rand', size, kwargs.pop('size', None))
    _no_extra('rand', kwargs)
    _check_layout(layout)
    dtype = _factory_dtype(dtype, out, D.state.default_dtype)
    if not _is_floatish(dtype):
        raise _ni('check_uniform_bounds', dtype)
    device = as_device(device)
    s, off = _gen(generator, device, 'rand')._next()
    return _finish(_draw('uniform', s, off, 0., 1., size, dtype, device), out, requires_grad)


@public('randn')
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, **kwargs):
    size = _size('randn', size, kwargs.pop('size', None))
    _no_extra('randn', kwargs)
    _check_layout(layout)
    dtype = _factory_dtype(dtype, out, D.state.default_dtype)
    if not _is_floatish(dtype):
        raise _ni('normal_kernel_cpu', dtype)
    device = as_device(device)
    s, off = _gen(generator, device, 'randn')._next()
    return _finish(_draw('normal', s, off, 0., 1., size, dtype, device), out, requires_grad)


def _no_extra(fname, kwargs):
    if kwargs:
        k = next(iter(kwargs))
        raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")


@public('randint')
def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False):
    args = list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        size = args.pop()
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"randint(): argument 'size' (position {len(args) + 1}) must be tuple of ints, not "
                        f"{type(size).__name__}")
    size = _size('randint', (tuple(size),), None)
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif len(args) > 2:
        raise TypeError(f"randint() takes at most 3 positional arguments ({len(args) + 1} given)")
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    low = 0 if low is None else _int_arg('randint', 'low', low)
    high = _int_arg('randint', 'high', high)
    _check_layout(layout)
    dtype = _factory_dtype(dtype, out, D.int64)
    _check_from_to(low, high, dtype)
    device = as_device(device)
    s, off = _gen(generator, device, 'randint')._next()
    return _finish(_draw('int', s, off, low, high, size, dtype, device), out, requires_grad)


_PERM_CTYPES = {'uint8': 'uint8_t', 'int8': 'int8_t', 'int16': 'int16_t', 'int32': 'int32_t', 'int64': 'int64_t'}


@public('randperm')
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    n = _int_arg('randperm', 'n', n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    _check_layout(layout)
    dtype = _factory_dtype(dtype, out, D.int64)
    if dtype is D.bool or dtype.is_complex:
        raise _ni('randperm', dtype)
    if dtype.name in _INT_BOUNDS and n - 1 > _INT_BOUNDS[dtype.name][1]:
        raise RuntimeError(f"value cannot be converted to type {_PERM_CTYPES[dtype.name]} without overflow")
    if dtype.name in ('float16', 'float32', 'float64'):
        lim = (1 << _FLOAT_DIGITS[dtype.name]) + 1
        if n > lim:
            raise RuntimeError(f"n cannot be greater than {lim} for {sname(dtype)} type.")
    device = as_device(device)
    s, off = _gen(generator, device, 'randperm')._next()
    return _finish(_run(_rand_perm, (s, off), (n, dtype), device), out, requires_grad)


def _like_device(input, device):
    return as_device(device) if device is not None else (input.device if _gpu_seen() else None)


@public('rand_like')
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    dtype = dtype or input.dtype
    _check_layout(layout)
    if not _is_floatish(dtype):
        raise _ni('check_uniform_bounds', dtype)
    device = _like_device(input, device)
    s, off = _gen(generator, device, 'rand_like')._next()
    return _finish(_draw('uniform', s, off, 0., 1., tuple(input.shape), dtype, device), None, requires_grad)


@public('randn_like')
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    dtype = dtype or input.dtype
    _check_layout(layout)
    if not _is_floatish(dtype):
        raise _ni('normal_kernel_cpu', dtype)
    device = _like_device(input, device)
    s, off = _gen(generator, device, 'randn_like')._next()
    return _finish(_draw('normal', s, off, 0., 1., tuple(input.shape), dtype, device), None, requires_grad)


@public('randint_like')
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    low = _int_arg('randint_like', 'low', low)
    high = _int_arg('randint_like', 'high', high)
    dtype = dtype or input.dtype
    _check_layout(layout)
    _check_from_to(low, high, dtype)
    device = _like_device(input, device)
    s, off = _gen(generator, device, 'randint_like')._next()
    return _finish(_draw('int', s, off, low, high, tuple(input.shape), dtype, device), None,
                   requires_grad)


# ---- normal: four overloads --------------------------------------------------------------

def _normal_op(name, node):
    def body(mean, std, seed, offset, *, dtype):
        m = lax.stop_gradient(mean)
        s = lax.stop_gradient(std)
        shape = jnp.broadcast_shapes(jnp.shape(m), jnp.shape(s))
        r = _normal(_key(seed, offset), shape, dtype.np, m, s)
        return jnp.where(jnp.asarray(s) < 0, jnp.asarray(np.nan, r.dtype), r) if not dtype.is_complex else r
    body.__name__ = name
    return op(name, static=('dtype',), diff=('mean', 'std'), saves=(), node=node, function=False,
              method=False)(body)


_normal_tf = _normal_op('_normal_tensor_float', 'NormalBackward1')
_normal_ft = _normal_op('_normal_float_tensor', 'NormalBackward2')
_normal_tt = _normal_op('_normal_tensor_tensor', 'NormalBackward3')


def _check_std_scalar(std):
    if isinstance(std, complex):
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")


@public('normal')
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    T = dispatch.Tensor
    mt, st = isinstance(mean, T), isinstance(std, T)
    if mt or st:
        if size is not None:
            raise TypeError("normal(): 'size' is accepted only with float mean and std")
        if st and std.dtype.is_complex:
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if not st:
            _check_std_scalar(std)
        dt = mean.dtype if mt else std.dtype
        if not _is_floatish(dt):
            raise _ni('normal_kernel_cpu', dt)
        if mt and st:
            broadcast_shapes(tuple(mean.shape), tuple(std.shape))
            o = _normal_tt
        else:
            o = _normal_tf if mt else _normal_ft
        g = _gen_of(generator, mean if mt else std, 'normal')
        s, off = g._next()
        r = dispatch.apply(o, (mean, std, s, off), (dt,))
        return _finish(r, out, False)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments - got (float, float), but expected "
                        "one of: (Tensor mean, Tensor std), (Tensor mean, float std), (float mean, Tensor std), "
                        "(float mean, float std, tuple of ints size)")
    size = _size('normal', (tuple(size) if isinstance(size, (list, tuple)) else size,), None)
    _check_std_scalar(std)
    _check_layout(layout)
    dtype = _factory_dtype(dtype, out, D.state.default_dtype)
    if not _is_floatish(dtype):
        raise _ni('normal_kernel_cpu', dtype)
    device = as_device(device)
    s, off = _gen(generator, device, 'normal')._next()
    return _finish(_draw('normal', s, off, mean, std, size, dtype, device), out, requires_grad)


# ---- bernoulli, multinomial, poisson -----------------------------------------------------

def _bern(key, p, shape, dt):
    w = jnp.float64 if jnp.asarray(p).dtype == jnp.float64 else jnp.float32   # uniforms fine enough for any p
    u = uniform_draw(key, shape, w)
    return (u < jnp.asarray(p, w)).astype(dt)


@op('_bernoulli_tensor', diff=('input',), saves=(), node='BernoulliBackward0', function=False, method=False)
def _bernoulli_tensor(input, seed, offset):
    p = lax.stop_gradient(input)
    return _bern(_key(seed, offset), p, input.shape, input.dtype)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _no_derivative(name, x, y):
    """Returns y; differentiating it with respect to x raises torch's 'not implemented' error."""
    return y


def _nd_fwd(name, x, y):
    return y, None


def _nd_bwd(name, res, g):
    raise RuntimeError(f"derivative for aten::{name} is not implemented")


_no_derivative.defvjp(_nd_fwd, _nd_bwd)


@op('_bernoulli_p', diff=('input',), saves=(), node='NotImplemented', function=False, method=False)
def _bernoulli_p(input, p, seed, offset):
    r = _bern(_key(seed, offset), p, input.shape, input.dtype)
    if jnp.issubdtype(input.dtype, jnp.inexact):
        return _no_derivative('bernoulli', input, r)
    return r


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")


@public('bernoulli', method=True)
def bernoulli(input, p=None, *, generator=None, out=None):
    if p is None:
        dt = input.dtype
        if not dt.is_floating_point:
            raise _ni('bernoulli_tensor_cpu_p_', dt)
        s, off = _gen_of(generator, input, 'bernoulli')._next()
        return _finish(dispatch.apply(_bernoulli_tensor, (input, s, off)), out, False)
    p = _num(p)
    _check_p(p)
    if input.dtype.is_complex:
        raise _ni('bernoulli_scalar_cpu_', input.dtype)
    s, off = _gen_of(generator, input, 'bernoulli')._next()
    return _finish(dispatch.apply(_bernoulli_p, (input, p, s, off)), out, False)


@op('_multinomial', static=('n', 'replacement'), function=False, method=False, differentiable=False)
def _multinomial(input, seed, offset, *, n, replacement):
    p = input if input.ndim == 2 else input[None]
    w = jnp.float32 if p.dtype in (jnp.float16, jnp.bfloat16) else p.dtype
    p = p.astype(w)
    bad_elem = jnp.any(~jnp.isfinite(p) | (p < 0))
    total = jnp.sum(p, axis=-1)
    bad_sum = jnp.any(total <= 0)
    key = _key(seed, offset)
    if replacement:
        cdf = jnp.cumsum(p, axis=-1)
        cdf = cdf / cdf[:, -1:]
        u = uniform_draw(key, (p.shape[0], n), w)
        idx = jax.vmap(lambda c, x: jnp.searchsorted(c, x, side='right'))(cdf, u)
        idx = jnp.minimum(idx, p.shape[-1] - 1)
    else:
        # torch's algorithm: the top n of p / q with q ~ Exp(1)
        q = jax.random.exponential(key, p.shape, w)
        idx = lax.top_k(p / q, n)[1]
    idx = idx.astype(jnp.int64)
    if input.ndim == 1:
        idx = idx[0]
    return idx, jnp.stack([bad_elem, bad_sum])


@public('multinomial', method=True)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    dt = input.dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {sname(dt)}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n = _int_arg('multinomial', 'num_samples', num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    s, off = _gen_of(generator, input, 'multinomial')._next()
    idx, flags = dispatch.apply(_multinomial, (input, s, off), (n, bool(replacement)))
    bad_elem, bad_sum = np.asarray(flags._materialize()).tolist()     # one host read, as torch's CPU check
    if bad_elem:
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if bad_sum:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return _finish(idx, out, False)


@op('_poisson', diff=('input',), saves=(), node='PoissonBackward0', function=False, method=False)
def _poisson(input, seed, offset):
    lam = lax.stop_gradient(input)
    w = jnp.float32 if input.dtype in (jnp.float16, jnp.bfloat16) else input.dtype
    lam = lam.astype(w)
    r = jax.random.poisson(_key(seed, offset), jnp.maximum(lam, 0), input.shape, jnp.int64).astype(input.dtype)
    return jnp.where(lam < 0, jnp.asarray(np.nan, input.dtype), r)   # torch raises; see the wrapper


@public('poisson')
def poisson(input, generator=None):
    dt = input.dtype
    if not dt.is_floating_point:
        raise _ni('poisson_cpu', dt)
    s, off = _gen_of(generator, input, 'poisson')._next()
    return dispatch.apply(_poisson, (input, s, off))


# ---- in-place samplers -------------------------------------------------------------------
# Each is an op of (input, seed, offset, params) whose body uses only input's shape and dtype; it runs
# through dispatch.apply_inplace, so leaf checks, version counters, views and autograd (a zero
# gradient, torch's XxxBackward node) behave as for any in-place op.

def _fill_op(name, node, sampler, elementwise=True):
    """The in-place op ``name`` (autograd node ``node``): its numbers are drawn by ``_draw`` from
    ``sampler(key, shape, dtype, a, b)`` (Note [Bucketed draws]; ``elementwise`` says element i depends on
    the key and i only); the op itself only writes them into the input."""
    if isinstance(sampler, str):        # a factory's sampler: the fill shares its bucket programs
        _FILL_SAMPLER[name] = sampler
    else:
        _SAMPLERS[name] = (sampler, elementwise)
        _FILL_SAMPLER[name] = name

    def body(input, src):
        return src
    body.__name__ = name
    # not jitted: the body is the identity, and a jitted identity would still compile a program per shape
    return op(name, diff=('input',), saves=(), node=node, function=False, method=False, jit=False)(body)


def _s_exponential(key, shape, dt, lambd, _):
    w = _work(dt)
    return (jax.random.exponential(key, shape, w) / jnp.asarray(lambd, w)).astype(dt)


def _s_geometric(key, shape, dt, p, _):
    w = jnp.float64 if not jnp.issubdtype(dt, jnp.floating) else _work(dt)
    if w in (jnp.float16, jnp.bfloat16):
        w = jnp.float32
    u = uniform_draw(key, shape, w, jnp.finfo(w).tiny, 1)
    r = jnp.ceil(jnp.log(u) / jnp.log1p(-jnp.asarray(p, w)))
    return jnp.maximum(r, 1).astype(dt)


def _s_log_normal(key, shape, dt, mean, std):
    w = jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else dt
    return jnp.exp(normal_draw(key, shape, w) * jnp.asarray(std, w) + jnp.asarray(mean, w)).astype(dt)


def _s_cauchy(key, shape, dt, median, sigma):
    w = jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else dt
    return (jax.random.cauchy(key, shape, w) * jnp.asarray(sigma, w) + jnp.asarray(median, w)).astype(dt)


def _s_bernoulli_p(key, shape, dt, p, _):
    return _bern(key, jnp.asarray(p, jnp.float64), shape, dt)


_uniform_fill = _fill_op('_uniform_fill', 'UniformBackward0', 'uniform')
_normal_fill = _fill_op('_normal_fill', 'NormalBackward0', 'normal')
_exponential_fill = _fill_op('_exponential_fill', 'ExponentialBackward0', _s_exponential)
_geometric_fill = _fill_op('_geometric_fill', 'GeometricBackward0', _s_geometric)
_log_normal_fill = _fill_op('_log_normal_fill', 'LogNormalBackward0', _s_log_normal)
_cauchy_fill = _fill_op('_cauchy_fill', 'CauchyBackward0', _s_cauchy)
_bernoulli_fill_p = _fill_op('_bernoulli_fill_float', 'BernoulliBackward2', _s_bernoulli_p)
_random_fill_from_to = _fill_op('_random_fill_from_to', 'RandomBackward0', 'int')
_random_fill_to = _fill_op('_random_fill_to', 'RandomBackward1', 'int')
_random_fill = _fill_op('_random_fill', 'RandomBackward2', 'int')


@op('_bernoulli_fill_tensor', diff=('input',), saves=(), node='BernoulliBackward1', function=False, method=False)
def _bernoulli_fill_tensor(input, seed, offset, p):
    p = _expand_to(lax.stop_gradient(p), input.shape, sname(p))
    return _bern(_key(seed, offset), p, input.shape, input.dtype)


def _fill(o, self, generator, fname, a=0, b=0):
    s, off = _gen_of(generator, self, fname)._next()
    src = _draw(_FILL_SAMPLER[o.name], s, off, a, b, tuple(self.shape), self.dtype, self.device)
    return dispatch.apply_inplace(o, (self, src))


def _from_kw(args, kwargs, defaults, fname):
    """Positional + keyword parameters named like torch's (``from`` is a keyword in Python)."""
    names = tuple(defaults)
    if len(args) > len(names):
        raise TypeError(f"{fname}() takes at most {len(names)} arguments ({len(args)} given)")
    vals = dict(defaults)
    for n, v in zip(names, args):
        vals[n] = v
    for k, v in kwargs.items():
        if k not in vals:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
        vals[k] = v
    return [_num(vals[n]) for n in names]


@method('uniform_')
def uniform_(self, *args, generator=None, **kwargs):
    lo, hi = _from_kw(args, kwargs, {'from': 0, 'to': 1}, 'uniform_')
    dt = self.dtype
    if not _is_floatish(dt):
        raise _ni('check_uniform_bounds', dt)
    if lo > hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt(lo)} > to={_fmt(hi)}")
    return _fill(_uniform_fill, self, generator, 'uniform_', lo, hi)


@method('normal_')
def normal_(self, mean=0, std=1, *, generator=None):
    mean, std = _num(mean), _num(std)
    _check_std_scalar(std)
    if not _is_floatish(self.dtype):
        raise _ni('normal_kernel_cpu', self.dtype)
    return _fill(_normal_fill, self, generator, 'normal_', mean, std)


@method('bernoulli_')
def bernoulli_(self, p=0.5, *, generator=None):
    if self.dtype.is_complex:
        raise _ni('bernoulli_scalar_cpu_' if not isinstance(p, dispatch.Tensor) else 'bernoulli_tensor_cpu_self_',
                  self.dtype)
    if isinstance(p, dispatch.Tensor):
        s, off = _gen_of(generator, self, 'bernoulli_')._next()
        return dispatch.apply_inplace(_bernoulli_fill_tensor, (self, s, off, p))
    p = _num(p)
    _check_p(p)
    return _fill(_bernoulli_fill_p, self, generator, 'bernoulli_', p)


def _continuous_only(self, dist):
    dt = self.dtype
    if not dt.is_floating_point:
        name = cname(dt) if dist == 'Cauchy' else sname(dt)
        raise RuntimeError(f"{dist} distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {name}")


@method('exponential_')
def exponential_(self, lambd=1, *, generator=None):
    lambd = _num(lambd)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    _continuous_only(self, 'Exponential')
    return _fill(_exponential_fill, self, generator, 'exponential_', lambd)


@method('geometric_')
def geometric_(self, p, *, generator=None):
    p = _num(p)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    if self.dtype is D.bool or self.dtype.is_complex:
        raise _ni('geometric_cpu', self.dtype)
    return _fill(_geometric_fill, self, generator, 'geometric_', p)


@method('log_normal_')
def log_normal_(self, mean=1, std=2, *, generator=None):
    mean, std = _num(mean), _num(std)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    if not self.dtype.is_floating_point:
        raise _ni('log_normal_cpu', self.dtype)
    return _fill(_log_normal_fill, self, generator, 'log_normal_', mean, std)


@method('cauchy_')
def cauchy_(self, median=0, sigma=1, *, generator=None):
    median, sigma = _num(median), _num(sigma)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    _continuous_only(self, 'Cauchy')
    return _fill(_cauchy_fill, self, generator, 'cauchy_', median, sigma)


def _random_default_hi(dt):
    """Exclusive upper bound of random_() without 'to': 2**digits + 1 for floats, max + 1 for integers."""
    if dt.name in _FLOAT_DIGITS:
        return (1 << _FLOAT_DIGITS[dt.name]) + 1
    hi = _INT_BOUNDS[dt.name][1]
    return hi if dt is D.int64 else hi + 1      # int64: [from, 2**63 - 1) (the bound is not representable)


@method('random_')
def random_(self, *args, generator=None, **kwargs):
    dt = self.dtype
    if 'from' in kwargs or len(args) == 2 or (len(args) == 1 and 'to' in kwargs):
        if len(args) == 2:
            lo, hi = args
        elif len(args) == 1:
            lo, hi = args[0], kwargs.pop('to')
        else:
            if 'to' not in kwargs:
                raise TypeError("random_() received an invalid combination of arguments - got (from=int), but "
                                "expected one of: (*, Generator generator), (int from, int to, *, Generator "
                                "generator), (int to, *, Generator generator)")
            lo, hi = kwargs.pop('from'), kwargs.pop('to')
        o = _random_fill_from_to
    elif len(args) == 1 or 'to' in kwargs:
        lo, hi = 0, (args[0] if args else kwargs.pop('to'))
        o = _random_fill_to
    elif not args:
        lo, hi = 0, None
        o = _random_fill
    else:
        raise TypeError(f"random_() takes at most 2 arguments ({len(args)} given)")
    kwargs.pop('from', None)
    _no_extra('random_', kwargs)
    lo = _int_arg('random_', 'from', lo)
    if hi is not None:
        hi = _int_arg('random_', 'to', hi)
    if dt.is_complex:
        if o is _random_fill:
            raise _ni('random_kernel_cpu', dt)
        if hi is not None and lo >= hi:
            _check_from_to(lo, hi, dt)
        raise RuntimeError(("random_from_to_impl" if hi is None else "check_random_bounds") +
                           " handles only integral, floating-point and boolean types")
    if hi is None:
        hi = _random_default_hi(dt)
        if o is _random_fill_from_to:
            b = _INT_BOUNDS.get(dt.name)
            if b is not None and not b[0] <= lo <= b[1]:
                raise RuntimeError(f"from is out of bounds for {cname(dt)}")
            if lo >= hi:
                raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
    else:
        _check_from_to(lo, hi, dt)
    return _fill(o, self, generator, 'random_', lo, hi)
