"""torch.autocast against real torch: the CPU op lists (output dtypes, shapes, and values where they are
well defined), regions (nested, disabled, decorator), the state functions, custom_fwd/custom_bwd, and a
small bf16 training loop."""
import functools
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, check

_RNG = np.random.default_rng(0)


def _arr(*shape, pos=False):
    a = _RNG.standard_normal(shape).astype(np.float32)
    return np.abs(a) + 0.1 if pos else a


@functools.lru_cache(None)
def R(*shape, pos=False):
    """A fixed random array per shape (the same for the torch and the torchlike run of a case)."""
    return _arr(*shape, pos=pos)


def T(t, a, dtype='float32'):
    """A tensor of library ``t`` from numpy array ``a`` in dtype ``dtype`` (a name)."""
    x = t.from_numpy(a.copy())
    return x.to(getattr(t, dtype)) if dtype != 'float32' else x


def _sig(x):
    """(dtype, shape) structure of a result, for comparing what autocast decided."""
    if isinstance(x, (tuple, list)):
        return tuple(_sig(v) for v in x)
    if hasattr(x, 'dtype') and hasattr(x, 'shape'):
        return (str(x.dtype), tuple(x.shape))
    return type(x).__name__


def _amp(fn, dtype='bfloat16'):
    def run(t):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with t.autocast('cpu', dtype=getattr(t, dtype)):
                return fn(t)
    return run


def check_sig(fn, dtype='bfloat16'):
    """Same exception type, or the same output dtypes and shapes, under CPU autocast."""
    try:
        exp, exp_exc = _sig(_amp(fn, dtype)(torch)), None
    except Exception as e:  # noqa: BLE001 - torch's exception type is the expectation
        exp, exp_exc = None, e
    try:
        got, got_exc = _sig(_amp(fn, dtype)(torchlike)), None
    except Exception as e:  # noqa: BLE001
        got, got_exc = None, e
    if exp_exc is not None:
        assert got_exc is not None, f'torch raised {exp_exc!r}, torchlike returned {got}'
        assert type(got_exc) is type(exp_exc), (exp_exc, got_exc)
        return
    if got_exc is not None:
        raise got_exc
    assert got == exp


n = 8
A, B, C = _arr(n, n), _arr(n, n), _arr(n, n)
V = _arr(n)
B3, C3, D3 = _arr(4, n, n), _arr(4, n, n), _arr(4, n, n)
SPD = (A @ A.T + n * np.eye(n)).astype(np.float32)
X4, W4 = _arr(2, 4, 6, 6), _arr(3, 4, 3, 3)
X5, W5 = _arr(1, 2, 4, 4, 4), _arr(2, 2, 2, 2, 2)
X3, W3 = _arr(2, 4, 10), _arr(3, 4, 3)
P01 = (_RNG.random((n, n)) * 0.8 + 0.1).astype(np.float32)
IDX = _RNG.integers(0, n, size=(n,))
FRS = _RNG.random((2, 4, 2)).astype(np.float32)
F = 'nn.functional'


def f(t):
    return t.nn.functional


