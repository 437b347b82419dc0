"""Reductions against real torch: values, dtypes, shapes, (values, indices) named tuples, tie-breaking,
NaN handling, gradients (incl. ties, zeros, NaN) and grad_fn names, exception types."""
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import make_input, assert_same_named, assert_same

rng = np.random.RandomState(0)
nan, inf = float('nan'), float('inf')

F = rng.randn(3, 4, 5).astype(np.float32)
F2 = rng.randn(4, 6).astype(np.float32)
F1 = rng.randn(7).astype(np.float32)
F0 = np.array(1.5, np.float32)
D2 = rng.randn(3, 4)                                         # float64
I = rng.randint(-5, 6, (3, 4, 5)).astype(np.int64)           # many ties
I2 = rng.randint(0, 4, (4, 6)).astype(np.int64)
I32 = rng.randint(-3, 4, (4, 6)).astype(np.int32)
U8 = rng.randint(0, 3, (3, 4)).astype(np.uint8)
B = rng.rand(3, 4) > 0.5
N = F2.copy()
N[0, 1] = N[0, 4] = N[2, 2] = nan
N[3, :] = nan                                                # an all-NaN row
TIES = np.array([[1., 3, 3, 2, 0, 3], [5, 5, 1, 5, 1, 1], [0, 0, 0, 0, 0, 0], [-1, 2, -1, 2, 7, -1]], np.float32)
ZER = np.array([[2., 0, 3, 4], [0, 1, 0, 2], [1, 2, 3, 4]], np.float32)
INFS = np.array([[inf, 1, 2], [-inf, -inf, -inf], [-inf, 0, 1], [inf, inf, 1]], np.float32)
E = np.zeros((0, 3), np.float32)
C = (rng.randn(3, 4) + 1j * rng.randn(3, 4)).astype(np.complex64)


_mk = make_input
_check = assert_same_named


def _id(case):
    return case[0]


# ---- forward: (id, fn(T, *tensors), inputs[, atol]) -------------------------------------------------
FWD = [
    # sum / nansum
    ('sum', lambda T, x: T.sum(x), [F]),
    ('sum_dim', lambda T, x: x.sum(1), [F]),
    ('sum_negdim', lambda T, x: T.sum(x, -1), [F]),
    ('sum_tuple', lambda T, x: x.sum((0, 2)), [F]),
    ('sum_list_keepdim', lambda T, x: T.sum(x, [0, -1], keepdim=True), [F]),
    ('sum_none_keepdim', lambda T, x: T.sum(x, dim=None, keepdim=True), [F]),
    ('sum_empty_dims', lambda T, x: x.sum(()), [F]),
    ('sum_int', lambda T, x: x.sum(), [I]),
    ('sum_int_dim', lambda T, x: x.sum(1), [I]),
    ('sum_int32', lambda T, x: x.sum(0), [I32]),
    ('sum_bool', lambda T, x: x.sum(0), [B]),
    ('sum_uint8', lambda T, x: x.sum(), [U8]),
    ('sum_dtype', lambda T, x: x.sum(dtype=T.float32), [I]),
    ('sum_pos_dtype', lambda T, x: T.sum(x, 1, True, dtype=T.float64), [F]),
    ('sum_float_to_int', lambda T, x: x.sum(dtype=T.int32), [F * 10]),
    ('sum_0d', lambda T, x: x.sum(0), [F0]),
    ('sum_0d_keep', lambda T, x: x.sum(-1, keepdim=True), [F0]),
    ('sum_empty', lambda T, x: x.sum(0), [E]),
    ('sum_empty_all', lambda T, x: x.sum(), [E]),
    ('sum_complex', lambda T, x: x.sum(1), [C]),
    ('sum_double', lambda T, x: x.sum(0), [D2]),
    ('nansum', lambda T, x: x.nansum(), [N]),
    ('nansum_dim', lambda T, x: T.nansum(x, 1), [N]),
    ('nansum_keep', lambda T, x: T.nansum(x, (0,), keepdim=True), [N]),
    ('nansum_int', lambda T, x: x.nansum(0), [I]),
    ('nansum_bool', lambda T, x: x.nansum(), [B]),
    # mean / nanmean
    ('mean', lambda T, x: x.mean(), [F]),
    ('mean_dims', lambda T, x: T.mean(x, (1, 2)), [F]),
    ('mean_keep', lambda T, x: x.mean(-1, True), [F]),
    ('mean_int_dtype', lambda T, x: x.mean(dtype=T.float64), [I]),
    ('mean_complex', lambda T, x: x.mean(0), [C]),
    ('mean_empty', lambda T, x: x.mean(), [E]),
    ('mean_empty_dim', lambda T, x: x.mean(0), [E]),
    ('mean_empty_dims', lambda T, x: x.mean(()), [F]),
    ('nanmean', lambda T, x: x.nanmean(), [N]),
    ('nanmean_dim', lambda T, x: T.nanmean(x, 1), [N]),
    ('nanmean_keep', lambda T, x: x.nanmean(0, keepdim=True), [N]),
    ('nanmean_dtype', lambda T, x: x.nanmean(dtype=T.float64), [N]),
    # prod
    ('prod', lambda T, x: x.prod(), [F2]),
    ('prod_dim', lambda T, x: T.prod(x, 1), [F]),
    ('prod_keep', lambda T, x: x.prod(-1, True), [F]),
    ('prod_int', lambda T, x: x.prod(), [I[0, 0]]),
    ('prod_int_dim', lambda T, x: x.prod(1), [I]),
    ('prod_bool', lambda T, x: x.prod(1), [B]),
    ('prod_dtype', lambda T, x: x.prod(1, dtype=T.float64), [I]),
    ('prod_dtype_full', lambda T, x: T.prod(x, dtype=T.float32), [I[0]]),
    ('prod_zeros', lambda T, x: x.prod(1), [ZER]),
    ('prod_0d', lambda T, x: x.prod(0), [F0]),
    # std / var / std_mean / var_mean
    ('std', lambda T, x: x.std(), [F]),
    ('std_dim', lambda T, x: T.std(x, 1), [F]),
    ('std_unbiased_pos', lambda T, x: x.std(1, False), [F]),
    ('std_unbiased_keep', lambda T, x: x.std(1, False, True), [F]),
    ('std_legacy_bool', lambda T, x: x.std(False), [F]),
    ('std_unbiased_kw', lambda T, x: T.std(x, unbiased=False), [F]),
    ('std_correction', lambda T, x: x.std(dim=(0, 2), correction=0, keepdim=True), [F]),
    ('std_correction_float', lambda T, x: x.std(1, correction=2.5), [F]),
    ('std_correction_big', lambda T, x: x.std(1, correction=4), [F]),
    ('std_none_keep', lambda T, x: x.std(dim=None, keepdim=True), [F]),
    ('std_list', lambda T, x: x.std([0, 1]), [F]),
    ('std_single', lambda T, x: x.std(), [F1[:1]]),
    ('std_const', lambda T, x: x.std(1), [TIES[2:3]]),
    ('var', lambda T, x: x.var(), [F]),
    ('var_dim', lambda T, x: T.var(x, -1, keepdim=True), [F]),
    ('var_complex', lambda T, x: x.var(1), [C]),
    ('std_complex', lambda T, x: x.std(), [C]),
    ('var_double', lambda T, x: x.var(0), [D2]),
    ('var_empty', lambda T, x: x.var(), [E]),
    ('std_mean', lambda T, x: T.std_mean(x, 1), [F]),
    ('std_mean_full', lambda T, x: T.std_mean(x), [F]),
    ('var_mean', lambda T, x: T.var_mean(x, (0, 1), keepdim=True), [F]),
    ('var_mean_unbiased', lambda T, x: T.var_mean(x, 1, False), [F]),
    ('var_mean_legacy', lambda T, x: T.var_mean(x, False), [F]),
    ('var_mean_correction', lambda T, x: T.var_mean(x, dim=1, correction=0), [F]),
    # max / min
    ('max', lambda T, x: x.max(), [F]),
    ('max_dim', lambda T, x: T.max(x, 1), [F]),
    ('max_dim_keep', lambda T, x: x.max(-1, True), [F]),
    ('max_dim_kw', lambda T, x: T.max(x, dim=0, keepdim=True), [F]),
    ('max_ties_first', lambda T, x: x.max(1), [TIES]),
    ('min_ties_first', lambda T, x: x.min(1), [TIES]),
    ('max_nan_dim', lambda T, x: x.max(1), [N]),
    ('min_nan_dim', lambda T, x: x.min(1), [N]),
    ('max_nan', lambda T, x: x.max(), [N]),
    ('min', lambda T, x: x.min(), [F]),
    ('max_int_dim', lambda T, x: x.max(2), [I]),
    ('min_int', lambda T, x: T.min(x), [I]),
    ('max_bool', lambda T, x: x.max(1), [B]),
    ('max_bool_full', lambda T, x: x.max(), [B]),
    ('max_0d_dim', lambda T, x: x.max(0), [F0]),
    ('max_0d_dim_keep', lambda T, x: T.max(x, -1, True), [F0]),
    ('max_binary', lambda T, x, y: T.max(x, y), [F2, F2[::-1].copy()]),
    ('max_binary_bcast', lambda T, x, y: T.max(x, y), [F2, F2[0]]),
    ('max_binary_kw', lambda T, x, y: T.max(x, other=y), [F2, I2]),
    ('max_binary_promote', lambda T, x, y: x.max(y), [I2, F2]),
    ('min_binary_nan', lambda T, x, y: T.min(x, y), [N, F2]),
    ('max_binary_0d', lambda T, x, y: T.max(x, y), [I2, np.array(2.5, np.float32)]),
    ('max_empty_ok', lambda T, x: x.max(1), [E]),
    ('amax', lambda T, x: x.amax(), [F]),
    ('amax_dims', lambda T, x: T.amax(x, (0, 2)), [F]),
    ('amin_keep', lambda T, x: x.amin(-1, True), [F]),
    ('amax_nan', lambda T, x: x.amax(1), [N]),
    ('amin_int', lambda T, x: T.amin(x, 1), [I]),
    ('amax_bool', lambda T, x: x.amax(0), [B]),
    ('amax_empty_ok', lambda T, x: x.amax(1), [E]),
    ('amax_list', lambda T, x: x.amax([0, -1]), [F]),
    ('aminmax', lambda T, x: T.aminmax(x), [F]),
    ('aminmax_dim', lambda T, x: T.aminmax(x, dim=1, keepdim=True), [F]),
    ('aminmax_int', lambda T, x: x.aminmax(dim=0), [I]),
    ('aminmax_bool', lambda T, x: T.aminmax(x), [B]),
    ('aminmax_nan', lambda T, x: T.aminmax(x, dim=1), [N]),
    ('aminmax_keep_all', lambda T, x: T.aminmax(x, keepdim=True), [F2]),
    ('argmax', lambda T, x: x.argmax(), [F]),
    ('argmax_dim', lambda T, x: T.argmax(x, 1), [F]),
    ('argmax_none_keep', lambda T, x: x.argmax(dim=None, keepdim=True), [F]),
    ('argmin_keep', lambda T, x: x.argmin(0, keepdim=True), [I]),
    ('argmax_ties', lambda T, x: x.argmax(1), [TIES]),
    ('argmin_ties', lambda T, x: T.argmin(x, 1), [TIES]),
    ('argmax_ties_int', lambda T, x: x.argmax(-1), [I]),
    ('argmax_nan', lambda T, x: x.argmax(1), [N]),
    ('argmin_nan', lambda T, x: x.argmin(1), [N]),
    ('argmax_0d', lambda T, x: x.argmax(), [F0]),
    ('argmax_0d_dim', lambda T, x: x.argmax(0, True), [F0]),
    # median / nanmedian / mode
    ('median_odd', lambda T, x: x.median(), [F1]),
    ('median_even', lambda T, x: x.median(), [F2]),
    ('median_dim', lambda T, x: T.median(x, 1), [F2]),
    ('median_dim_keep', lambda T, x: x.median(0, keepdim=True), [F]),
    ('median_ties', lambda T, x: x.median(1), [TIES]),
    ('median_nan', lambda T, x: x.median(), [N]),
    ('median_nan_dim', lambda T, x: x.median(1), [N]),
    ('median_int', lambda T, x: x.median(), [I]),
    ('median_int_dim', lambda T, x: x.median(0), [I2]),
    ('median_0d', lambda T, x: x.median(0), [F0]),
    ('median_empty', lambda T, x: x.median(), [E]),
    ('nanmedian', lambda T, x: x.nanmedian(), [N]),
    ('nanmedian_dim', lambda T, x: T.nanmedian(x, 1), [N[:3]]),
    # an all-NaN slice: torch's nth_element picks an arbitrary NaN; for short slices that is the first
    ('nanmedian_dim_allnan', lambda T, x: T.nanmedian(x, 1), [np.array([[nan, nan, nan], [nan, 2, 1]], np.float32)]),
    ('nanmedian_allnan', lambda T, x: x.nanmedian(), [N[3]]),
    ('nanmedian_nonan', lambda T, x: x.nanmedian(0), [F2]),
    ('mode', lambda T, x: x.mode(), [I]),
    ('mode_dim', lambda T, x: T.mode(x, 0, keepdim=True), [I]),
    ('mode_float_ties', lambda T, x: x.mode(1), [TIES]),
    ('mode_small', lambda T, x: x.mode(), [np.array([[1, 2, 2, 3, 3, 1, 0], [3, 1, 3, 1, 2, 0, 0]])]),
    ('mode_bool', lambda T, x: x.mode(0), [B]),
    ('mode_0d', lambda T, x: x.mode(), [F0]),
    # quantile / nanquantile
    ('quantile', lambda T, x: T.quantile(x, 0.3), [F2]),
    ('quantile_dim', lambda T, x: x.quantile(0.3, dim=1), [F2]),
    ('quantile_dim_keep', lambda T, x: T.quantile(x, 0.75, 0, True), [F]),
    ('quantile_q_tensor', lambda T, x, q: T.quantile(x, q, dim=1), [F2, np.array([0.1, 0.5, 0.9], np.float32)]),
    ('quantile_q_keep', lambda T, x, q: T.quantile(x, q, dim=-1, keepdim=True), [F, np.array([0.25, 1.], np.float32)]),
    ('quantile_q_none_keep', lambda T, x, q: T.quantile(x, q, keepdim=True), [F, np.array([0.25, 0.6], np.float32)]),
    ('quantile_q_0d', lambda T, x, q: T.quantile(x, q, dim=0), [F2, np.array(0.4, np.float32)]),
    ('quantile_lower', lambda T, x: T.quantile(x, 0.4, dim=1, interpolation='lower'), [F2]),
    ('quantile_higher', lambda T, x: T.quantile(x, 0.4, dim=1, interpolation='higher'), [F2]),
    ('quantile_midpoint', lambda T, x: T.quantile(x, 0.4, dim=1, interpolation='midpoint'), [F2]),
    ('quantile_nearest', lambda T, x, q: T.quantile(x, q, interpolation='nearest'),
     [np.arange(4.).astype(np.float32), np.array([0.5, 1 / 6., 0.9], np.float32)]),
    ('quantile_nan', lambda T, x: T.quantile(x, 0.4, dim=1), [N]),
    ('quantile_double', lambda T, x: T.quantile(x, 0.2), [D2]),
    ('quantile_0d', lambda T, x: T.quantile(x, 0.2), [F0]),
    ('nanquantile', lambda T, x: T.nanquantile(x, 0.4, dim=1), [N]),
    ('nanquantile_full', lambda T, x: x.nanquantile(0.7), [N]),
    ('nanquantile_q', lambda T, x, q: T.nanquantile(x, q, dim=1, interpolation='midpoint'),
     [N, np.array([0., 0.5, 1.], np.float32)]),
    # logsumexp
    ('logsumexp', lambda T, x: T.logsumexp(x, 1), [F]),
    ('logsumexp_dims_keep', lambda T, x: x.logsumexp((0, 2), keepdim=True), [F]),
    ('logsumexp_int', lambda T, x: T.logsumexp(x, 1), [I]),
    ('logsumexp_bool', lambda T, x: T.logsumexp(x, 1), [B]),
    ('logsumexp_inf', lambda T, x: T.logsumexp(x, 1), [INFS]),
    ('logsumexp_empty', lambda T, x: T.logsumexp(x, 0), [E]),
    ('logsumexp_0d', lambda T, x: T.logsumexp(x, 0), [F0]),
    ('logsumexp_big', lambda T, x: T.logsumexp(x, 0), [F1 * 100]),
    ('logsumexp_complex', lambda T, x: T.logsumexp(x, 1), [C]),
    # norm / dist / renorm
    ('norm', lambda T, x: x.norm(), [F]),
    ('norm_dim', lambda T, x: T.norm(x, dim=1), [F]),
    ('norm_p3', lambda T, x: x.norm(3, dim=1), [F]),
    ('norm_p1_dims', lambda T, x: x.norm(1, (0, 1)), [F]),
    ('norm_inf', lambda T, x: x.norm(inf), [F]),
    ('norm_neginf', lambda T, x: T.norm(x, -inf, dim=0), [F]),
    ('norm_p0', lambda T, x: x.norm(0), [ZER]),
    ('norm_p05', lambda T, x: x.norm(0.5, dim=1), [ZER]),
    ('norm_neg1', lambda T, x: x.norm(-1, dim=1), [F2]),
    ('norm_fro_dims', lambda T, x: x.norm('fro', (0, 1)), [F]),
    ('norm_fro_3d', lambda T, x: x.norm('fro'), [F]),
    ('norm_nuc', lambda T, x: x.norm('nuc'), [F2]),
    ('norm_nuc_dims_keep', lambda T, x: T.norm(x, 'nuc', dim=(0, 2), keepdim=True), [F]),
    ('norm_keep', lambda T, x: x.norm(dim=-1, keepdim=True), [F]),
    ('norm_dtype', lambda T, x: x.norm(dtype=T.float64), [F]),
    ('norm_p_none', lambda T, x: T.norm(x, p=None), [F2]),
    ('norm_complex', lambda T, x: x.norm(dim=1), [C]),
    ('norm_empty', lambda T, x: x.norm(), [E]),
    ('norm_0d', lambda T, x: x.norm(), [F0]),
    ('dist', lambda T, x, y: T.dist(x, y), [F2, F2[0]]),
    ('dist_p1', lambda T, x, y: x.dist(y, 1), [F2, F2[::-1].copy()]),
    ('dist_p3', lambda T, x, y: T.dist(x, y, 3), [F2, F2[::-1].copy()]),
    ('dist_inf', lambda T, x, y: T.dist(x, y, inf), [F2, F2[::-1].copy()]),
    ('dist_p0', lambda T, x, y: T.dist(x, y, 0), [ZER, ZER * 0]),
    ('dist_promote', lambda T, x, y: T.dist(x, y), [F2, F2.astype(np.float64)]),
    ('renorm', lambda T, x: x.renorm(2, 0, 1.0), [F2]),
    ('renorm_p1', lambda T, x: T.renorm(x, 1, 1, 0.5), [F]),
    ('renorm_inf', lambda T, x: x.renorm(inf, 2, 1.0), [F]),
    ('renorm_big', lambda T, x: x.renorm(2, 0, 100.), [F2]),
    # all / any / count_nonzero
    ('all', lambda T, x: x.all(), [B]),
    ('all_dim', lambda T, x: T.all(x, 1), [B]),
    ('any_keep', lambda T, x: x.any(0, keepdim=True), [B]),
    ('any_none_keep', lambda T, x: T.any(x, dim=None, keepdim=True), [B]),
    ('all_float', lambda T, x: x.all(1), [ZER]),
    ('any_int_dims', lambda T, x: x.any((0, 2)), [I]),
    ('all_uint8', lambda T, x: x.all(1), [U8]),
    ('any_uint8', lambda T, x: x.any(), [U8]),
    ('all_empty', lambda T, x: x.all(), [E]),
    ('any_empty_dim', lambda T, x: x.any(0), [E]),
    ('all_nan', lambda T, x: x.all(), [N]),
    ('all_complex', lambda T, x: x.all(1), [C]),
    ('all_empty_tuple', lambda T, x: x.all(()), [F2]),
    ('count_nonzero', lambda T, x: T.count_nonzero(x), [I]),
    ('count_nonzero_dim', lambda T, x: x.count_nonzero(0), [I]),
    ('count_nonzero_dims', lambda T, x: T.count_nonzero(x, dim=(0, 2)), [I]),
    ('count_nonzero_list', lambda T, x: x.count_nonzero([1]), [U8]),
    ('count_nonzero_nan', lambda T, x: x.count_nonzero(1), [N]),
    ('count_nonzero_bool', lambda T, x: x.count_nonzero(), [B]),
    # cumulative
    ('cumsum', lambda T, x: x.cumsum(1), [F]),
    ('cumsum_neg', lambda T, x: T.cumsum(x, dim=-1), [F]),
    ('cumsum_int', lambda T, x: x.cumsum(0), [I]),
    ('cumsum_int32', lambda T, x: x.cumsum(1), [I32]),
    ('cumsum_bool', lambda T, x: x.cumsum(1), [B]),
    ('cumsum_dtype', lambda T, x: x.cumsum(1, dtype=T.float64), [F]),
    ('cumsum_int_dtype', lambda T, x: T.cumsum(x, 1, dtype=T.float32), [I]),
    ('cumsum_0d', lambda T, x: x.cumsum(0), [F0]),
    ('cumsum_empty', lambda T, x: x.cumsum(0), [E]),
    ('cumsum_long', lambda T, x: x.cumsum(0), [rng.randn(5000).astype(np.float32)]),
    ('cumprod', lambda T, x: x.cumprod(1), [F]),
    ('cumprod_uint8', lambda T, x: x.cumprod(1), [U8]),
    ('cumprod_zeros', lambda T, x: T.cumprod(x, 1), [ZER]),
    ('cumprod_dtype', lambda T, x: x.cumprod(0, dtype=T.float64), [I32]),
    ('cummax', lambda T, x: x.cummax(1), [F]),
    ('cummax_ties_last', lambda T, x: T.cummax(x, 1), [TIES]),
    ('cummin_ties_last', lambda T, x: T.cummin(x, 1), [TIES]),
    ('cummax_int', lambda T, x: x.cummax(2), [I]),
    ('cummin_int', lambda T, x: x.cummin(0), [I]),
    ('cummax_nan', lambda T, x: x.cummax(1), [np.array([[1., nan, 3, nan, 0], [nan, 1, 2, 3, 4]], np.float32)]),
    ('cummin_nan', lambda T, x: x.cummin(1), [np.array([[1., nan, 3, nan, 0], [3, 2, 1, 0, nan]], np.float32)]),
    ('cummax_bool', lambda T, x: x.cummax(1), [B]),
    ('cummax_0d', lambda T, x: x.cummax(0), [F0]),
    ('cummax_empty', lambda T, x: x.cummax(0), [E]),
    ('logcumsumexp', lambda T, x: x.logcumsumexp(1), [F]),
    ('logcumsumexp_inf', lambda T, x: T.logcumsumexp(x, 1), [INFS]),
    ('logcumsumexp_big', lambda T, x: T.logcumsumexp(x, 0), [np.concatenate([[10000.], F1]).astype(np.float32)]),
    ('logcumsumexp_double', lambda T, x: T.logcumsumexp(x, 0), [D2]),
    ('logcumsumexp_0d', lambda T, x: x.logcumsumexp(0), [F0]),
    # softmax / log_softmax
    ('softmax', lambda T, x: T.softmax(x, 1), [F]),
    ('softmax_neg', lambda T, x: x.softmax(-1), [F]),
    ('softmax_dtype_pos', lambda T, x: T.softmax(x, 0, T.float64), [F]),
    ('softmax_int_dtype', lambda T, x: T.softmax(x, 1, dtype=T.float32), [I]),
    ('softmax_0d', lambda T, x: x.softmax(0), [F0]),
    ('softmax_inf', lambda T, x: T.softmax(x, 1), [INFS]),
    ('log_softmax', lambda T, x: T.log_softmax(x, 2), [F]),
    ('log_softmax_method_dtype', lambda T, x: x.log_softmax(0, dtype=T.float64), [F]),
    ('log_softmax_inf', lambda T, x: T.log_softmax(x, 1), [INFS]),
    ('log_softmax_big', lambda T, x: T.log_softmax(x, 0), [F1 * 1000]),
    # NumPy spellings accepted by torch's argument parser
    ('sum_axis', lambda T, x: x.sum(axis=1), [F]),
    ('mean_axis_keepdims', lambda T, x: T.mean(x, axis=(0, 2), keepdims=True), [F]),
    ('std_axis', lambda T, x: T.std(x, axis=1, keepdims=True), [F]),
    ('max_axis', lambda T, x: x.max(axis=1, keepdims=True), [F]),
    ('argmin_axis', lambda T, x: T.argmin(x, axis=0), [F]),
    ('all_axis', lambda T, x: x.all(axis=1), [B]),
    ('cumsum_axis', lambda T, x: T.cumsum(x, axis=0), [F]),
    ('softmax_axis', lambda T, x: x.softmax(axis=1), [F]),
    ('quantile_axis', lambda T, x: T.quantile(x, 0.5, axis=1, keepdims=True), [F2]),
]


@pytest.mark.parametrize('case', FWD, ids=_id)
def test_forward(case):
    name, fn, args = case[:3]
    atol = case[3] if len(case) > 3 else 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        th = fn(torch, *[_mk(torch, a) for a in args])
        tl = fn(torchlike, *[_mk(torchlike, a) for a in args])
    _check(tl, th, atol, atol)


# ---- gradients: (id, fn(T, *tensors) -> tensor, inputs) -------------------------------------------
# Every float input requires grad; the output is reduced with fixed random weights (catches permuted
# gradients); input gradients and the output's grad_fn name are compared.
GRAD = [
    ('sum', lambda T, x: x.sum(), [F]),
    ('sum_dim', lambda T, x: x.sum((0, 2), keepdim=True), [F]),
    ('sum_dtype', lambda T, x: x.sum(1, dtype=T.float64), [F]),
    ('nansum', lambda T, x: x.nansum(1), [N]),
    ('mean', lambda T, x: x.mean(), [F]),
    ('mean_dim', lambda T, x: x.mean(1), [F]),
    ('nanmean', lambda T, x: x.nanmean(1), [N[:3]]),
    ('prod', lambda T, x: x.prod(), [F2]),
    ('prod_one_zero', lambda T, x: x.prod(), [ZER[0]]),
    ('prod_two_zeros', lambda T, x: x.prod(), [ZER[1]]),
    ('prod_dim_zeros', lambda T, x: x.prod(1), [ZER]),
    ('std', lambda T, x: x.std(), [F]),
    ('std_dim', lambda T, x: x.std(1, keepdim=True), [F]),
    ('std_const', lambda T, x: x.std(1), [TIES[2:3]]),
    ('var_correction', lambda T, x: x.var(0, correction=0), [F]),
    ('var_complex', lambda T, x: x.var(), [C]),
    ('std_mean', lambda T, x: T.std_mean(x, 1)[0] * 2 + T.std_mean(x, 1)[1], [F]),
    ('var_mean', lambda T, x: T.var_mean(x, (0, 2))[0] * 3 + T.var_mean(x, (0, 2))[1], [F]),
    ('std_mean_node', lambda T, x: T.std_mean(x, 1)[0], [F]),
    ('max_full', lambda T, x: x.max(), [F]),
    ('max_full_ties', lambda T, x: x.max(), [TIES]),
    ('min_full_ties', lambda T, x: x.min(), [TIES]),
    ('max_full_nan', lambda T, x: x.max(), [N]),
    ('max_dim', lambda T, x: x.max(1).values, [F]),
    ('max_dim_ties', lambda T, x: x.max(1, keepdim=True)[0], [TIES]),
    ('min_dim_ties', lambda T, x: T.min(x, 1)[0], [TIES]),
    ('max_binary', lambda T, x, y: T.max(x, y), [TIES, TIES[::-1].copy()]),
    ('min_binary', lambda T, x, y: T.min(x, y), [F2, F2[::-1].copy()]),
    ('amax_ties', lambda T, x: x.amax(1), [TIES]),
    ('amin_ties_all', lambda T, x: x.amin(), [TIES]),
    ('amax_nan', lambda T, x: x.amax(1), [N]),
    ('aminmax', lambda T, x: T.aminmax(x, dim=1)[0] + T.aminmax(x, dim=1)[1] * 2, [TIES]),
    ('aminmax_node', lambda T, x: T.aminmax(x)[1], [F]),
    ('aminmax_nan', lambda T, x: T.aminmax(x, dim=1)[0] + T.aminmax(x, dim=1)[1] * 2, [N]),
    ('median_full', lambda T, x: x.median(), [F2]),
    ('median_full_ties', lambda T, x: x.median(), [TIES]),
    ('median_full_nan', lambda T, x: x.median(), [N]),
    ('median_dim', lambda T, x: x.median(1)[0], [F2]),
    ('nanmedian_full', lambda T, x: x.nanmedian(), [N]),
    ('nanmedian_dim', lambda T, x: x.nanmedian(1)[0], [N[:3]]),
    ('mode', lambda T, x: x.mode(1)[0], [TIES]),
    ('quantile', lambda T, x: T.quantile(x, 0.3), [F2]),
    ('quantile_dim', lambda T, x: T.quantile(x, 0.6, dim=1, keepdim=True), [F2]),
    ('quantile_q', lambda T, x: T.quantile(x, T.tensor([0.2, 0.9]), dim=0), [F2]),
    ('quantile_midpoint', lambda T, x: T.quantile(x, 0.3, dim=1, interpolation='midpoint'), [F2]),
    ('quantile_nearest', lambda T, x: T.quantile(x, 0.3, dim=1, interpolation='nearest'), [F2]),
    ('nanquantile', lambda T, x: T.nanquantile(x, 0.5, dim=1), [N[:3]]),
    ('logsumexp', lambda T, x: x.logsumexp(1), [F]),
    ('logsumexp_dims', lambda T, x: x.logsumexp((0, 2), keepdim=True), [F]),
    ('norm', lambda T, x: x.norm(), [F]),
    ('norm_dim', lambda T, x: x.norm(dim=1), [F]),
    ('norm_zero', lambda T, x: x.norm(dim=1), [np.array([[0., 0, 0], [1, 2, 0]], np.float32)]),
    ('norm_p1_zero', lambda T, x: x.norm(1, dim=1), [ZER]),
    ('norm_p3', lambda T, x: x.norm(3, dim=1), [ZER]),
    ('norm_p3_allzero', lambda T, x: x.norm(3), [np.zeros(3, np.float32)]),
    ('norm_p15', lambda T, x: x.norm(1.5, dim=1), [ZER]),
    ('norm_p05', lambda T, x: x.norm(0.5, dim=1), [ZER]),
    ('norm_neg1', lambda T, x: x.norm(-1, dim=1), [ZER]),
    ('norm_inf', lambda T, x: x.norm(inf, dim=1), [np.array([[1., -3, 3], [2, 0, 1]], np.float32)]),
    ('norm_neginf', lambda T, x: x.norm(-inf), [np.array([1., -3, 1], np.float32)]),
    ('norm_nuc', lambda T, x: x.norm('nuc'), [F2]),
    ('norm_complex', lambda T, x: x.norm(dim=1), [C]),
    ('dist', lambda T, x, y: T.dist(x, y), [F2, F2[::-1].copy()]),
    ('dist_p3', lambda T, x, y: T.dist(x, y, 3), [F2, F2[0]]),
    ('renorm', lambda T, x: x.renorm(2, 0, 1.0), [F2]),
    ('renorm_p1', lambda T, x: x.renorm(1, 1, 0.5), [F]),
    ('cumsum', lambda T, x: x.cumsum(1), [F]),
    ('cumprod', lambda T, x: x.cumprod(1), [F]),
    ('cumprod_zeros', lambda T, x: x.cumprod(1), [ZER]),
    ('cummax', lambda T, x: x.cummax(1)[0], [TIES]),
    ('cummin', lambda T, x: x.cummin(1).values, [F]),
    ('logcumsumexp', lambda T, x: x.logcumsumexp(1), [F]),
    ('softmax', lambda T, x: x.softmax(1), [F]),
    ('softmax_dtype', lambda T, x: T.softmax(x, 0, dtype=T.float64), [F]),
    ('log_softmax', lambda T, x: T.log_softmax(x, -1), [F]),
]


def _grad_run(lib, fn, args):
    ts = [_mk(lib, a, grad=a.dtype.kind in 'fc') for a in args]
    out = fn(lib, *ts)
    w = np.asarray(np.random.RandomState(1).randn(*out.shape), np.float32)
    wt = lib.tensor(w).to(out.dtype) if not out.dtype.is_complex else lib.tensor(w.astype(np.complex64))
    (out * wt).sum().abs().backward() if out.dtype.is_complex else (out * wt).sum().backward()
    return out, [t.grad for t in ts]


@pytest.mark.parametrize('case', GRAD, ids=_id)
def test_grad(case):
    name, fn, args = case
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        o_th, g_th = _grad_run(torch, fn, args)
        o_tl, g_tl = _grad_run(torchlike, fn, args)
    assert o_tl.grad_fn.name() == o_th.grad_fn.name()
    for a, b in zip(g_tl, g_th):
        if b is None:
            assert a is None
        else:
            assert_same(a, b, 1e-4, 1e-4)


# ---- exception types: (id, fn, inputs) --------------------------------------------------------------
ERR = [
    ('sum_dim_oob', lambda T, x: x.sum(3), [F]),
    ('sum_dim_neg_oob', lambda T, x: x.sum(-4), [F]),
    ('sum_dup_dims', lambda T, x: x.sum((0, 0)), [F]),
    ('sum_dup_dims_wrapped', lambda T, x: x.sum((0, -3)), [F]),
    ('sum_0d_dim1', lambda T, x: x.sum(1), [F0]),
    ('sum_float_dim', lambda T, x: x.sum(1.0), [F]),
    ('sum_not_tensor', lambda T, x: T.sum([1, 2]), [F]),
    ('mean_int', lambda T, x: x.mean(), [I]),
    ('mean_bool', lambda T, x: x.mean(0), [B]),
    ('mean_int_dtype', lambda T, x: x.mean(dtype=T.int64), [F]),
    ('nansum_complex', lambda T, x: x.nansum(), [C]),
    ('nanmean_int', lambda T, x: x.nanmean(), [I]),
    ('prod_tuple', lambda T, x: x.prod((0, 1)), [F]),
    ('prod_none', lambda T, x: T.prod(x, dim=None), [F]),
    ('prod_oob', lambda T, x: x.prod(5), [F]),
    ('std_int', lambda T, x: x.std(), [I]),
    ('var_oob', lambda T, x: x.var(3), [F]),
    ('std_unbiased_and_correction', lambda T, x: x.std(1, unbiased=True, correction=1), [F]),
    ('max_empty', lambda T, x: x.max(), [E]),
    ('max_dim_empty', lambda T, x: x.max(0), [E]),
    ('min_oob', lambda T, x: x.min(2), [E]),
    ('max_tuple_dim', lambda T, x: x.max((0, 1)), [F]),
    ('max_float_other', lambda T, x: T.max(x, 2.0), [F]),
    ('max_complex', lambda T, x: x.max(), [C]),
    ('max_dim_complex', lambda T, x: x.max(0), [C]),
    ('amax_empty_dim', lambda T, x: x.amax(0), [E]),
    ('amax_complex', lambda T, x: x.amax(), [C]),
    ('amax_oob', lambda T, x: x.amax(4), [F]),
    ('aminmax_empty', lambda T, x: T.aminmax(x), [E]),
    ('aminmax_positional_dim', lambda T, x: T.aminmax(x, 1), [F]),
    ('argmax_empty', lambda T, x: x.argmax(), [E]),
    ('argmax_empty_dim', lambda T, x: x.argmax(0), [E]),
    ('argmax_bool', lambda T, x: x.argmax(), [B]),
    ('argmin_complex', lambda T, x: x.argmin(), [C]),
    ('argmax_oob', lambda T, x: x.argmax(3), [F]),
    ('median_bool', lambda T, x: x.median(), [B]),
    ('median_complex', lambda T, x: x.median(), [C]),
    ('median_empty_dim', lambda T, x: x.median(0), [E]),
    ('median_oob', lambda T, x: x.median(2), [F2]),
    ('mode_empty_dim', lambda T, x: x.mode(0), [E]),
    ('mode_oob', lambda T, x: x.mode(3), [F2]),
    ('mode_complex', lambda T, x: x.mode(), [C]),
    ('quantile_int', lambda T, x: T.quantile(x, 0.5), [I]),
    ('quantile_q_oob', lambda T, x: T.quantile(x, 1.5), [F2]),
    ('quantile_q_tensor_oob', lambda T, x, q: T.quantile(x, q), [F2, np.array([0.5, 1.5], np.float32)]),
    ('quantile_q_dtype', lambda T, x, q: T.quantile(x, q), [F2, np.array([0.5], np.float64)]),
    ('quantile_q_2d', lambda T, x, q: T.quantile(x, q), [F2, np.array([[0.5]], np.float32)]),
    ('quantile_interp', lambda T, x: T.quantile(x, 0.5, interpolation='foo'), [F2]),
    ('quantile_empty', lambda T, x: T.quantile(x, 0.5), [E]),
    ('quantile_oob_dim', lambda T, x: T.quantile(x, 0.5, dim=2), [F2]),
    ('logsumexp_no_dim', lambda T, x: T.logsumexp(x), [F]),
    ('logsumexp_oob', lambda T, x: T.logsumexp(x, 3), [F]),
    ('logsumexp_empty_dims', lambda T, x: T.logsumexp(x, ()), [F2]),
    ('norm_int', lambda T, x: x.norm(), [I]),
    ('norm_nuc_3d', lambda T, x: x.norm('nuc'), [F]),
    ('norm_fro_3dims', lambda T, x: x.norm('fro', dim=(0, 1, 2)), [F]),
    ('norm_nuc_1dim', lambda T, x: x.norm('nuc', dim=1), [F2]),
    ('norm_bad_str', lambda T, x: x.norm('foo'), [F2]),
    ('norm_dtype_int', lambda T, x: x.norm(dtype=T.int64), [F2]),
    ('norm_inf_empty', lambda T, x: x.norm(inf), [E]),
    ('norm_oob', lambda T, x: x.norm(dim=3), [F]),
    ('dist_int', lambda T, x: T.dist(x, x), [I]),
    ('dist_shape', lambda T, x, y: T.dist(x, y), [F2, F1]),
    ('renorm_p0', lambda T, x: x.renorm(0, 0, 1.), [F2]),
    ('renorm_neg_maxnorm', lambda T, x: x.renorm(2, 0, -1.), [F2]),
    ('renorm_1d', lambda T, x: x.renorm(2, 0, 1.), [F1]),
    ('renorm_int', lambda T, x: x.renorm(2, 0, 1.), [I]),
    ('renorm_oob', lambda T, x: x.renorm(2, 3, 1.), [F2]),
    ('all_oob', lambda T, x: x.all(2), [B]),
    ('any_dup', lambda T, x: x.any((1, 1)), [B]),
    ('count_nonzero_dup', lambda T, x: x.count_nonzero([0, 0]), [I]),
    ('cumsum_no_dim', lambda T, x: x.cumsum(), [F]),
    ('cumsum_oob', lambda T, x: x.cumsum(3), [F]),
    ('cumprod_inplace_dtype', lambda T, x: x.cumprod_(1, dtype=T.float64), [F]),
    ('cummax_complex', lambda T, x: x.cummax(0), [C]),
    ('cummax_no_dim', lambda T, x: x.cummax(), [F]),
    ('logcumsumexp_int', lambda T, x: x.logcumsumexp(0), [I]),
    ('softmax_int', lambda T, x: T.softmax(x, 1), [I]),
    ('softmax_no_dim', lambda T, x: T.softmax(x), [F]),
    ('softmax_oob', lambda T, x: x.softmax(3), [F]),
    ('log_softmax_int', lambda T, x: x.log_softmax(0), [I]),
    ('sum_axis_and_dim', lambda T, x: x.sum(axis=0, dim=1), [F]),
    ('cumsum_keepdims', lambda T, x: x.cumsum(0, keepdims=True), [F]),
]


