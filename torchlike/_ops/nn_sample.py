"""Padding and resampling: pad (constant, reflect, replicate, circular) / constant_pad_nd, interpolate and the
upsample family (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area), grid_sample /
grid_sampler and affine_grid, unfold / fold (im2col / col2im), pixel_shuffle / pixel_unshuffle and
channel_shuffle.

Resampling ops precompute, while the body is traced (shapes are static), one (index, weight) table per
spatial dim with ATen's formulas in ATen's arithmetic (float32 for float/half inputs, float64 for double),
so the source pixels are the ones torch picks; the data path is a gather and a weighted sum, whose VJP is
the scatter-add torch's backward kernels compute. Non-constant padding is a gather by a precomputed index
table too, which covers negative (cropping) pads the way ATen's kernels do.
"""
import math
import warnings

import numpy as np

from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .linalg import sname
from .nn_conv import ntuple
from .nn_pool import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

_HI = lax.Precision.HIGHEST


def _lst(v):
    return '[' + ', '.join(str(x) for x in v) + ']'


def _opmath(dt):
    return np.float64 if dt == jnp.float64 else np.float32


def _take(x, axis, idx):
    """x gathered along ``axis`` with a (out, taps) index table -> axis replaced by (out, taps)."""
    idx = np.asarray(idx)
    g = jnp.take(x, jnp.asarray(idx.reshape(-1)), axis=axis)
    return g.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1:])


def _per_node(name, nodes, **kw):
    """Register ``fn`` once per torch node name (one op each), keyed by node name."""
    def deco(fn):
        return {nd: op(f'{name}_{nd}', node=nd, function=False, method=False, out=False, **kw)(fn) for nd in nodes}
    return deco


# ---- padding -----------------------------------------------------------------------------------------

def _check_pad_len(x, pad):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {x.ndim}")


def _pairs(x, pad):
    """torch's pad list (last dim first) -> {axis: (low, high)}."""
    return {x.ndim - 1 - i: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}


@op('constant_pad_nd', static=('pad',), method=False, out=False)
def constant_pad_nd(input, pad, value=0):
    _check_pad_len(input, pad)
    pairs = _pairs(input, pad)
    for ax, (lo, hi) in pairs.items():
        if input.shape[ax] + lo + hi < 0:
            raise RuntimeError(f"The input size {input.shape[ax]}, plus negative padding {lo} and {hi} resulted in a "
                               f"negative output size, which is invalid. Check dimension {ax} of your input.")
    cfg = [(pairs.get(ax, (0, 0))[0], pairs.get(ax, (0, 0))[1], 0) for ax in range(input.ndim)]
    v = jnp.asarray(value).astype(input.dtype) if input.dtype != jnp.bool_ else jnp.asarray(value).astype(bool)
    return lax.pad(input, v, cfg)


def _pad_index(mode, i, lo, hi):
    """Source index of each output position along one dim (ATen's reflection/replication pad kernels)."""
    j = np.arange(i + lo + hi)
    if mode == 'circular':      # ATen crops by the negative pads first, then wraps around what is left
        c0, m = max(0, -lo), i - max(0, -lo) - max(0, -hi)
        return c0 + (j - max(lo, 0)) % m
    i0, o0 = max(0, -lo), max(0, lo)
    if mode == 'reflect':
        ip = np.where(j < lo, 2 * lo - j, np.where(j < i + lo, j, 2 * (i + lo - 1) - j))
    else:
        ip = np.where(j < lo, lo, np.where(j < i + lo, j, i + lo - 1))
    return ip - o0 + i0


_PAD_NODES = tuple(f'{k}Pad{n}DBackward0' for k in ('Reflection', 'Replication') for n in (1, 2, 3)) + ('CopySlices',)