# ---- lower-precision ops: float32 in, autocast dtype out ------------------------------------------
LOWER = {
    'mm': lambda t: t.mm(T(t, A), T(t, B)),
    'bmm': lambda t: t.bmm(T(t, B3), T(t, C3)),
    'baddbmm': lambda t: t.baddbmm(T(t, B3), T(t, C3), T(t, D3)),
    'addmm': lambda t: t.addmm(T(t, A), T(t, B), T(t, C)),
    'addbmm': lambda t: t.addbmm(T(t, A), T(t, B3), T(t, C3)),
    'matmul_2x2': lambda t: t.matmul(T(t, A), T(t, B)),
    'matmul_3x2': lambda t: t.matmul(T(t, B3), T(t, A)),
    'matmul_3x3': lambda t: T(t, B3) @ T(t, C3),
    'matmul_1x1': lambda t: t.matmul(T(t, V), T(t, V)),
    'matmul_2x1': lambda t: t.matmul(T(t, A), T(t, V)),
    'matmul_1x2': lambda t: t.matmul(T(t, V), T(t, A)),
    'linear': lambda t: f(t).linear(T(t, A), T(t, B)),
    'linear_bias_3d': lambda t: f(t).linear(T(t, B3), T(t, A), T(t, V)),
    'vecdot': lambda t: t.linalg.vecdot(T(t, A), T(t, B)),
    'conv1d': lambda t: f(t).conv1d(T(t, X3), T(t, W3), T(t, R(3))),
    'conv2d': lambda t: f(t).conv2d(T(t, X4), T(t, W4), padding=1),
    'conv3d': lambda t: f(t).conv3d(T(t, X5), T(t, W5)),
    'conv_transpose1d': lambda t: f(t).conv_transpose1d(T(t, X3), T(t, R(4, 3, 3))),
    'conv_transpose2d': lambda t: f(t).conv_transpose2d(T(t, X4), T(t, R(4, 3, 3, 3)), stride=2),
    'conv_transpose3d': lambda t: f(t).conv_transpose3d(T(t, X5), T(t, R(2, 2, 2, 2, 2))),
    'conv_tbc': lambda t: t.conv_tbc(T(t, R(10, 7, 3)), T(t, R(5, 3, 5)), T(t, R(5)), 0),
    'prelu': lambda t: f(t).prelu(T(t, X4), T(t, R(4))),
    'sdpa': lambda t: f(t).scaled_dot_product_attention(T(t, B3), T(t, C3), T(t, D3), attn_mask=T(t, A)),
    'sdpa_causal': lambda t: f(t).scaled_dot_product_attention(T(t, B3), T(t, C3), T(t, D3), is_causal=True),
    'einsum_contract': lambda t: t.einsum('bij,bjk->bik', T(t, B3), T(t, C3)),
    'einsum_dot': lambda t: t.einsum('i,i->', T(t, V), T(t, V)),
    'multi_dot': lambda t: t.linalg.multi_dot([T(t, A), T(t, B), T(t, C)]),
    'inner': lambda t: t.inner(T(t, A), T(t, B)),
    'mixed_mm': lambda t: t.mm(T(t, A, 'bfloat16'), T(t, B)),
    'mixed_linear': lambda t: f(t).linear(T(t, A, 'bfloat16'), T(t, B), T(t, V)),
    'fp16_mm': lambda t: t.mm(T(t, A, 'float16'), T(t, B, 'float16')),
    'f64_mm': lambda t: t.mm(T(t, A, 'float64'), T(t, B, 'float64')),
    'f64_f32_mm': lambda t: t.mm(T(t, A, 'float64'), T(t, B)),
    'int_linear': lambda t: f(t).linear(T(t, A, 'int64'), T(t, B, 'int64')),
}

# Not in torch's CPU lists: they keep the dtype their inputs have.
UNLISTED = {
    'softmax': lambda t: t.softmax(T(t, A), -1),
    'log_softmax': lambda t: t.log_softmax(T(t, A, 'bfloat16'), -1),
    'layer_norm': lambda t: f(t).layer_norm(T(t, A, 'bfloat16'), (n,)),
    'group_norm': lambda t: f(t).group_norm(T(t, X4, 'bfloat16'), 2),
    'exp': lambda t: t.exp(T(t, A, 'bfloat16')),
    'sum': lambda t: t.sum(T(t, A, 'bfloat16')),
    'cumsum': lambda t: t.cumsum(T(t, A, 'bfloat16'), 0),
    'relu_gelu': lambda t: f(t).gelu(t.relu(T(t, A))),
    'tensordot': lambda t: t.tensordot(T(t, A), T(t, B)),
    'dot': lambda t: t.dot(T(t, V), T(t, V)),
    'mv': lambda t: t.mv(T(t, A), T(t, V)),
    'addmv': lambda t: t.addmv(T(t, V), T(t, A), T(t, V)),
    'convolution': lambda t: t.convolution(T(t, X3), T(t, W3), None, (1,), (0,), (1,), False, (0,), 1),
    'einsum_mul': lambda t: t.einsum('i,i->i', T(t, V), T(t, V)),
    'einsum_sum': lambda t: t.einsum('ij->', T(t, A)),
    'reflection_pad3d': lambda t: f(t).pad(T(t, X5, 'bfloat16'), (1,) * 6, mode='reflect'),
    'max_pool2d': lambda t: f(t).max_pool2d(T(t, X4, 'bfloat16'), 2),
    'max_pool3d_indices': lambda t: f(t).max_pool3d(T(t, X5, 'bfloat16'), 2, return_indices=True),
    'vector_norm': lambda t: t.linalg.vector_norm(T(t, A, 'bfloat16')),
    'embedding': lambda t: f(t).embedding(t.tensor([1, 2]), T(t, A)),
}

