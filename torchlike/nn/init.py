"""torch.nn.init: in-place initialisers, run under no_grad and honouring ``generator=``.

The samplers are Tensor.uniform_ / normal_ (torchlike/_ops/random.py), so the numbers come from the
generator's JAX stream (see Note [Randomness is explicit]), never from torch's; the distributions,
bounds, fans and gains are torch's. Where torch loops with data-dependent control flow (trunc_normal_'s
rejection sampling, sparse_'s per-column randperm), torchlike draws from the same distribution in one
compiled program instead: trunc_normal_ by inverting the normal CDF over [cdf(a), cdf(b)] (the exact
truncated normal), sparse_ by zeroing the first ``ceil(sparsity * rows)`` rows of an independent random
permutation per column, drawn like torch's from the global generator.
"""
import math
import warnings

import numpy as np

from .._engine.jaxrt import jax, jnp
from .._ops import random as _random
from .._ops import creation as _creation
from ..autograd.grad_mode import no_grad

__all__ = ['calculate_gain', 'uniform_', 'normal_', 'trunc_normal_', 'constant_', 'ones_', 'zeros_', 'eye_',
           'dirac_', 'xavier_uniform_', 'xavier_normal_', 'kaiming_uniform_', 'kaiming_normal_', 'orthogonal_',
           'sparse_', 'uniform', 'normal', 'constant', 'eye', 'dirac', 'xavier_uniform', 'xavier_normal',
           'kaiming_uniform', 'kaiming_normal', 'orthogonal', 'sparse']


def _no_grad_uniform_(tensor, a, b, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _s_trunc_normal(key, shape, dt, lo, hi):
    w = jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else dt
    return jax.random.truncated_normal(key, jnp.asarray(lo, w), jnp.asarray(hi, w), shape, w).astype(dt)


_trunc_normal_fill = _random._fill_op('_trunc_normal_fill', 'NormalBackward0', _s_trunc_normal)


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        # a standard normal truncated to the standardised bounds, then scaled; the clamp only guards rounding
        _random._fill(_trunc_normal_fill, tensor, generator, 'trunc_normal_', (a - mean) / std, (b - mean) / std)
        tensor.mul_(std).add_(mean)
        tensor.clamp_(min=a, max=b)
        return tensor


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (torch's table)."""
    linear_fns = ['linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d']
    if nonlinearity in linear_fns or nonlinearity == 'sigmoid':
        return 1
    elif nonlinearity == 'tanh':
        return 5.0 / 3
    elif nonlinearity == 'relu':
        return math.sqrt(2.0)
    elif nonlinearity == 'leaky_relu':
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    elif nonlinearity == 'selu':
        return 3.0 / 4      # found empirically, https://github.com/pytorch/pytorch/pull/50664
    else:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` from U(a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` from N(mean, std**2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` from N(mean, std**2) truncated to [a, b]."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D ``tensor`` with the identity matrix."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_creation.eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Fill a {3, 4, 5}-D ``tensor`` with the Dirac delta (identity convolution), per group."""
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    g, d = np.meshgrid(np.arange(groups), np.arange(min_dim), indexing='ij')
    rows, cols = (g * out_chans_per_grp + d).reshape(-1), d.reshape(-1)
    with no_grad():
        tensor.zero_()
        if rows.size:
            centre = tuple(_creation.tensor(np.full(rows.shape, s // 2)) for s in sizes[2:])
            tensor[(_creation.tensor(rows), _creation.tensor(cols)) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ['fan_in', 'fan_out']
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == 'fan_in' else fan_out


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def _s_orthogonal(key, shape, dt, gain, _):
    # torch: QR of a (rows, cols) normal matrix (transposed when rows < cols), Q's columns signed by diag(R)
    rows = shape[0]
    cols = math.prod(shape) // rows
    w = jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else dt
    flat = jax.random.normal(key, (rows, cols), w)
    if rows < cols:
        flat = flat.T
    q, r = jnp.linalg.qr(flat)
    q = q * jnp.sign(jnp.diagonal(r))[None, :]
    if rows < cols:
        q = q.T
    return (q * jnp.asarray(gain, w)).reshape(shape).astype(dt)


_orthogonal_fill = _random._fill_op('_orthogonal_fill', 'NormalBackward0', _s_orthogonal, elementwise=False)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` (2-D or more, flattened to rows x cols) with a (semi-)orthogonal matrix times ``gain``."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    with no_grad():
        return _random._fill(_orthogonal_fill, tensor, generator, 'orthogonal_', gain)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D ``tensor`` from N(0, std**2) with ``ceil(sparsity * rows)`` zeros in each column."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if num_zeros > 0 and cols > 0:
            # torch zeroes the first num_zeros entries of torch.randperm(rows) (the global generator) per column;
            # the argsort of iid uniforms is a uniform random permutation, one per column, in one program
            perm = _random.rand(rows, cols, dtype=tensor.dtype if tensor.dtype.is_floating_point else None)
            zero_rows = perm.argsort(dim=0)[:num_zeros]
            tensor.scatter_(0, zero_rows, 0)
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return meth(*args, **kwargs)
    deprecated_init.__doc__ = f"""
    {old_name}(...)

    .. warning::
        This method is now deprecated in favor of :func:`torch.nn.init.{new_name}`.

    See :func:`~torch.nn.init.{new_name}` for details."""
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
