"""torch.fft: the discrete Fourier transforms, fftfreq/rfftfreq and fftshift/ifftshift.

Every transform is one op, ``fft._fft``, whose static ``kind`` says which of ATen's three primitives
(``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``) torch would end with; the public functions (registered in the
'fft' namespace, see torchlike/fft/__init__.py) only validate and canonicalise n/s, dim and norm with
torch's errors, as ATen's SpectralOps.cpp does, and pick the kind. The body resizes (zero-pads or
crops) the input and calls jnp.fft, so the whole transform is one compiled program, and its backward
is the VJP of that program: JAX's transpose rules of rfft/irfft include the Hermitian doubling that
torch's ``fft_r2c_backward``/``fft_c2r_backward`` write by hand.

Torch identities used by the bodies (unnormalised transforms, N = the product of the signal sizes):
  ihfftn(x) = conj(rfftn(x)) with the inverse's normalisation,
  hfftn(x)  = irfftn(conj(x)) with the forward's normalisation,
so the two Hermitian families are jnp's real transforms with the norm mode swapped.
"""
import numbers

from .. import _dtype as D
from .._engine.registry import op, public
from .._engine import dispatch
from ..amp.autocast_mode import autocast_entry
from .._engine.dispatch import _tname
from .._engine.jaxrt import jnp
from .._tensor import Tensor
from ._util import wrap_dim

_NORMS = (None, 'backward', 'forward', 'ortho')
# a Hermitian transform run as jnp's real transform in the other direction takes the other norm
_SWAP = {None: 'forward', 'backward': 'forward', 'forward': 'backward', 'ortho': 'ortho'}


# ---- argument checks (torch's python-arg-parser and SpectralOps.cpp messages) ----------------------

def _tensor_arg(fname, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _int_arg(fname, name, v, optional=True):
    v = dispatch.static_arg(v) if isinstance(v, Tensor) else v
    if v is None and optional:
        return None
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"fft_{fname}(): argument '{name}' must be int, not {type(v).__name__}")
    return int(v)