# ---- float32 ops: bfloat16 in, float32 out ---------------------------------------------------------
FP32 = {
    'prod': lambda t: t.prod(T(t, V, 'bfloat16')),
    'prod_dim': lambda t: t.prod(T(t, A, 'bfloat16'), 1),
    'prod_dtype': lambda t: t.prod(T(t, A, 'bfloat16'), 1, dtype=t.bfloat16),
    'quantile': lambda t: t.quantile(T(t, V, 'bfloat16'), 0.3),
    'nanquantile': lambda t: t.nanquantile(T(t, V, 'bfloat16'), 0.3),
    'cdist': lambda t: t.cdist(T(t, A, 'bfloat16'), T(t, B, 'bfloat16')),
    'trace': lambda t: t.trace(T(t, A, 'bfloat16')),
    'view_as_complex': lambda t: t.view_as_complex(T(t, R(4, 2), 'bfloat16')),
    'stft': lambda t: t.stft(T(t, R(64), 'bfloat16'), 16, window=T(t, np.ones(16, np.float32), 'bfloat16'),
                             return_complex=True),
    'cholesky_inverse': lambda t: t.cholesky_inverse(T(t, np.linalg.cholesky(SPD).astype(np.float32), 'bfloat16')),
    'cholesky_solve': lambda t: t.cholesky_solve(T(t, A, 'bfloat16'),
                                                 T(t, np.linalg.cholesky(SPD).astype(np.float32), 'bfloat16')),
    'inverse': lambda t: t.inverse(T(t, SPD, 'bfloat16')),
    'pinverse': lambda t: t.pinverse(T(t, SPD, 'bfloat16')),
    'linalg_inv': lambda t: t.linalg.inv(T(t, SPD, 'bfloat16')),
    'linalg_inv_ex': lambda t: t.linalg.inv_ex(T(t, SPD, 'bfloat16')),
    'linalg_solve': lambda t: t.linalg.solve(T(t, SPD, 'bfloat16'), T(t, A, 'bfloat16')),
    'linalg_cholesky': lambda t: t.linalg.cholesky(T(t, SPD, 'bfloat16')),
    'linalg_cholesky_ex': lambda t: t.linalg.cholesky_ex(T(t, SPD, 'bfloat16')),
    'svdvals': lambda t: t.linalg.svdvals(T(t, SPD, 'bfloat16')),
    'eigvalsh': lambda t: t.linalg.eigvalsh(T(t, SPD, 'bfloat16')),
    'matrix_rank': lambda t: t.linalg.matrix_rank(T(t, SPD, 'bfloat16')),
    'cond': lambda t: t.linalg.cond(T(t, SPD, 'bfloat16')),
    'tensorinv': lambda t: t.linalg.tensorinv(T(t, SPD, 'bfloat16'), 1),
    'tensorsolve': lambda t: t.linalg.tensorsolve(T(t, SPD, 'bfloat16'), T(t, V, 'bfloat16')),
    'geqrf': lambda t: t.geqrf(T(t, SPD, 'bfloat16'))[1],
    'householder': lambda t: t.linalg.householder_product(*t.geqrf(T(t, SPD, 'bfloat16'))),
    'triangular_solve': lambda t: t.triangular_solve(T(t, A, 'bfloat16'), T(t, SPD, 'bfloat16'))[0],
    'linalg_qr_sig': lambda t: _sig(t.linalg.qr(T(t, SPD, 'bfloat16'))),
    'svd_sig': lambda t: _sig(t.svd(T(t, SPD, 'bfloat16'))),
    'linalg_svd_sig': lambda t: _sig(t.linalg.svd(T(t, SPD, 'bfloat16'))),
    'eig_sig': lambda t: _sig(t.linalg.eig(T(t, SPD, 'bfloat16'))),
    'eigvals_sig': lambda t: _sig(t.linalg.eigvals(T(t, SPD, 'bfloat16'))),
    'eigh_sig': lambda t: _sig(t.linalg.eigh(T(t, SPD, 'bfloat16'))),
    'lstsq_sig': lambda t: _sig(t.linalg.lstsq(T(t, SPD, 'bfloat16'), T(t, A, 'bfloat16'))[0]),
    # front ends listed by torch beyond the basic forms: other transforms, legacy names, methods, mixed dtypes
    'fftn': lambda t: t.fft.fftn(T(t, A, 'bfloat16')),
    'ifft2': lambda t: t.fft.ifft2(T(t, A, 'bfloat16')),
    'ifftn': lambda t: t.fft.ifftn(T(t, A, 'bfloat16')),
    'rfft2': lambda t: t.fft.rfft2(T(t, A, 'bfloat16')),
    'irfftn': lambda t: t.fft.irfftn(T(t, A, 'bfloat16')),
    'fft_f16': lambda t: t.fft.fft(T(t, V, 'float16')),
    'fft_f64': lambda t: t.fft.fft(T(t, V, 'float64')),
    'cholesky_legacy': lambda t: t.cholesky(T(t, SPD, 'bfloat16')),
    'qr_legacy_sig': lambda t: _sig(t.qr(T(t, SPD, 'bfloat16'))),
    'lu_legacy_sig': lambda t: _sig(t.lu(T(t, SPD, 'bfloat16'))),
    'ormqr': lambda t: t.ormqr(*t.geqrf(T(t, SPD)), T(t, A, 'bfloat16')),
    'orgqr': lambda t: t.orgqr(*[x.to(t.bfloat16) for x in t.geqrf(T(t, SPD))]),
    'householder_bf16_f32': lambda t: t.linalg.householder_product(t.geqrf(T(t, SPD))[0].to(t.bfloat16),
                                                                   t.geqrf(T(t, SPD))[1]),
    'inverse_method': lambda t: T(t, SPD, 'bfloat16').inverse(),
    'cond_fro': lambda t: t.linalg.cond(T(t, SPD, 'bfloat16'), 'fro'),
    'solve_f32_bf16': lambda t: t.linalg.solve(T(t, SPD), T(t, A, 'bfloat16')),
    'eigh_f16_sig': lambda t: _sig(t.linalg.eigh(T(t, SPD, 'float16'))),
    'tensorsolve_f16': lambda t: t.linalg.tensorsolve(T(t, SPD, 'float16'), T(t, V, 'float16')),
    'cholesky_inverse_f64': lambda t: t.cholesky_inverse(T(t, np.linalg.cholesky(SPD), 'float64')),
    'quantile_tensor_q': lambda t: t.quantile(T(t, V, 'bfloat16'), t.tensor([0.3, 0.5])),
    'quantile_bf16_q': lambda t: t.quantile(T(t, V), T(t, np.array([0.3, 0.5], np.float32), 'bfloat16')),
    'quantile_method': lambda t: T(t, A, 'bfloat16').quantile(0.3, dim=1),
    'stft_f32_window': lambda t: t.stft(T(t, R(64), 'bfloat16'), 16, window=T(t, np.hanning(16).astype(np.float32)),
                                        return_complex=True),
    'matrix_power_inv': lambda t: t.linalg.matrix_power(T(t, SPD, 'bfloat16'), -1),
    'avg_pool3d': lambda t: f(t).avg_pool3d(T(t, X5, 'bfloat16'), 2),
    'max_pool3d': lambda t: f(t).max_pool3d(T(t, X5, 'bfloat16'), 2),
    'adaptive_avg_pool3d': lambda t: f(t).adaptive_avg_pool3d(T(t, X5, 'bfloat16'), 2),
    'adaptive_max_pool3d': lambda t: f(t).adaptive_max_pool3d(T(t, X5, 'bfloat16'), 2),
    'max_unpool1d': lambda t: f(t).max_unpool1d(*f(t).max_pool1d(T(t, X3, 'bfloat16'), 2, return_indices=True), 2),
    'max_unpool2d': lambda t: f(t).max_unpool2d(*f(t).max_pool2d(T(t, X4, 'bfloat16'), 2, return_indices=True), 2),
    'max_unpool3d': lambda t: f(t).max_unpool3d(*f(t).max_pool3d(T(t, X5, 'bfloat16'), 2, return_indices=True), 2),
    'fractional_max_pool2d': lambda t: f(t).fractional_max_pool2d(
        T(t, X4, 'bfloat16'), 2, output_size=3, _random_samples=T(t, FRS)),
    'reflection_pad1d': lambda t: f(t).pad(T(t, X3, 'bfloat16'), (2, 2), mode='reflect'),
    'reflection_pad2d': lambda t: f(t).pad(T(t, X4, 'bfloat16'), (1, 1, 1, 1), mode='reflect'),
    'replication_pad1d': lambda t: f(t).pad(T(t, X3, 'bfloat16'), (2, 2), mode='replicate'),
    'replication_pad2d': lambda t: f(t).pad(T(t, X4, 'bfloat16'), (1, 1, 1, 1), mode='replicate'),
    'replication_pad3d': lambda t: f(t).pad(T(t, X5, 'bfloat16'), (1,) * 6, mode='replicate'),
    'grid_sample2d': lambda t: f(t).grid_sample(T(t, X4, 'bfloat16'), T(t, np.tanh(R(2, 3, 3, 2)), 'bfloat16'),
                                                align_corners=False),
    'grid_sample3d': lambda t: f(t).grid_sample(T(t, X5, 'bfloat16'),
                                                T(t, np.tanh(R(1, 2, 2, 2, 3)), 'bfloat16'), align_corners=True),
    'mse_loss': lambda t: f(t).mse_loss(T(t, A, 'bfloat16'), T(t, B, 'bfloat16')),
    'l1_loss': lambda t: f(t).l1_loss(T(t, A, 'bfloat16'), T(t, B, 'bfloat16')),
    'smooth_l1_loss': lambda t: f(t).smooth_l1_loss(T(t, A, 'bfloat16'), T(t, B, 'bfloat16')),
    'huber_loss': lambda t: f(t).huber_loss(T(t, A, 'bfloat16'), T(t, B, 'bfloat16')),
    'nll_loss': lambda t: f(t).nll_loss(T(t, A, 'bfloat16'), t.from_numpy(IDX.copy())),
    'nll_loss2d': lambda t: f(t).nll_loss(T(t, X4, 'bfloat16'), t.zeros(2, 6, 6, dtype=t.long)),
    'cross_entropy': lambda t: f(t).cross_entropy(T(t, A, 'bfloat16'), t.from_numpy(IDX.copy())),
    'cross_entropy_probs': lambda t: f(t).cross_entropy(T(t, A, 'bfloat16'), T(t, P01, 'bfloat16')),
    'bce': lambda t: f(t).binary_cross_entropy(T(t, P01, 'bfloat16'), T(t, P01.T.copy(), 'bfloat16')),
    'bce_with_logits': lambda t: f(t).binary_cross_entropy_with_logits(T(t, A, 'bfloat16'), T(t, P01, 'bfloat16')),
    'kl_div': lambda t: f(t).kl_div(T(t, A, 'bfloat16'), T(t, P01, 'bfloat16'), reduction='batchmean'),
    'poisson_nll_loss': lambda t: f(t).poisson_nll_loss(T(t, A, 'bfloat16'), T(t, P01, 'bfloat16')),
    'cosine_embedding_loss': lambda t: f(t).cosine_embedding_loss(T(t, A, 'bfloat16'), T(t, B, 'bfloat16'),
                                                                  t.ones(n, dtype=t.int32)),
    'hinge_embedding_loss': lambda t: f(t).hinge_embedding_loss(T(t, A, 'bfloat16'), t.ones(n, n)),
    'margin_ranking_loss': lambda t: f(t).margin_ranking_loss(T(t, V, 'bfloat16'), T(t, V[::-1], 'bfloat16'),
                                                              t.ones(n, dtype=t.bfloat16)),
    'soft_margin_loss': lambda t: f(t).soft_margin_loss(T(t, A, 'bfloat16'), t.ones(n, n, dtype=t.bfloat16)),
    'triplet_margin_loss': lambda t: f(t).triplet_margin_loss(T(t, A, 'bfloat16'), T(t, B, 'bfloat16'),
                                                              T(t, C, 'bfloat16')),
    'multi_margin_loss': lambda t: f(t).multi_margin_loss(T(t, A, 'bfloat16'), t.from_numpy(IDX.copy())),
    'multilabel_margin_loss': lambda t: f(t).multilabel_margin_loss(T(t, A, 'bfloat16'),
                                                                    t.zeros(n, n, dtype=t.long)),
    'ctc_loss': lambda t: f(t).ctc_loss(T(t, R(6, 1, 4), 'bfloat16').log_softmax(-1), t.tensor([[1, 2]]),
                                        t.tensor([6]), t.tensor([2])),
    'fft': lambda t: t.fft.fft(T(t, V, 'bfloat16')),
    'ifft': lambda t: t.fft.ifft(T(t, V, 'bfloat16')),
    'rfft': lambda t: t.fft.rfft(T(t, V, 'bfloat16')),
    'irfft': lambda t: t.fft.irfft(T(t, V, 'bfloat16')),
    'fft2': lambda t: t.fft.fft2(T(t, A, 'bfloat16')),
    'rfftn': lambda t: t.fft.rfftn(T(t, A, 'bfloat16')),
    'irfft2': lambda t: t.fft.irfft2(T(t, A, 'bfloat16')),
    'hfft': lambda t: t.fft.hfft(T(t, V, 'bfloat16')),
    'ihfft': lambda t: t.fft.ihfft(T(t, V, 'bfloat16')),
}

