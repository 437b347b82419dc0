"""torch.nn.functional normalisation: batch_norm, instance_norm, layer_norm, group_norm, rms_norm,
local_response_norm, normalize.

batch_norm / instance_norm compute the normalised output *and* the updated running statistics in one
program; the op returns them as non-differentiable outputs and the wrapper writes them into the
``running_mean`` / ``running_var`` buffers with ``Tensor._set_value_inplace`` (the in-place write used by
``out=``: views follow, the version counter is bumped, no autograd history), the functional form of
torch's in-place buffer update. ``momentum`` is data, so the cumulative average of
``BatchNorm(momentum=None)`` (momentum = 1 / num_batches_tracked) never recompiles. Half-precision inputs
are normalised in float32, as torch's CPU kernels do.
"""
import math

from .._engine.jaxrt import jnp, lax
from .._engine.registry import op, public
from .nn_activation import NN, call, need_tensor
from . import reduction as _reduction


def _up(x):
    return x.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else x


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * weight.reshape(shape).astype(y.dtype)
    if bias is not None:
        y = y + bias.reshape(shape).astype(y.dtype)
    return y


def _verify_batch_size(size):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {_size_str(size)}")


def _size_str(size):
    return 'torch.Size([' + ', '.join(str(s) for s in size) + '])'


# ---- batch norm -------------------------------------------------------------------------------------

@op('_batch_norm', namespace=NN, function=False, method=False, static=('training', 'track'),
    diff=('input', 'weight', 'bias'), node='NativeBatchNormBackward0', nondiff_outputs=(1, 2))
def _batch_norm(input, weight, bias, running_mean, running_var, momentum, eps, *, training, track):
    x = _up(input)
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, c) + (1,) * (x.ndim - 2)
    if training:
        mean = jnp.mean(x, axis=axes)
        var = jnp.mean(jnp.square(x - mean.reshape(shape)), axis=axes)
    else:
        mean = running_mean.astype(x.dtype)
        var = running_var.astype(x.dtype)
    y = (x - mean.reshape(shape)) * lax.rsqrt(var.reshape(shape) + eps)
    y = _affine(y, weight, bias, shape).astype(input.dtype)
    if not (training and track):
        return y, jnp.zeros((0,), x.dtype), jnp.zeros((0,), x.dtype)
    n = x.size // c
    mean_s = lax.stop_gradient(mean)
    var_u = lax.stop_gradient(var) * (n / max(n - 1, 1)) if n > 1 else jnp.full_like(var, jnp.nan)
    new_rm = ((1 - momentum) * running_mean + momentum * mean_s).astype(running_mean.dtype)
    new_rv = ((1 - momentum) * running_var + momentum * var_u).astype(running_var.dtype)
    return y, new_rm, new_rv


def _write_stats(running_mean, running_var, new_rm, new_rv):
    # _raw, not _value: in lazy mode the new statistics stay pending (reading them would sync mid-forward)
    running_mean._set_value_inplace(new_rm._raw())
    running_var._set_value_inplace(new_rv._raw())


def _check_param(t, c, name):
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


@public('batch_norm', namespace=NN)
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    need_tensor('batch_norm', input)
    if training:
        _verify_batch_size(tuple(input.shape))
    return _batch_norm_impl(input, weight, bias, running_mean, running_var, training, momentum, eps)


