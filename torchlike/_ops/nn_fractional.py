"""Fractional max pooling (Graham, https://arxiv.org/abs/1412.6071): F.fractional_max_pool2d/3d and their
``_with_indices`` forms.

Note [Fractional pooling intervals]
Each (batch, channel) plane draws one sample u in [0, 1) per spatial dim (``_random_samples``, shape
(N, C, n)); the windows of that dim start at ATen's generate_intervals (FractionalMaxPool2d.cpp)::

    alpha = (in - k) / (out - 1);   start[i] = int((i + u) * alpha) - int(u * alpha);   start[out-1] = in - k

computed in the input's scalar type: for float16/bfloat16 ATen rounds after every operation (c10::Half
arithmetic), which lax.reduce_precision reproduces (XLA may otherwise keep excess precision). The 2-d kernel
reads sample 0 for the width and 1 for the height; the 3-d kernel reads 0, 1, 2 for time, height, width.
Each window keeps torch's scan order: the first maximum wins and a NaN replaces any earlier value. The
values are gathered at the chosen indices, so the gradient (a scatter-add, as torch's backward) goes
exactly there. Without ``_random_samples`` the samples come from torch.rand on the default generator, so
they follow torchlike's random stream, not torch's (Note [Randomness is explicit]).
"""
import numpy as np

from .._engine import dispatch
from .._engine.jaxrt import jnp, lax
from .._engine.registry import op, public, PUBLIC
from .linalg import sname
from .nn_pool import _gather_plane, _lst

_DIMS = {2: ('height', 'width'), 3: ('time', 'height', 'width')}


def _round_like(dt):
    """Per-operation rounding of ATen's scalar_t arithmetic (identity for float32/float64)."""
    if dt == jnp.float16:
        return lambda v: lax.reduce_precision(v, exponent_bits=5, mantissa_bits=10)
    if dt == jnp.bfloat16:
        return lambda v: lax.reduce_precision(v, exponent_bits=8, mantissa_bits=7)
    return lambda v: v


def _alpha(i, k, o, dt):
    """static_cast<scalar_t>(in - k) / static_cast<scalar_t>(out - 1), in scalar_t."""
    npt = np.dtype(dt).type          # numpy's float16 / ml_dtypes' bfloat16 scalars round each operation
    return npt(i - k) / npt(o - 1)


def _starts(u, i, k, o, dt):
    """generate_intervals for one dim: u (..., ) samples -> (..., o) int64 window starts."""
    lead = u.shape
    if o == 0:
        return jnp.zeros(lead + (0,), jnp.int64)
    last = jnp.full(lead + (1,), i - k, jnp.int64)
    if o == 1:
        return last
    work = jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else dt      # products of halves are exact in f32
    rnd = _round_like(dt)
    a = jnp.asarray(np.asarray(_alpha(i, k, o, dt)).astype(work))
    u = u.astype(work)[..., None]
    r = rnd(jnp.arange(o - 1, dtype=work))                # static_cast<scalar_t>(i)
    first = rnd(rnd(r + u) * a).astype(jnp.int32) - rnd(u * a).astype(jnp.int32)   # static_cast<int>: truncation
    return jnp.concatenate([first.astype(jnp.int64), last], axis=-1)


def _sample_order(n):
    """Which sample column drives each spatial dim (see Note [Fractional pooling intervals])."""
    return (1, 0) if n == 2 else (0, 1, 2)


def _check(input, samples, n, kernel_size, output_size, fname):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{fname}(): Expected {n + 1}D or {n + 2}D tensor, but got: {_lst(input.shape)}")
    for d in range(1, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{_lst(input.shape)} with dimension {d} being empty.")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = input.shape[0] if input.ndim == n + 2 else 1
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {samples.shape[2]}.")
    for name, i, k, o in zip(_DIMS[n], input.shape[-n:], kernel_size, output_size):
        # ATen's 3-d check is strict (FractionalMaxPool3d.cpp: outputT + poolSizeT - 1 < inputT)
        if o + k - 1 > i or (n == 3 and o + k - 1 == i):
            raise RuntimeError(f"{fname}{'' if n == 2 else '_out'}(): pool {name} {k} too large relative to "
                               f"input {name} {i}")
    if any(o < 0 for o in output_size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(output_size)}: "
                           f"{_lst(input.shape[:-n] + tuple(output_size))}")
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise NotImplementedError(f"\"{fname}_out_frame\" not implemented for '{sname(input)}'")