# ---- promote ops: the widest floating input wins ---------------------------------------------------
PROMOTE = {
    'cat_bf16_f32': lambda t: t.cat([T(t, V, 'bfloat16'), T(t, V)]),
    'stack_bf16_f32': lambda t: t.stack([T(t, V, 'bfloat16'), T(t, V)]),
    'cat_f16_f32': lambda t: t.cat([T(t, V, 'float16'), T(t, V)]),
    'cat_int_bf16': lambda t: t.cat([T(t, V, 'int64'), T(t, V, 'bfloat16')]),
    'cat_f64_bf16': lambda t: t.cat([T(t, V, 'float64'), T(t, V, 'bfloat16')]),
    'index_copy': lambda t: t.index_copy(T(t, A, 'bfloat16'), 0, t.tensor([0, 3]), T(t, B[:2].copy())),
    'index_copy_method': lambda t: T(t, A).index_copy(0, t.tensor([0, 3]), T(t, B[:2].copy(), 'bfloat16')),
    'index_copy_f16_f32': lambda t: t.index_copy(T(t, A, 'float16'), 0, t.tensor([0, 3]), T(t, B[:2].copy())),
    'index_copy_int_bf16': lambda t: t.index_copy(T(t, A, 'int64'), 0, t.tensor([0, 3]),
                                                  T(t, B[:2].copy(), 'bfloat16')),
    'index_copy_f64_bf16': lambda t: t.index_copy(T(t, A, 'float64'), 0, t.tensor([0, 3]),
                                                  T(t, B[:2].copy(), 'bfloat16')),
}