def _batch_norm_impl(input, weight, bias, running_mean, running_var, training, momentum, eps):
    c = input.shape[1] if input.ndim > 1 else 0          # torch reads no channels from a 1-D input
    for t, nm in ((weight, 'weight'), (bias, 'bias'), (running_mean, 'running_mean'), (running_var, 'running_var')):
        _check_param(t, c, nm)
    if input.ndim < 2:
        if input.numel() == 0:
            return input.clone()
        raise RuntimeError(f"batch_norm: expected input with at least 2 dimensions, got {input.ndim}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    track = running_mean is not None and running_var is not None
    m = 0.0 if momentum is None else float(momentum)
    y, rm, rv = call(_batch_norm, (input, weight, bias, running_mean, running_var, m, float(eps)),
                     (bool(training), track))
    if training and track:
        _write_stats(running_mean, running_var, rm, rv)
    return y


@public('batch_norm')
def _torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    return _batch_norm_impl(input, weight, bias, running_mean, running_var, training, momentum, eps)


# ---- instance norm ----------------------------------------------------------------------------------

@op('_instance_norm', namespace=NN, function=False, method=False, static=('use_input_stats', 'track'),
    diff=('input', 'weight', 'bias'), node='ViewBackward0', nondiff_outputs=(1, 2))
def _instance_norm(input, weight, bias, running_mean, running_var, momentum, eps, *, use_input_stats, track):
    x = _up(input)
    c = x.shape[1]
    axes = tuple(range(2, x.ndim))
    shape = (1, c) + (1,) * (x.ndim - 2)
    if use_input_stats:
        mean = jnp.mean(x, axis=axes, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    else:
        mean = running_mean.astype(x.dtype).reshape(shape)
        var = running_var.astype(x.dtype).reshape(shape)
    y = (x - mean) * lax.rsqrt(var + eps)
    y = _affine(y, weight, bias, shape).astype(input.dtype)
    if not (use_input_stats and track):
        return y, jnp.zeros((0,), x.dtype), jnp.zeros((0,), x.dtype)
    n = math.prod(x.shape[2:])
    mean_s = lax.stop_gradient(mean).reshape(x.shape[:2])
    var_u = lax.stop_gradient(var).reshape(x.shape[:2]) * (n / max(n - 1, 1))
    # torch runs batch_norm on (1, N*C, ...) with the stats repeated N times, then averages them back over N
    new_rm = jnp.mean((1 - momentum) * running_mean + momentum * mean_s, axis=0).astype(running_mean.dtype)
    new_rv = jnp.mean((1 - momentum) * running_var + momentum * var_u, axis=0).astype(running_var.dtype)
    return y, new_rm, new_rv


@public('instance_norm', namespace=NN)
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    need_tensor('instance_norm', input)
    if use_input_stats:
        size = tuple(input.shape)
        if math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{_size_str(size)}")
    return _instance_norm_impl(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps)


def _instance_norm_impl(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps):
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    c = input.shape[1]
    for t, nm in ((weight, 'weight'), (bias, 'bias'), (running_mean, 'running_mean'), (running_var, 'running_var')):
        _check_param(t, c, nm)
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    track = running_mean is not None and running_var is not None
    y, rm, rv = call(_instance_norm, (input, weight, bias, running_mean, running_var, float(momentum), float(eps)),
                     (bool(use_input_stats), track))
    if use_input_stats and track:
        _write_stats(running_mean, running_var, rm, rv)
    return y


@public('instance_norm')
def _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                         cudnn_enabled=True):
    return _instance_norm_impl(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps)


# ---- layer norm / group norm / rms norm -------------------------------------------------------------

def _norm_shape(fname, input, normalized_shape, weight, bias):
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)
    if len(ns) == 0:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    for t, nm in ((weight, 'weight'), (bias, 'bias')):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(f"Expected {nm} to be of same shape as normalized_shape, but got {nm} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(ns)}")
    if input.ndim < len(ns) or tuple(input.shape[input.ndim - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape [*, "
                           f"{', '.join(str(s) for s in ns)}], but got input of size{list(input.shape)}")
    return ns


@op('_layer_norm', namespace=NN, function=False, method=False, static=('k',), diff=('input', 'weight', 'bias'),
    node='NativeLayerNormBackward0')
def _layer_norm(input, weight, bias, eps, *, k):
    x = _up(input)
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    y = (x - mean) * lax.rsqrt(var + eps)
    if weight is not None:
        y = y * weight.astype(y.dtype)
    if bias is not None:
        y = y + bias.astype(y.dtype)
    return y.astype(input.dtype)


@public('layer_norm', namespace=NN)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    need_tensor('layer_norm', input)
    ns = _norm_shape('layer_norm', input, normalized_shape, weight, bias)
    return call(_layer_norm, (input, weight, bias, float(eps)), (len(ns),))


@public('layer_norm')
def _torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return layer_norm(input, normalized_shape, weight, bias, eps)


@op('_group_norm', namespace=NN, function=False, method=False, static=('num_groups',),
    diff=('input', 'weight', 'bias'), node='NativeGroupNormBackward0')
def _group_norm(input, weight, bias, eps, *, num_groups):
    x = _up(input)
    n, c = x.shape[:2]
    g = x.reshape((n, num_groups, -1))
    mean = jnp.mean(g, axis=2, keepdims=True)
    var = jnp.mean(jnp.square(g - mean), axis=2, keepdims=True)
    y = ((g - mean) * lax.rsqrt(var + eps)).reshape(x.shape)
    y = _affine(y, weight, bias, (1, c) + (1,) * (x.ndim - 2))
    return y.astype(input.dtype)


@public('group_norm', namespace=NN)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    need_tensor('group_norm', input)
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[:2]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    _verify_batch_size([n * c // num_groups, num_groups] + list(input.shape[2:]))
    for t, nm in ((weight, 'weight'), (bias, 'bias')):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {nm} to be a vector of size equal to the number of channels in input, but "
                               f"got {nm} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    return call(_group_norm, (input, weight, bias, float(eps)), (int(num_groups),))


@public('group_norm')
def _torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return group_norm(input, num_groups, weight, bias, eps)


@op('_rms_norm', namespace=NN, function=False, method=False, static=('k',), diff=('input', 'weight'),
    node='MulBackward0')
def _rms_norm(input, weight, eps, *, k):
    x = _up(input)
    axes = tuple(range(x.ndim - k, x.ndim))
    y = x * lax.rsqrt(jnp.mean(x * x, axis=axes, keepdims=True) + eps)
    y = y.astype(input.dtype)
    if weight is not None:
        y = y * weight
    return y


@public('rms_norm', namespace=NN)
def rms_norm(input, normalized_shape, weight=None, eps=None):
    need_tensor('rms_norm', input)
    ns = _norm_shape('rms_norm', input, normalized_shape, weight, None)
    if eps is None:
        eps = float(jnp.finfo(input.dtype.np).eps)
    return call(_rms_norm, (input, weight, float(eps)), (len(ns),))


public('rms_norm')(rms_norm)


# ---- local response norm / normalize ----------------------------------------------------------------

@op('_local_response_norm', namespace=NN, function=False, method=False, static=('size',), diff=('input',),
    promote='float', promote_args=('input',), node='DivBackward0')
def _local_response_norm(input, alpha, beta, k, *, size):
    sq = input * input
    pad = [(0, 0)] * input.ndim
    pad[1] = (size // 2, (size - 1) // 2)
    p = jnp.pad(sq, pad)
    c = input.shape[1]
    win = sum(lax.slice_in_dim(p, i, i + c, axis=1) for i in range(size))
    div = (win / size * alpha + k) ** beta
    return input / div


@public('local_response_norm', namespace=NN)
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    need_tensor('local_response_norm', input)
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    return call(_local_response_norm, (input, alpha, beta, k), (int(size),))


@op('_normalize', namespace=NN, function=False, method=False, static=('p', 'dim'), diff=('input',),
    node='DivBackward0')
def _normalize(input, eps, *, p, dim):
    x, rdt = _reduction._upcast(input)
    n = _reduction._pnorm(jnp.abs(x), p, (dim,) if x.ndim else None, True)
    n = jnp.where(n >= eps, n, jnp.asarray(eps, n.dtype))        # clamp_min: gradient passes where n >= eps
    return (x / n).astype(rdt)


@public('normalize', namespace=NN)
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    need_tensor('normalize', input)
    from ._util import wrap_dim
    d = wrap_dim(dim, input.ndim)
    p = float(p)
    p = p if abs(p) == float('inf') or p != int(p) else int(p)
    return call(_normalize, (input, float(eps)), (p, d), out)