@pytest.mark.parametrize('case', ERR, ids=_id)
def test_error(case):
    name, fn, args = case
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(Exception) as e_th:
            fn(torch, *[_mk(torch, a) for a in args])
        with pytest.raises(Exception) as e_tl:
            fn(torchlike, *[_mk(torchlike, a) for a in args])
    assert type(e_tl.value) is type(e_th.value), (e_tl.value, e_th.value)


def test_dim_out_of_range_message():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
        torchlike.tensor(F).sum(3)


# ---- out=, in-place, methods, named tuples, warnings, saved results ---------------------------------

def _out_variants(T):
    x = _mk(T, F)
    o = T.empty(0)
    assert T.sum(x, 1, out=o) is o
    v, i = T.empty(0), T.empty(0, dtype=T.int64)
    r = T.max(x, 2, keepdim=True, out=(v, i))
    assert r[0] is v and r[1] is i
    c = T.empty(0)
    T.cumsum(x, 0, out=c)
    m = T.empty(0, dtype=T.float64)
    T.mean(x, (0, 1), out=m)            # out= casts to the out tensor's dtype
    return o, v, i, c, m


def test_out_variants():
    for a, b in zip(_out_variants(torchlike), _out_variants(torch)):
        assert_same(a, b)


def test_cumulative_inplace():
    for dt in (np.float32, np.int32):
        a = F2.astype(dt) if dt is np.float32 else I32
        x_th, x_tl = torch.from_numpy(a.copy()), torchlike.from_numpy(a.copy())
        assert x_tl.cumsum_(1) is x_tl
        x_th.cumsum_(1)
        assert_same(x_tl, x_th)
        x_th.cumprod_(0)
        x_tl.cumprod_(0)
        assert_same(x_tl, x_th)


