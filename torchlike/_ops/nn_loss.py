"""torch.nn.functional losses.

Each loss is one registry entry whose body does the elementwise loss *and* its reduction, so a loss is a
single fused program. ``reduction`` is static; the op's grad_fn name is a function of it and matches the
node torch records last (``MseLossBackward0`` for a native loss; ``MeanBackward0`` / ``SumBackward0`` /
the last elementwise node for losses torch composes from other ops, e.g. l1's ``AbsBackward0`` for
'none'). Where torch composes two native ops (cross_entropy = log_softmax + nll_loss) we dispatch both, so
the graph has torch's shape. The legacy ``size_average``/``reduce`` arguments map to a reduction with
torch's deprecation warning. Host-side checks (target dtypes and shapes, class indices out of range,
BCE inputs outside [0, 1]) raise torch's exception types; the value checks cost one small sync, as
torch's own CPU kernels read the values. ctc_loss lives in nn_ctc.py.
"""
import math
import warnings

from .. import _dtype as D
from ._util import inexact
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .._engine.registry import op, public
from .._tensor import Tensor
from .nn_activation import need_tensor, NN, call
from .indexing import _check_range
from .pointwise import _abs, _broadcast_error, not_impl
from . import reduction as _reduction

# ---- reduction arguments ----------------------------------------------------------------------------

def legacy_reduction(size_average, reduce, emit_warning=True):
    """torch.nn._reduction.legacy_get_string."""
    sa = True if size_average is None else size_average
    rd = True if reduce is None else reduce
    ret = 'mean' if (sa and rd) else ('sum' if rd else 'none')
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=3)
    return ret


def _reduction_arg(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    if reduction == 'elementwise_mean':
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        return 'mean'
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(x, reduction):
    if reduction == 'mean':
        return jnp.mean(x)
    if reduction == 'sum':
        return jnp.sum(x)
    return x


def _clamp_min0(x):
    """torch.clamp_min(x, 0): its gradient passes where x >= 0 (jnp.maximum would halve it at 0)."""
    return jnp.where(x >= 0, x, jnp.zeros((), x.dtype))


def _node(none, mean='MeanBackward0', sum='SumBackward0'):
    table = {'none': none, 'mean': mean, 'sum': sum}
    return lambda reduction, **_: table[reduction]


def _size_warning(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _check_bcast(a, b):
    msg = _broadcast_error(tuple(a.shape), tuple(b.shape))
    if msg:
        raise RuntimeError(msg)


def _any(pred_fn, *arrays):
    """One small sync: a host bool computed from arrays."""
    return bool(jax.device_get(pred_fn(*[a._value() if isinstance(a, Tensor) else a for a in arrays])))


# ---- regression losses ------------------------------------------------------------------------------

@op('_l1_loss', namespace=NN, function=False, method=False, static=('reduction',), promote='same',
    node=_node('AbsBackward0'))
def _l1_loss(input, target, *, reduction):
    if reduction == 'mean' and not inexact(input.dtype):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {dispatch._tname(D.from_np(input.dtype))}")
    return _reduce(_abs(input - target), reduction)      # torch's abs gradient: sign(0) = 0


@op('_mse_loss', namespace=NN, function=False, method=False, static=('reduction',), promote='same',
    node='MseLossBackward0')
def _mse_loss(input, target, *, reduction):
    if not inexact(input.dtype):
        not_impl('mse_cpu', input)
    d = input - target
    return _reduce(d * d, reduction)


def _weighted(loss_none, weight, reduction, mean_by_weight):
    if weight.shape != loss_none.shape:
        raise ValueError("Weights and input must have the same size.")
    w = loss_none * weight
    if reduction == 'none':
        return w
    if reduction == 'sum':
        return w.sum()
    return w.sum() / weight.sum() if mean_by_weight else w.mean()


@public('l1_loss', namespace=NN)
def l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _size_warning(input, target)
    reduction = _reduction_arg(size_average, reduce, reduction)
    _check_bcast(input, target)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        return _weighted(call(_l1_loss, (input, target), ('none',)), weight, reduction, True)
    return call(_l1_loss, (input, target), (reduction,))


@public('mse_loss', namespace=NN)
def mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None):
    _size_warning(input, target)
    reduction = _reduction_arg(size_average, reduce, reduction)
    _check_bcast(input, target)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        return _weighted((input - target).pow(2), weight, reduction, True)
    return call(_mse_loss, (input, target), (reduction,))


@op('_smooth_l1_loss', namespace=NN, function=False, method=False, static=('reduction',), promote='same',
    promote_args=('input', 'target'), diff=('input', 'target'), node='SmoothL1LossBackward0')
def _smooth_l1_loss(input, target, beta, *, reduction):
    if input.dtype.kind != 'f':
        not_impl('smooth_l1_cpu', input)
    z = jnp.abs(input - target)
    b = jnp.asarray(beta, input.dtype)
    return _reduce(jnp.where(z < b, 0.5 * z * z / b, z - 0.5 * b), reduction)


@public('smooth_l1_loss', namespace=NN)
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0):
    _size_warning(input, target)
    reduction = _reduction_arg(size_average, reduce, reduction)
    _check_bcast(input, target)
    if beta == 0.0:
        return call(_l1_loss, (input, target), (reduction,))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return call(_smooth_l1_loss, (input, target, beta), (reduction,))