@_per_node('_pad', _PAD_NODES, static=('pad', 'mode'))
def _pad_gather(input, pad, mode):
    n = len(pad) // 2
    if mode != 'circular' and input.dtype == jnp.bool_:
        raise NotImplementedError(f"\"{mode}_pad{n}d\" not implemented for 'Bool'")
    y = input
    for ax, (lo, hi) in _pairs(input, pad).items():
        i = input.shape[ax]
        if mode == 'reflect' and (lo >= i or hi >= i):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, but "
                               f"got: padding ({lo}, {hi}) at dimension {ax} of input {_lst(input.shape)}")
        if mode == 'circular' and (lo > i or hi > i):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == 'replicate' and i == 0:
            raise RuntimeError(f"input tensor must have non-zero size in dimension {ax}")
        if i + lo + hi <= 0 and mode != 'circular':
            raise RuntimeError(f"input (H: {i}) is too small. Calculated output H: {i + lo + hi}")
        y = jnp.take(y, jnp.asarray(_pad_index(mode, i, lo, hi)), axis=ax)
    return y


_MODES = {'constant': 'constant', 'reflect': 'reflect', 'replicate': 'replicate', 'circular': 'circular'}


@public('pad', namespace='nn.functional')
def pad(input, pad, mode='constant', value=None):
    if isinstance(pad, dispatch.Tensor):
        pad = pad.tolist()
    pad = tuple(int(p) for p in pad)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == 'constant':
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pad) // 2
    if len(pad) % 2 or n not in (1, 2, 3) or input.ndim not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\nSupported combinations for "
            "non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: "
            "padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    node = 'CopySlices' if mode == 'circular' else f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{n}DBackward0"
    return dispatch.apply(_pad_gather[node], (input,), (pad, mode))


# ---- interpolate / upsample ----------------------------------------------------------------------------

def _scale(i, o, align_corners, scale, mt):
    """ATen's area_pixel_compute_scale in opmath type ``mt``."""
    if align_corners:
        return mt(i - 1) / mt(o - 1) if o > 1 else mt(0)
    if scale is not None and scale > 0:
        return mt(1.0 / scale)
    return mt(i) / mt(o)


def _src_index(scale, o, align_corners, cubic, mt):
    d = np.arange(o).astype(mt)
    if align_corners:
        return scale * d
    s = scale * (d + mt(0.5)) - mt(0.5)
    return s if cubic else np.maximum(s, mt(0))


def _cubic_coeffs(t, mt):
    A = mt(-0.75)

    def c1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return np.stack([c2(t + 1), c1(t), c1(1 - t), c2(2 - t)], axis=-1).astype(mt)


def _aa_filter(mode):
    if mode == 'linear_aa':
        return 1.0, lambda x: np.maximum(0.0, 1.0 - np.abs(x))
    a = -0.5        # torch's antialiased bicubic uses Keys' a = -0.5 (as PIL), not the -0.75 of plain bicubic

    def cubic(x):
        x = np.abs(x)
        return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                        np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))
    return 2.0, cubic


def _aa_table(mode, i, o, align_corners, scale, mt):
    """ATen's _compute_indices_min_size_weights_aa: each output pixel averages the input pixels under a filter
    stretched by the downscaling factor (support = taps/2 * scale when scale >= 1), weights normalised to 1."""
    half, filt = _aa_filter(mode)
    sc = float(_scale(i, o, align_corners, scale, np.float64))
    support = half * sc if sc >= 1.0 else half
    invscale = 1.0 / sc if sc >= 1.0 else 1.0
    center = sc * (np.arange(o) + 0.5)
    xmin = np.maximum((center - support + 0.5).astype(np.int64), 0)
    xsize = np.minimum((center + support + 0.5).astype(np.int64), i) - xmin
    taps = max(int(xsize.max()), 1)
    j = np.arange(taps)[None, :]
    w = np.where(j < xsize[:, None], filt((j + xmin[:, None] - center[:, None] + 0.5) * invscale), 0.0)
    tot = w.sum(axis=1, keepdims=True)
    w = np.where(tot != 0, w / np.where(tot != 0, tot, 1), w)
    return np.minimum(xmin[:, None] + j, i - 1), w.astype(mt)