# Not listed by torch (or an out= overload, which torch does not list): raise on bfloat16 under autocast too.
NOT_CAST = {
    'linalg_pinv': lambda t: t.linalg.pinv(T(t, SPD, 'bfloat16')),
    'slogdet': lambda t: t.linalg.slogdet(T(t, SPD, 'bfloat16')),
    'hfft2': lambda t: t.fft.hfft2(T(t, A, 'bfloat16')),
    'ihfft2': lambda t: t.fft.ihfft2(T(t, A, 'bfloat16')),
    'hfftn': lambda t: t.fft.hfftn(T(t, A, 'bfloat16')),
    'ihfftn': lambda t: t.fft.ihfftn(T(t, A, 'bfloat16')),
    'inv_out': lambda t: t.linalg.inv(T(t, SPD, 'bfloat16'), out=t.empty(n, n)),
    'fft_out': lambda t: t.fft.fft(T(t, V, 'bfloat16'), out=t.empty(n, dtype=t.complex64)),
    'quantile_out': lambda t: t.quantile(T(t, V, 'bfloat16'), 0.3, out=t.empty(())),
    'index_copy_inplace': lambda t: T(t, A, 'bfloat16').index_copy_(0, t.tensor([0, 3]), T(t, B[:2].copy())),
    'index_copy_out': lambda t: t.index_copy(T(t, A, 'bfloat16'), 0, t.tensor([0, 3]), T(t, B[:2].copy()),
                                             out=t.empty(n, n)),
}