@op('_huber_loss', namespace=NN, function=False, method=False, static=('reduction',), promote='same',
    promote_args=('input', 'target'), diff=('input', 'target'), node='HuberLossBackward0')
def _huber_loss(input, target, delta, *, reduction):
    if input.dtype.kind != 'f':
        not_impl('huber_cpu', input)
    z = jnp.abs(input - target)
    d = jnp.asarray(delta, input.dtype)
    return _reduce(jnp.where(z < d, 0.5 * z * z, d * (z - 0.5 * d)), reduction)


@public('huber_loss', namespace=NN)
def huber_loss(input, target, reduction='mean', delta=1.0, weight=None):
    _size_warning(input, target)
    _check_bcast(input, target)
    if reduction not in ('none', 'mean', 'sum'):
        if weight is not None:
            raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        return _weighted(call(_huber_loss, (input, target, delta), ('none',)), weight, reduction, False)
    return call(_huber_loss, (input, target, delta), (reduction,))


# ---- binary classification --------------------------------------------------------------------------

@op('_binary_cross_entropy', namespace=NN, function=False, method=False, static=('reduction',),
    node='BinaryCrossEntropyBackward0', diff=('input', 'target'))
def _binary_cross_entropy(input, target, weight, *, reduction):
    if input.dtype.kind != 'f':
        not_impl('binary_cross_entropy', input)
    # torch clamps each log at -100 so that 0 * log(0) stays finite
    lo = jnp.asarray(-100, input.dtype)
    l1 = jnp.maximum(jnp.log(input), lo)
    l0 = jnp.maximum(jnp.log1p(-input), lo)
    loss = -(target * l1 + (1 - target) * l0)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@public('binary_cross_entropy', namespace=NN)
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        _check_bcast(target, weight)
        weight = weight.expand(*jnp.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    if input.numel() and input.dtype.is_floating_point and \
            _any(lambda x: jnp.any((x < 0) | (x > 1)), input):
        raise RuntimeError("all elements of input should be between 0 and 1")
    return call(_binary_cross_entropy, (input, target, weight), (reduction,))


@op('_binary_cross_entropy_with_logits', namespace=NN, function=False, method=False, static=('reduction',),
    node='BinaryCrossEntropyWithLogitsBackward0')
def _bce_with_logits(input, target, weight, pos_weight, *, reduction):
    lsig = jax.nn.log_sigmoid(input)
    if pos_weight is not None:
        lw = (pos_weight - 1) * target + 1
        loss = (1 - target) * input - lw * lsig
    else:
        loss = (1 - target) * input - lsig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@public('binary_cross_entropy_with_logits', namespace=NN)
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction='mean',
                                     pos_weight=None):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    for w in (weight, pos_weight):
        if w is not None:
            _check_bcast(input, w)
    return call(_bce_with_logits, (input, target, weight, pos_weight), (reduction,))


