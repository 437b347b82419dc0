"""Pooling: max_pool (with indices, ceil_mode, dilation), max_unpool, avg_pool (count_include_pad,
divisor_override, ceil_mode), adaptive avg/max pooling and lp_pool, for 1, 2 and 3 spatial dims.

Note [Max-pool gradients]
torch sends a max-pool's gradient to the index it recorded in the forward: the first maximum of each
window in scan order (a NaN wins over numbers, and the last NaN wins). Without ``return_indices`` the
values come from ``lax.reduce_window(max)``, whose VJP (XLA's select-and-scatter with a ``>=`` select)
also picks the first maximum, so the fast path needs no indices. With indices, the indices come from a
two-operand reduce_window that orders (value, flat index) pairs as torch's scan does, and the values are
gathered at those indices, so the gradient goes exactly to them. Adaptive max pooling gathers each
(variable-size) window and gathers the values at the argmax likewise.

Output sizes follow ATen's pooling_output_shape; shape checks raise RuntimeError as pool2d_shape_check does.
"""
import functools
import math

import numpy as np

from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .linalg import sname

_HI = lax.Precision.HIGHEST
_NUM = {1: 'one', 2: 'two', 3: 'three'}


def _lst(v):
    return '[' + ', '.join(str(x) for x in v) + ']'


def _opmath(dt):
    return jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else dt


# ---- argument normalisation (in the public wrappers: static attrs must be hashable) ------------------------

def pool_tuple(v, n, fname, what, allow_none=False):
    """kernel_size / stride / padding / dilation -> n-tuple with torch's message for a wrong length."""
    if isinstance(v, dispatch.Tensor):
        v = v.tolist()
    if allow_none and (v is None or (isinstance(v, (list, tuple)) and len(v) == 0)):
        return None
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return (int(v[0]),) * n
        if len(v) != n:
            if n == 1:
                raise RuntimeError(f"{fname}() {what} must be an int, a list of ints or a tuple of ints of size 1 but "
                                   f"got size {len(v)}")
            must = 'must either be omitted, a single int,' if what == 'stride' else 'must either be a single int,'
            raise RuntimeError(f"{fname}: {what} {must} or a tuple of {_NUM[n]} ints")
        return tuple(int(x) for x in v)
    return (int(v),) * n


def out_size(i, k, p, s, d, ceil):
    """ATen's pooling_output_shape."""
    o = (i + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1
    return o


def _check_input(x, n, fname, allow_empty_batch=True):
    if x.ndim not in (n + 1, n + 2) or any(s == 0 for s in x.shape[1:]) or (x.ndim == n + 1 and x.shape[0] == 0):
        dims = {1: '2D or 3D', 2: '3D or 4D', 3: '4D or 5D'}[n]
        raise RuntimeError(f"Expected {dims} (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"{_lst(x.shape)}" if fname.startswith(('max', 'avg')) else
                           f"{fname}(): Expected {dims} tensor, but got {_lst(x.shape)}")


def _check_pool(x, n, k, s, p, d, ceil, fname, avg=False):
    """pool{n}d_shape_check; returns the output spatial sizes."""
    _check_input(x, n, fname)
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got {_lst(k)}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got {_lst(s)}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got {_lst(d)}")
    if any(pp < 0 for pp in p):
        raise RuntimeError(f"pad must be non-negative, but got pad: {_lst(p)}")
    if any(kk // 2 < pp for kk, pp in zip(k, p)):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={_lst(p)}, "
                           f"kernel_size={_lst(k)} and dilation={_lst(d)}" if not avg else
                           f"pad should be smaller than or equal to half of kernel size, but got padding={_lst(p)}, "
                           f"kernel_size={_lst(k)}")
    sp = x.shape[-n:]
    outs = tuple(out_size(i, kk, pp, ss, dd, ceil) for i, kk, pp, ss, dd in zip(sp, k, p, s, d))
    if any(o < 1 for o in outs):
        lead = x.shape[-n - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(str(v) for v in (lead,) + sp)}). Calculated output size: "
                           f"({'x'.join(str(v) for v in (lead,) + outs)}). Output size is too small")
    return outs


def _window(x, n, k, s, p, d, outs):
    """reduce_window geometry: (window, strides, padding, dilation) over all dims of x."""
    lead = x.ndim - n
    pads = tuple((pp, max(0, (o - 1) * ss + dd * (kk - 1) + 1 - i - pp))
                 for i, kk, pp, ss, dd, o in zip(x.shape[-n:], k, p, s, d, outs))
    return ((1,) * lead + k, (1,) * lead + s, ((0, 0),) * lead + pads, (1,) * lead + d)


def _crop(y, n, outs):
    return y[(Ellipsis,) + tuple(slice(0, o) for o in outs)]


def _lowest(dt):
    if jnp.issubdtype(dt, jnp.floating):
        return -jnp.inf
    return jnp.iinfo(dt).min


def _init(v, dt):
    # a NumPy scalar, not a jax array: lax.reduce_window recognises max/add (and so can differentiate them)
    # only when the init value is a concrete constant
    return np.array(v, dt)


def _flat_iota(shape, n):
    """Each element's flat index within its spatial plane (the last n dims)."""
    sp = shape[-n:]
    idx = jnp.zeros(shape, jnp.int64)
    mult = 1
    for ax in range(n - 1, -1, -1):
        idx = idx + lax.broadcasted_iota(jnp.int64, shape, len(shape) - n + ax) * mult
        mult *= sp[ax]
    return idx


def _pick(a, b):
    # torch's scan keeps the current max unless the candidate is larger or NaN: so the first of equal values
    # and the last NaN win. As a total order on (value, index) pairs this is associative, as reduce_window needs.
    av, ai = a
    bv, bi = b
    an, bn = av != av, bv != bv
    take_b = jnp.where(an, bn & (bi > ai), bn | (bv > av) | ((bv == av) & (bi < ai)))
    return lax.select(take_b, bv, av), lax.select(take_b, bi, ai)


def _gather_plane(x, idx, n):
    """x[..., plane][idx]: values at flat in-plane indices (the gradient goes to exactly those elements)."""
    lead = x.shape[:-n]
    xf = x.reshape(lead + (-1,))
    oshape = idx.shape
    r = jnp.take_along_axis(xf, idx.reshape(lead + (-1,)), axis=-1)
    return r.reshape(oshape)


def _per_rank(name, node, **kw):
    """Register ``fn`` as three ops, ``{name}{n}d`` for n = 1, 2, 3, whose grad_fn names are ``node(n)``
    (torch's 1-d pools are 2-d pools between an unsqueeze and a squeeze: SqueezeBackward1)."""
    def deco(fn):
        return {n: op(f'{name}{n}d', node=node(n), function=False, method=False, out=False, **kw)(fn)
                for n in (1, 2, 3)}
    return deco


# ---- max pooling ---------------------------------------------------------------------------------------------

def _max_node(n):
    return 'SqueezeBackward1' if n == 1 else f'MaxPool{n}DWithIndicesBackward0'


def _check_max_dtype(x, fname):
    if x.dtype == jnp.bool_ or jnp.issubdtype(x.dtype, jnp.complexfloating):
        raise NotImplementedError(f"\"{fname}\" not implemented for '{sname(x)}'")


_POOL_ST = ('n', 'kernel_size', 'stride', 'padding', 'dilation', 'ceil_mode', 'fname')


@_per_rank('_max_pool', _max_node, static=_POOL_ST)
def _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode, fname):
    _check_max_dtype(input, fname)
    if any(d != 1 for d in dilation):     # JAX has no VJP for a dilated max window: take the indexed path
        return _pool_indices(input, n, kernel_size, stride, padding, dilation, ceil_mode, fname)[0]
    outs = _check_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode, fname)
    win, st, pads, dil = _window(input, n, kernel_size, stride, padding, dilation, outs)
    y = lax.reduce_window(input, _init(_lowest(input.dtype), input.dtype), lax.max, win, st, pads,
                          window_dilation=dil)
    return _crop(y, n, outs)


@_per_rank('_max_pool_with_indices', _max_node, static=_POOL_ST)
def _max_pool_with_indices(input, n, kernel_size, stride, padding, dilation, ceil_mode, fname):
    return _pool_indices(input, n, kernel_size, stride, padding, dilation, ceil_mode, fname)


def _pool_indices(input, n, kernel_size, stride, padding, dilation, ceil_mode, fname):
    _check_max_dtype(input, fname)
    outs = _check_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode, fname)
    win, st, pads, dil = _window(input, n, kernel_size, stride, padding, dilation, outs)
    x = lax.stop_gradient(input)
    iota = _flat_iota(x.shape, n)
    big = jnp.iinfo(jnp.int64).max           # padding never wins a tie against a real element
    _, idx = lax.reduce_window((x, iota), (jnp.asarray(_lowest(x.dtype), x.dtype), jnp.asarray(big, jnp.int64)),
                               _pick, win, st, pads, window_dilation=dil)
    idx = _crop(idx, n, outs)
    return _gather_plane(input, idx, n), idx


def _max_pool_args(n, fname, kernel_size, stride, padding, dilation):
    k = pool_tuple(kernel_size, n, fname, 'kernel_size')
    s = pool_tuple(stride, n, fname, 'stride', allow_none=True) or k
    return k, s, pool_tuple(padding, n, fname, 'padding'), pool_tuple(dilation, n, fname, 'dilation')


def _max_pool_fns(n):
    fname = f'max_pool{n}d'

    def torch_level(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        k, s, p, d = _max_pool_args(n, fname, kernel_size, stride, padding, dilation)
        return dispatch.apply(_max_pool[n], (input,), (n, k, s, p, d, bool(ceil_mode), fname))

    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                     return_indices=False):
        k, s, p, d = _max_pool_args(n, fname, kernel_size, stride, padding, dilation)
        return dispatch.apply(_max_pool_with_indices[n], (input,), (n, k, s, p, d, bool(ceil_mode), fname))

    def functional(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        if return_indices:
            return with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
        return torch_level(input, kernel_size, stride, padding, dilation, ceil_mode)

    for f, nm in ((torch_level, fname), (with_indices, fname + '_with_indices'), (functional, fname)):
        f.__name__ = f.__qualname__ = nm
    public(fname)(torch_level)
    public(fname, namespace='nn.functional')(functional)
    public(fname + '_with_indices', namespace='nn.functional')(with_indices)
    if n == 1:
        public(fname + '_with_indices')(with_indices)
    return functional


max_pool1d, max_pool2d, max_pool3d = (_max_pool_fns(n) for n in (1, 2, 3))


# ---- max unpooling -------------------------------------------------------------------------------------------

@_per_rank('_max_unpool', lambda n: f'MaxUnpool{max(n, 2)}DBackward0', static=('n', 'output_size'),
           diff=('input',))
def _max_unpool(input, indices, n, output_size):
    if indices.dtype != jnp.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {sname(indices)}")
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_lst(input.shape)}) but got indices tensor with shape: {_lst(indices.shape)}")
    if input.ndim not in (n + 1, n + 2) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, but got a tensor "
                           f"with {input.ndim} dimensions.")
    lead = input.shape[:-n]
    b = math.prod(lead)
    out = _unpool_scatter(input.reshape(b, -1), indices.reshape(b, -1), math.prod(output_size))
    return out.reshape(lead + tuple(output_size))


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _unpool_scatter(v, i, plane):
    return jnp.zeros((v.shape[0], plane), v.dtype).at[jnp.arange(v.shape[0])[:, None], i].set(v, mode='drop')


def _unpool_fwd(v, i, plane):
    return _unpool_scatter(v, i, plane), i


def _unpool_bwd(plane, i, g):
    # torch: grad_input[k] = grad_output[indices[k]] for every k, duplicates included (a scatter's VJP would
    # give the overwritten duplicates nothing)
    return jnp.take_along_axis(g, jnp.clip(i, 0, plane - 1), axis=1), None


_unpool_scatter.defvjp(_unpool_fwd, _unpool_bwd)


