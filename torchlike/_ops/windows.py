"""Window functions: torch.hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window,
and the torch.signal.windows family (registered in the 'signal.windows' namespace).

The torch-level windows are factories (ops with only static attributes, like creation.py's): the body
follows ATen's TensorFactories.cpp step by step (arange in the dtype, then in-place scalar ops), rounding
to the dtype after each step as torch's in-place kernels do, so half and bfloat16 windows match torch's
values and not merely the formula. torch.signal.windows is torch's own Python composite
(torch/signal/windows/windows.py) over torchlike's public ops, so it matches by construction.
"""
import math
import numbers
from collections.abc import Iterable

from .. import _dtype as D
from .._engine.registry import op, public, PUBLIC
from .._engine import dispatch
from .._engine.dispatch import _tname
from .._engine.jaxrt import jax, jnp
from .._layout import strided, check_layout
from .._tensor import Tensor

_NEEDED = object()    # marks an overload's absent positional argument (torch's hamming/kaiser overloads)


@op('_window', static=('kind', 'length', 'periodic', 'params', 'dtype'), function=False, method=False,
    differentiable=False)
def _window(*, kind, length, periodic, params, dtype):
    """A window of ``length >= 2`` points; a periodic one is the first ``length`` of ``length + 1``."""
    n = length + 1 if periodic else length
    dt = dtype.np
    wdt = jnp.float32 if dtype in (D.float16, D.bfloat16) else dt     # the kernels' opmath type

    def r(v):               # one in-place kernel: compute in opmath, store in the dtype
        return v.astype(dt).astype(wdt)

    def c(v):               # a Scalar operand reaches the kernel rounded to the tensor's dtype
        return r(jnp.asarray(v, wdt))

    k = jnp.arange(n, dtype=wdt)
    if kind == 'hamming':
        alpha, beta = params
        w = r(k * c(2 * math.pi / (n - 1)))
        w = r(jnp.cos(w))
        w = r(w * c(-beta))
        w = r(w + c(alpha))
    elif kind == 'blackman':
        w = r(k * c(math.pi / (n - 1)))
        a = r(r(jnp.cos(r(w * 4))) * c(0.08))
        b = r(r(jnp.cos(r(w * 2))) * c(0.5))
        w = r(r(a - b) + c(0.42))
    elif kind == 'bartlett':
        w = r(k * c(2.0 / (n - 1)))
        first = ((n - 1) >> 1) + 1
        w = jnp.concatenate([w[:first], r(r(-w[first:]) + 2)])
    else:   # kaiser: one elementwise kernel in opmath (ATen's kaiser_window_stub)
        beta, = params
        alpha = jnp.asarray((n - 1) / 2.0, wdt)
        b = jnp.asarray(beta, wdt)
        w = r(jax.scipy.special.i0(b * jnp.sqrt(jnp.abs(1 - ((k - alpha) / alpha) ** 2)))
              / jax.scipy.special.i0(b))
    return w[:length].astype(dt)


def _len_arg(fname, n):
    if isinstance(n, Tensor) and n.numel() == 1 and not (n.dtype.is_floating_point or n.dtype.is_complex):
        n = n.item()
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{fname}(): argument 'window_length' (position 1) must be int, not {type(n).__name__}")
    return int(n)


def _float_arg(fname, name, v):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{fname}(): argument '{name}' must be float, not {type(v).__name__}")
    return float(v)


def _make(fname, kind, n, periodic, params, dtype, layout, device, requires_grad):
    from .creation import zeros, ones
    n = _len_arg(fname, n)
    if periodic is None or not isinstance(periodic, (bool, int)):
        raise TypeError(f"{fname}(): argument 'periodic' must be bool, not {type(periodic).__name__}")
    dtype = dtype or D.state.default_dtype
    check_layout(layout, fname)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fname} expects floating point dtypes, got: {dtype}")
    if n < 0:
        raise RuntimeError(f"{fname} requires non-negative window_length, got window_length={n}")
    if dtype.is_complex:      # ATen builds windows with arange, which has no complex kernel
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_tname(dtype)}'")
    if n == 0:
        return zeros(0, dtype=dtype, device=device, requires_grad=requires_grad)
    if n == 1:
        return ones(1, dtype=dtype, device=device, requires_grad=requires_grad)
    t = dispatch.apply(_window, (), (kind, n, bool(periodic), params, dtype))
    if device is not None:
        t = t.to(device)
    if requires_grad:
        t.requires_grad_(True)
    return t


@public('hann_window')
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False):
    """hann_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor"""
    return _make('hann_window', 'hamming', window_length, periodic, (0.5, 0.5), dtype, layout, device,
                 requires_grad)


@public('hamming_window')
def hamming_window(window_length, periodic=_NEEDED, alpha=_NEEDED, beta=_NEEDED, *, dtype=None, layout=None,
                   device=None, requires_grad=False, pin_memory=False):
    """hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, ...) -> Tensor

    torch's overloads take alpha only after periodic, and beta only after alpha."""
    if (alpha is not _NEEDED and periodic is _NEEDED) or (beta is not _NEEDED and alpha is _NEEDED):
        raise TypeError("hamming_window() received an invalid combination of arguments: alpha needs periodic "
                        "and beta needs alpha")
    periodic = True if periodic is _NEEDED else periodic
    alpha = 0.54 if alpha is _NEEDED else _float_arg('hamming_window', 'alpha', alpha)
    beta = 0.46 if beta is _NEEDED else _float_arg('hamming_window', 'beta', beta)
    return _make('hamming_window', 'hamming', window_length, periodic, (alpha, beta), dtype, layout, device,
                 requires_grad)


