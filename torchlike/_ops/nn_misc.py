"""torch.nn.functional: linear, bilinear, the dropout family, embedding, embedding_bag, one_hot, and the
distances (cosine_similarity, pairwise_distance, pdist) plus channel_shuffle.

Dropout draws its mask inside the compiled program from the default generator's (seed, offset), passed as
data (Note [Randomness is explicit] in random.py); eval mode, p == 0 and empty inputs return ``input``
itself as torch does. Embedding's gradient is a hand-written VJP (padding_idx rows get no gradient,
scale_grad_by_freq divides by the in-batch index counts); ``max_norm`` renormalises the referenced weight
rows in place under no_grad, through the in-place machinery (version counter bump), as torch's
``embedding_renorm_``.
"""
import functools
import math

import numpy as np

from .. import _dtype as D
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .._engine.registry import op, public
from .._engine.state import state
from ._util import wrap_dim
from .indexing import _check_range
from .nn_activation import NN, call, need_tensor, next_key, run
from .pointwise import _variant, _broadcast_error
from . import random as _random
from . import reduction as _reduction
from . import linalg as _linalg

_INF = float('inf')


# ---- linear / bilinear ------------------------------------------------------------------------------

def _linear_node(nd):
    return {2: 'AddmmBackward0', 1: 'ViewBackward0'}.get(nd, 'ViewBackward0')


def _linear_nb_node(nd):
    return {2: 'MmBackward0', 1: 'SqueezeBackward4'}.get(nd, 'UnsafeViewBackward0')


@op('_linear', namespace=NN, function=False, method=False, static=('nd',), node=_linear_node,
    saves={'input': ('weight',), 'weight': ('input',), 'bias': ()})
def _linear(input, weight, bias, *, nd):
    # checked here, not in the front end, so that autocast's casts (a dispatch mode) come first, as in torch
    if input.dtype != weight.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_linalg.sname(input)} and "
                           f"{_linalg.sname(weight)}")
    y = _linalg.linear_acc(input, weight)     # float16/bfloat16 accumulate in float32, as torch's CPU gemm
    return y if bias is None else y + bias


_linear_nb = _variant(_linear, _linear_nb_node, {'input': ('weight',), 'weight': ('input',)})


@public('linear', namespace=NN)
def linear(input, weight, bias=None):
    need_tensor('linear', input)
    need_tensor('linear', weight, 'weight', 2)
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    k = weight.shape[-1]
    if input.shape[-1] != k:
        rows = math.prod(input.shape[:-1]) if input.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
                           f"{_t_shape(weight)})")
    if bias is None:
        return call(_linear_nb, (input, weight, None), (input.ndim,))
    return call(_linear, (input, weight, bias), (input.ndim,))


def _t_shape(weight):
    """The shape of weight.t() as torch prints it in mm's message."""
    if weight.ndim == 1:
        return f"{weight.shape[0]}x1"
    return f"{weight.shape[1]}x{weight.shape[0]}"


@op('_bilinear', namespace=NN, function=False, method=False, node='AddBackward0')
def _bilinear(input1, input2, weight, bias):
    y = jnp.einsum('...i,oij,...j->...o', input1, weight, input2)
    return y if bias is None else y + bias


_bilinear_nb = _variant(_bilinear, 'ViewBackward0', 'inputs')


@public('bilinear', namespace=NN)
def bilinear(input1, input2, weight, bias=None):
    need_tensor('bilinear', input1, 'input1')
    need_tensor('bilinear', input2, 'input2', 2)
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape)} and "
                           f"{list(input2.shape)}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-dimensional, but got {weight.ndim}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected "
                           f"{weight.shape[0]}")
    o = _bilinear_nb if bias is None else _bilinear
    return call(o, (input1, input2, weight, bias))


public('bilinear')(bilinear)


# ---- dropout family ---------------------------------------------------------------------------------

_SELU_ALPHA_PRIME = 1.7580993408473766      # -scale * alpha of SELU: torch's alpha-dropout constant


@op('_dropout_mask', namespace=NN, function=False, method=False, static=('feature',), differentiable=False)
def _dropout_mask(input, p, seed, offset, *, feature):
    shape = input.shape[:2] + (1,) * (input.ndim - 2) if feature else input.shape
    return _random.keep_mask(_random._key(seed, offset), shape, p, input.dtype)