def _unpool_output_size(input, n, kernel_size, stride, padding, output_size):
    sp = tuple(input.shape[-n:])
    default = tuple((i - 1) * s + k - 2 * p for i, k, s, p in zip(sp, kernel_size, stride, padding))
    if output_size is None:
        return default
    if isinstance(output_size, dispatch.Tensor):
        output_size = output_size.tolist()
    output_size = tuple(int(v) for v in output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{list(output_size)}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _max_unpool_fn(n):
    fname = f'max_unpool{n}d'

    def f(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        k = pool_tuple(kernel_size, n, fname, 'kernel_size')
        s = pool_tuple(stride, n, fname, 'stride', allow_none=True) or k
        p = pool_tuple(padding, n, fname, 'padding')
        osz = _unpool_output_size(input, n, k, s, p, output_size)
        return dispatch.apply(_max_unpool[n], (input, indices), (n, osz))
    f.__name__ = f.__qualname__ = fname
    return public(fname, namespace='nn.functional')(f)


max_unpool1d, max_unpool2d, max_unpool3d = (_max_unpool_fn(n) for n in (1, 2, 3))


# ---- average pooling -----------------------------------------------------------------------------------------

def _avg_divisor(sp, k, s, p, outs, count_include_pad):
    """Per output position, the number torch divides the window sum by (ATen's avg_pool kernels)."""
    div = np.ones((), np.int64)
    for i, kk, ss, pp, o in zip(sp, k, s, p, outs):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, i + pp)
        pool = end - start
        cnt = np.minimum(end, i) - np.maximum(start, 0)
        div = np.multiply.outer(div, pool if count_include_pad else cnt)
    return div


@_per_rank('_avg_pool', lambda n: 'SqueezeBackward1' if n == 1 else f'AvgPool{n}DBackward0',
           static=('n', 'kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad', 'divisor_override',
                   'fname'))
def _avg_pool(input, n, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, fname):
    if not (jnp.issubdtype(input.dtype, jnp.floating) or input.dtype == jnp.int64):    # ATen: floats and Long
        raise NotImplementedError(f"\"{fname}\" not implemented for '{sname(input)}'")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    outs = _check_pool(input, n, kernel_size, stride, padding, (1,) * n, ceil_mode, fname, avg=True)
    win, st, pads, _ = _window(input, n, kernel_size, stride, padding, (1,) * n, outs)
    isint = jnp.issubdtype(input.dtype, jnp.integer)
    acc = jnp.int64 if isint else _opmath(input.dtype)
    tot = _crop(lax.reduce_window(input.astype(acc), _init(0, acc), lax.add, win, st, pads), n, outs)
    if divisor_override is not None:
        div = np.asarray(divisor_override, np.int64)
    else:
        div = _avg_divisor(input.shape[-n:], kernel_size, stride, padding, outs, count_include_pad)
    if isint:
        y = lax.div(tot, jnp.asarray(div, jnp.int64) + jnp.zeros_like(tot))      # C++ integer division truncates
    else:
        y = tot / jnp.asarray(div, acc)
    return y.astype(input.dtype)


def _avg_pool_fn(n):
    fname = f'avg_pool{n}d'

    def f(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
          divisor_override=None):
        k = pool_tuple(kernel_size, n, fname, 'kernel_size')
        s = pool_tuple(stride, n, fname, 'stride', allow_none=True) or k
        p = pool_tuple(padding, n, fname, 'padding')
        dov = None if divisor_override is None else int(divisor_override)
        return dispatch.apply(_avg_pool[n], (input,), (n, k, s, p, bool(ceil_mode), bool(count_include_pad), dov,
                                                    fname))
    if n == 1:      # avg_pool1d has no divisor_override
        def f1(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
            return f(input, kernel_size, stride, padding, ceil_mode, count_include_pad)
        f1.__name__ = f1.__qualname__ = fname
        public(fname)(f1)
        return f1
    f.__name__ = f.__qualname__ = fname
    return public(fname, namespace='nn.functional')(f)


avg_pool1d, avg_pool2d, avg_pool3d = (_avg_pool_fn(n) for n in (1, 2, 3))


# ---- adaptive pooling ----------------------------------------------------------------------------------------

def _bounds(i, o):
    """ATen's start_index / end_index of each adaptive window."""
    r = np.arange(o)
    return (r * i) // o, -((-(r + 1) * i) // o)


def adaptive_sizes(input, n, output_size, fname):
    if isinstance(output_size, dispatch.Tensor):
        output_size = output_size.tolist()
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != n:
            raise RuntimeError(f"{fname}: internal error: output_size.size() must be {n}" if n > 1 else
                               f"{fname}() argument 'output_size' should contain one int (got {len(output_size)})")
        sp = tuple(input.shape[-n:])
        return tuple(sp[i] if v is None else int(v) for i, v in enumerate(output_size))
    return (int(output_size),) * n


def _check_adaptive(x, n, outs, fname):
    if x.ndim not in (n + 1, n + 2) or any(s == 0 for s in x.shape[-n:]):
        dims = {1: '2D or 3D', 2: '3D or 4D', 3: '4D or 5D'}[n]
        raise RuntimeError(f"{fname}(): Expected {dims} tensor, but got {_lst(x.shape)}" if n > 1 else
                           f"{fname}() argument 'input' (position 1) must be 2D or 3D, but got {x.ndim}D")
    if any(o < 0 for o in outs):
        raise RuntimeError(f"{fname}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(str(o) for o in outs)}}}")


@_per_rank('_adaptive_avg_pool', lambda n: 'SqueezeBackward1' if n == 1 else f'AdaptiveAvgPool{n}DBackward0',
           static=('n', 'output_size', 'fname'))
def _adaptive_avg_pool(input, n, output_size, fname):
    _check_adaptive(input, n, output_size, fname)
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise NotImplementedError(f"\"{fname}\" not implemented for '{sname(input)}'")
    acc = _opmath(input.dtype)
    x = input.astype(acc)
    div = np.ones((), np.int64)
    for ax, (i, o) in enumerate(zip(input.shape[-n:], output_size)):
        a = x.ndim - n + ax
        st, en = _bounds(i, o)
        div = np.multiply.outer(div, en - st)
        if o and i % o == 0:          # equal windows: a reshape-sum, no matrix
            shp = x.shape[:a] + (o, i // o) + x.shape[a + 1:]
            x = x.reshape(shp).sum(axis=a + 1)
        else:                         # overlapping/uneven windows: a 0/1 window matrix
            m = (np.arange(i)[None, :] >= st[:, None]) & (np.arange(i)[None, :] < en[:, None])
            x = jnp.moveaxis(jnp.tensordot(x, jnp.asarray(m, acc), axes=((a,), (1,)), precision=_HI), -1, a)
    return (x / jnp.asarray(div, acc)).astype(input.dtype)


def _window_indices(sp, outs):
    """For adaptive max: per output position, the flat in-plane indices of its window in torch's scan order
    (row-major), padded by repeating the window's last element, which max ignores -> int64 outs + (K,)."""
    n = len(sp)
    flat = np.zeros(tuple(outs) + (1,), np.int64)
    for ax in range(n):
        i, o = sp[ax], outs[ax]
        st, en = _bounds(i, o)
        kmax = int((en - st).max()) if o else 1
        idx = np.minimum(st[:, None] + np.arange(kmax)[None, :], en[:, None] - 1) * math.prod(sp[ax + 1:])
        shape = [1] * n + [1, kmax]
        shape[ax] = o
        flat = flat[..., :, None] + idx.reshape(shape)
        flat = flat.reshape(flat.shape[:-2] + (-1,))
    return flat


@_per_rank('_adaptive_max_pool', lambda n: 'SqueezeBackward1' if n == 1 else f'AdaptiveMaxPool{n}DBackward0',
           static=('n', 'output_size', 'fname'))
def _adaptive_max_pool(input, n, output_size, fname):
    _check_adaptive(input, n, output_size, fname)
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise NotImplementedError(f"\"{fname}\" not implemented for '{sname(input)}'")
    win = _window_indices(tuple(input.shape[-n:]), output_size)         # outs + (K,)
    lead = input.shape[:-n]
    x = lax.stop_gradient(input).reshape(lead + (-1,))
    patches = jnp.take(x, jnp.asarray(win.reshape(-1)), axis=-1).reshape(lead + win.shape)
    nan = patches != patches
    k = win.shape[-1]
    last_nan = k - 1 - jnp.argmax(jnp.flip(nan, -1), axis=-1)          # torch: the last NaN wins
    pos = jnp.where(nan.any(-1), last_nan, jnp.argmax(patches, axis=-1))
    idx = jnp.take_along_axis(jnp.broadcast_to(jnp.asarray(win), lead + win.shape), pos[..., None], -1)[..., 0]
    return _gather_plane(input, idx, n), idx


def _adaptive_fns(n):
    aname, mname = f'adaptive_avg_pool{n}d', f'adaptive_max_pool{n}d'

    def avg(input, output_size):
        return dispatch.apply(_adaptive_avg_pool[n], (input,), (n, adaptive_sizes(input, n, output_size, aname),
                                                             aname))

    def max_with_indices(input, output_size, return_indices=False):
        return dispatch.apply(_adaptive_max_pool[n], (input,), (n, adaptive_sizes(input, n, output_size, mname),
                                                             mname))

    def max_(input, output_size, return_indices=False):
        r = max_with_indices(input, output_size)
        return r if return_indices else r[0]

    avg.__name__ = avg.__qualname__ = aname
    max_.__name__ = max_.__qualname__ = mname
    max_with_indices.__name__ = max_with_indices.__qualname__ = mname + '_with_indices'
    public(aname, namespace='nn.functional')(avg)
    if n == 1:
        public(aname)(avg)
    public(mname, namespace='nn.functional')(max_)
    public(mname + '_with_indices', namespace='nn.functional')(max_with_indices)
    if n == 1:
        def torch_max(input, output_size):           # torch.adaptive_max_pool1d: always (values, indices)
            return max_with_indices(input, output_size)
        torch_max.__name__ = torch_max.__qualname__ = mname
        public(mname)(torch_max)
    return avg, max_


(adaptive_avg_pool1d, adaptive_max_pool1d), (adaptive_avg_pool2d, adaptive_max_pool2d), \
    (adaptive_avg_pool3d, adaptive_max_pool3d) = (_adaptive_fns(n) for n in (1, 2, 3))


# ---- power-average pooling -----------------------------------------------------------------------------------

@op('_lp_pool', static=('n', 'norm_type', 'kernel_size', 'stride', 'ceil_mode'), node='PowBackward0',
    function=False, method=False, out=False)
def _lp_pool(input, n, norm_type, kernel_size, stride, ceil_mode):
    # torch's composite: avg_pool(x ** p) then (sign(out) * relu(|out|) * prod(kernel)) ** (1 / p)
    fname = f'avg_pool{n}d'
    outs = _check_pool(input, n, kernel_size, stride, (0,) * n, (1,) * n, ceil_mode, fname, avg=True)
    xp = input ** jnp.asarray(norm_type, input.dtype)
    win, st, pads, _ = _window(input, n, kernel_size, stride, (0,) * n, (1,) * n, outs)
    tot = _crop(lax.reduce_window(xp, _init(0, xp.dtype), lax.add, win, st, pads), n, outs)
    div = _avg_divisor(input.shape[-n:], kernel_size, stride, (0,) * n, outs, True)
    out = tot / jnp.asarray(div, xp.dtype)
    a = jnp.abs(out)
    # torch's relu (as torchlike.relu): NaN passes through, and so does its gradient
    out = jnp.sign(out) * jnp.where((a > 0) | jnp.isnan(a), a, 0) * math.prod(kernel_size)
    return out ** jnp.asarray(1.0 / norm_type, input.dtype)


def _lp_fn(n):
    fname = f'lp_pool{n}d'

    def f(input, norm_type, kernel_size, stride=None, ceil_mode=False):
        k = pool_tuple(kernel_size, n, fname, 'kernel_size')
        s = pool_tuple(stride, n, fname, 'stride', allow_none=True) or k
        return dispatch.apply(_lp_pool, (input,), (n, float(norm_type), k, s, bool(ceil_mode)))
    f.__name__ = f.__qualname__ = fname
    return public(fname, namespace='nn.functional')(f)


lp_pool1d, lp_pool2d, lp_pool3d = (_lp_fn(n) for n in (1, 2, 3))
