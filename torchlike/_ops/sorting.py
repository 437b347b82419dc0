"""Sorting and searching: sort, argsort, msort, topk, kthvalue, unique, unique_consecutive, searchsorted,
bucketize, isin, histc, histogram, histogramdd, bincount.

Orderings follow PyTorch's CPU kernels: NaN sorts as the largest value (whatever its sign bit), -0.0 and 0.0
are equal, sorts are stable (a descending sort keeps ties in their original order), and a selected value is
gathered from the input at its index, so gradients flow to exactly the selected element (SortBackward0 /
TopkBackward0 / KthvalueBackward0 scatter the gradient back to the indices).
"""
import builtins
import math
import numbers
import operator

from .. import _dtype as D
from .. import return_types
from .._engine.registry import op, public, method
from .._engine import dispatch
from .._engine.jaxrt import jnp, lax
from ._util import wrap_dim


# ---- shared helpers (also used by statistics.py: median, mode, quantile) -----------------

def stable_argsort(x, axis, descending=False):
    """Stable argsort of ``x`` along ``axis``; NaN is the largest value; -0.0 == 0.0.

    A descending sort keeps equal elements in their original order (torch's stable descending sort):
    sort the reversed array ascending (stable), then reverse the permutation back.
    """
    n = x.shape[axis]
    iota = lax.broadcasted_iota(jnp.int64, x.shape, axis)
    if not descending:
        _, perm = lax.sort((x, iota), dimension=axis, is_stable=True, num_keys=1)
        return perm
    _, perm = lax.sort((jnp.flip(x, axis), iota), dimension=axis, is_stable=True, num_keys=1)
    return (n - 1) - jnp.flip(perm, axis)


def order_key(x, largest):
    """A key whose *descending* total order (lax.top_k's) is torch's order of ``x``: descending if
    ``largest``, else ascending, with NaN the largest value and -0.0 == 0.0.

    Values exactly representable in float32 get a float32 key (XLA's CPU TopK has a fast float32 path);
    others map through their bit pattern to signed integers of the same order (bitwise-not reverses them
    without overflow). With ``lax.top_k`` (ties: lower index first) the key gives a stable partial sort.
    """
    if x.dtype in (jnp.float32, jnp.float16, jnp.bfloat16) or (x.dtype.itemsize <= 2 and not
                                                               jnp.issubdtype(x.dtype, jnp.floating)):
        f = x.astype(jnp.float32)
        isnan = jnp.isnan(f)
        f = jnp.where(f == 0, jnp.zeros((), jnp.float32), f)
        if largest:
            return jnp.where(isnan, jnp.full((), jnp.nan, jnp.float32), f)
        neg_nan = lax.bitcast_convert_type(jnp.asarray(-4194304, jnp.int32), jnp.float32)   # 0xFFC00000
        return jnp.where(isnan, neg_nan, -f)            # -NaN is below -inf in the total order
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.where(jnp.isnan(x), jnp.full((), jnp.nan, x.dtype), jnp.where(x == 0, jnp.zeros((), x.dtype), x))
        bits = x.dtype.itemsize * 8
        it = {16: jnp.int16, 32: jnp.int32, 64: jnp.int64}[bits]
        b = lax.bitcast_convert_type(x, it)
        k = b ^ ((b >> (bits - 1)) & jnp.asarray(jnp.iinfo(it).max, it))
    else:
        k = x
    return k if largest else ~k


def top_k_indices(x, k, axis, largest):
    """int64 indices of the k largest (or smallest) elements along ``axis`` in torch's order, ties by index."""
    key = jnp.moveaxis(order_key(x, largest), axis, -1)
    _, idx = lax.top_k(key, k)
    return jnp.moveaxis(idx.astype(jnp.int64), -1, axis)


def take(x, idx, axis):
    """Gather along ``axis`` (indices known to be in range); its VJP scatters the gradient to ``idx``."""
    return jnp.take_along_axis(x, idx, axis=axis, mode='promise_in_bounds')