# The mask is an input of the op, not drawn inside it: the backward (the op's VJP) then multiplies by the saved
# mask instead of drawing it again (a draw hashes every element: Note [Unrolled threefry] in random.py).
@op('_dropout', namespace=NN, function=False, method=False, static=('feature', 'mode'), diff=('input',), saves=(),
    node=lambda feature, mode: 'AddBackward0' if mode == 'alpha' else 'MulBackward0')
def _dropout(input, keep, p, *, feature, mode):
    if mode == 'zero':
        return input * jnp.zeros((), input.dtype)
    noise = keep.astype(input.dtype)
    if mode == 'alpha':
        a = 1.0 / jnp.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
        b = (noise - 1) * (_SELU_ALPHA_PRIME * a) + _SELU_ALPHA_PRIME * a * p
        return input * (noise * a).astype(input.dtype) + b.astype(input.dtype)
    return input * (noise / (1 - jnp.asarray(p, input.dtype)))


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(fname, input, p, train, inplace, feature, alpha):
    need_tensor(fname, input)
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    mode = 'zero' if p == 1 else ('alpha' if alpha else 'drop')
    keep = None
    if mode != 'zero':
        s, off = next_key(input, fname)
        keep = call(_dropout_mask, (input, float(p), s, off), (bool(feature),))
    return run(_dropout, _dropout, input, (keep, float(p)), (bool(feature), mode), inplace=inplace)


@public('dropout', namespace=NN)
def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _dropout_impl('dropout', input, p, training, inplace, False, False)


@public('alpha_dropout', namespace=NN)
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl('alpha_dropout', input, p, training, inplace, False, True)


@public('feature_alpha_dropout', namespace=NN)
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl('feature_alpha_dropout', input, p, training, inplace, True, True)


@public('dropout1d', namespace=NN)
def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    nd = input.ndim
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if nd == 3:
        return _dropout_impl('dropout1d', input, p, training, inplace, True, False)
    if inplace:
        input.unsqueeze_(0)
        _dropout_impl('dropout1d', input, p, training, True, True, False)
        return input.squeeze_(0)
    return _dropout_impl('dropout1d', input.unsqueeze(0), p, training, False, True, False).squeeze(0)


def _dropout_nd_warn(name, nd, ok, spatial):
    import warnings
    if nd not in ok:
        warnings.warn(f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in an error "
                      f"in a future release. To retain the behavior and silence this warning, please use dropout "
                      f"instead. Note that {name} exists to provide channel-wise dropout on inputs with {spatial} "
                      f"spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      f"{ok[0]}D or {ok[1]}D inputs).", stacklevel=3)


@public('dropout2d', namespace=NN)
def dropout2d(input, p=0.5, training=True, inplace=False):
    import warnings
    _check_p(p)
    nd = input.ndim
    _dropout_nd_warn('dropout2d', nd, (3, 4), 2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
                      "behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _dropout_impl('dropout2d', input, p, training, inplace, True, False)


@public('dropout3d', namespace=NN)
def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    nd = input.ndim
    _dropout_nd_warn('dropout3d', nd, (4, 5), 3)
    if nd == 4:
        if inplace:
            input.unsqueeze_(0)
            _dropout_impl('dropout3d', input, p, training, True, True, False)
            return input.squeeze_(0)
        return _dropout_impl('dropout3d', input.unsqueeze(0), p, training, False, True, False).squeeze(0)
    return _dropout_impl('dropout3d', input, p, training, inplace, True, False)


def _torch_dropout(fname, feature, alpha, inplace):
    def f(input, p, train):
        return _dropout_impl(fname, input, p, train, inplace, feature, alpha)
    f.__name__ = fname + ('_' if inplace else '')
    public(f.__name__)(f)


for _n, _fe, _al in (('dropout', False, False), ('feature_dropout', True, False), ('alpha_dropout', False, True),
                     ('feature_alpha_dropout', True, True)):
    _torch_dropout(_n, _fe, _al, False)
    _torch_dropout(_n, _fe, _al, True)


# ---- embedding --------------------------------------------------------------------------------------

@functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3))
def _gather_rows(weight, idx, padding_idx, scale_grad_by_freq):
    return weight[idx]


