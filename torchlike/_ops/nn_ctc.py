"""torch.nn.functional.ctc_loss: the CTC forward (alpha) recursion as a ``lax.scan`` over time in log space,
with torch's gradient formula (see _ctc_core_bwd)."""
import functools

from .. import _dtype as D
from .._engine.jaxrt import jax, jnp, lax
from .._engine.registry import op, public
from .._tensor import Tensor
from .nn_activation import NN, call, need_tensor
from .nn_loss import _node, _reduction_arg, _red


def _lse(*xs):
    """log(sum(exp(xs))) with zero gradient (not NaN) into -inf terms and an all -inf result."""
    m = xs[0]
    for x in xs[1:]:
        m = jnp.maximum(m, x)
    fin = jnp.isfinite(m)
    ms = jnp.where(fin, m, 0)
    s = sum(jnp.exp(x - ms) for x in xs)
    ok = s > 0
    return jnp.where(ok, ms + jnp.log(jnp.where(ok, s, 1)), -jnp.inf)


def _ctc_targets(targets, tl, n, smax, unbatched):
    """(N, smax) padded targets from padded rows or from concatenated 1-D targets."""
    if targets.ndim == 2 or unbatched:
        tg = targets.reshape((n, -1))[:, :smax]
    else:
        # concatenated targets: row n starts at the sum of the previous target lengths
        flat = targets.reshape((-1,))
        starts = jnp.cumsum(tl) - tl
        idx = starts[:, None] + jnp.arange(smax)[None, :]
        tg = flat[jnp.clip(idx, 0, max(flat.shape[0] - 1, 0))] if flat.shape[0] else jnp.zeros((n, smax), flat.dtype)
    tg = tg.astype(jnp.int32)
    if tg.shape[1] < smax:
        tg = jnp.pad(tg, ((0, 0), (0, smax - tg.shape[1])))
    return tg