@public('binary_cross_entropy_with_logits')
def _torch_bce_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return binary_cross_entropy_with_logits(input, target, weight, reduction=('none', 'mean', 'sum')[reduction],
                                            pos_weight=pos_weight)


@op('_soft_margin_loss', namespace=NN, function=False, method=False, static=('reduction',), promote='same',
    node='SoftMarginLossBackward0')
def _soft_margin_loss(input, target, *, reduction):
    return _reduce(jax.nn.softplus(-target * input), reduction)


@public('soft_margin_loss', namespace=NN)
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    _check_bcast(input, target)
    return call(_soft_margin_loss, (input, target), (reduction,))


@op('_multilabel_soft_margin_loss', namespace=NN, function=False, method=False, static=('reduction',),
    node=_node('DivBackward0'))
def _mlsm_loss(input, target, weight, *, reduction):
    loss = -(target * jax.nn.log_sigmoid(input) + (1 - target) * jax.nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cd = input.ndim - 1
    loss = jnp.sum(loss, axis=cd) / input.shape[cd]
    return _reduce(loss, reduction)


@public('multilabel_soft_margin_loss', namespace=NN)
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    _check_bcast(input, target)
    if weight is not None:
        _check_bcast(input, weight)
    return call(_mlsm_loss, (input, target, weight), (reduction,))


# ---- divergences and likelihoods ------------------------------------------------------------------

@op('_kl_div', namespace=NN, function=False, method=False, static=('reduction', 'log_target'), promote='same',
    node=lambda reduction, log_target: {'mean': 'MeanBackward0', 'sum': 'SumBackward0'}.get(
        reduction, 'MulBackward0' if log_target else 'SubBackward0'))
def _kl_div(input, target, *, reduction, log_target):
    if log_target:
        loss = jnp.exp(target) * (target - input)
    else:
        safe = jnp.where(target == 0, jnp.ones((), target.dtype), target)
        xlogx = jnp.where(target == 0, jnp.zeros((), target.dtype), target * jnp.log(safe))
        xlogx = jnp.where(jnp.isnan(target), target, xlogx)
        loss = xlogx - target * input
    return _reduce(loss, reduction)


@public('kl_div', namespace=NN)
def kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False):
    if size_average is not None or reduce is not None:
        red = legacy_reduction(size_average, reduce)
    else:
        if reduction == 'mean':
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        red = 'sum' if reduction == 'batchmean' else _reduction_arg(None, None, reduction)
    _check_bcast(input, target)
    r = call(_kl_div, (input, target), (red, bool(log_target)))
    if reduction == 'batchmean' and input.ndim != 0:
        r = r / input.shape[0]
    return r


@op('_poisson_nll_loss', namespace=NN, function=False, method=False, static=('log_input', 'full', 'reduction'),
    promote='float', promote_args=('input', 'target'), diff=('input', 'target'),
    node=lambda reduction, full, log_input: {'mean': 'MeanBackward0', 'sum': 'SumBackward0'}.get(
        reduction, 'AddBackward0' if full else 'SubBackward0'))
def _poisson_nll_loss(input, target, eps, *, log_input, full, reduction):
    if log_input:
        loss = jnp.exp(input) - target * input
    else:
        loss = input - target * jnp.log(input + eps)
    if full:
        # as torch: computed everywhere and masked, so target <= 0 gives a NaN target gradient there too
        t = target
        stirling = t * jnp.log(t) - t + 0.5 * jnp.log(2 * math.pi * t)
        loss = loss + jnp.where(target > 1, stirling, jnp.zeros((), stirling.dtype))
    return _reduce(loss, reduction)


@public('poisson_nll_loss', namespace=NN)
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction='mean'):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(reduction + " is not a valid value for reduction")
    _check_bcast(input, target)
    return call(_poisson_nll_loss, (input, target, eps), (bool(log_input), bool(full), reduction))