def _is_tensor(x):
    return isinstance(x, dispatch.Tensor)


def _check_tensor(x, fname, pname='input', pos=1):
    if not _is_tensor(x):
        raise TypeError(f"{fname}(): argument '{pname}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _as_int(v, fname, pname):
    if isinstance(v, builtins.bool) or _is_tensor(v) and v.dtype._cat != 1:
        raise TypeError(f"{fname}(): argument '{pname}' must be int, not {type(v).__name__}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{pname}' must be int, not {type(v).__name__}") from None


def _no_complex(x, msg, exc=RuntimeError):
    if jnp.iscomplexobj(x):
        raise exc(msg)


def _numpy_kwargs(f, name):
    """torch's argument parser accepts NumPy's spellings ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``."""
    def g(*args, **kwargs):
        if kwargs:
            if 'axis' in kwargs:
                if 'dim' in kwargs:
                    raise TypeError(f"{name}() got multiple values for argument 'dim'")
                kwargs['dim'] = kwargs.pop('axis')
            if 'keepdims' in kwargs:
                if 'keepdim' in kwargs:
                    raise TypeError(f"{name}() got multiple values for argument 'keepdim'")
                kwargs['keepdim'] = kwargs.pop('keepdims')
        return f(*args, **kwargs)
    g.__name__ = g.__qualname__ = getattr(f, '__name__', name)
    g.__doc__ = f.__doc__
    g.__wrapped__ = f
    return g


def accept_numpy_kwargs(names):
    """Wrap the public function and Tensor method of each name with the axis/keepdims aliases."""
    from .._engine.registry import PUBLIC, METHODS
    ns = PUBLIC['torch']
    for n in names:
        if n in ns:
            ns[n] = _numpy_kwargs(ns[n], n)
        if n in METHODS:
            METHODS[n] = _numpy_kwargs(METHODS[n], n)


# ---- sort / argsort / msort ---------------------------------------------------------------

def _sort_impl(input, dim, descending):
    _no_complex(input, " Sort does not support complex dtypes on CPU")
    if input.ndim == 0:
        wrap_dim(dim, 0)
        return input, jnp.zeros((), jnp.int64)
    ax = wrap_dim(dim, input.ndim)
    perm = stable_argsort(input, ax, descending)
    return take(input, perm, ax), perm


@op('_sort', static=('dim', 'descending'), ret=return_types.sort, node='SortBackward0', saves=(),
    function=False, method=False)
def _sort(input, dim=-1, descending=False):
    return _sort_impl(input, dim, descending)


@op('_sort_stable', static=('dim', 'descending'), ret=return_types.sort, node='SortBackward1', saves=(),
    function=False, method=False)
def _sort_stable(input, dim=-1, descending=False):
    return _sort_impl(input, dim, descending)


def _bool_arg(v, fname, pname):
    if not isinstance(v, (builtins.bool, int)) and v is not None:
        raise TypeError(f"{fname}(): argument '{pname}' must be bool, not {type(v).__name__}")
    return builtins.bool(v)


_UNSET = object()


def _sort_args(fname, args, stable, dim, descending):
    """torch's two sort overloads: (dim=-1, descending=False) and (*, stable, dim=-1, descending=False)."""
    if stable is not None and args:
        raise TypeError(f"{fname}() received an invalid combination of arguments - got positional arguments with "
                        f"stable=bool, but expected one of: (*, bool stable, int dim = -1, bool descending = False) "
                        "or (int dim = -1, bool descending = False)")
    if len(args) > 2:
        raise TypeError(f"{fname}() takes from 1 to 3 positional arguments but {len(args) + 1} were given")
    names = ('dim', 'descending')
    vals = {'dim': dim, 'descending': descending}
    for n, a in zip(names, args):
        if vals[n] is not _UNSET:
            raise TypeError(f"{fname}() got multiple values for argument '{n}'")
        vals[n] = a
    dim = -1 if vals['dim'] is _UNSET else _as_int(vals['dim'], fname, 'dim')
    descending = False if vals['descending'] is _UNSET else _bool_arg(vals['descending'], fname, 'descending')
    if stable is not None:
        _bool_arg(stable, fname, 'stable')
    return dim, descending


@public('sort', method=True)
def sort(input, *args, stable=None, dim=_UNSET, descending=_UNSET, out=None):
    """torch.sort(input, dim=-1, descending=False) | torch.sort(input, *, stable, dim=-1, descending=False).

    The sort is always stable, which is also a valid result for stable=False."""
    _check_tensor(input, 'sort')
    st = _sort_args('sort', args, stable, dim, descending)
    return dispatch.apply(_sort if stable is None else _sort_stable, (input,), st, out)


@op('_argsort', static=('dim', 'descending'), differentiable=False, function=False, method=False)
def _argsort(input, dim=-1, descending=False):
    return _sort_impl(input, dim, descending)[1]


@public('argsort', method=True)
def argsort(input, *args, stable=None, dim=_UNSET, descending=_UNSET, out=None):
    """torch.argsort(input, dim=-1, descending=False) | (input, *, stable, dim=-1, descending=False, out=None)."""
    _check_tensor(input, 'argsort')
    if out is not None and stable is None:
        raise TypeError("argsort() received an invalid combination of arguments - got out= without stable=, but "
                        "expected one of: (Tensor input, *, bool stable, int dim = -1, bool descending = False, "
                        "Tensor out = None) or (Tensor input, int dim = -1, bool descending = False)")
    st = _sort_args('argsort', args, stable, dim, descending)
    return dispatch.apply(_argsort, (input,), st, out)


@public('msort', method=True)
def msort(input, *, out=None):
    _check_tensor(input, 'msort')
    r = dispatch.apply(_sort, (input,), (0, False))[0]
    if out is not None:
        out._set_value_inplace(r._value(), resize=True)
        return out
    return r


# ---- topk / kthvalue ----------------------------------------------------------------------

@op('topk', static=('k', 'dim', 'largest', 'sorted'), ret=return_types.topk, saves=())
def topk(input, k, dim=-1, largest=True, sorted=True):
    """torch.topk; the k results are always returned in sorted order (valid for sorted=False too)."""
    if input.dtype == jnp.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    _no_complex(input, "topk does not support complex dtypes on CPU")
    if input.ndim == 0:
        wrap_dim(dim, 0)
        if k not in (0, 1):
            raise RuntimeError("selected index k out of range")
        return input, jnp.zeros((), jnp.int64)
    ax = wrap_dim(dim, input.ndim)
    if not 0 <= k <= input.shape[ax]:
        raise RuntimeError("selected index k out of range")
    perm = top_k_indices(input, k, ax, largest)
    return take(input, perm, ax), perm


@op('kthvalue', static=('k', 'dim', 'keepdim'), ret=return_types.kthvalue)
def kthvalue(input, k, dim=-1, keepdim=False):
    if input.dtype == jnp.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    _no_complex(input, "\"kthvalue_cpu\" not implemented for 'ComplexFloat'", NotImplementedError)
    ax = wrap_dim(dim, input.ndim)
    n = input.shape[ax] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {ax}")
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    perm = lax.slice_in_dim(top_k_indices(input, k, ax, False), k - 1, k, axis=ax)
    vals = take(input, perm, ax)
    if not keepdim:
        vals, perm = jnp.squeeze(vals, ax), jnp.squeeze(perm, ax)
    return vals, perm


# ---- unique / unique_consecutive (data-dependent output shapes: eager) ---------------------

def _unique_impl(input, dim, consecutive):
    """(values, inverse, counts) of the unique elements (dim=None) or unique slices along ``dim``.

    Equality is ``==``: each NaN is its own unique value, as in torch; -0.0 == 0.0.
    """
    if dim is None:
        x = input.ravel()
        rows = x[:, None]
        n = x.shape[0]
        inv_shape = input.shape
    else:
        ax = wrap_dim(dim, input.ndim)
        xm = jnp.moveaxis(input, ax, 0) if input.ndim else input.reshape(1)
        n = xm.shape[0]
        rows = xm.reshape(n, math.prod(xm.shape[1:]))
        inv_shape = (n,)
    if consecutive or n == 0:
        perm = None
        s = rows
    else:
        if rows.shape[1] == 1:
            perm = stable_argsort(rows[:, 0], 0)
        elif rows.shape[1] == 0:
            perm = jnp.arange(n, dtype=jnp.int64)
        else:
            perm = jnp.lexsort([rows[:, j] for j in reversed(range(rows.shape[1]))]).astype(jnp.int64)
        s = rows[perm]
    if n == 0:
        starts = jnp.zeros((0,), jnp.int64)
        group = jnp.zeros((0,), jnp.int64)
    else:
        new = jnp.concatenate([jnp.ones((1,), bool), jnp.any(s[1:] != s[:-1], axis=1)])
        group = jnp.cumsum(new, dtype=jnp.int64) - 1
        starts = jnp.nonzero(new)[0].astype(jnp.int64)
    counts = jnp.diff(jnp.concatenate([starts, jnp.full((1,), n, jnp.int64)]))
    if perm is None:
        inverse = group
    else:
        inverse = jnp.zeros((n,), jnp.int64).at[perm].set(group)
    inverse = inverse.reshape(inv_shape)
    if dim is None:
        values = (s[:, 0] if n else x)[starts]
    else:
        src = xm if perm is None else xm[perm]
        values = src[starts]
        if input.ndim:
            values = jnp.moveaxis(values, 0, ax)
    return values, inverse, counts


@op('_unique', static=('dim',), jit=False, differentiable=False, function=False, method=False)
def _unique(input, *, dim):
    return _unique_impl(input, dim, False)


@op('_unique_consecutive', static=('dim',), jit=False, differentiable=False, function=False, method=False)
def _unique_consecutive(input, *, dim):
    return _unique_impl(input, dim, True)


def _unique_result(res, return_inverse, return_counts):
    values, inverse, counts = res
    if not return_inverse and not return_counts:
        return values
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out


@public('unique', method=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique. Output is always sorted: torch's CPU kernel sorts for sorted=False as well."""
    _check_tensor(input, 'unique')
    if dim is not None:
        dim = _as_int(dim, 'unique', 'dim')
        wrap_dim(dim, input.ndim)
    res = dispatch.apply(_unique, (input,), (dim,))
    return _unique_result(res, return_inverse, return_counts)


@public('unique_consecutive', method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    _check_tensor(input, 'unique_consecutive')
    if dim is not None:
        dim = _as_int(dim, 'unique_consecutive', 'dim')
        wrap_dim(dim, input.ndim)
    res = dispatch.apply(_unique_consecutive, (input,), (dim,))
    return _unique_result(res, return_inverse, return_counts)


# ---- searchsorted / bucketize -------------------------------------------------------------

def _bsearch(seq, v, right):
    """Insertion points of ``v`` in ``seq`` (last axis), with torch's comparisons (NaN sorts last)."""
    n = seq.shape[-1]
    lo = jnp.zeros(v.shape, jnp.int64)
    hi = jnp.full(v.shape, n, jnp.int64)
    if n == 0:
        return lo
    for _ in range(n.bit_length()):
        active = lo < hi
        mid = lo + ((hi - lo) >> 1)
        midc = jnp.minimum(mid, n - 1)
        if seq.ndim == 1:
            mv = seq[midc]
        else:
            mv = take(seq, midc, seq.ndim - 1)
        go = ~(mv > v) if right else ~(mv >= v)
        lo = jnp.where(active & go, mid + 1, lo)
        hi = jnp.where(active & ~go, mid, hi)
    return lo


@op('_searchsorted', static=('right', 'out_int32'), promote='same', promote_args=('sorted_sequence', 'input'),
    differentiable=False, function=False, method=False)
def _searchsorted(sorted_sequence, input, sorter, *, right, out_int32):
    seq = sorted_sequence
    if sorter is not None:
        seq = take(seq, sorter, seq.ndim - 1)
    v = jnp.asarray(input, seq.dtype)
    r = _bsearch(seq, v, right)
    return r.astype(jnp.int32 if out_int32 else jnp.int64)


@public('searchsorted')
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    _check_tensor(sorted_sequence, 'searchsorted', 'sorted_sequence')
    if side is not None:
        if side not in ('left', 'right'):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == 'left':
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == 'right'
    seq = sorted_sequence
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension")
    if _is_tensor(input):
        if seq.ndim > 1 and (input.ndim != seq.ndim or tuple(input.shape[:-1]) != tuple(seq.shape[:-1])):
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                               "dimensions of boundaries tensor and input value tensor must match, but we got "
                               f"boundaries tensor {list(seq.shape)} and input value tensor {list(input.shape)}")
    elif seq.ndim > 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({seq.ndim}) and input value's dim(0) numel(1)")
    if sorter is not None:
        _check_tensor(sorter, 'searchsorted', 'sorter')
        if sorter.dtype is not D.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{sorter.dtype.name}")
        if tuple(sorter.shape) != tuple(seq.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(seq.shape)}and got sorter tensor {list(sorter.shape)}")
    return dispatch.apply(_searchsorted, (seq, input, sorter), (builtins.bool(right), builtins.bool(out_int32)),
                          out)


@public('bucketize')
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    _check_tensor(boundaries, 'bucketize', 'boundaries', 2)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return dispatch.apply(_searchsorted, (boundaries, input, None), (builtins.bool(right), builtins.bool(out_int32)),
                          out)


# ---- isin -------------------------------------------------------------------------------

@op('_isin', static=('invert',), promote='same', differentiable=False, function=False, method=False, out=True)
def _isin(elements, test_elements, *, invert):
    e = jnp.asarray(elements)
    t = jnp.sort(jnp.asarray(test_elements).ravel())
    if t.size == 0:
        found = jnp.zeros(e.shape, jnp.bool_)
    else:
        # binary search in the sorted test set; NaN never matches (NaN != NaN), as in torch
        i = jnp.clip(jnp.searchsorted(t, e), 0, t.size - 1)
        found = t[i] == e
    return ~found if invert else found


@public('isin')
def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    e_t, t_t = _is_tensor(elements), _is_tensor(test_elements)
    if not (e_t or t_t) or not (e_t or isinstance(elements, numbers.Number)) or \
            not (t_t or isinstance(test_elements, numbers.Number)):
        raise TypeError(f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, "
                        f"{type(test_elements).__name__}), but expected one of:\n"
                        " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
                        "bool invert = False, Tensor out = None)\n"
                        " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
                        "Tensor out = None)\n"
                        " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, "
                        "Tensor out = None)\n")
    for v in (elements, test_elements):
        dt = v.dtype if _is_tensor(v) else D.wrapped_scalar_dtype(v)
        if dt is D.bool or dt.is_complex:
            raise RuntimeError(f"Unsupported input type encountered for isin(): {dispatch._tname(dt)}")
    # assume_unique only lets torch pick a faster algorithm; the result is the same
    return dispatch.apply(_isin, (elements, test_elements), (builtins.bool(invert),), out)


# ---- histc / bincount ---------------------------------------------------------------------

@op('_histc', static=('bins',), differentiable=False, function=False, method=False)
def _histc(input, min, max, *, bins):
    x = input.ravel()
    lo = jnp.asarray(min, x.dtype)
    hi = jnp.asarray(max, x.dtype)
    inr = (x >= lo) & (x <= hi)
    pos = ((x - lo) * jnp.asarray(bins, x.dtype) / (hi - lo))
    pos = jnp.where(inr, pos, 0).astype(jnp.int64)      # truncation, as torch's static_cast<int64_t>
    pos = jnp.where(pos == bins, bins - 1, pos)
    pos = jnp.where(inr, pos, bins)                      # out of range -> dropped
    return jnp.zeros((bins,), x.dtype).at[pos].add(jnp.ones((), x.dtype), mode='drop')


def _fmt(v):
    s = repr(float(v))
    return s[:-2] if s.endswith('.0') else s


# ---- histogram / histogramdd ----------------------------------------------------------------
# torch's histogramdd kernel: element e falls in bin i of a dimension when edges[i] <= e < edges[i + 1] (the last
# bin also takes e == edges[-1]); elements outside [edges[0], edges[-1]] (and NaN) are dropped. With integer bin
# counts torch interpolates a position and corrects it against the actual edges, which equals this binary search.

@op('_histogramdd', static=('density',), lists=('bin_edges',), differentiable=False, function=False,
    method=False)
def _histogramdd(input, weight, bin_edges, *, density):
    nd = len(bin_edges)
    x = input.reshape(-1, nd)
    nbs = tuple(e.shape[0] - 1 for e in bin_edges)
    valid = jnp.ones((x.shape[0],), jnp.bool_)
    flat = jnp.zeros((x.shape[0],), jnp.int64)
    for d, e in enumerate(bin_edges):
        v, nb = x[:, d], nbs[d]
        pos = jnp.searchsorted(e, v, side='right') - 1
        pos = jnp.where(v == e[-1], nb - 1, pos)
        valid = valid & (v >= e[0]) & (v <= e[-1])
        flat = flat * nb + jnp.clip(pos, 0, builtins.max(nb - 1, 0))
    total = math.prod(nbs)
    w = jnp.ones(x.shape[:1], x.dtype) if weight is None else weight.reshape(-1)
    hist = jnp.zeros((total,), x.dtype).at[jnp.where(valid, flat, total)].add(w, mode='drop').reshape(nbs)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(bin_edges):
            hist = hist / (e[1:] - e[:-1]).reshape(tuple(-1 if i == d else 1 for i in range(nd)))
    return hist


def _hist_front(input, bins, rng, weight, density, fname):
    """Shared argument handling; returns (hist, [edges]). ``input`` is viewed as (N, D)."""
    from .creation import linspace
    if input.dtype not in (D.float32, D.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{dispatch._tname(input.dtype)}'")
    nd = input.shape[-1]
    if _is_tensor(bins) or (isinstance(bins, (list, tuple)) and bins and _is_tensor(bins[0])):
        edges = [bins] if _is_tensor(bins) else list(bins)
        if len(edges) != nd:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
        for d, e in enumerate(edges):
            if e.ndim != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {e.ndim} "
                                   f"dimensions in the bins tensor for dimension {d}")
            if e.numel() < 2:
                raise RuntimeError(f"torch.{fname}(): bins must be > 0, but got {e.numel() - 1} for dimension {d}")
            if e.dtype is not input.dtype:
                raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                                   f"but got input with dtype {str(input.dtype)[6:]} and bins for dimension {d} "
                                   f"with dtype {str(e.dtype)[6:]}")
    else:
        counts = [_as_int(bins, fname, 'bins')] * nd if not isinstance(bins, (list, tuple)) else \
            [_as_int(b, fname, 'bins') for b in bins]
        if len(counts) != nd:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
        for d, b in enumerate(counts):
            if b <= 0:
                raise RuntimeError(f"torch.{fname}(): bins must be > 0, but got {b} for dimension {d}")
        if rng is not None:
            rng = [float(r) for r in rng]
            if len(rng) != 2 * nd:
                raise RuntimeError(f"torch.histogramdd: for a {nd}-dimensional histogram range should have "
                                   f"{2 * nd} elements, but got {len(rng)}")
            lo, hi = rng[0::2], rng[1::2]
        elif input.numel() > 0:
            from .extrema import aminmax
            mn, mx = aminmax(input.detach().reshape(-1, nd), dim=0)     # a data-dependent range syncs, as in torch
            lo, hi = [float(v) for v in mn.tolist()], [float(v) for v in mx.tolist()]
        else:
            lo, hi = [0.] * nd, [1.] * nd
        edges = []
        for d in builtins.range(nd):
            a, b = lo[d], hi[d]
            if not (math.isfinite(a) and math.isfinite(b)):
                raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_fmt(a)}, {_fmt(b)}] is not finite")
            if a > b:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_fmt(a)} max "
                                   f"{_fmt(b)} for dimension {d}")
            if a == b:          # numpy's widening of an empty range
                a, b = a - 0.5, b + 0.5
            edges.append(linspace(a, b, counts[d] + 1, dtype=input.dtype))
    if weight is not None:
        _check_tensor(weight, fname, 'weight')
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               f"the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({str(input.dtype)[6:]}), and "
                               f"weight({str(weight.dtype)[6:]})")
    hist = dispatch.apply(_histogramdd, (input, weight, edges), (builtins.bool(density),))
    return hist, edges


