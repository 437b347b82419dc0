"""Autocast op policies: PyTorch's per-device autocast lists (aten/src/ATen/autocast_mode.cpp) written
against torchlike's registry ops.

Kinds (as ATen's CastPolicy):
  'lower'    cast eligible floating args to the autocast dtype (matmul family, convolutions, ...)
  'fp32'     cast eligible floating args to float32 (losses, linalg, some pools, ...)
  'fp32_opt' float32 unless the call passes an explicit ``dtype`` (CUDA's softmax/sum/cumsum family)
  'promote'  cast eligible floating args to the widest floating dtype among them (cat, stack, ...)
  'banned'   raise (CUDA's binary_cross_entropy)

Autocast applies where torch's does: torch registers its policy on ATen ops, and its CompositeImplicit
ops (einsum, multi_dot, cross_entropy_loss's parts, ...) decompose *before* autocast sees them, so an
entry here names the registry op that does the work of torch's listed kernel. Where one registry op
serves several torch functions with different policies, the entry is a function of the static
arguments. The CPU table is checked op by op against real torch in compat_tests/test_amp.py.

Front-end entries (``*_ENTRY``, keyed by torch's ATen op name): where a torchlike front end validates dtypes
before it dispatches (linalg, fft, quantile, stft, index_copy reject bfloat16 or mixed dtypes with torch's
messages), the registry op's policy would come after the check has raised. torch's listed kernel *is* that
front end, so the policy is applied at its entry instead (autocast_mode.autocast_entry), and its body runs
with autocast suspended, as torch's wrapper excludes the Autocast key around the kernel. The names follow
ATen's, so a front end that torch does not list (linalg.pinv, linalg.lu_factor, fft.hfft2, the out= forms)
is not cast, and raises on bfloat16 as torch does.
"""
from .._engine.registry import REGISTRY

_NN = 'nn.functional.'

_CPU_LOWER = (
    '_conv', 'conv_tbc', 'mm', 'bmm', 'baddbmm', 'addmm', 'addbmm', '_linalg_vecdot', _NN + '_linear',
    '_matmul_dot', '_matmul_mv', '_matmul_vm', '_matmul_fold', '_matmul_batched', '_matmul_batched_t',
    _NN + '_prelu_kernel', _NN + '_scaled_dot_product_attention_math',
    '_einsum',            # torch's einsum contracts through bmm (lower); mul/sum/permute paths stay
    '_inner',             # torch's inner runs through matmul/tensordot -> mm
)

_CPU_FP32 = (
    '_avg_pool3d', _NN + '_binary_cross_entropy', '_grid_sampler_GridSampler2DBackward0',
    '_grid_sampler_GridSampler3DBackward0', '_prod', '_prod_dim', '_cdist', '_cdist_mm',
    'trace', 'view_as_complex', '_max_pool3d', '_max_unpool1d', '_max_unpool2d', '_max_unpool3d',
    '_adaptive_avg_pool3d', '_pad_ReflectionPad1DBackward0', '_pad_ReflectionPad2DBackward0',
    '_pad_ReplicationPad1DBackward0', '_pad_ReplicationPad2DBackward0', '_pad_ReplicationPad3DBackward0',
    _NN + '_mse_loss', _NN + '_cosine_embedding_loss', _NN + '_nll_loss', _NN + '_hinge_embedding_loss',
    _NN + '_poisson_nll_loss', _NN + '_smooth_l1_loss', _NN + '_cross_entropy_probs', _NN + '_l1_loss',
    _NN + '_huber_loss', _NN + '_margin_ranking_loss', _NN + '_soft_margin_loss', _NN + '_triplet_margin_loss',
    _NN + '_multi_margin_loss', _NN + '_ctc_loss', _NN + '_kl_div', _NN + '_multilabel_margin_loss',
    _NN + '_binary_cross_entropy_with_logits', '_fractional_max_pool2d', '_fractional_max_pool3d',
    '_adaptive_max_pool3d',
)

_CPU_PROMOTE = ('_cat', '_stack')

# front-end entries (ATen names; see the module docstring)
_CPU_FP32_ENTRY = (
    'quantile', 'nanquantile', 'stft', 'cholesky', 'cholesky_inverse', 'cholesky_solve', 'inverse', 'lu_solve',
    'orgqr', 'ormqr', 'pinverse', 'fft_fft', 'fft_ifft', 'fft_fft2', 'fft_ifft2', 'fft_fftn', 'fft_ifftn',
    'fft_rfft', 'fft_irfft', 'fft_rfft2', 'fft_irfft2', 'fft_rfftn', 'fft_irfftn', 'fft_hfft', 'fft_ihfft',
    'linalg_cond', 'linalg_matrix_rank', 'linalg_solve', 'linalg_cholesky', 'linalg_svdvals', 'linalg_eigvals',
    'linalg_eigvalsh', 'linalg_inv', 'linalg_householder_product', 'linalg_tensorinv', 'linalg_tensorsolve',
    'geqrf', '_lu_with_info', 'qr', 'svd', 'triangular_solve', 'linalg_qr', 'linalg_cholesky_ex', 'linalg_svd',
    'linalg_eig', 'linalg_eigh', 'linalg_lstsq', 'linalg_inv_ex',
)

_CPU_PROMOTE_ENTRY = ('index_copy',)


def _cpu_rnn(static, dyn):
    # torch's CPU LSTM/RNN run oneDNN's mkldnn_rnn_layer (autocast: lower) for padded, unprojected input;
    # GRU and packed sequences take the native path, which autocast does not touch.
    mode, proj = static[0], static[5]
    lengths = dyn[4]
    if mode in ('LSTM', 'RNN_TANH', 'RNN_RELU') and lengths is None and not proj:
        return 'lower'
    return None


def _matrix_power(static, dyn):
    # torch's matrix_power is a composite: linalg_inv for n < 0 (the front end calls linalg.inv, whose entry
    # casts to float32), then a clone for |n| <= 1 and a chain of matmuls (autocast: lower) for |n| >= 2
    return 'lower' if static[0] >= 2 else None


_CUDA_LOWER = (
    '_conv', 'convolution', 'conv_tbc', _NN + '_prelu_kernel', 'addmm', 'addmv', 'addr', '_matmul_dot',
    '_matmul_mv', '_matmul_vm', '_matmul_fold', '_matmul_batched', '_matmul_batched_t', '_einsum',
    '_einsum_mul', '_einsum_sum', '_einsum_perm', 'mm', 'mv', '_linalg_vecdot', _NN + '_linear', 'addbmm',
    'baddbmm', 'bmm', '_rnn_cell', _NN + '_scaled_dot_product_attention_math', '_inner',
)

_CUDA_FP32 = (
    'acos', 'asin', 'cosh', 'erfinv', 'exp', 'expm1', 'log', 'log10', 'log2', 'log1p', 'reciprocal', 'rsqrt',
    'sinh', 'tan', 'pow', '_pow_base', _NN + '_softplus', _NN + '_layer_norm', _NN + '_group_norm',
    '_nuclear_norm', _NN + '_cosine_similarity', _NN + '_poisson_nll_loss', _NN + '_cosine_embedding_loss',
    _NN + '_nll_loss', _NN + '_hinge_embedding_loss', _NN + '_kl_div', _NN + '_l1_loss', _NN + '_smooth_l1_loss',
    _NN + '_huber_loss', _NN + '_mse_loss', _NN + '_margin_ranking_loss', _NN + '_multilabel_margin_loss',
    _NN + '_soft_margin_loss', _NN + '_triplet_margin_loss', _NN + '_multi_margin_loss',
    _NN + '_binary_cross_entropy_with_logits', _NN + '_cross_entropy_probs', '_dist', _NN + '_pdist', '_cdist',
    '_cdist_mm', '_renorm', 'logsumexp', '_upsample_UpsampleNearest1DBackward0',
    '_upsample_UpsampleNearest2DBackward0', '_upsample_UpsampleNearest3DBackward0',
    '_upsample_UpsampleNearestExact1DBackward0', '_upsample_UpsampleNearestExact2DBackward0',
    '_upsample_UpsampleNearestExact3DBackward0', '_upsample_UpsampleLinear1DBackward0',
    '_upsample_UpsampleBilinear2DBackward0', '_upsample_UpsampleTrilinear3DBackward0',
    '_upsample_UpsampleBicubic2DBackward0',
)

_CUDA_FP32_OPT = ('_prod', '_prod_dim', 'softmax', 'log_softmax', 'cumprod', 'cumsum', '_vector_norm',
                  '_linalg_matrix_norm', '_sum', '_sum_dim')

_CUDA_PROMOTE = ('addcdiv', 'addcmul', 'atan2', _NN + '_bilinear', '_linalg_cross', 'dot', 'vdot',
                 '_grid_sampler_GridSampler2DBackward0', '_grid_sampler_GridSampler3DBackward0', '_index_put',
                 '_scatter_add', '_tensordot', '_cat', '_stack')

_CUDA_PROMOTE_ENTRY = ('index_copy',)

_CUDA_BANNED = (_NN + '_binary_cross_entropy',)


def _table(groups, special=None):
    """{op.name: kind or rule(static, dyn)} for the registry keys in ``groups`` ({kind: keys}).

    Keyed by name: an op's variants (copies with another grad_fn name) keep it, while ops that share one
    body (the _pad_* family, _max_pool1d/2d/3d) have different names and, in torch, different policies."""
    names = {}
    for key, o in REGISTRY.items():
        names.setdefault(o.name, []).append(key)
    t = {}
    items = [(k, kind) for kind, keys in groups.items() for k in keys] + list((special or {}).items())
    for k, kind in items:
        o = REGISTRY.get(k)
        if o is None:                    # an op this build does not have is simply not autocast
            continue
        assert names[o.name] == [k], f'autocast policy: op name {o.name} is ambiguous: {names[o.name]}'
        t[o.name] = kind
    return t


_TABLES = {}
_ENTRIES = {
    'cpu': dict([(k, 'fp32') for k in _CPU_FP32_ENTRY] + [(k, 'promote') for k in _CPU_PROMOTE_ENTRY]),
    'cuda': {k: 'promote' for k in _CUDA_PROMOTE_ENTRY},
}


def entry_table(device_type):
    """{ATen op name: kind} of the front-end entries of a device type (the CUDA lists for other accelerators)."""
    return _ENTRIES.get(device_type, _ENTRIES['cuda'])


def table(device_type):
    """The policy table of a device type (built on first use, when every op file is imported)."""
    t = _TABLES.get(device_type)
    if t is None:
        if device_type == 'cpu':
            t = _table({'lower': _CPU_LOWER, 'fp32': _CPU_FP32, 'promote': _CPU_PROMOTE},
                       {'_rnn': _cpu_rnn, '_linalg_matrix_power': _matrix_power})
        else:
            # CUDA's lists; other accelerators (xpu, mps, ...) are never the device of a torchlike tensor
            t = _table({'lower': _CUDA_LOWER, 'fp32': _CUDA_FP32, 'fp32_opt': _CUDA_FP32_OPT,
                        'promote': _CUDA_PROMOTE, 'banned': _CUDA_BANNED},
                       {'_linalg_matrix_power': _matrix_power})
        _TABLES[device_type] = t
    return t