@op('_gaussian_nll_loss', namespace=NN, function=False, method=False, static=('full', 'reduction'),
    diff=('input', 'target', 'var'),
    node=lambda reduction, full: {'mean': 'MeanBackward0', 'sum': 'SumBackward0'}.get(
        reduction, 'AddBackward0' if full else 'MulBackward0'))
def _gaussian_nll_loss(input, target, var, eps, *, full, reduction):
    # torch clamps a clone of var under no_grad: the value is clamped, the gradient passes straight through
    v = var + lax.stop_gradient(jnp.maximum(var, eps) - var)
    d = input - target
    loss = 0.5 * (jnp.log(v) + d * d / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@public('gaussian_nll_loss', namespace=NN)
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean'):
    from .creation import ones_like
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif _any(lambda v: jnp.any(v < 0), var):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(reduction + " is not valid")
    return call(_gaussian_nll_loss, (input, target, var, eps), (bool(full), reduction))


# ---- nll / cross entropy ----------------------------------------------------------------------------

def _nll_node(reduction, ignore_index, nd):
    if nd <= 2:
        return 'NllLossBackward0'
    if nd == 4 or reduction != 'none':
        return 'NllLoss2DBackward0'
    return 'ViewBackward0'


@op('_nll_loss', namespace=NN, function=False, method=False, static=('reduction', 'ignore_index', 'nd'),
    diff=('input',), saves=('target', 'weight'), node=_nll_node)
def _nll_loss(input, target, weight, *, reduction, ignore_index, nd):
    x, t = (input[None], target[None]) if input.ndim == 1 else (input, target)
    valid = t != ignore_index
    ti = jnp.where(valid, t, 0).astype(jnp.int32)
    picked = jnp.take_along_axis(x, ti[:, None], axis=1)[:, 0]
    w = jnp.ones((), x.dtype) if weight is None else weight.astype(x.dtype)[ti]
    w = jnp.where(valid, w, jnp.zeros((), x.dtype))
    loss = -picked * w
    if reduction == 'none':
        return loss[0] if input.ndim == 1 else loss
    if reduction == 'sum':
        return jnp.sum(loss)
    return jnp.sum(loss) / jnp.sum(jnp.broadcast_to(w, loss.shape))


def _check_nll(input, target, weight, ignore_index, fname='nll_loss'):
    nd = input.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if target.dtype not in (D.int64, D.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {dispatch._tname(target.dtype)}")
    if nd == 1 or nd == 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 2 and target.shape[0] != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({target.shape[0]}).")
        if nd == 1 and target.ndim == 1 and target.shape[0] != 1:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)}, target: {list(target.shape)})")
    else:
        if target.ndim >= 1 and target.shape[0] != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({target.shape[0]}).")
        want = [input.shape[0]] + list(input.shape[2:])
        if list(target.shape) != want:
            raise RuntimeError(f"Expected target size {want}, got {list(target.shape)}")
    c = input.shape[0] if nd == 1 else input.shape[1]
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")
    # a pending target in lazy mode is not checked (see _check_range)
    _check_range(target, 0, c, lambda v: IndexError(f"Target {v} is out of bounds."), ignore_index)


@public('nll_loss', namespace=NN)
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'):
    need_tensor('nll_loss', input)
    need_tensor('nll_loss', target, 'target', 2)
    reduction = _reduction_arg(size_average, reduce, reduction)
    _check_nll(input, target, weight, ignore_index)
    if input.ndim == 1 and target.ndim == 1:
        target = target.reshape(())
    return call(_nll_loss, (input, target, weight), (reduction, int(ignore_index), input.ndim))


@op('_cross_entropy_probs', namespace=NN, function=False, method=False, static=('reduction', 'label_smoothing'),
    diff=('input', 'target'), node=lambda reduction, **_: 'DivBackward1' if reduction == 'mean' else 'NegBackward0')