@pytest.mark.parametrize('name', sorted(LOWER))
def test_lower_precision_ops(name):
    check_sig(LOWER[name])


@pytest.mark.parametrize('name', ['mm', 'matmul_3x2', 'linear_bias_3d', 'conv2d', 'sdpa', 'prelu'])
def test_lower_precision_ops_float16(name):
    check_sig(LOWER[name], 'float16')


@pytest.mark.parametrize('name', ['mm', 'bmm', 'baddbmm', 'addmm', 'matmul_1x1', 'matmul_2x1', 'matmul_3x3',
                                  'linear_bias_3d', 'mixed_linear', 'conv1d', 'conv2d', 'sdpa', 'einsum_contract'])
def test_lower_precision_values(name):
    # both sides round the same bf16 operands and accumulate in float32: equal up to the final rounding
    check(_amp(LOWER[name]), atol=6e-2, rtol=2e-2)


@pytest.mark.parametrize('name', sorted(UNLISTED))
def test_unlisted_ops_keep_dtype(name):
    check_sig(UNLISTED[name])


@pytest.mark.parametrize('name', sorted(FP32))
def test_fp32_ops(name):
    check_sig(FP32[name])


@pytest.mark.parametrize('name', ['mse_loss', 'nll_loss', 'cdist', 'prod_dim', 'linalg_solve', 'bce_with_logits',
                                  'avg_pool3d', 'kl_div', 'trace', 'fft', 'rfftn', 'irfft2', 'stft', 'inverse',
                                  'linalg_cholesky', 'cholesky_solve', 'svdvals', 'eigvalsh', 'triangular_solve',
                                  'quantile_tensor_q', 'tensorsolve', 'cond', 'matrix_power_inv'])