def _fractional(input, random_samples, n, kernel_size, output_size, fname):
    _check(input, random_samples, n, kernel_size, output_size, fname)
    batched = input.ndim == n + 2
    x = input if batched else input[None]
    nb, ch = x.shape[:2]
    sp = x.shape[2:]
    if 0 in output_size:            # nothing to pool (reshapes below need a non-empty output)
        shape = input.shape[:-n] + tuple(output_size)
        return jnp.zeros(shape, input.dtype), jnp.zeros(shape, jnp.int64)
    u = lax.stop_gradient(random_samples[:nb])                           # (N, C, n)
    # flat in-plane index of every window element, in torch's scan order: (N, C, *out, *kernel)
    flat = jnp.zeros((nb, ch) + (1,) * (2 * n), jnp.int64)
    for ax, col in enumerate(_sample_order(n)):
        st = _starts(u[..., col], sp[ax], kernel_size[ax], output_size[ax], input.dtype)     # (N, C, o)
        # an empty kernel (k = 0) keeps ATen's initial index, the window's start
        pos = st[..., :, None] + jnp.arange(max(kernel_size[ax], 1), dtype=jnp.int64)       # (N, C, o, k)
        shape = [nb, ch] + [1] * (2 * n)
        shape[2 + ax], shape[2 + n + ax] = output_size[ax], max(kernel_size[ax], 1)
        flat = flat + pos.reshape(shape) * int(np.prod(sp[ax + 1:], dtype=np.int64))
    win = flat.reshape((nb, ch) + tuple(output_size) + (-1,))
    if 0 in kernel_size:            # ATen's initial value for an empty window
        idx = win[..., 0]
        vals = jnp.full(idx.shape, -jnp.inf, input.dtype)
    else:
        kk = win.shape[-1]
        xs = lax.stop_gradient(x).reshape((nb, ch, -1))
        patches = jnp.take_along_axis(xs, win.reshape((nb, ch, -1)), axis=-1).reshape(win.shape)
        nan = patches != patches
        last_nan = kk - 1 - jnp.argmax(jnp.flip(nan, -1), axis=-1)
        pos = jnp.where(nan.any(-1), last_nan, jnp.argmax(patches, axis=-1))
        idx = jnp.take_along_axis(win, pos[..., None], -1)[..., 0]
        vals = _gather_plane(x, idx, n)
    if not batched:
        vals, idx = vals[0], idx[0]
    return vals, idx


def _register(n):
    fname = f'fractional_max_pool{n}d'

    @op(f'_{fname}', static=('n', 'kernel_size', 'output_size', 'fname'), diff=('input',), saves=(),
        node=f'FractionalMaxPool{n}DBackward0', function=False, method=False, out=False)
    def kernel(input, random_samples, n, kernel_size, output_size, fname):
        return _fractional(input, random_samples, n, kernel_size, output_size, fname)
    return kernel


_KERNELS = {n: _register(n) for n in (2, 3)}


def _int_tuple(v, n, fname, what):
    if isinstance(v, dispatch.Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise RuntimeError(f"{fname}: {what} must either be a single Int or tuple of Ints")
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _output_size(input, n, output_size, output_ratio, fname):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return output_size
    # as torch: the 2-d form calls len() first (a bare float raises TypeError), a short sequence IndexError
    if n == 2 and len(output_ratio) > 2:
        raise ValueError(f"{fname} requires output_ratio to either be a single Int or tuple of Ints.")
    r = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * n
    return [int(input.size(-n + d) * r[d]) for d in range(n)]


def _fns(n):
    fname = f'fractional_max_pool{n}d'

    def with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                     _random_samples=None):
        osz = _output_size(input, n, output_size, output_ratio, fname)
        if _random_samples is None:
            n_batch = 1 if input.dim() == n + 1 else input.size(0)
            _random_samples = PUBLIC['torch']['rand'](n_batch, input.size(-n - 1), n, dtype=input.dtype,
                                                      device=input.device)
        k = _int_tuple(kernel_size, n, fname, 'kernel_size')
        o = _int_tuple(osz, n, fname, 'output_size')
        return dispatch.apply(_KERNELS[n], (input, _random_samples), (n, k, o, fname))

    def values(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
               _random_samples=None):
        return with_indices(input, kernel_size, output_size, output_ratio, return_indices, _random_samples)[0]

    def functional(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                   _random_samples=None):
        f = with_indices if return_indices else values
        return f(input, kernel_size, output_size, output_ratio, return_indices, _random_samples)

    with_indices.__name__ = with_indices.__qualname__ = fname + '_with_indices'
    functional.__name__ = functional.__qualname__ = fname
    values.__name__ = values.__qualname__ = '_' + fname
    public(fname, namespace='nn.functional')(functional)
    public(fname + '_with_indices', namespace='nn.functional')(with_indices)
    return functional, with_indices


(fractional_max_pool2d, fractional_max_pool2d_with_indices), \
    (fractional_max_pool3d, fractional_max_pool3d_with_indices) = (_fns(n) for n in (2, 3))