def _no_out(out, fname):
    if out is not None:
        raise NotImplementedError(f"torch.{fname}(out=...) is not supported by torchlike")


@public('histogram', method=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    _check_tensor(input, 'histogram')
    _no_out(out, 'histogram')
    if _is_tensor(bins) and range is not None:
        raise TypeError("histogram() received an invalid combination of arguments - got (Tensor, Tensor, "
                        "range=tuple), but expected one of:\n"
                        " * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, "
                        "tuple of Tensors out = None)\n"
                        " * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
                        "bool density = False, tuple of Tensors out = None)\n")
    if not _is_tensor(bins):
        bins = _as_int(bins, 'histogram', 'bins')
    x = input.reshape(-1, 1)
    w = None if weight is None else (weight.reshape(-1) if _is_tensor(weight) and
                                     tuple(weight.shape) == tuple(input.shape) else weight)
    if w is not None and _is_tensor(w) and tuple(w.shape) != (x.shape[0],):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           f"input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(x.shape)} and weight with shape {list(w.shape)}")
    hist, edges = _hist_front(x, bins, range, w, density, 'histogram')
    return return_types.histogram((hist, edges[0]))


@public('histogramdd')
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    _check_tensor(input, 'histogramdd')
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    hist, edges = _hist_front(input, bins, range, weight, density, 'histogramdd')
    return return_types.histogramdd((hist, tuple(edges)))