def _ints_arg(fname, name, v):
    """None, an int (a one-element list, as torch's ``int[1]?``), or a tuple of ints."""
    if v is None:
        return None
    if isinstance(v, Tensor):
        v = dispatch.static_arg(v)
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return (int(v),)
    if isinstance(v, (tuple, list)):
        out = []
        for e in v:
            if isinstance(e, Tensor) and e.numel() == 1 and not e.dtype.is_floating_point:
                e = e.item()
            if isinstance(e, bool) or not isinstance(e, numbers.Integral):
                raise TypeError(f"fft_{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
            out.append(int(e))
        return tuple(out)
    raise TypeError(f"fft_{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")


def _norm_arg(fname, norm):
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"fft_{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _dim(d, ndim):
    if ndim == 0:    # torch wraps FFT dims with wrap_scalar=False
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return wrap_dim(d, ndim)


def _check_dtype(input):
    """Half/bfloat16 FFTs are CUDA-only in torch (CPU raises); integers and bool promote to the default float."""
    dt = input.dtype
    if dt is D.float16 or dt is D.bfloat16:
        raise RuntimeError(f"Unsupported dtype {_tname(dt)}")


def _real_input(fname, input, msg='real input tensor'):
    if input.dtype.is_complex:
        raise RuntimeError(f"{fname} expects a {msg}, but got {_tname(input.dtype)}")


def _check_out(fname, out, complex_out):
    if out is None:
        return
    if not isinstance(out, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if complex_out and not out.dtype.is_complex:
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_tname(out.dtype)}")
    if not complex_out and not out.dtype.is_floating_point:
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got {_tname(out.dtype)}")


def _shape_and_dims(input, s, dim):
    """ATen's canonicalize_fft_shape_and_dim_args: (signal sizes, wrapped dims), -1 sizes filled in."""
    ndim, sizes = input.ndim, tuple(input.shape)
    dims = None
    if dim is not None:
        dims = tuple(_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dims is None:
            dims = tuple(range(ndim - len(s), ndim))
        shape = tuple(sizes[d] if n == -1 else n for n, d in zip(s, dims))
    elif dims is None:
        dims, shape = tuple(range(ndim)), sizes
    else:
        shape = tuple(sizes[d] for d in dims)
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


# ---- the op --------------------------------------------------------------------------------------

def _resize(x, dims, sizes):
    """Crop or zero-pad x so that x.shape[dims[i]] == sizes[i] (torch's _resize_fft_input)."""
    idx = [slice(None)] * x.ndim
    pad = [(0, 0)] * x.ndim
    for d, n in zip(dims, sizes):
        if x.shape[d] > n:
            idx[d] = slice(0, n)
        elif x.shape[d] < n:
            pad[d] = (0, n - x.shape[d])
    x = x[tuple(idx)]
    return jnp.pad(x, pad) if any(p != (0, 0) for p in pad) else x


def _complex(x):
    return x.astype(jnp.result_type(x.dtype, jnp.complex64))


_NODES = {'c2c': 'FftC2CBackward0', 'r2c': 'FftR2CBackward0', 'rfft': 'FftR2CBackward0',
          'irfft': 'FftC2RBackward0', 'hfft': 'FftC2RBackward0', 'r2c_inv': 'ConjBackward0'}


def _node(kind, s, dim, norm, forward, last):
    # torch ends ifft(real) and 1-d ihfft with a conj; n-d ihfftn ends with a c2c
    if kind == 'ihfft':
        return 'ConjBackward0' if len(dim) == 1 else 'FftC2CBackward0'
    return _NODES[kind]


@op('_fft', static=('kind', 's', 'dim', 'norm', 'forward', 'last'), promote='float', saves=(), node=_node,
    function=False, method=False, out=True)
def _fft(input, *, kind, s, dim, norm, forward, last):
    """kind: 'c2c' / 'r2c' (full complex output) / 'r2c_inv' (ifft of a real input) / 'rfft' / 'ihfft'
    (one-sided) / 'irfft' / 'hfft' (real output whose last transformed dim has ``last`` points)."""
    if not dim:
        return _complex(input)
    if kind in ('c2c', 'r2c', 'r2c_inv'):
        x = _resize(_complex(input), dim, s)
        f = jnp.fft.fftn if forward else jnp.fft.ifftn
        return f(x, axes=dim, norm=norm)
    if kind == 'rfft':
        return jnp.fft.rfftn(_resize(input, dim, s), axes=dim, norm=norm)
    if kind == 'ihfft':
        return jnp.conj(jnp.fft.rfftn(_resize(input, dim, s), axes=dim, norm=_SWAP[norm]))
    x = _resize(_complex(input), dim, s)
    out_s = tuple(s[:-1]) + (last,)
    if kind == 'irfft':
        return jnp.fft.irfftn(x, s=out_s, axes=dim, norm=norm)
    return jnp.fft.irfftn(jnp.conj(x), s=out_s, axes=dim, norm=_SWAP[norm])   # hfft


def _run(input, kind, shape, dims, norm, forward, last, out):
    if out is not None and _node(kind, shape, dims, norm, forward, last) == 'ConjBackward0':
        # torch ends these with conj() written into out, which needs out's dtype to be the result's exactly
        dt = input.dtype if input.dtype.is_floating_point else D.state.default_dtype
        if out.dtype is not dt.to_complex():
            raise RuntimeError(f"Found dtype {_tname(out.dtype)} but expected {_tname(dt.to_complex())}")
    return _fft.function(input, kind=kind, s=shape, dim=dims, norm=norm, forward=forward, last=last, out=out)


# ---- one-dimensional transforms ------------------------------------------------------------------

def _one_dim_args(fname, input, n, dim, norm):
    _tensor_arg(fname, input)
    n = _int_arg(fname, 'n', n)
    dim = _int_arg(fname, 'dim', dim, optional=False)
    norm = _norm_arg(fname, norm)
    _check_dtype(input)
    d = _dim(dim, input.ndim)
    return n, d, norm


def _c2c_or_r2c(fname, input, n, dim, norm, forward, out):
    n, d, norm = _one_dim_args(fname, input, n, dim, norm)
    size = input.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    _check_out(fname, out, True)
    kind = 'c2c' if input.dtype.is_complex else ('r2c' if forward else 'r2c_inv')
    return _run(input, kind, (size,), (d,), norm, forward, None, out)


def _r2c_onesided(fname, kind, input, n, dim, norm, forward, out):
    n, d, norm = _one_dim_args(fname, input, n, dim, norm)
    _real_input(fname, input)
    size = input.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    _check_out(fname, out, True)
    return _run(input, kind, (size,), (d,), norm, forward, None, out)


def _c2r(fname, kind, input, n, dim, norm, out):
    n, d, norm = _one_dim_args(fname, input, n, dim, norm)
    last = 2 * (input.shape[d] - 1) if n is None else n
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    _check_out(fname, out, False)
    return _run(input, kind, (last // 2 + 1,), (d,), norm, kind == 'hfft', last, out)


@public('fft', namespace='fft')
@autocast_entry('fft_fft')
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """fft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor"""
    return _c2c_or_r2c('fft', input, n, dim, norm, True, out)


@public('ifft', namespace='fft')
@autocast_entry('fft_ifft')
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """ifft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor"""
    return _c2c_or_r2c('ifft', input, n, dim, norm, False, out)


@public('rfft', namespace='fft')
@autocast_entry('fft_rfft')
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """rfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor"""
    return _r2c_onesided('rfft', 'rfft', input, n, dim, norm, True, out)


@public('ihfft', namespace='fft')
@autocast_entry('fft_ihfft')
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """ihfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor"""
    return _r2c_onesided('ihfft', 'ihfft', input, n, dim, norm, False, out)


@public('irfft', namespace='fft')
@autocast_entry('fft_irfft')
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """irfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor"""
    return _c2r('irfft', 'irfft', input, n, dim, norm, out)


@public('hfft', namespace='fft')
@autocast_entry('fft_hfft')
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """hfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor"""
    return _c2r('hfft', 'hfft', input, n, dim, norm, out)


# ---- n-dimensional transforms --------------------------------------------------------------------

def _n_dim_args(fname, input, s, dim, norm):
    _tensor_arg(fname, input)
    s = _ints_arg(fname, 's', s)
    dim = _ints_arg(fname, 'dim', dim)
    norm = _norm_arg(fname, norm)
    _check_dtype(input)
    return s, dim, norm


def _c2c_n(fname, input, s, dim, norm, forward, out):
    s, dim, norm = _n_dim_args(fname, input, s, dim, norm)
    shape, dims = _shape_and_dims(input, s, dim)
    _check_out(fname, out, True)
    return _run(input, 'c2c', shape, dims, norm, forward, None, out)


def _r2c_n(fname, kind, input, s, dim, norm, forward, out):
    s, dim, norm = _n_dim_args(fname, input, s, dim, norm)
    _real_input(fname, input, 'real-valued input tensor')
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    _check_out(fname, out, True)
    return _run(input, kind, shape, dims, norm, forward, None, out)


def _c2r_n(fname, kind, input, s, dim, norm, out):
    s, dim, norm = _n_dim_args(fname, input, s, dim, norm)
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    last = 2 * (input.shape[dims[-1]] - 1) if (s is None or s[-1] == -1) else shape[-1]
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    shape = shape[:-1] + (last // 2 + 1,)
    _check_out(fname, out, False)
    return _run(input, kind, shape, dims, norm, kind == 'hfft', last, out)


def _n_dim_family(name, default_dim, make):
    def f(input, s=None, dim=default_dim, norm=None, *, out=None):
        return make(name, input, s, dim, norm, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f'{name}(input, s=None, dim={default_dim}, norm=None, *, out=None) -> Tensor'
    # every transform declares its ATen name; the autocast tables list the ones torch casts (not hfft2/hfftn/...)
    return public(name, namespace='fft')(autocast_entry('fft_' + name)(f))


for _suffix, _default in (('n', None), ('2', (-2, -1))):
    _n_dim_family('fft' + _suffix, _default, lambda nm, x, s, d, nr, o: _c2c_n(nm, x, s, d, nr, True, o))
    _n_dim_family('ifft' + _suffix, _default, lambda nm, x, s, d, nr, o: _c2c_n(nm, x, s, d, nr, False, o))
    _n_dim_family('rfft' + _suffix, _default,
                  lambda nm, x, s, d, nr, o: _r2c_n(nm.replace('2', 'n'), 'rfft', x, s, d, nr, True, o))
    _n_dim_family('ihfft' + _suffix, _default,
                  lambda nm, x, s, d, nr, o: _r2c_n(nm.replace('2', 'n'), 'ihfft', x, s, d, nr, False, o))
    _n_dim_family('irfft' + _suffix, _default,
                  lambda nm, x, s, d, nr, o: _c2r_n(nm.replace('2', 'n'), 'irfft', x, s, d, nr, o))
    _n_dim_family('hfft' + _suffix, _default,
                  lambda nm, x, s, d, nr, o: _c2r_n(nm.replace('2', 'n'), 'hfft', x, s, d, nr, o))


# ---- helpers: fftfreq / rfftfreq, fftshift / ifftshift -------------------------------------------

@op('_fftfreq', static=('n', 'm', 'scale', 'dtype', 'onesided'), function=False, method=False,
    differentiable=False)
def _fftfreq(*, n, m, scale, dtype, onesided):
    # ATen: arange, the negative half rewritten with arange(-(n/2), 0), then mul_(1/(n*d)) in the dtype's
    # opmath (float for half and bfloat16), so values round as torch's do.
    wdt = jnp.float32 if dtype in (D.float16, D.bfloat16) else dtype.np
    if onesided:
        k = jnp.arange(m, dtype=wdt)
    else:
        k = jnp.concatenate([jnp.arange((n + 1) // 2, dtype=wdt), jnp.arange(-(n // 2), 0, dtype=wdt)])
    return (k * jnp.asarray(scale, wdt)).astype(dtype.np)


def _freq(fname, onesided, n, d, out, dtype, layout, device, requires_grad):
    from .._layout import check_layout
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"fft_{fname}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    n = int(n)
    d = float(d.item() if isinstance(d, Tensor) else d)
    check_layout(layout, f'fft_{fname}')
    dtype = out.dtype if out is not None else (dtype or D.state.default_dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    if dtype.is_complex:      # ATen builds the values with arange, which has no complex kernel
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_tname(dtype)}'")
    m = (abs(n) // 2 * (1 if n >= 0 else -1) + 1) if onesided else n    # C++ n / 2 truncates toward zero
    if m < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {m}: [{m}]")
    scale = 1.0 / (n * d) if n * d != 0 else float('inf')
    t = dispatch.apply(_fftfreq, (), (n, m, scale, dtype, onesided))
    if device is not None:
        t = t.to(device)
    if out is not None:
        out._set_value_inplace(t._value(), resize=True)
        t = out
    if requires_grad:
        t.requires_grad_(True)
    return t


@public('fftfreq', namespace='fft')
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """fftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None, requires_grad=False)"""
    return _freq('fftfreq', False, n, d, out, dtype, layout, device, requires_grad)


@public('rfftfreq', namespace='fft')
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None, requires_grad=False)"""
    return _freq('rfftfreq', True, n, d, out, dtype, layout, device, requires_grad)


def _shift(fname, input, dim, inverse):
    from .rearrange import roll
    _tensor_arg(fname, input)
    dim = _ints_arg(fname, 'dim', dim)
    dims = tuple(range(input.ndim)) if dim is None else dim
    for dd in dims:
        _dim(dd, input.ndim)
    shape = input.shape
    shifts = tuple((shape[dd] + 1) // 2 if inverse else shape[dd] // 2 for dd in dims)
    return roll(input, shifts, dims)


@public('fftshift', namespace='fft')
def fftshift(input, dim=None):
    """fftshift(input, dim=None) -> Tensor"""
    return _shift('fftshift', input, dim, False)


@public('ifftshift', namespace='fft')
def ifftshift(input, dim=None):
    """ifftshift(input, dim=None) -> Tensor"""
    return _shift('ifftshift', input, dim, True)