def _ce_probs(input, target, weight, *, reduction, label_smoothing):
    cd = 0 if input.ndim == 1 else 1
    c = input.shape[cd]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / c
    lsm = jax.nn.log_softmax(input, axis=cd)
    prod = lsm * target
    if weight is not None:
        prod = prod * weight.reshape((c,) + (1,) * (input.ndim - cd - 1))
    if reduction == 'none':
        return -jnp.sum(prod, axis=cd)
    s = -jnp.sum(prod)
    if reduction == 'sum':
        return s
    if input.size == 0:
        return jnp.full((), jnp.nan, s.dtype)
    return s / (input.size // c)


@op('_label_smoothing_term', namespace=NN, function=False, method=False,
    static=('reduction', 'ignore_index', 'label_smoothing'), diff=('lsm',), node='MulBackward0')
def _ls_term(lsm, target, weight, *, reduction, ignore_index, label_smoothing):
    # torch's cross_entropy label-smoothing term: -sum_c w_c * logp_c per sample, masked, reduced, scaled
    cd = 0 if lsm.ndim == 1 else 1
    c = lsm.shape[cd]
    wb = None if weight is None else weight.astype(lsm.dtype).reshape((c,) + (1,) * (lsm.ndim - cd - 1))
    smooth = -jnp.sum(lsm if wb is None else lsm * wb, axis=cd)
    ignore = target == ignore_index
    smooth = jnp.where(ignore, jnp.zeros((), lsm.dtype), smooth)
    if reduction == 'mean':
        if weight is not None:
            ti = jnp.where(ignore, 0, target).astype(jnp.int32)
            den = jnp.sum(jnp.where(ignore, 0, weight.astype(lsm.dtype)[ti]))
        else:
            den = jnp.sum(~ignore).astype(lsm.dtype)
        smooth = jnp.sum(smooth) / den
    elif reduction == 'sum':
        smooth = jnp.sum(smooth)
    return smooth * (label_smoothing / c)


@public('cross_entropy', namespace=NN)
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean',
                  label_smoothing=0.0):
    need_tensor('cross_entropy_loss', input)
    need_tensor('cross_entropy_loss', target, 'target', 2)
    reduction = _reduction_arg(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    cd = 0 if input.ndim == 1 else 1
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if tuple(input.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{dispatch._tname(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if weight is not None and weight.numel() != input.shape[cd]:
            raise RuntimeError(f"weight tensor should be defined either for all {input.shape[cd]} classes or no "
                               f"classes but got weight tensor of shape: {list(weight.shape)}")
        if not input.dtype.is_floating_point:
            not_impl('log_softmax_lastdim_kernel_impl', input.dtype)
        return call(_ce_probs, (input, target, weight), (reduction, float(label_smoothing)))
    lsm = call(_reduction.log_softmax, (input,), (cd, None))
    _check_nll(lsm, target, weight, ignore_index)
    t = target.reshape(()) if (input.ndim == 1 and target.ndim == 1) else target
    nll = call(_nll_loss, (lsm, t, weight), (reduction, int(ignore_index), input.ndim))
    if label_smoothing <= 0:
        return nll
    term = call(_ls_term, (lsm, t, weight), (reduction, int(ignore_index), float(label_smoothing)))
    return nll * (1 - label_smoothing) + term


# ---- margin losses ----------------------------------------------------------------------------------

@op('_margin_ranking_loss', namespace=NN, function=False, method=False, static=('reduction',),
    diff=('input1', 'input2'), promote='float', promote_args=('input1', 'input2', 'target'), node=_node('ClampMinBackward0'))
def _margin_ranking_loss(input1, input2, target, margin, *, reduction):
    return _reduce(_clamp_min0(-target * (input1 - input2) + margin), reduction)


@public('margin_ranking_loss', namespace=NN)
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    _check_bcast(input1, input2)
    _check_bcast(input1, target)
    return call(_margin_ranking_loss, (input1, input2, target, margin), (reduction,))


@op('_hinge_embedding_loss', namespace=NN, function=False, method=False, static=('reduction',),
    diff=('input',), node=_node('AddBackward0'))
def _hinge_embedding_loss(input, target, margin, *, reduction):
    zero = jnp.zeros((), input.dtype)
    m = jnp.where(target != 1, _clamp_min0(margin - input), zero)
    s = jnp.where(target != -1, input, zero)
    return _reduce(m + s, reduction)


@public('hinge_embedding_loss', namespace=NN)
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    _check_bcast(input, target)
    return call(_hinge_embedding_loss, (input, target, margin), (reduction,))


@op('_cosine_embedding_loss', namespace=NN, function=False, method=False, static=('reduction',),
    diff=('input1', 'input2'), promote='float', promote_args=('input1', 'input2'), node=_node('AddBackward0'))
def _cosine_embedding_loss(input1, input2, target, margin, *, reduction):
    d = input1.ndim - 1
    eps = 1e-12
    prod = jnp.sum(input1 * input2, axis=d)
    m1 = jnp.sum(input1 * input1, axis=d) + eps
    m2 = jnp.sum(input2 * input2, axis=d) + eps
    cos = prod / jnp.sqrt(m1 * m2)
    zero = jnp.zeros((), cos.dtype)
    pos = jnp.where(target == 1, 1 - cos, zero)
    neg = jnp.where(target == -1, _clamp_min0(cos - margin), zero)
    return _reduce(pos + neg, reduction)


@public('cosine_embedding_loss', namespace=NN)
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    td = target.ndim
    if td > 1:
        raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and (input1.ndim != 2 or input2.ndim != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if td == 0 and (input1.ndim != 1 or input2.ndim != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    _check_bcast(input1, input2)
    if td == 1:
        _check_bcast(input1[:, 0], target)
    return call(_cosine_embedding_loss, (input1, input2, target, margin), (reduction,))


@op('_multi_margin_loss', namespace=NN, function=False, method=False, static=('p', 'reduction'),
    diff=('input',), node='MultiMarginLossBackward0')
def _multi_margin_loss(input, target, margin, weight, *, p, reduction):
    x = input.reshape((1, -1)) if input.ndim <= 1 else input
    t = target.reshape((-1,)).astype(jnp.int32)
    c = x.shape[1]
    xy = jnp.take_along_axis(x, t[:, None], axis=1)
    z = margin - xy + x
    z = jnp.where(z > 0, z, jnp.zeros((), z.dtype))           # torch's kernel counts only z > 0
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.astype(x.dtype)[t][:, None]
    z = jnp.where(jnp.arange(c)[None, :] == t[:, None], jnp.zeros((), z.dtype), z)
    loss = jnp.sum(z, axis=1) / c
    if reduction == 'none':
        return loss.reshape(target.shape) if input.ndim == 2 else loss.reshape(())
    return _reduce(loss, reduction)


@public('multi_margin_loss', namespace=NN)
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    nd = input.ndim
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    n = input.shape[0] if nd == 2 else 1
    c = input.shape[-1] if nd else 1
    if not (target.ndim <= 1 and target.numel() == n):
        raise RuntimeError(f"inconsistent target size, expected {n} but got {list(target.shape)}")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    if target.numel() and _any(lambda t: jnp.any((t < 0) | (t >= c)), target):
        raise RuntimeError("target out of range")
    return call(_multi_margin_loss, (input, target, margin, weight), (int(p), reduction))


@op('_multilabel_margin_loss', namespace=NN, function=False, method=False, static=('reduction',),
    diff=('input',), node='MultilabelMarginLossBackward0')
def _multilabel_margin_loss(input, target, *, reduction):
    x = input.reshape((1, -1)) if input.ndim <= 1 else input
    t = target.reshape(x.shape).astype(jnp.int32)
    c = x.shape[1]
    # the targets are the entries before the first -1
    active = jnp.cumprod(t >= 0, axis=1).astype(bool)
    ti = jnp.where(active, t, 0)
    is_target = jnp.zeros(x.shape, bool).at[jnp.arange(x.shape[0])[:, None], ti].max(active)
    xt = jnp.take_along_axis(x, ti, axis=1)                              # (N, C): x[y_j]
    z = 1 - (xt[:, :, None] - x[:, None, :])                               # (N, j, k)
    z = jnp.where(z > 0, z, jnp.zeros((), z.dtype))
    z = jnp.where(active[:, :, None] & ~is_target[:, None, :], z, jnp.zeros((), z.dtype))
    loss = jnp.sum(z, axis=(1, 2)) / c
    if reduction == 'none':
        return loss if input.ndim == 2 else loss.reshape(())
    return _reduce(loss, reduction)


@public('multilabel_margin_loss', namespace=NN)
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    nd = input.ndim
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if (nd <= 1 and target.ndim > 1) or (nd == 2 and tuple(target.shape) != tuple(input.shape)) or \
            (nd <= 1 and target.numel() != input.numel()):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    c = input.shape[-1] if nd else 1
    if target.numel() and _any(lambda t: jnp.any((t < -1) | (t >= c)), target):
        raise RuntimeError("multilabel_margin_loss: target out of range")
    return call(_multilabel_margin_loss, (input, target), (reduction,))


# ---- triplet losses ---------------------------------------------------------------------------------

@op('_triplet_margin_loss', namespace=NN, function=False, method=False, static=('p', 'swap', 'reduction'),
    node=_node('ClampMinBackward0'), diff=('anchor', 'positive', 'negative'), promote='float',
    promote_args=('anchor', 'positive', 'negative'))
def _triplet_margin_loss(anchor, positive, negative, margin, eps, *, p, swap, reduction):
    from .nn_misc import pairwise_distance_body
    dpos = pairwise_distance_body(anchor, positive, p, eps, False)
    dneg = pairwise_distance_body(anchor, negative, p, eps, False)
    if swap:
        dneg = jnp.minimum(dneg, pairwise_distance_body(positive, negative, p, eps, False))
    return _reduce(_clamp_min0(margin + dpos - dneg), reduction)


@public('triplet_margin_loss', namespace=NN)
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction='mean'):
    reduction = _reduction_arg(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, nd = anchor.ndim, positive.ndim, negative.ndim
    if not (a == pd and pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs")
    _check_bcast(anchor, positive)
    _check_bcast(anchor, negative)
    return call(_triplet_margin_loss, (anchor, positive, negative, margin, eps),
                          (float(p), bool(swap), reduction))


@public('triplet_margin_with_distance_loss', namespace=NN)
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction='mean'):
    if reduction not in ('mean', 'sum', 'none'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pd, nd = anchor.ndim, positive.ndim, negative.ndim
    if not (a == pd and pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs")
    if distance_function is None:
        from .nn_misc import pairwise_distance
        distance_function = pairwise_distance
    dpos = distance_function(anchor, positive)
    dneg = distance_function(anchor, negative)
    if swap:
        dneg = dneg.minimum(distance_function(positive, negative))
    loss = (margin + dpos - dneg).clamp_min(0)
    if reduction == 'sum':
        return loss.sum()
    if reduction == 'mean':
        return loss.mean()
    return loss


# ---- torch.* forms (reduction as ATen's enum: 0 none, 1 mean, 2 sum) -------------------------------

def _red(e):
    return ('none', 'mean', 'sum')[e]


@public('kl_div')
def _torch_kl_div(input, target, reduction=1, *, log_target=False):
    _check_bcast(input, target)
    return call(_kl_div, (input, target), (_red(reduction), bool(log_target)))
public('margin_ranking_loss')(lambda input1, input2, target, margin=0.0, reduction=1:
                              margin_ranking_loss(input1, input2, target, margin, reduction=_red(reduction)))
public('hinge_embedding_loss')(lambda input, target, margin=1.0, reduction=1:
                               hinge_embedding_loss(input, target, margin, reduction=_red(reduction)))
public('cosine_embedding_loss')(lambda input1, input2, target, margin=0.0, reduction=1:
                                cosine_embedding_loss(input1, input2, target, margin, reduction=_red(reduction)))
public('triplet_margin_loss')(lambda anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=1:
                              triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                                  reduction=_red(reduction)))
public('poisson_nll_loss')(lambda input, target, log_input, full, eps, reduction:
                           poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_red(reduction)))