@public('histc', method=True)
def histc(input, bins=100, min=0, max=0, *, out=None):
    _check_tensor(input, 'histc')
    if input.dtype not in (D.float32, D.float64):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{dispatch._tname(input.dtype)}'")
    bins = _as_int(bins, 'histc', 'bins')
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and input.numel() > 0:
        from .extrema import aminmax
        mn, mx = aminmax(input.detach())
        lo, hi = float(mn.item()), float(mx.item())          # a data-dependent range syncs, as in torch
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo != lo or hi != hi or lo in (float('inf'), float('-inf')) or hi in (float('inf'), float('-inf')):
        raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    return dispatch.apply(_histc, (input, lo, hi), (bins,), out)


@op('_bincount', static=('minlength',), jit=False, differentiable=False, function=False, method=False)
def _bincount(input, weights, *, minlength):
    n = input.shape[0]
    if n and int(jnp.min(input)) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    size = builtins.max(int(jnp.max(input)) + 1 if n else 0, minlength)
    if weights is None:
        return jnp.bincount(input, length=size).astype(jnp.int64)
    wdt = weights.dtype if weights.dtype in (jnp.float32, jnp.float64) else jnp.float64
    return jnp.bincount(input, weights.astype(wdt), length=size).astype(wdt)


@public('bincount', method=True)
def bincount(input, weights=None, minlength=0):
    _check_tensor(input, 'bincount')
    minlength = _as_int(minlength, 'bincount', 'minlength')
    if input.dtype._cat != 1:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{dispatch._tname(input.dtype)}'")
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None:
        _check_tensor(weights, 'bincount', 'weights', 2)
        if weights.ndim != 1 or weights.shape[0] != input.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
    return dispatch.apply(_bincount, (input, weights), (minlength,))


accept_numpy_kwargs(('sort', 'argsort', 'topk', 'kthvalue'))