@public('blackman_window')
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False,
                    pin_memory=False):
    """blackman_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor"""
    return _make('blackman_window', 'blackman', window_length, periodic, (), dtype, layout, device, requires_grad)


@public('bartlett_window')
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False,
                    pin_memory=False):
    """bartlett_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor"""
    return _make('bartlett_window', 'bartlett', window_length, periodic, (), dtype, layout, device, requires_grad)


@public('kaiser_window')
def kaiser_window(window_length, periodic=_NEEDED, beta=_NEEDED, *, dtype=None, layout=None, device=None,
                  requires_grad=False, pin_memory=False):
    """kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, ...) -> Tensor

    torch's overloads take beta only after periodic."""
    if beta is not _NEEDED and periodic is _NEEDED:
        raise TypeError("kaiser_window() received an invalid combination of arguments: beta needs periodic")
    periodic = True if periodic is _NEEDED else periodic
    beta = 12.0 if beta is _NEEDED else _float_arg('kaiser_window', 'beta', beta)
    return _make('kaiser_window', 'kaiser', window_length, periodic, (beta,), dtype, layout, device, requires_grad)


# ---- torch.signal.windows: torch's Python composites over the public ops ----------------------

def _T(name):
    return PUBLIC['torch'][name]


def _checks(fname, M, dtype, layout):
    if M < 0:
        raise ValueError(f'{fname} requires non-negative window length, got M={M}')
    if layout is not strided:
        raise ValueError(f'{fname} is implemented for strided tensors only, got: {layout}')
    if dtype not in (D.float32, D.float64):
        raise ValueError(f'{fname} expects float32 or float64 dtypes, got: {dtype}')


def _empty_or_ones(M, value_one, dtype, device, requires_grad):
    if M == 0:
        return _T('empty')((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if value_one and M == 1:
        return _T('ones')((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _linspace(start, end, M, dtype, device, requires_grad):
    return _T('linspace')(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)


@public('exponential', namespace='signal.windows')
def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    _checks('exponential', M, dtype, layout)
    if tau <= 0:
        raise ValueError(f'Tau must be positive, got: {tau} instead.')
    if sym and center is not None:
        raise ValueError('Center must be None for symmetric windows')
    e = _empty_or_ones(M, False, dtype, device, requires_grad)
    if e is not None:
        return e
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / tau
    k = _linspace(-center * c, (-center + (M - 1)) * c, M, dtype, device, requires_grad)
    return _T('exp')(-_T('abs')(k))


@public('cosine', namespace='signal.windows')
def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    _checks('cosine', M, dtype, layout)
    e = _empty_or_ones(M, False, dtype, device, requires_grad)
    if e is not None:
        return e
    c = math.pi / (M + 1 if not sym and M > 1 else M)
    return _T('sin')(_linspace(0.5 * c, (0.5 + (M - 1)) * c, M, dtype, device, requires_grad))


@public('gaussian', namespace='signal.windows')
def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    _checks('gaussian', M, dtype, layout)
    if std <= 0:
        raise ValueError(f'Standard deviation must be positive, got: {std} instead.')
    e = _empty_or_ones(M, False, dtype, device, requires_grad)
    if e is not None:
        return e
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * math.sqrt(2))
    k = _linspace(start * c, (start + (M - 1)) * c, M, dtype, device, requires_grad)
    return _T('exp')(-k ** 2)


@public('kaiser', namespace='signal.windows')
def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    _checks('kaiser', M, dtype, layout)
    if beta < 0:
        raise ValueError(f'beta must be non-negative, got: {beta} instead.')
    e = _empty_or_ones(M, True, dtype, device, requires_grad)
    if e is not None:
        return e
    beta = _T('tensor')(beta, dtype=dtype, device=device)
    start = -beta
    c = 2.0 * beta / (M if not sym else M - 1)
    end = _T('minimum')(beta, start + (M - 1) * c)
    k = _linspace(start, end, M, dtype, device, requires_grad)
    return _T('i0')(_T('sqrt')(beta * beta - _T('pow')(k, 2))) / _T('i0')(beta)


@public('general_cosine', namespace='signal.windows')
def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    _checks('general_cosine', M, dtype, layout)
    e = _empty_or_ones(M, True, dtype, device, requires_grad)
    if e is not None:
        return e
    if not isinstance(a, Iterable):
        raise TypeError('Coefficients must be a list/tuple')
    if not a:
        raise ValueError('Coefficients cannot be empty')
    c = 2 * math.pi / (M if not sym else M - 1)
    k = _linspace(0, (M - 1) * c, M, dtype, device, requires_grad)
    a_i = _T('tensor')([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype,
                       requires_grad=requires_grad)
    i = _T('arange')(a_i.shape[0], dtype=a_i.dtype, device=device, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * _T('cos')(i.unsqueeze(-1) * k)).sum(0)


@public('general_hamming', namespace='signal.windows')
def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


@public('hamming', namespace='signal.windows')
def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


@public('hann', namespace='signal.windows')
def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


@public('blackman', namespace='signal.windows')
def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    _checks('blackman', M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


@public('bartlett', namespace='signal.windows')
def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    _checks('bartlett', M, dtype, layout)
    e = _empty_or_ones(M, True, dtype, device, requires_grad)
    if e is not None:
        return e
    c = 2 / (M if not sym else M - 1)
    k = _linspace(-1, -1 + (M - 1) * c, M, dtype, device, requires_grad)
    return 1 - _T('abs')(k)


@public('nuttall', namespace='signal.windows')
def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