def test_fp32_values(name):
    # float32 casts of the same bf16 inputs: values agree to float32 precision
    check(_amp(FP32[name]), atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('name', ['pinverse', 'lstsq', 'cond_fro'])
def test_fp32_composite_values(name):
    # torch runs a listed op's body with autocast off, so the products inside pinverse/lstsq/cond('fro') stay
    # float32 and the values agree with a float32 run to float32 precision (a bfloat16 product: off by ~1e-2)
    fn = {'lstsq': lambda t: t.linalg.lstsq(T(t, SPD, 'bfloat16'), T(t, A, 'bfloat16'))[0]}.get(name, FP32.get(name))
    check(_amp(fn), atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize('name', sorted(NOT_CAST))
def test_unlisted_front_ends_not_cast(name):
    check_sig(NOT_CAST[name])


@pytest.mark.parametrize('dtype', ['float32', 'bfloat16', 'float64'])
@pytest.mark.parametrize('k', [-3, -2, -1, 0, 1, 2, 3])
def test_matrix_power(k, dtype):
    # torch's composite: linalg_inv (float32) for k < 0, a clone for |k| <= 1, matmuls (lower) for |k| >= 2
    check_sig(lambda t: t.linalg.matrix_power(T(t, SPD / n, dtype), k))


def test_grad_through_fp32_front_end():
    # the float32 cast at the front end is a recorded op: a bfloat16 leaf gets a bfloat16 gradient
    def fn(t):
        x = T(t, SPD, 'bfloat16').requires_grad_()
        q = T(t, V, 'bfloat16').requires_grad_()
        with t.autocast('cpu'):
            y = t.linalg.inv(x)
            z = t.quantile(q, 0.3)
        (y.sum() + z).backward()
        return y, z, x.grad, q.grad
    check(fn, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize('name', sorted(PROMOTE))
def test_promote_ops(name):
    check_sig(PROMOTE[name])


@pytest.mark.parametrize('name', sorted(PROMOTE))
def test_promote_ops_float16(name):
    check_sig(PROMOTE[name], 'float16')


@pytest.mark.parametrize('mode', ['LSTM', 'GRU', 'RNN'])
def test_recurrent_modules(mode):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, mode)(n, 6)
        return m(T(t, B3))
    check_sig(fn)


def test_multihead_attention_module():
    def fn(t):
        t.manual_seed(0)
        m = t.nn.MultiheadAttention(n, 2)
        return m(T(t, B3), T(t, C3), T(t, D3))
    check_sig(fn)


# ---- gradients through the casts -------------------------------------------------------------------

def test_grads_of_float32_params_are_float32():
    def fn(t):
        w = T(t, A).requires_grad_()
        x = T(t, B).requires_grad_()
        with t.autocast('cpu'):
            y = t.mm(x, w)                    # w is cast once (cache) and used twice
            z = t.nn.functional.linear(y, w, T(t, V))
            loss = t.nn.functional.mse_loss(z, T(t, C))
        loss.backward()
        return loss, y, z, w.grad, x.grad
    check(fn, atol=5e-2, rtol=3e-2)


def test_cast_cache_node_is_shared():
    # torch caches the bf16 copy of a parameter: two uses share one ToCopyBackward0
    for t in (torch, torchlike):
        w = T(t, A).requires_grad_()
        with t.autocast('cpu'):
            a = t.mm(T(t, B), w)
            b = t.mm(T(t, C), w)
        assert a.grad_fn.next_functions[1][0] is b.grad_fn.next_functions[1][0], t.__name__
        with t.autocast('cpu', cache_enabled=False):
            a = t.mm(T(t, B), w)
            b = t.mm(T(t, C), w)
        assert a.grad_fn.next_functions[1][0] is not b.grad_fn.next_functions[1][0], t.__name__


# ---- regions and state -------------------------------------------------------------------------------

def test_nested_and_disabled_regions():
    def fn(t):
        a, b = T(t, A), T(t, B)
        out = [t.is_autocast_enabled('cpu'), t.get_autocast_dtype('cpu')]
        with t.autocast('cpu'):
            out += [t.mm(a, b).dtype, t.is_autocast_enabled('cpu')]
            with t.autocast('cpu', enabled=False):
                out += [t.mm(a, b).dtype, t.is_autocast_enabled('cpu')]
                with t.autocast('cpu', dtype=t.float16):
                    out += [t.mm(a, b).dtype, t.get_autocast_dtype('cpu')]
                out += [t.get_autocast_dtype('cpu')]
            out += [t.mm(a, b).dtype]
        out += [t.mm(a, b).dtype, t.is_autocast_enabled('cpu'), t.is_autocast_enabled()]
        return out
    check(fn)


def test_decorator_and_amp_aliases():
    def fn(t):
        @t.autocast('cpu')
        def g(a, b):
            return t.mm(a, b), t.is_autocast_enabled('cpu')

        @t.amp.autocast('cpu', dtype=t.float16)
        def h(a, b):
            return t.mm(a, b)
        a, b = T(t, A), T(t, B)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with t.cpu.amp.autocast():
                c = t.mm(a, b)
        return [g(a, b)[0].dtype, g(a, b)[1], h(a, b).dtype, c.dtype, t.is_autocast_enabled('cpu')]
    check(fn)


def test_exception_exits_region():
    def fn(t):
        try:
            with t.autocast('cpu'):
                raise KeyError('x')
        except KeyError:
            pass
        return t.is_autocast_enabled('cpu'), t.mm(T(t, A), T(t, B)).dtype
    check(fn)


def test_state_functions():
    def fn(t):
        out = [t.is_autocast_cache_enabled(), t.get_autocast_cpu_dtype(), t.get_autocast_gpu_dtype(),
               t.get_autocast_dtype('cuda'), t.amp.is_autocast_available('cpu'), t.amp.is_autocast_available('meta')]
        t.set_autocast_enabled('cpu', True)
        try:
            out += [t.is_autocast_enabled('cpu'), t.is_autocast_cpu_enabled(), t.mm(T(t, A), T(t, B)).dtype]
            t.set_autocast_dtype('cpu', t.float16)
            out += [t.get_autocast_dtype('cpu'), t.mm(T(t, A), T(t, B)).dtype]
        finally:
            t.set_autocast_dtype('cpu', t.bfloat16)
            t.set_autocast_enabled('cpu', False)
        out += [t.is_autocast_enabled('cpu'), t.mm(T(t, A), T(t, B)).dtype]
        out += [t.autocast_increment_nesting(), t.autocast_decrement_nesting()]
        return out
    check(fn)


@pytest.mark.parametrize('case', [
    lambda t: t.autocast(3),
    lambda t: t.autocast('foo'),
    lambda t: t.autocast('meta'),
    lambda t: t.autocast('cpu')(3),
    lambda t: t.is_autocast_enabled('foo'),
    lambda t: t.get_autocast_dtype('meta'),
    lambda t: t.set_autocast_dtype('cpu', 3),
    lambda t: t.autocast('cpu', dtype=t.float32)._enabled,
    lambda t: t.autocast('cpu', dtype=t.float64)._enabled,
    lambda t: t.autocast('cuda')._enabled,
    lambda t: t.autocast('cpu', enabled=False).fast_dtype,
])
def test_construction(case):
    def fn(t):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return case(t)
    check(fn)


def test_unsupported_dtype_warns():
    for t in (torch, torchlike):
        with pytest.warns(UserWarning, match='CPU Autocast only supports'):
            ac = t.autocast('cpu', dtype=t.float32)
        with ac:
            assert not t.is_autocast_enabled('cpu')


# ---- custom_fwd / custom_bwd -------------------------------------------------------------------------

def _custom(t, cast_inputs):
    class MyMM(t.autograd.Function):
        @staticmethod
        @t.amp.custom_fwd(device_type='cpu', cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a.mm(b), t.is_autocast_enabled('cpu')

        @staticmethod
        @t.amp.custom_bwd(device_type='cpu')
        def backward(ctx, grad, _):
            a, b = ctx.saved_tensors
            return grad.mm(b.t()), a.t().mm(grad)
    return MyMM


@pytest.mark.parametrize('cast_inputs', [None, 'float32'])
def test_custom_fwd_bwd(cast_inputs):
    def fn(t):
        a = T(t, A).requires_grad_()
        b = T(t, B).requires_grad_()
        ci = None if cast_inputs is None else getattr(t, cast_inputs)
        with t.autocast('cpu'):
            y, inner = _custom(t, ci).apply(a, b)
        y.float().sum().backward()
        return y.dtype, inner, a.grad, b.grad
    check(fn, atol=1e-1, rtol=3e-2)


# ---- a small training loop -----------------------------------------------------------------------------

def test_no_grad_casts_are_not_cached():
    def fn(t):
        w = T(t, A).requires_grad_()
        with t.autocast('cpu'):
            with t.no_grad():
                t.mm(w, w)
            y = t.mm(w, w)
        return y.requires_grad
    check(fn)


@pytest.mark.parametrize('loss', ['cross_entropy', 'mse'])
def test_training_loop_losses_match(loss):
    Xd, Yd = _arr(32, 16), _RNG.integers(0, 4, size=(32,))
    W1, W2 = _arr(32, 16) * 0.25, _arr(4, 32) * 0.25

    def fn(t):
        m = t.nn.Sequential(t.nn.Linear(16, 32), t.nn.ReLU(), t.nn.Linear(32, 4))
        with t.no_grad():
            m[0].weight.copy_(T(t, W1))
            m[0].bias.zero_()
            m[2].weight.copy_(T(t, W2))
            m[2].bias.zero_()
        opt = t.optim.SGD(m.parameters(), lr=0.1)
        x, y = T(t, Xd), t.from_numpy(Yd.copy())
        losses = []
        for _ in range(5):
            opt.zero_grad()
            with t.autocast('cpu'):
                out = m(x)
                if loss == 'mse':
                    loss_v = t.nn.functional.mse_loss(out, t.nn.functional.one_hot(y, 4).float())
                else:
                    loss_v = t.nn.functional.cross_entropy(out, y)
            loss_v.backward()
            opt.step()
            losses.append(loss_v.detach())
        return t.stack(losses), out.dtype, m[0].weight.grad.dtype
    check(fn, atol=2e-2, rtol=2e-2)


_PINV = {
    'general': lambda t: t.linalg.pinv(T(t, R(5, 3))),
    'batch': lambda t: t.linalg.pinv(T(t, R(2, 3, 4))),
    'hermitian': lambda t: t.linalg.pinv(T(t, SPD), hermitian=True),
    'atol': lambda t: t.linalg.pinv(T(t, R(4, 4)), atol=0.5),
    'rtol_tensor': lambda t: t.linalg.pinv(T(t, R(4, 4)), rtol=t.tensor(0.2)),
    'empty': lambda t: t.linalg.pinv(T(t, R(0, 3))),
    'float64': lambda t: t.linalg.pinv(T(t, R(5, 3), 'float64')),
    'complex64': lambda t: t.linalg.pinv(T(t, R(5, 3), 'complex64')),
}


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('name', sorted(_PINV))
def test_pinv_autocast(name, dtype):
    # torch's pinv is not listed, so autocast reaches its final matmul: the float32 SVD (eigh) factors are
    # rounded to the autocast dtype and multiplied there; float64 / complex inputs are not cast
    check_sig(_PINV[name], dtype)
    check(_amp(_PINV[name], dtype), atol=2e-2, rtol=2e-2)


def test_pinv_outside_autocast_unchanged():
    check(_PINV['general'], atol=1e-4, rtol=1e-4)
    check(lambda t: t.pinverse(T(t, R(5, 3))), atol=1e-4, rtol=1e-4)