def _gather_rows_fwd(weight, idx, padding_idx, scale_grad_by_freq):
    return weight[idx], (idx, jnp.zeros((weight.shape[0], 0), weight.dtype))


def _gather_rows_bwd(padding_idx, scale_grad_by_freq, res, g):
    idx, like = res
    n = like.shape[0]
    fi = idx.reshape(-1)
    gf = g.reshape((fi.shape[0], -1))
    if scale_grad_by_freq:
        counts = jnp.zeros((n,), gf.dtype).at[fi].add(1)
        gf = gf / counts[fi][:, None]
    if padding_idx is not None and padding_idx >= 0:
        gf = jnp.where((fi == padding_idx)[:, None], jnp.zeros((), gf.dtype), gf)
    dw = jnp.zeros((n, gf.shape[1]), gf.dtype).at[fi].add(gf)
    return dw, None


_gather_rows.defvjp(_gather_rows_fwd, _gather_rows_bwd)


@op('_embedding', namespace=NN, function=False, method=False, static=('padding_idx', 'scale_grad_by_freq'),
    diff=('weight',), saves=('indices',), node='EmbeddingBackward0')
def _embedding(weight, indices, *, padding_idx, scale_grad_by_freq):
    return _gather_rows(weight, indices.astype(jnp.int32) if indices.dtype == jnp.int64 else indices,
                        padding_idx, scale_grad_by_freq)


@op('_embedding_renorm', namespace=NN, function=False, method=False, static=('norm_type',), differentiable=False)
def _embedding_renorm(weight, indices, max_norm, *, norm_type):
    n = weight.shape[0]
    used = jnp.zeros((n,), bool).at[indices.reshape(-1)].set(True)
    norms = _reduction._pnorm_value(jnp.abs(weight.astype(jnp.float32) if weight.dtype in (jnp.float16, jnp.bfloat16)
                                            else weight), norm_type, (1,), False).astype(weight.dtype)
    scale = jnp.where(used & (norms > max_norm), max_norm / (norms + 1e-7), jnp.ones((), weight.dtype))
    return weight * scale[:, None].astype(weight.dtype)


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """torch.embedding_renorm_: scale the referenced rows whose norm exceeds max_norm, in place, no grad."""
    prev = state.grad_enabled
    state.grad_enabled = False
    try:
        return dispatch.apply_inplace(_embedding_renorm, (weight, indices, float(max_norm)), (float(norm_type),))
    finally:
        state.grad_enabled = prev


public('embedding_renorm_')(embedding_renorm_)


def _check_indices(indices, fname):
    if indices.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_legacy_type(indices)} instead (while checking arguments for "
                           f"{fname})")


def _legacy_type(t):
    return 'torch.' + dispatch._tname(t.dtype) + 'Tensor'


def _padding_idx(padding_idx, n):
    if padding_idx is None:
        return None
    if padding_idx > 0:
        assert padding_idx < n, "Padding_idx must be within num_embeddings"
    elif padding_idx < 0:
        assert padding_idx >= -n, "Padding_idx must be within num_embeddings"
        padding_idx = n + padding_idx
    return int(padding_idx)


@public('embedding', namespace=NN)
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    need_tensor('embedding', input)
    need_tensor('embedding', weight, 'weight', 2)
    padding_idx = _padding_idx(padding_idx, weight.shape[0])
    if sparse:
        raise NotImplementedError("torchlike: F.embedding(sparse=True) is not supported (sparse gradients); use "
                                  "sparse=False")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(input, 'embedding')
    _check_range(input, 0, weight.shape[0], lambda v: IndexError("index out of range in self"))
    if max_norm is not None:
        embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    pad = -1 if padding_idx is None else padding_idx
    return call(_embedding, (weight, input), (pad, bool(scale_grad_by_freq)))


@public('embedding')
def _torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if sparse:
        raise NotImplementedError("torchlike: torch.embedding(sparse=True) is not supported (sparse gradients)")
    _check_indices(indices, 'embedding')
    _check_range(indices, 0, weight.shape[0], lambda v: IndexError("index out of range in self"))
    return call(_embedding, (weight, indices), (int(padding_idx), bool(scale_grad_by_freq)))


