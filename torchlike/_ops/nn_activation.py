"""torch.nn.functional activations: relu family, elu family, gelu, silu, mish, hard*, soft*, shrinks,
threshold, logsigmoid, glu, prelu, rrelu, softmax/log_softmax/softmin with the legacy dim rule, and
gumbel_softmax.

Each activation is one registry entry (a private op in namespace 'nn.functional') plus the public
``F.xxx(input, ..., inplace=False)`` wrapper; ``inplace=True`` goes through ``dispatch.apply_inplace``
(version counter, leaf checks, views), using an op variant with torch's in-place node name where torch
records a different one (``EluBackward1``, ``LeakyReluBackward1``, ...). Python-number hyper-parameters
(slopes, alphas, thresholds) are dynamic data, so changing them never recompiles.

Gradients are the VJPs of the bodies; the bodies are written so that the VJP equals torch's derivative at
the kinks: hardtanh/hardsigmoid/threshold have zero gradient *at* the clamp edges (the edge case takes the
constant branch), hardswish uses torch's piecewise derivative, and the unused branch of softplus/elu is
made finite so ``where`` does not turn an overflow into a NaN gradient.
"""
import warnings

from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from .._engine.registry import op, public
from .._tensor import Tensor
from ._util import wrap_dim, inexact
from .pointwise import _variant, not_impl
from . import random as _random
from . import reduction as _reduction

NN = 'nn.functional'


# ---- helpers shared by the nn_* op files ----------------------------------------------------------

