"""CrossMapLRN2d: torch's legacy (Lua Torch) cross-channel local response normalisation.

Note [CrossMapLRN2d windows]
torch implements it as an autograd.Function (torch/nn/modules/_functions.py) whose forward keeps a running
channel sum and whose backward is hand-written; the two use different windows, and both differ from
F.local_response_norm. With ``pre = int((size - 1) / 2 + 1)`` the forward's running sum never removes
channel 0, so

    scale[c] = k + alpha / size * (x[0]^2 + sum(x[j]^2 for j in [max(1, c - pre + 1), c + pre - 1]))

and the backward, with ``ipp = int(size - (size - 1) / 2)`` and ``r = grad * out / scale``, is

    grad_in[c] = scale[c]^-beta * grad[c] - 2 * alpha * beta / size * x[c] * sum(r[j] for j in
                 [c - ipp, c + size - 1 - ipp])

(indices clipped to the channels). Both are reproduced exactly, so values and gradients match torch
(which is not the derivative of the forward); the windows are 0/1 channel matrices built once per shape.
For size 1 torch's backward fails (its padded buffer is too short), and so does this one.
"""
import functools

import numpy as np

from ..._engine import dispatch
from ..._engine.jaxrt import jax, jnp, lax
from ..._engine.registry import op
from ..._ops.linalg import sname
from .module import Module

__all__ = ['CrossMapLRN2d']


def _windows(channels, size):
    """The forward (scale) and backward (ratio) channel windows as 0/1 matrices (C, C)."""
    pre = int((size - 1) / 2 + 1)
    ipp = int(size - (size - 1) / 2)
    c = np.arange(channels)[:, None]
    j = np.arange(channels)[None, :]
    fwd = ((j >= np.maximum(1, c - pre + 1)) & (j <= c + pre - 1)) | (j == 0)
    bwd = (j >= c - ipp) & (j <= c + size - 1 - ipp)
    return fwd, bwd


def _mix(m, v):
    """sum over j of m[c, j] * v[:, j] for (N, C, H, W) v."""
    return jnp.einsum('cj,njhw->nchw', jnp.asarray(m, v.dtype), v, precision=lax.Precision.HIGHEST)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3, 4))
def _lrn(x, size, alpha, beta, k):
    return _lrn_fwd(x, size, alpha, beta, k)[0]


def _lrn_fwd(x, size, alpha, beta, k):
    fwd, _ = _windows(x.shape[1], size)
    scale = _mix(fwd, x * x) * (alpha / size) + k
    out = scale ** -beta * x
    return out, (x, out, scale)


def _lrn_bwd(size, alpha, beta, k, res, g):
    x, out, scale = res
    channels = x.shape[1]
    if int(size - (size - 1) / 2) + channels > channels + size - 1:
        # torch: paddded_ratio.narrow(0, inversePrePad, channels) runs past the buffer
        raise RuntimeError(f"start ({int(size - (size - 1) / 2)}) + length ({channels}) exceeds dimension size "
                           f"({channels + size - 1}).")
    _, bwd = _windows(channels, size)
    acc = _mix(bwd, g * out / scale)
    return (scale ** -beta * g - (2 * alpha * beta / size) * x * acc,)


_lrn.defvjp(_lrn_fwd, _lrn_bwd)


@op('_cross_map_lrn2d', static=('size', 'alpha', 'beta', 'k'), node='CrossMapLRN2dBackward', function=False,
    method=False, out=False)
def _cross_map_lrn2d(input, size, alpha, beta, k):
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {sname(input)}")
    work = jnp.float32 if input.dtype in (jnp.float16, jnp.bfloat16) else input.dtype
    return _lrn(input.astype(work), size, alpha, beta, k).astype(input.dtype)


class CrossMapLRN2d(Module):
    """Cross-channel local response normalisation as torch.nn.CrossMapLRN2d (see Note [CrossMapLRN2d windows]).

    Args:
        size: number of channels in the normalisation window.
        alpha: multiplicative factor. Default: 0.0001
        beta: exponent. Default: 0.75
        k: additive factor. Default: 1

    Shape:
        - Input: :math:`(N, C, H, W)`
        - Output: same shape as the input.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        if self.size == 0:                               # torch computes alpha / size in Python
            raise ZeroDivisionError('float division by zero')
        return dispatch.apply(_cross_map_lrn2d, (input,), (int(self.size), float(self.alpha), float(self.beta),
                                                           float(self.k)))

    def extra_repr(self):
        return '{size}, alpha={alpha}, beta={beta}, k={k}'.format(**self.__dict__)