@op('_embedding_bag', namespace=NN, function=False, method=False,
    static=('mode', 'padding_idx', 'scale_grad_by_freq', 'nbags', 'include_last_offset'),
    diff=('weight', 'per_sample_weights'), node='EmbeddingBagBackward0')
def _embedding_bag(weight, indices, offsets, per_sample_weights, *, mode, padding_idx, scale_grad_by_freq, nbags,
                   include_last_offset):
    idx = indices.reshape(-1)
    n = idx.shape[0]
    seg = jnp.searchsorted(offsets, jnp.arange(n), side='right') - 1
    if include_last_offset:
        seg = jnp.where(seg >= nbags, nbags, seg)             # positions past the last offset are dropped
    keep = idx != padding_idx if padding_idx >= 0 else jnp.ones((n,), bool)
    rows = _gather_rows(weight, idx, padding_idx if padding_idx >= 0 else None, scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1)[:, None].astype(rows.dtype)
    zero = jnp.zeros((), rows.dtype)
    if mode == 'max':
        r = jnp.where(keep[:, None], rows, -jnp.inf)
        out = jax.ops.segment_max(r, seg, num_segments=nbags + 1)[:nbags]
        return jnp.where(jnp.isneginf(out), zero, out)
    rows = jnp.where(keep[:, None], rows, zero)
    out = jax.ops.segment_sum(rows, seg, num_segments=nbags + 1)[:nbags]
    if mode == 'mean':
        cnt = jax.ops.segment_sum(keep.astype(rows.dtype), seg, num_segments=nbags + 1)[:nbags]
        out = out / jnp.maximum(cnt, 1)[:, None]
    return out


@public('embedding_bag', namespace=NN)
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode='mean',
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    from .creation import arange
    need_tensor('embedding_bag', input)
    need_tensor('embedding_bag', weight, 'weight', 2)
    if weight.dtype is D.int64 and input.is_floating_point():
        input, weight = weight, input                           # torch's legacy argument order
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                         f"then it must have the same shape as the input ({tuple(input.shape)})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode == 'sum' or mode == 'mean' or mode == 'max':
        pass
    else:
        raise ValueError(f"mode has to be one of sum, mean or max")
    if mode == 'max' and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == 'max' and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != 'sum':
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if sparse:
        raise NotImplementedError("torchlike: F.embedding_bag(sparse=True) is not supported (sparse gradients); use "
                                  "sparse=False")
    padding_idx = _padding_idx(padding_idx, weight.shape[0])
    _check_indices(input, 'embedding_bag')
    if offsets.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'offsets' to have one of the following scalar types: "
                           f"Long, Int; but got {_legacy_type(offsets)} instead (while checking arguments for "
                           "embedding_bag)")
    _check_range(input, 0, weight.shape[0], lambda v: IndexError("index out of range in self"))
    if offsets.numel():
        first = int(offsets[0].item())
        if first != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {first}")
        last = int(offsets[-1].item())
        if last > input.numel():
            raise RuntimeError(f"offsets[-1] can not be greater than input's length ({input.numel()}), but got "
                               f"offsets[-1] of {last}")
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    nb = offsets.numel() - (1 if include_last_offset else 0)
    pad = -1 if padding_idx is None else padding_idx
    return call(_embedding_bag, (weight, input, offsets, per_sample_weights),
                          (mode, pad, bool(scale_grad_by_freq), max(nb, 0), bool(include_last_offset)))


# ---- one_hot ----------------------------------------------------------------------------------------

@op('_one_hot', namespace=NN, function=False, method=False, static=('num_classes',), differentiable=False)
def _one_hot(tensor, *, num_classes):
    return (tensor[..., None] == jnp.arange(num_classes)).astype(jnp.int64)


@public('one_hot', namespace=NN)
def one_hot(tensor, num_classes=-1):
    need_tensor('one_hot', tensor, 'self')
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        lo, hi = (int(v) for v in jax.device_get(_minmax(tensor._value())))
        if lo < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = hi + 1
        elif hi >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    if num_classes < -1:
        raise RuntimeError("num_classes should be positive")
    return call(_one_hot, (tensor,), (int(num_classes),))


@jax.jit
def _minmax(a):
    return jnp.min(a), jnp.max(a)


# ---- distances --------------------------------------------------------------------------------------

def pairwise_distance_body(x1, x2, p, eps, keepdim):
    """|x1 - x2 + eps|_p over the last dim, with torch's norm gradient (zero at a zero distance)."""
    nd = max(jnp.ndim(x1), jnp.ndim(x2))
    d = x1 - x2 + eps
    if nd == 0:
        return _reduction._pnorm(jnp.abs(d), p, None, False)
    return _reduction._pnorm(jnp.abs(d), p, (nd - 1,), keepdim)


@op('_pairwise_distance', namespace=NN, function=False, method=False, static=('p', 'keepdim'), promote='float',
    promote_args=('x1', 'x2'), diff=('x1', 'x2'), node='NormBackward1')
def _pairwise_distance(x1, x2, eps, *, p, keepdim):
    return pairwise_distance_body(x1, x2, p, eps, keepdim)


@public('pairwise_distance', namespace=NN)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    need_tensor('pairwise_distance', x1, 'x1')
    need_tensor('pairwise_distance', x2, 'x2', 2)
    msg = _broadcast_error(tuple(x1.shape), tuple(x2.shape))
    if msg:
        raise RuntimeError(msg)
    p = float(p)
    p = p if abs(p) == _INF or p != int(p) else int(p)
    return call(_pairwise_distance, (x1, x2, eps), (p, bool(keepdim)))


public('pairwise_distance')(pairwise_distance)


@op('_cosine_similarity', namespace=NN, function=False, method=False, static=('dim',), promote='float',
    promote_args=('x1', 'x2'), diff=('x1', 'x2'), node='SumBackward1')
def _cosine_similarity(x1, x2, eps, *, dim):
    x1, x2 = jnp.broadcast_arrays(x1, x2)
    axes = (dim,) if x1.ndim else None
    n1 = _reduction._pnorm(jnp.abs(x1), 2, axes, True)
    n2 = _reduction._pnorm(jnp.abs(x2), 2, axes, True)
    # torch clamps the norms in place under no_grad: clamped values, unclamped gradient path
    n1 = n1 + lax.stop_gradient(jnp.maximum(n1, eps) - n1)
    n2 = n2 + lax.stop_gradient(jnp.maximum(n2, eps) - n2)
    return jnp.sum((x1 / n1) * (x2 / n2), axis=dim if x1.ndim else None)


@public('cosine_similarity', namespace=NN)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    need_tensor('cosine_similarity', x1, 'x1')
    need_tensor('cosine_similarity', x2, 'x2', 2)
    msg = _broadcast_error(tuple(x1.shape), tuple(x2.shape))
    if msg:
        raise RuntimeError(msg)
    nd = max(x1.ndim, x2.ndim)
    d = wrap_dim(dim, nd)
    return call(_cosine_similarity, (x1, x2, eps), (d,))


public('cosine_similarity')(cosine_similarity)


@op('_pdist', namespace=NN, function=False, method=False, static=('p',), node='PdistBackward0')
def _pdist(input, *, p):
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    d = input[i] - input[j]
    return _reduction._pnorm(jnp.abs(d), p, (1,), False)


@public('pdist', namespace=NN)
def pdist(input, p=2):
    need_tensor('pdist', input)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    p = float(p)
    return call(_pdist, (input,), (p if p == _INF or p != int(p) else int(p),))


public('pdist')(pdist)


# ---- channel_shuffle --------------------------------------------------------------------------------

@op('_channel_shuffle', namespace=NN, function=False, method=False, static=('groups',), saves=(),
    node='ChannelShuffleBackward0')
def _channel_shuffle(input, *, groups):
    n, c = input.shape[:2]
    rest = input.shape[2:]
    x = input.reshape((n, groups, c // groups) + rest)
    return jnp.swapaxes(x, 1, 2).reshape(input.shape)


@public('channel_shuffle')
def channel_shuffle(input, groups):
    need_tensor('channel_shuffle', input)
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return call(_channel_shuffle, (input,), (int(groups),))


public('native_channel_shuffle')(channel_shuffle)