def _ctc_nll(lp, tg, il, tl, blank, smax):
    """Per-sample negative log likelihood by the CTC forward (alpha) recursion, in log space."""
    T, N, C = lp.shape
    L = 2 * smax + 1
    s = jnp.arange(L)
    lab = jnp.where(s % 2 == 1, tg[:, jnp.clip((s - 1) // 2, 0, max(smax - 1, 0))] if smax else blank, blank)
    lab = jnp.broadcast_to(lab, (N, L)).astype(jnp.int32)
    prev2 = jnp.concatenate([jnp.full((N, 2), -1, jnp.int32), lab[:, :-2]], axis=1)
    skip = (lab != blank) & (lab != prev2) & (s[None, :] >= 2)
    valid_s = s[None, :] < (2 * tl[:, None] + 1)
    ninf = jnp.asarray(-jnp.inf, lp.dtype)
    emit = jnp.take_along_axis(lp, jnp.broadcast_to(lab[None], (T, N, L)), axis=2)     # (T, N, L)
    a0 = jnp.where((s[None, :] == 0) | ((s[None, :] == 1) & (tl[:, None] > 0)), emit[0], ninf)
    a0 = jnp.where(valid_s, a0, ninf)

    def step(a, xs):
        t, e = xs
        a1 = jnp.concatenate([jnp.full((N, 1), ninf), a[:, :-1]], axis=1)
        a2 = jnp.concatenate([jnp.full((N, 2), ninf), a[:, :-2]], axis=1)
        a2 = jnp.where(skip, a2, ninf)
        new = jnp.where(valid_s, _lse(a, a1, a2) + e, ninf)
        return jnp.where((t < il)[:, None], new, a), None

    if T > 1:
        a, _ = lax.scan(step, a0, (jnp.arange(1, T), emit[1:]))
    else:
        a = a0
    last = jnp.take_along_axis(a, (2 * tl)[:, None], axis=1)[:, 0]
    prev = jnp.take_along_axis(a, jnp.maximum(2 * tl - 1, 0)[:, None], axis=1)[:, 0]
    prev = jnp.where(tl > 0, prev, ninf)
    nll = -_lse(last, prev)
    return jnp.where(il == 0, jnp.where(tl == 0, jnp.zeros((), lp.dtype), jnp.inf), nll)


@functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _ctc_core(lp, tg, il, tl, blank, smax):
    return _ctc_nll(lp, tg, il, tl, blank, smax)


def _ctc_core_fwd(lp, tg, il, tl, blank, smax):
    return _ctc_nll(lp, tg, il, tl, blank, smax), (lp, tg, il, tl)


def _ctc_core_bwd(blank, smax, res, g):
    # torch's ctc_loss backward (LossCTC.cpp) returns exp(lp) - exp(log(alpha*beta) + nll - lp): the true
    # derivative plus exp(lp), i.e. the gradient as if a log_softmax preceded it; steps t >= input_length get 0.
    lp, tg, il, tl = res
    _, pull = jax.vjp(lambda x: _ctc_nll(x, tg, il, tl, blank, smax), lp)
    true, = pull(g)
    live = (jnp.arange(lp.shape[0])[:, None] < il[None, :])[..., None]
    return true + jnp.where(live, jnp.exp(lp) * g[None, :, None], jnp.zeros((), lp.dtype)), None, None, None


_ctc_core.defvjp(_ctc_core_fwd, _ctc_core_bwd)


@op('_ctc_loss', namespace=NN, function=False, method=False, static=('blank', 'reduction', 'zero_infinity', 'smax'),
    diff=('log_probs',), node=_node('CtcLossBackward0'))
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, *, blank, reduction, zero_infinity, smax):
    lp = log_probs if log_probs.ndim == 3 else log_probs[:, None]
    n = lp.shape[1]
    il = input_lengths.reshape((n,)).astype(jnp.int32)
    tl = target_lengths.reshape((n,)).astype(jnp.int32)
    tg = _ctc_targets(targets, tl, n, smax, log_probs.ndim == 2)
    nll = _ctc_core(lp, tg, il, tl, blank, smax)
    if zero_infinity:
        nll = jnp.where(jnp.isinf(nll), jnp.zeros((), nll.dtype), nll)
    if reduction == 'mean':
        return jnp.mean(nll / jnp.maximum(tl, 1).astype(nll.dtype))
    if reduction == 'sum':
        return jnp.sum(nll)
    return nll if log_probs.ndim == 3 else nll[0]


def _lengths(v, name):
    from .creation import tensor
    if isinstance(v, Tensor):
        return v
    return tensor(list(v) if isinstance(v, (list, tuple)) else v, dtype=D.int64)


@public('ctc_loss', namespace=NN)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', zero_infinity=False):
    reduction = _reduction_arg(None, None, reduction)
    need_tensor('ctc_loss', log_probs, 'log_probs')
    need_tensor('ctc_loss', targets, 'targets', 2)
    il = _lengths(input_lengths, 'input_lengths')
    tl = _lengths(target_lengths, 'target_lengths')
    T = log_probs.shape[0]
    C = log_probs.shape[-1]
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    n = log_probs.shape[1] if log_probs.ndim == 3 else 1
    if il.numel() != n:
        raise RuntimeError(f"input_lengths must be of size batch_size")
    if tl.numel() != n:
        raise RuntimeError(f"target_lengths must be of size batch_size")
    ilv = [int(v) for v in il.reshape(-1).tolist()]
    tlv = [int(v) for v in tl.reshape(-1).tolist()]
    for i, v in enumerate(ilv):
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {v} (while checking "
                               f"arguments for ctc_loss_cpu)")
    smax = max(tlv) if tlv else 0
    if targets.ndim == 2 and log_probs.ndim == 3 and targets.shape[1] < smax:
        raise RuntimeError(f"Expected tensor to have size at least {smax} at dimension 1, but got size "
                           f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)")
    return call(_ctc_loss, (log_probs, targets, il, tl), (int(blank), reduction, bool(zero_infinity),
                                                                     smax))


public('ctc_loss')(lambda log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                   zero_infinity=False: ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                                                 _red(reduction), zero_infinity))