def need_tensor(fname, x, pname='input', pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{pname}' (position {pos}) must be Tensor, not {type(x).__name__}")


def floats_only(kernel, x):
    """torch's NotImplementedError for a kernel without integer/bool support (runs at trace time)."""
    if not inexact(x.dtype):
        not_impl(kernel, x)


def next_key(x, fname):
    """(seed, offset) for one random draw on x's device from the default generator (Note [Randomness is
    explicit] in random.py): the op takes them as dynamic ints."""
    return _random._gen_of(None, x, fname)._next()


_named = {}


def _resolve(o, static):
    """An op whose grad_fn name depends on its static attributes (``node=`` a callable, e.g. of the
    reduction) runs as a variant carrying the resolved name: it shares the op's compiled programs, and
    the autograd engine only ever sees string node names."""
    node = o.node_name
    if type(node) is str:
        return o
    name = node(**dict(zip(o.static_names, static)))
    v = _named.get((o, name))
    if v is None:
        v = _named[(o, name)] = _variant(o, name, o.saves)
    return v


def call(o, dyn, static=(), out=None):
    """dispatch.apply with the grad_fn name resolved (see _resolve)."""
    return dispatch.apply(_resolve(o, static), dyn, static, out)


def run(o, o_inplace, input, dyn=(), static=(), inplace=False):
    """Apply op ``o`` (or its in-place variant ``o_inplace`` on ``input``)."""
    if inplace:
        return dispatch.apply_inplace(_resolve(o_inplace, static), (input,) + tuple(dyn), static)
    return call(o, (input,) + tuple(dyn), static)


def _register(name, fn):
    public(name, namespace=NN)(fn)
    return fn


def _with_inplace_form(name, fn):
    """Register F.name and F.name_ (the in-place form torch.nn.functional also exports)."""
    _register(name, fn)

    def inplace_form(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)
    inplace_form.__name__ = name + '_'
    _register(name + '_', inplace_form)
    return fn


# ---- relu / hardtanh / relu6 / leaky_relu / threshold ---------------------------------------------

def _relu_op():
    from .pointwise import relu
    return relu


def relu(input, inplace=False):
    need_tensor('relu', input)
    return run(_relu_op(), _relu_op(), input, inplace=inplace)


_register('relu', relu)


@public('relu_', namespace=NN)
def relu_(input):
    return relu(input, inplace=True)


@op('_hardtanh', namespace=NN, function=False, method=False, node='HardtanhBackward0', diff=('input',))
def _hardtanh(input, min_val, max_val):
    if input.dtype.kind == 'b':
        raise RuntimeError("Bool inputs not supported for hardtanh")
    lo = jnp.asarray(min_val, input.dtype)
    hi = jnp.asarray(max_val, input.dtype)
    # the edges take the constant branches: torch's gradient is zero at x == min_val / max_val
    return jnp.where(input <= lo, lo, jnp.where(input >= hi, hi, input))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    need_tensor('hardtanh', input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return run(_hardtanh, _hardtanh, input, (min_val, max_val), inplace=inplace)


_with_inplace_form('hardtanh', hardtanh)


def relu6(input, inplace=False):
    need_tensor('relu6', input)
    return run(_hardtanh, _hardtanh, input, (0.0, 6.0), inplace=inplace)


_register('relu6', relu6)


@op('_leaky_relu', namespace=NN, function=False, method=False, node='LeakyReluBackward0', diff=('input',))
def _leaky_relu(input, negative_slope):
    floats_only('leaky_relu_cpu', input)
    return jnp.where(input > 0, input, input * jnp.asarray(negative_slope, input.dtype))


_leaky_relu_ = _variant(_leaky_relu, 'LeakyReluBackward1', 'result')


def leaky_relu(input, negative_slope=0.01, inplace=False):
    need_tensor('leaky_relu', input)
    return run(_leaky_relu, _leaky_relu_, input, (negative_slope,), inplace=inplace)


_with_inplace_form('leaky_relu', leaky_relu)


@op('_threshold', namespace=NN, function=False, method=False, node='ThresholdBackward0', diff=('input',))
def _threshold(input, threshold, value):
    if input.dtype.kind == 'b':
        not_impl('threshold_cpu', input)
    return jnp.where(input <= jnp.asarray(threshold, input.dtype), jnp.asarray(value, input.dtype), input)


_threshold_ = _variant(_threshold, 'ThresholdBackward1', 'result')


def threshold(input, threshold, value, inplace=False):
    need_tensor('threshold', input)
    return run(_threshold, _threshold_, input, (threshold, value), inplace=inplace)


_with_inplace_form('threshold', threshold)


@public('threshold')
def _torch_threshold(input, threshold, value, *, out=None):
    need_tensor('threshold', input)
    return dispatch.apply(_threshold, (input, threshold, value), (), out)


@public('threshold_')
def _torch_threshold_(input, threshold, value):
    return dispatch.apply_inplace(_threshold_, (input, threshold, value))


# ---- elu / selu / celu ----------------------------------------------------------------------------

@op('_elu', namespace=NN, function=False, method=False, node='EluBackward0', diff=('input',))
def _elu(input, alpha, scale, input_scale):
    floats_only('elu_cpu', input)
    pos = input > 0
    # finite in the unused branch; where (not minimum) so that x == 0 gets the whole negative-side slope
    neg = jnp.expm1(jnp.where(pos, jnp.zeros((), input.dtype), input) * input_scale) * alpha
    return jnp.where(pos, input, neg) * scale


_elu_ = _variant(_elu, 'EluBackward1', 'result')
_celu = _variant(_elu, 'CeluBackward0', 'inputs')
_celu_ = _variant(_elu, 'CeluBackward1', 'result')
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def elu(input, alpha=1.0, inplace=False):
    need_tensor('elu', input)
    return run(_elu, _elu_, input, (alpha, 1.0, 1.0), inplace=inplace)


def selu(input, inplace=False):
    need_tensor('selu', input)
    return run(_elu, _elu_, input, (_SELU_ALPHA, _SELU_SCALE, 1.0), inplace=inplace)


def celu(input, alpha=1.0, inplace=False):
    need_tensor('celu', input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return run(_celu, _celu_, input, (alpha, 1.0, 1.0 / alpha), inplace=inplace)


_with_inplace_form('elu', elu)
_with_inplace_form('selu', selu)
_with_inplace_form('celu', celu)
public('selu')(lambda input: selu(input))
public('selu_')(lambda input: selu(input, inplace=True))
public('celu')(lambda input, alpha=1.0: celu(input, alpha))
public('celu_')(lambda input, alpha=1.0: celu(input, alpha, inplace=True))


# ---- rrelu / prelu --------------------------------------------------------------------------------

@op('_rrelu_with_noise', namespace=NN, function=False, method=False, node='RreluWithNoiseBackward0',
    diff=('input',), static=('training',))
def _rrelu(input, lower, upper, seed, offset, *, training):
    floats_only('leaky_relu_cpu', input)
    if training:
        a = _random.uniform_draw(_random._key(seed, offset), input.shape, input.dtype,
                                 jnp.asarray(lower, input.dtype), jnp.asarray(upper, input.dtype))
        a = lax.stop_gradient(a)
    else:
        a = jnp.asarray((lower + upper) / 2, input.dtype)
    return jnp.where(input > 0, input, input * a)


_rrelu_ = _variant(_rrelu, 'RreluWithNoiseBackward1', 'result')


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    need_tensor('rrelu', input)
    if training:
        s, off = next_key(input, 'rrelu')
    else:
        s, off = 0, 0
    return run(_rrelu, _rrelu_, input, (lower, upper, s, off), (bool(training),), inplace=inplace)


_with_inplace_form('rrelu', rrelu)
public('rrelu')(lambda input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None:
                rrelu(input, lower, upper, training))
public('rrelu_')(lambda input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None:
                 rrelu(input, lower, upper, training, inplace=True))


@op('_prelu_kernel', namespace=NN, function=False, method=False, node='PreluKernelBackward0')
def _prelu_kernel(input, weight):
    floats_only('prelu_cpu', input)
    w = weight
    if input.ndim >= 2 and weight.size > 1:
        w = weight.reshape((1, -1) + (1,) * (input.ndim - 2))
    elif weight.ndim:
        w = weight.reshape(())
    return jnp.where(input > 0, input, w.astype(input.dtype) * input)


@public('prelu', method=True)
def prelu(input, weight):
    need_tensor('prelu', input)
    need_tensor('prelu', weight, 'weight', 2)
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    n = weight.numel()
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        c = input.shape[1] if input.ndim >= 2 else 1
        if n != c:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{n} and channel size = {c}.")
    return dispatch.apply(_prelu_kernel, (input, weight))


_register('prelu', prelu)


# ---- smooth activations ---------------------------------------------------------------------------

@op('_gelu', namespace=NN, function=False, method=False, static=('approximate',), node='GeluBackward0')
def _gelu(input, *, approximate):
    floats_only('GeluKernelImpl', input)
    return jax.nn.gelu(input, approximate=(approximate == 'tanh')).astype(input.dtype)


@public('gelu', namespace=NN)
def gelu(input, approximate='none'):
    need_tensor('gelu', input)
    if approximate not in ('none', 'tanh'):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return dispatch.apply(_gelu, (input,), (approximate,))


@op('_silu', namespace=NN, function=False, method=False, node='SiluBackward0')
def _silu(input):
    floats_only('silu_cpu', input)
    return input * jax.nn.sigmoid(input)


def silu(input, inplace=False):
    need_tensor('silu', input)
    return run(_silu, _silu, input, inplace=inplace)


@op('_mish', namespace=NN, function=False, method=False, node='MishBackward0')
def _mish(input):
    floats_only('mish_cpu', input)
    return input * jnp.tanh(jax.nn.softplus(input))


def mish(input, inplace=False):
    need_tensor('mish', input)
    return run(_mish, _mish, input, inplace=inplace)


@op('_hardsigmoid', namespace=NN, function=False, method=False, node='HardsigmoidBackward0')
def _hardsigmoid(input):
    floats_only('hardsigmoid_cpu', input)
    one, zero = jnp.ones((), input.dtype), jnp.zeros((), input.dtype)
    # the edges take the constant branches: torch's gradient is zero at x == +-3
    return jnp.where(input <= -3, zero, jnp.where(input >= 3, one, input / 6 + jnp.asarray(0.5, input.dtype)))


def hardsigmoid(input, inplace=False):
    need_tensor('hardsigmoid', input)
    return run(_hardsigmoid, _hardsigmoid, input, inplace=inplace)


@op('_hardswish', namespace=NN, function=False, method=False, node='HardswishBackward0')
def _hardswish(input):
    floats_only('hardswish_cpu', input)
    # torch's derivative: 0 for x < -3, x/3 + 1/2 on [-3, 3] (edges included), 1 above
    mid = input * (input + 3) / 6
    return jnp.where(input < -3, jnp.zeros((), input.dtype), jnp.where(input <= 3, mid, input))


def hardswish(input, inplace=False):
    need_tensor('hardswish', input)
    return run(_hardswish, _hardswish, input, inplace=inplace)


for _n, _f in (('silu', silu), ('mish', mish), ('hardsigmoid', hardsigmoid), ('hardswish', hardswish)):
    _register(_n, _f)


@op('_softplus', namespace=NN, function=False, method=False, node='SoftplusBackward0', diff=('input',))
def _softplus(input, beta, threshold):
    floats_only('softplus_cpu', input)
    z = input * jnp.asarray(beta, input.dtype)
    lin = z > threshold
    zs = jnp.where(lin, jnp.zeros((), z.dtype), z)         # keeps the unused branch (and its VJP) finite
    return jnp.where(lin, input, jnp.log1p(jnp.exp(zs)) / jnp.asarray(beta, input.dtype))


@public('softplus', namespace=NN)
def softplus(input, beta=1.0, threshold=20.0):
    need_tensor('softplus', input)
    return dispatch.apply(_softplus, (input, beta, threshold))


@op('_log_sigmoid', namespace=NN, function=False, method=False, node='LogSigmoidBackward0')
def _log_sigmoid(input):
    floats_only('log_sigmoid_cpu', input)
    return jax.nn.log_sigmoid(input)


@public('logsigmoid', namespace=NN)
def logsigmoid(input):
    need_tensor('log_sigmoid', input, 'self')
    return dispatch.apply(_log_sigmoid, (input,))


@public('softsign', namespace=NN)
def softsign(input):
    return input / (input.abs() + 1)


@public('tanhshrink', namespace=NN)
def tanhshrink(input):
    return input - input.tanh()


# ---- shrinks --------------------------------------------------------------------------------------

@op('_softshrink', namespace=NN, function=False, method=False, node='SoftshrinkBackward0', diff=('input',))
def _softshrink(input, lambd):
    floats_only('softshrink_check', input)
    l = jnp.asarray(lambd, input.dtype)
    return jnp.where(input > l, input - l, jnp.where(input < -l, input + l, input * 0))


@public('softshrink', namespace=NN)
def softshrink(input, lambd=0.5):
    need_tensor('softshrink', input)
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd:g}.")
    return dispatch.apply(_softshrink, (input, lambd))


@op('_hardshrink', namespace=NN, function=False, method=False, node='HardshrinkBackward0', diff=('input',))
def _hardshrink(input, lambd):
    floats_only('hardshrink_cpu', input)
    l = jnp.asarray(lambd, input.dtype)
    return jnp.where((input >= -l) & (input <= l), jnp.zeros((), input.dtype), input)


@public('hardshrink', method=True)
def hardshrink(input, lambd=0.5):
    need_tensor('hardshrink', input)
    return dispatch.apply(_hardshrink, (input, lambd))


_register('hardshrink', hardshrink)


# ---- glu ------------------------------------------------------------------------------------------

@op('_glu', namespace=NN, function=False, method=False, static=('dim',), node='GluBackward0')
def _glu(input, *, dim):
    floats_only('glu_cpu', input)
    a, b = jnp.split(input, 2, axis=dim)
    return a * jax.nn.sigmoid(b)


@public('glu', namespace=NN)
def glu(input, dim=-1):
    need_tensor('glu', input)
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    return dispatch.apply(_glu, (input,), (d,))


# ---- softmax family -------------------------------------------------------------------------------

def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


@public('softmax', namespace=NN)
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    need_tensor('softmax', input)
    if dim is None:
        dim = _softmax_dim('softmax', input.ndim, _stacklevel)
    return dispatch.apply(_reduction.softmax, (input,), (dim, dtype))


@public('log_softmax', namespace=NN)
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    need_tensor('log_softmax', input)
    if dim is None:
        dim = _softmax_dim('log_softmax', input.ndim, _stacklevel)
    return dispatch.apply(_reduction.log_softmax, (input,), (dim, dtype))


@public('softmin', namespace=NN)
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    need_tensor('softmin', input)
    if dim is None:
        dim = _softmax_dim('softmin', input.ndim, _stacklevel)
    return dispatch.apply(_reduction.softmax, (-input,), (dim, dtype))


@public('gumbel_softmax', namespace=NN)
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    from .creation import empty_like
    gumbels = -empty_like(logits, memory_format=None).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    from .creation import zeros_like
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits, memory_format=None).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft

