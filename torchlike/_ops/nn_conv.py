"""Convolutions: torch.convolution, conv1d/2d/3d, conv_transpose1d/2d/3d, conv_tbc (torch-level functions that
torch.nn.functional re-exports), all lowered to one ``lax.conv_general_dilated``.

Every form records torch's ConvolutionBackward0 node (conv_tbc: ConvTbcBackward0); the backward is the VJP
of the JAX convolution, which XLA turns into the usual transposed convolutions. Checks follow ATen's
ConvUtils (check_shape_forward) and raise its exception types while the body is traced, so a valid call pays
nothing for them. Float32 convolutions follow the default precision like torchlike's matmul (set_float32_matmul_precision),
float16/bfloat16 accumulate in float32.
"""
from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jnp, lax
from .linalg import sname, cname

_HI = None      # the default precision: set_float32_matmul_precision decides


def _acc(dt):
    return jnp.float32 if dt in (jnp.float16, jnp.bfloat16) else None


def ntuple(v, n, name, fname='convolution'):
    """An int or a length-n sequence of ints -> n-tuple (torch's expand_param_if_needed)."""
    if isinstance(v, dispatch.Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        v = tuple(int(x) for x in v)
        if len(v) == 1:
            return v * n
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                               f"{fname} dimensions, but got {name}={_lst(v)}")
        return v
    return (int(v),) * n


def _lst(v):
    return '[' + ', '.join(str(x) for x in v) + ']'


def _x(v):
    return ' x '.join(str(x) for x in v)


def _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, pads=None):
    """ATen's check_shape_forward / convolution argument checks (RuntimeError as torch)."""
    k = weight.ndim
    if k < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if input.ndim != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight {_lst(weight.shape)}, but got "
                           f"{input.ndim}-dimensional input of size {_lst(input.shape)} instead")
    if weight.shape[0] % groups if not transposed else False:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size {_lst(weight.shape)} instead")
    if not transposed:
        if input.shape[1] != weight.shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {_lst(weight.shape)}, expected "
                               f"input{_lst(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                               f"{input.shape[1]} channels instead")
        nout = weight.shape[0]
        pads = pads or tuple((p, p) for p in padding)
        padded = tuple(s + lo + hi for s, (lo, hi) in zip(input.shape[2:], pads))
        kern = tuple(d * (w - 1) + 1 for d, w in zip(dilation, weight.shape[2:]))
        if any(p < kk for p, kk in zip(padded, kern)):
            raise RuntimeError(f"Calculated padded input size per channel: ({_x(padded)}). Kernel size: ({_x(kern)}). "
                               f"Kernel size can't be greater than actual input size")
    else:
        if input.shape[1] != weight.shape[0]:
            raise RuntimeError(f"Given transposed={int(transposed)}, weight of size {_lst(weight.shape)}, expected "
                               f"input{_lst(input.shape)} to have {weight.shape[0]} channels, but got "
                               f"{input.shape[1]} channels instead")
        if any(op_ >= s and op_ >= d for op_, s, d in zip(output_padding, stride, dilation)):
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + ' '.join(
                f"{nm}_{ax}: {v[i]}" for nm, v in (('output_padding', output_padding), ('stride', stride),
                                                   ('dilation', dilation)) for i, ax in enumerate(_axes(len(stride)))))
        nout = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != nout):
        raise RuntimeError(f"Given weight of size {_lst(weight.shape)}, expected bias to be 1-dimensional with {nout} "
                           f"elements, but got bias of size {_lst(bias.shape)} instead")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"Input type ({cname(input)}) and weight type ({cname(weight)}) should be the same")
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({cname(input)}) and bias type ({cname(bias)}) should be the same")
    if input.dtype == jnp.bool_:
        raise NotImplementedError(f"\"slow_conv2d_cpu\" not implemented for '{sname(input)}'")


def _axes(n):
    return ('depth', 'height', 'width')[3 - n:] if n <= 3 else tuple(str(i) for i in range(n))


def _dn(n):
    sp = 'DHW'[3 - n:] if n <= 3 else None
    if sp is None:
        raise NotImplementedError(f"torchlike: {n}-d convolution")
    return ('NC' + sp, 'OI' + sp, 'NC' + sp)


def conv_impl(x, w, b, stride, pads, dilation, transposed, output_padding, groups):
    """The convolution itself: ``pads`` is one (low, high) pair per spatial dim (forward conv semantics)."""
    n = w.ndim - 2
    acc = _acc(x.dtype)
    if not transposed:
        y = lax.conv_general_dilated(x, w, stride, pads, rhs_dilation=dilation, dimension_numbers=_dn(n),
                                     feature_group_count=groups, precision=_HI, preferred_element_type=acc)
    else:
        # conv_transpose = the gradient of a convolution: dilate the input by the stride, flip the kernel,
        # swap its in/out axes within each group, and pad by dilation*(k-1) - padding (+ output_padding).
        cin, cog = w.shape[0], w.shape[1]
        ks = w.shape[2:]
        wt = w.reshape((groups, cin // groups, cog) + ks)
        wt = jnp.swapaxes(wt, 1, 2).reshape((groups * cog, cin // groups) + ks)
        wt = jnp.flip(wt, tuple(range(2, 2 + n)))
        tp = tuple((d * (k - 1) - p, d * (k - 1) - p + o)
                   for d, k, (p, _), o in zip(dilation, ks, pads, output_padding))
        y = lax.conv_general_dilated(x, wt, (1,) * n, tp, lhs_dilation=stride, rhs_dilation=dilation,
                                     dimension_numbers=_dn(n), feature_group_count=groups, precision=_HI,
                                     preferred_element_type=acc)
    if b is not None:
        y = y + b.astype(y.dtype).reshape((1, -1) + (1,) * n)
    return y.astype(x.dtype)


@op('convolution', static=('stride', 'padding', 'dilation', 'transposed', 'output_padding', 'groups'),
    method=False, out=False)
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    n = weight.ndim - 2
    stride, padding, dilation, output_padding = (ntuple(v, n, nm) for v, nm in (
        (stride, 'stride'), (padding, 'padding'), (dilation, 'dilation'), (output_padding, 'output_padding')))
    _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    return conv_impl(input, weight, bias, stride, tuple((p, p) for p in padding), dilation, transposed,
                     output_padding, groups)


@op('_conv', static=('stride', 'padding', 'dilation', 'transposed', 'output_padding', 'groups', 'fname'),
    node='ConvolutionBackward0', function=False, method=False, out=False)
def _conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, fname):
    """conv{n}d / conv_transpose{n}d: unbatched inputs and padding='same'/'valid' on top of convolution."""
    n = weight.ndim - 2
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {fname}, but got input of "
                           f"size: {_lst(input.shape)}")
    unbatched = input.ndim == n + 1
    x = input[None] if unbatched else input
    if padding == 'valid':
        padding = (0,) * n
    if padding == 'same':
        tots = tuple(d * (k - 1) for d, k in zip(dilation, weight.shape[2:]))
        pads = tuple((t // 2, t - t // 2) for t in tots)
        _check(x, weight, bias, stride, (0,) * n, dilation, transposed, output_padding, groups, pads)
    else:
        _check(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        pads = tuple((p, p) for p in padding)
    y = conv_impl(x, weight, bias, stride, pads, dilation, transposed, output_padding, groups)
    return y[0] if unbatched else y


def _conv_public(n, transposed):
    fname = f'conv_transpose{n}d' if transposed else f'conv{n}d'

    def norm(input, weight, stride, padding, dilation, output_padding):
        if not isinstance(weight, dispatch.Tensor):
            raise TypeError(f"{fname}(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
        if not isinstance(input, dispatch.Tensor):
            raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        stride = ntuple(stride, n, 'stride')
        if weight.ndim != n + 2:       # torch expands ``stride`` to the call's rank, then checks it against the weight
            raise RuntimeError(f"expected stride to be a single integer value or a list of {weight.ndim - 2} values "
                               f"to match the convolution dimensions, but got stride={_lst(stride)}")
        stride = ntuple(stride, n, 'stride')
        dilation = ntuple(dilation, n, 'dilation')
        if isinstance(padding, str):
            if transposed:
                raise TypeError(f"{fname}(): argument 'padding' must be tuple of ints, not str")
            if padding not in ('same', 'valid'):
                raise RuntimeError(f"Invalid padding string: '{padding}'")
            if padding == 'same' and any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
        else:
            padding = ntuple(padding, n, 'padding')
        output_padding = ntuple(output_padding, n, 'output_padding')
        return stride, padding, dilation, output_padding

    if transposed:
        def f(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
            st, pd, dl, op_ = norm(input, weight, stride, padding, dilation, output_padding)
            return dispatch.apply(_conv, (input, weight, bias), (st, pd, dl, True, op_, int(groups), fname))
    else:
        def f(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
            st, pd, dl, op_ = norm(input, weight, stride, padding, dilation, 0)
            return dispatch.apply(_conv, (input, weight, bias), (st, pd, dl, False, op_, int(groups), fname))
    f.__name__ = f.__qualname__ = fname
    f.__module__ = 'torchlike'
    return public(fname)(f)


conv1d, conv2d, conv3d = (_conv_public(n, False) for n in (1, 2, 3))
conv_transpose1d, conv_transpose2d, conv_transpose3d = (_conv_public(n, True) for n in (1, 2, 3))


@op('conv_tbc', static=('pad',), method=False, out=False)
def conv_tbc(input, weight, bias, pad=0):
    """Time-Batch-Channel 1-d convolution: input (T, B, Cin), weight (K, Cin, Cout), bias (Cout)."""
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    x = jnp.transpose(input, (1, 2, 0))                  # (B, Cin, T)
    w = jnp.transpose(weight, (2, 1, 0))                 # (Cout, Cin, K)
    y = conv_impl(x, w, bias, (1,), ((pad, pad),), (1,), False, (0,), 1)
    return jnp.transpose(y, (2, 0, 1))