def _table(mode, i, o, align_corners, scale, mt):
    """(index table (o, taps), weight table (o, taps) or None) for one spatial dim."""
    if mode.endswith('_aa'):
        return _aa_table(mode, i, o, align_corners, scale, mt)
    if mode in ('nearest', 'nearest-exact'):
        if mode == 'nearest' and o == i:
            return np.arange(o)[:, None], None
        if mode == 'nearest' and o == 2 * i:
            return (np.arange(o) >> 1)[:, None], None
        sc = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(i) / np.float32(o)
        d = np.arange(o)
        if mode == 'nearest':
            src = np.floor(d.astype(np.float32) * sc)
        else:
            src = np.floor(((d + 0.5) * np.float64(sc)).astype(np.float32))    # floorf of a double: float first
        return np.minimum(src.astype(np.int64), i - 1)[:, None], None
    sc = _scale(i, o, align_corners, scale, mt)
    if mode == 'cubic':
        real = _src_index(sc, o, align_corners, True, mt)
        i0 = np.floor(real)
        t = (real - i0).astype(mt)
        idx = np.clip(i0.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :], 0, i - 1)
        return idx, _cubic_coeffs(t, mt)
    real = _src_index(sc, o, align_corners, False, mt)
    i0 = np.minimum(real.astype(np.int64), i - 1)
    lam = np.clip(real - i0.astype(mt), 0, 1).astype(mt)
    i1 = i0 + (i0 < i - 1)
    return np.stack([i0, i1], -1), np.stack([mt(1) - lam, lam], -1).astype(mt)


_UP_NODES = tuple(f'UpsampleNearest{n}DBackward0' for n in (1, 2, 3)) + \
    tuple(f'UpsampleNearestExact{n}DBackward0' for n in (1, 2, 3)) + \
    ('UpsampleLinear1DBackward0', 'UpsampleBilinear2DBackward0', 'UpsampleTrilinear3DBackward0',
     'UpsampleBicubic2DBackward0', 'UpsampleBilinear2DAaBackward0', 'UpsampleBicubic2DAaBackward0')


@_per_node('_upsample', _UP_NODES, static=('mode', 'output_size', 'scales', 'align_corners'))
def _upsample(input, mode, output_size, scales, align_corners):
    n = len(output_size)
    kernel = {'nearest': 'upsample_nearest', 'nearest-exact': '_upsample_nearest_exact', 'linear': 'upsample_linear',
              'cubic': 'upsample_bicubic', 'linear_aa': '_upsample_bilinear', 'cubic_aa': '_upsample_bicubic'}[mode] \
        + f'{n}d' + ('_aa' if mode.endswith('_aa') else '')
    if not (jnp.issubdtype(input.dtype, jnp.floating) or (mode.startswith('nearest') and input.dtype == jnp.uint8)):
        raise NotImplementedError(f"\"{kernel}_channels_last\" not implemented for '{sname(input)}'")
    sp = input.shape[2:]
    if any(s <= 0 for s in sp) or any(o <= 0 for o in output_size):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({_hw(sp)}) output "
                           f"({_hw(output_size)})")
    mt = _opmath(input.dtype)
    x = input if mode.startswith('nearest') else input.astype(mt)
    for k, (i, o) in enumerate(zip(sp, output_size)):
        ax = 2 + k
        idx, w = _table(mode, i, o, align_corners, scales[k], mt)
        g = _take(x, ax, idx)
        if w is None:
            x = jnp.squeeze(g, ax + 1)
        else:
            x = jnp.sum(g * jnp.asarray(w).reshape((o, -1) + (1,) * (x.ndim - ax - 1)), axis=ax + 1)
    return x.astype(input.dtype)


def _hw(s):
    return ', '.join(f'{a}: {v}' for a, v in zip(('D', 'H', 'W')[3 - len(s):], s))


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) or \
        (isinstance(v, dispatch.Tensor) and not v.dtype.is_floating_point)


@public('interpolate', namespace='nn.functional')
def interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None,
                antialias=False):
    if mode in ('nearest', 'area', 'nearest-exact'):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_int(v) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            output_size = [int(v) for v in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == 'area' and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scales[i]) for i in range(dim)]
        scales = None
    if antialias and not (mode in ('bilinear', 'bicubic', 'lanczos') and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode == 'lanczos':
        raise NotImplementedError("torchlike: interpolate(mode='lanczos') is not implemented")
    ok = {'nearest': (1, 2, 3), 'nearest-exact': (1, 2, 3), 'area': (1, 2, 3), 'linear': (1,), 'bilinear': (2,),
          'trilinear': (3,), 'bicubic': (2,)}
    if mode in ok and dim in ok[mode]:
        if output_size is None:      # ATen's compute_output_size: floor(input_size * scale) in double
            output_size = [int(math.floor(input.shape[i + 2] * scales[i])) for i in range(dim)]
        if mode == 'area':
            return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, output_size)
        return _upsample_call(input, mode, tuple(output_size), scales, bool(align_corners), antialias)
    need = {'linear': 3, 'bilinear': 4, 'trilinear': 5}
    if mode in need and input.ndim in (3, 4, 5):
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need[mode]}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: nearest | linear "
        f"| bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")


def _upsample_call(input, mode, output_size, scales, align_corners, antialias=False):
    n = len(output_size)
    if antialias:       # interpolate allows it for bilinear/bicubic on 4-D input only
        node = 'UpsampleBicubic2DAaBackward0' if mode == 'bicubic' else 'UpsampleBilinear2DAaBackward0'
        kmode, ac = ('cubic_aa' if mode == 'bicubic' else 'linear_aa'), align_corners
    elif mode in ('nearest', 'nearest-exact'):
        node = f"UpsampleNearest{'Exact' if mode == 'nearest-exact' else ''}{n}DBackward0"
        kmode, ac = mode, False
    elif mode == 'bicubic':
        node, kmode, ac = 'UpsampleBicubic2DBackward0', 'cubic', align_corners
    else:
        node = {1: 'UpsampleLinear1DBackward0', 2: 'UpsampleBilinear2DBackward0', 3: 'UpsampleTrilinear3DBackward0'}[n]
        kmode, ac = 'linear', align_corners
    sc = tuple(scales) if scales is not None else (None,) * n
    return dispatch.apply(_upsample[node], (input,), (kmode, output_size, sc, ac))


@public('upsample', namespace='nn.functional')
def upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@public('upsample_nearest', namespace='nn.functional')
def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode='nearest')


@public('upsample_bilinear', namespace='nn.functional')
def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)


# ---- grid_sample / affine_grid ---------------------------------------------------------------------------

def _clip(c, size):
    # torch's clip_coordinates(_set_grad): the gradient is 0 at and beyond the limits (jnp.clip would give 1/2)
    hi = size - 1
    return jnp.where(c <= 0, jnp.zeros_like(c), jnp.where(c >= hi, jnp.full_like(c, hi), c))


def _reflect(c, twice_low, twice_high):
    if twice_low == twice_high:
        return jnp.zeros_like(c)
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = jnp.abs(c - mn)
    extra = jnp.fmod(c, span)
    flips = jnp.floor(c / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + mn, span - extra + mn)


def _coords(c, size, padding_mode, align_corners):
    """ATen's compute_coordinates (padding applied to an unnormalised coordinate)."""
    if padding_mode == 1:
        return _clip(c, size)
    if padding_mode == 2:
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        return _clip(c, size)
    return c


def _unnormalize(c, size, align_corners):
    return (c + 1) / 2 * (size - 1) if align_corners else ((c + 1) * size - 1) / 2


def _gather_nd(x, idxs, sizes):
    """x (N, C, *sizes) at integer coords idxs (each (N, *out)), out-of-bounds -> 0: (N, C, *out)."""
    valid = None
    flat = jnp.zeros_like(idxs[0])
    for ix, s in zip(idxs, sizes):
        v = (ix >= 0) & (ix < s)
        valid = v if valid is None else valid & v
        flat = flat * s + jnp.clip(ix, 0, s - 1)
    nb, c = x.shape[:2]
    xf = x.reshape(nb, c, -1)
    out_shape = flat.shape[1:]
    g = jnp.take_along_axis(xf, flat.reshape(nb, 1, -1), axis=2).reshape((nb, c) + out_shape)
    return jnp.where(valid[:, None], g, jnp.zeros((), x.dtype))


_GS_NODES = ('GridSampler2DBackward0', 'GridSampler3DBackward0')


@_per_node('_grid_sampler', _GS_NODES, static=('interpolation_mode', 'padding_mode', 'align_corners'))
def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    n = input.ndim - 2
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{_tn(input)} and grid has {_tn(grid)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_lst(input.shape)} and grid with sizes {_lst(grid.shape)}")
    if grid.shape[-1] != n:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {n} in last dimension, but got grid with "
                           f"sizes {_lst(grid.shape)}")
    if any(s == 0 for s in input.shape[2:]):
        raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                           f"sizes {_lst(input.shape)} with dimension 2 being empty")
    if interpolation_mode == 2 and n != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise NotImplementedError(f"\"grid_sampler_{n}d_cpu\" not implemented for '{sname(input)}'")
    sizes = input.shape[2:]
    # grid's last dim is (x, y[, z]) = (W, H[, D]): reverse to the input's dim order
    cs = [_unnormalize(grid[..., n - 1 - k], sizes[k], align_corners) for k in range(n)]
    if interpolation_mode == 2:
        return _bicubic(input, cs, sizes, padding_mode, align_corners)
    cs = [_coords(c, s, padding_mode, align_corners) for c, s in zip(cs, sizes)]
    if interpolation_mode == 1:
        return _gather_nd(input, [jnp.round(c).astype(jnp.int64) for c in cs], sizes)
    lo = [jnp.floor(c) for c in cs]
    out = None
    for corner in range(2 ** n):
        bits = [(corner >> (n - 1 - k)) & 1 for k in range(n)]
        w = None
        idx = []
        for k in range(n):
            f = lo[k] + bits[k]
            wk = (cs[k] - lo[k]) if bits[k] else (lo[k] + 1 - cs[k])
            w = wk if w is None else w * wk
            idx.append(f.astype(jnp.int64))
        term = _gather_nd(input, idx, sizes) * w[:, None].astype(input.dtype)
        out = term if out is None else out + term
    return out


def _bicubic(x, cs, sizes, padding_mode, align_corners):
    (iy, ix), (h, w) = cs, sizes
    fy, fx = jnp.floor(iy), jnp.floor(ix)
    ty, tx = iy - fy, ix - fx
    A = -0.75

    def coeffs(t):
        c1 = lambda v: ((A + 2) * v - (A + 3)) * v * v + 1
        c2 = lambda v: ((A * v - 5 * A) * v + 8 * A) * v - 4 * A
        return (c2(t + 1), c1(t), c1(1 - t), c2(2 - t))
    wy, wx = coeffs(ty), coeffs(tx)
    out = None
    for a in range(4):
        yy = _coords(fy - 1 + a, h, padding_mode, align_corners)
        for b in range(4):
            xx = _coords(fx - 1 + b, w, padding_mode, align_corners)
            # ATen's get_value_bounded truncates the (padded) coordinate toward zero
            v = _gather_nd(x, [jnp.trunc(yy).astype(jnp.int64), jnp.trunc(xx).astype(jnp.int64)], sizes)
            term = v * (wy[a] * wx[b])[:, None]
            out = term if out is None else out + term
    return out


def _tn(x):
    return {'float32': 'float', 'float64': 'double'}.get(str(x.dtype), str(x.dtype))


def _grid_sampler_call(input, grid, interpolation_mode, padding_mode, align_corners, n=None):
    n = input.ndim - 2 if n is None else n
    if input.ndim not in (4, 5) or input.ndim != grid.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {_lst(input.shape)} and grid with sizes {_lst(grid.shape)}")
    return dispatch.apply(_grid_sampler[_GS_NODES[n - 2]], (input, grid),
                          (int(interpolation_mode), int(padding_mode), bool(align_corners)))


@public('grid_sampler')
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler_call(input, grid, interpolation_mode, padding_mode, align_corners)


@public('grid_sampler_2d')
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler_call(input, grid, interpolation_mode, padding_mode, align_corners, 2)


@public('grid_sampler_3d')
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sampler_call(input, grid, interpolation_mode, padding_mode, align_corners, 3)


_GS_MODES = {'bilinear': 0, 'nearest': 1, 'bicubic': 2}
_GS_PADS = {'zeros': 0, 'border': 1, 'reflection': 2}


@public('grid_sample', namespace='nn.functional')
def grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None):
    if mode not in _GS_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _GS_PADS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    return _grid_sampler_call(input, grid, _GS_MODES[mode], _GS_PADS[padding_mode], align_corners)


def _base_coords(steps, align_corners, dt):
    if steps <= 1:
        return np.zeros((steps,), dt)
    r = np.linspace(-1, 1, steps).astype(dt)
    return r if align_corners else (r * (steps - 1) / steps).astype(dt)


@op('affine_grid_generator', static=('size', 'align_corners'), method=False, out=False,
    node='AffineGridGeneratorBackward0')
def affine_grid_generator(theta, size, align_corners):
    n = len(size) - 2
    dt = np.dtype(theta.dtype)
    sp = size[2:]
    axes = [_base_coords(s, align_corners, dt) for s in reversed(sp)]        # x (W), y (H)[, z (D)]
    mesh = np.meshgrid(*axes[::-1], indexing='ij')                          # each of shape sp
    base = np.stack([m for m in mesh[::-1]] + [np.ones(sp, dt)], axis=-1)  # sp + (n + 1,)
    b = jnp.asarray(base.reshape(-1, n + 1))
    g = jnp.einsum('pk,nik->npi', b, theta, precision=_HI)
    return g.reshape((size[0],) + tuple(sp) + (n,))


@public('affine_grid', namespace='nn.functional')
def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {_size(size)}. Got "
                             f"{_size(theta.shape)}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {_size(size)}. Got "
                             f"{_size(theta.shape)}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {_size(size)}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an issue for standard usage.", stacklevel=2)
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {_size(size)}")
    return affine_grid_generator(theta, size, bool(align_corners))


def _size(s):
    return f"torch.Size({_lst(s)})"


# ---- unfold / fold (im2col / col2im) ----------------------------------------------------------------------

def _blocks(sp, k, d, p, s):
    return tuple((i + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for i, kk, dd, pp, ss in zip(sp, k, d, p, s))


def _im2col(x, k, d, p, s):
    """(N, C, H, W) -> (N, C * kh * kw, L): one strided slice per kernel offset."""
    nb, c, h, w = x.shape
    oh, ow = _blocks((h, w), k, d, p, s)
    xp = jnp.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    cols = []
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            cols.append(lax.slice(xp, (0, 0, r0, c0), (nb, c, r0 + (oh - 1) * s[0] + 1, c0 + (ow - 1) * s[1] + 1),
                                  (1, 1, s[0], s[1])))
    return jnp.stack(cols, axis=2).reshape(nb, c * k[0] * k[1], oh * ow)


def _check_fold_args(k, d, p, s):
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} kernel_width: {k[1]}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} dilation_width: {d[1]}")
    if any(v < 0 for v in p):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")


@op('_im2col', static=('kernel_size', 'dilation', 'padding', 'stride'), node='Im2ColBackward0', function=False,
    method=False, out=False)
def _im2col_op(input, kernel_size, dilation, padding, stride):
    _check_fold_args(kernel_size, dilation, padding, stride)
    if input.ndim not in (3, 4) or any(v == 0 for v in input.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_lst(input.shape)}")
    if not (jnp.issubdtype(input.dtype, jnp.floating) or jnp.issubdtype(input.dtype, jnp.complexfloating)):
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for '{sname(input)}'")
    x = input if input.ndim == 4 else input[None]
    ob = _blocks(x.shape[2:], kernel_size, dilation, padding, stride)
    if any(o < 1 for o in ob):
        raise RuntimeError(f"Given input with spatial size ({x.shape[2]}, {x.shape[3]}), kernel_size="
                           f"({kernel_size[0]}, {kernel_size[1]}), dilation=({dilation[0]}, {dilation[1]}), padding="
                           f"({padding[0]}, {padding[1]}), calculated shape of the array of sliding blocks as "
                           f"({ob[0]}, {ob[1]}), but its components must be at least one.")
    y = _im2col(x, kernel_size, dilation, padding, stride)
    return y if input.ndim == 4 else y[0]