def test_renorm_inplace():
    x_th, x_tl = torch.from_numpy(F2.copy()), torchlike.from_numpy(F2.copy())
    assert x_tl.renorm_(2, 0, 1.0) is x_tl
    x_th.renorm_(2, 0, 1.0)
    assert_same(x_tl, x_th)


def test_named_tuple_fields():
    for T in (torch, torchlike):
        x = _mk(T, TIES)
        r = x.max(1)
        assert r.values is r[0] and r.indices is r[1]
        mm = T.aminmax(x)
        assert mm.min.item() == -1 and mm.max.item() == 7
        assert type(T.std_mean(x)) is tuple
        assert type(T.var_mean(x, 1)) is tuple
    assert type(torchlike.tensor(F).median(0)).__name__ == 'median'


def test_dof_warning():
    with pytest.warns(UserWarning, match='degrees of freedom'):
        torchlike.tensor([1.]).std()
    with pytest.warns(UserWarning, match='degrees of freedom'):
        torchlike.var_mean(torchlike.tensor(F), 1, correction=5)


def test_softmax_saves_result():
    # softmax's backward uses its output: modifying it in place must fail at backward, as in torch
    for T in (torch, torchlike):
        x = _mk(T, F2, grad=True)
        y = x.softmax(1)
        y.mul_(2)
        with pytest.raises(RuntimeError, match='modified by an inplace operation'):
            y.sum().backward()


def test_sum_does_not_save_input():
    # sum's backward needs no saved values: modifying its input in place afterwards is fine (as in torch)
    grads = []
    for T in (torch, torchlike):
        x = _mk(T, F2, grad=True)
        y = x * 1
        s = y.sum()
        y.mul_(2)
        s.backward()
        grads.append(x.grad)
    assert_same(grads[1], grads[0])


def test_double_backward_through_reductions():
    def f(T):
        x = _mk(T, F2, grad=True)
        y = (x.std(1) * x.logsumexp(1)).sum() + x.norm() + x.max()
        g, = T.autograd.grad(y, x, create_graph=True)
        g.pow(2).sum().backward() if hasattr(g, 'pow') else (g * g).sum().backward()
        return x.grad
    assert_same(f(torchlike), f(torch), 1e-4, 1e-4)


def test_compiled_once_per_shape():
    # equivalent dim spellings share one compiled program (dims are normalised before dispatch)
    from torchlike._ops import reduction as R
    x = torchlike.tensor(F)
    x.sum(1)
    n = len(R._sum_dim.cache)
    x.sum(-2)
    x.sum([1])
    x.sum((-2,))
    assert len(R._sum_dim.cache) == n