@op('_col2im', static=('output_size', 'kernel_size', 'dilation', 'padding', 'stride'), node='Col2ImBackward0',
    function=False, method=False, out=False)
def _col2im_op(input, output_size, kernel_size, dilation, padding, stride):
    _check_fold_args(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or any(v == 0 for v in input.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_lst(input.shape)}")
    if not (jnp.issubdtype(input.dtype, jnp.floating) or jnp.issubdtype(input.dtype, jnp.complexfloating)):
        raise NotImplementedError(f"\"col2im_out_cpu\" not implemented for '{sname(input)}'")
    kk = kernel_size[0] * kernel_size[1]
    x = input if input.ndim == 3 else input[None]
    if x.shape[1] % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size=({kernel_size[0]}, {kernel_size[1]})")
    ob = _blocks(output_size, kernel_size, dilation, padding, stride)
    if any(o < 1 for o in ob) or ob[0] * ob[1] != x.shape[2]:
        raise RuntimeError(f"Given output_size=({output_size[0]}, {output_size[1]}), kernel_size=({kernel_size[0]}, "
                           f"{kernel_size[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
                           f"{padding[1]}), stride=({stride[0]}, {stride[1]}), expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {ob[0]} * {ob[1]} = {ob[0] * ob[1]}, but "
                           f"got input.size(2)={x.shape[2]}.")
    c = x.shape[1] // kk
    shape = jax.ShapeDtypeStruct((x.shape[0], c) + tuple(output_size), x.dtype)
    # col2im is the adjoint of im2col: summing each column back onto the pixels it was read from
    (y,) = jax.linear_transpose(lambda v: _im2col(v, kernel_size, dilation, padding, stride), shape)(x)
    return y if input.ndim == 3 else y[0]


def _pair(v, name, fname):
    return ntuple(v, 2, name, fname)


@public('unfold', namespace='nn.functional')
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    if input.ndim < 3:      # torch reads input.size(2) before im2col's own check
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got 2)")
    a = [_pair(v, nm, 'im2col') for v, nm in ((kernel_size, 'kernel_size'), (dilation, 'dilation'),
                                              (padding, 'padding'), (stride, 'stride'))]
    return dispatch.apply(_im2col_op, (input,), tuple(a))


@public('fold', namespace='nn.functional')
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    a = [_pair(v, nm, 'col2im') for v, nm in ((output_size, 'output_size'), (kernel_size, 'kernel_size'),
                                              (dilation, 'dilation'), (padding, 'padding'), (stride, 'stride'))]
    return dispatch.apply(_col2im_op, (input,), tuple(a))


# ---- pixel / channel shuffles --------------------------------------------------------------------------

@op('pixel_shuffle', static=('upscale_factor',), method=False, out=False)
def pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    lead = input.shape[:-3]
    x = input.reshape(lead + (c // (r * r), r, r, h, w))
    nl = len(lead)
    x = jnp.transpose(x, tuple(range(nl)) + (nl, nl + 3, nl + 1, nl + 4, nl + 2))
    return x.reshape(lead + (c // (r * r), h * r, w * r))


@op('pixel_unshuffle', static=('downscale_factor',), method=False, out=False)
def pixel_unshuffle(input, downscale_factor):
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    lead = input.shape[:-3]
    nl = len(lead)
    x = input.reshape(lead + (c, h // r, r, w // r, r))
    x = jnp.transpose(x, tuple(range(nl)) + (nl, nl + 2, nl + 4, nl + 1, nl + 3))
    return x.reshape(lead + (c * r * r, h // r, w // r))


def _channel_shuffle(input, groups):
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    x = input.reshape((input.shape[0], groups, c // groups) + input.shape[2:])
    return jnp.swapaxes(x, 1, 2).reshape(input.shape)


@op('channel_shuffle', static=('groups',), method=False, out=False)
def channel_shuffle(input, groups):
    return _channel_shuffle(input, groups)


@op('native_channel_shuffle', static=('groups',), method=False, out=False, node='ChannelShuffleBackward0')
def native_channel_shuffle(input, groups):
    return _channel_shuffle(input, groups)
