"""Shape ops (views and copies) against real torch: values, dtypes, shapes, exception types, gradients,
view semantics (writes through views, reads after in-place on the base) and strides."""
import warnings

import numpy as np
import pytest

import torch
import torchlike
from conftest import check, assert_same

_rng = np.random.RandomState(0)
A23 = _rng.randn(2, 3).astype('float32')
A234 = _rng.randn(2, 3, 4).astype('float32')
V4 = _rng.randn(4).astype('float32')
V3 = _rng.randn(3).astype('float32')


def x(T):
    return T.tensor(A23)


def y(T):
    return T.tensor(A234)


def w(T):
    return T.tensor(V4)


def u(T):
    return T.tensor(V3)


def z(T):
    return T.tensor(1.5)


def i(T):
    return T.arange(6).reshape(2, 3)


# name -> fn(T); the result (or the exception type) must match torch.
CASES = {
    # view / reshape
    'view_varargs': lambda T: x(T).view(3, 2),
    'view_tuple': lambda T: x(T).view((3, 2)),
    'view_infer': lambda T: y(T).view(-1, 4),
    'view_kw': lambda T: x(T).view(size=(6,)),
    'view_bad': lambda T: x(T).view(4),
    'view_two_infer': lambda T: x(T).view(-1, -1),
    'view_zero_ambiguous': lambda T: T.zeros(0, 3).view(-1, 0),
    'view_noncontig': lambda T: x(T).t().view(-1),
    'view_noncontig_ok': lambda T: y(T).transpose(0, 1).view(3, 2, 2, 2),
    'view_float_size': lambda T: x(T).view(2.0, 3),
    'view_same_dtype': lambda T: x(T).view(T.float32),
    'reshape_fn': lambda T: T.reshape(y(T), (4, -1)),
    'reshape_fn_int': lambda T: T.reshape(x(T), 6),
    'reshape_method': lambda T: y(T).reshape(6, 4),
    'reshape_kw': lambda T: y(T).reshape(shape=(-1,)),
    'reshape_scalar': lambda T: T.ones(1).reshape(()),
    'reshape_to_scalar_bad': lambda T: x(T).reshape(()),
    'reshape_noncontig': lambda T: y(T).transpose(0, 2).reshape(4, 6),
    'view_as': lambda T: x(T).view_as(T.zeros(3, 2)),
    'reshape_as': lambda T: y(T).reshape_as(T.zeros(4, 6)),
    'flatten': lambda T: y(T).flatten(),
    'flatten_range': lambda T: y(T).flatten(1),
    'flatten_mid': lambda T: T.flatten(y(T), 0, 1),
    'flatten_scalar': lambda T: z(T).flatten(),
    'flatten_same_is_self': lambda T: (lambda a: a.flatten(1, 1) is a)(y(T)),
    'flatten_bad_order': lambda T: y(T).flatten(2, 1),
    'flatten_bad_dim': lambda T: x(T).flatten(2),
    'ravel': lambda T: y(T).transpose(0, 1).ravel(),
    'unflatten': lambda T: y(T).unflatten(2, (2, 2)),
    'unflatten_infer': lambda T: T.unflatten(y(T), -1, (-1, 2)),
    'unflatten_bad': lambda T: y(T).unflatten(1, (2, 2)),
    'unflatten_empty': lambda T: y(T).unflatten(1, ()),
    # transposes
    'permute_varargs': lambda T: y(T).permute(2, 0, 1),
    'permute_tuple': lambda T: y(T).permute((1, 2, 0)),
    'permute_fn': lambda T: T.permute(y(T), (2, 1, 0)),
    'permute_kw': lambda T: x(T).permute(dims=(1, 0)),
    'permute_len': lambda T: y(T).permute(0, 1),
    'permute_dup': lambda T: y(T).permute(0, 0, 1),
    'permute_range': lambda T: y(T).permute(0, 1, 3),
    'transpose': lambda T: y(T).transpose(0, 2),
    'transpose_neg': lambda T: T.transpose(y(T), -1, 1),
    'transpose_bad': lambda T: x(T).transpose(0, 2),
    'swapaxes': lambda T: T.swapaxes(y(T), 0, 1),
    'swapdims': lambda T: y(T).swapdims(2, 0),
    't_2d': lambda T: x(T).t(),
    't_1d': lambda T: w(T).t(),
    't_0d': lambda T: T.t(z(T)),
    't_3d': lambda T: y(T).t(),
    'T_2d': lambda T: x(T).T,
    'T_3d': lambda T: y(T).T,
    'mT': lambda T: y(T).mT,
    'mT_1d': lambda T: w(T).mT,
    'H': lambda T: x(T).H,
    'H_3d': lambda T: y(T).H,
    'mH': lambda T: y(T).mH,
    'H_complex': lambda T: T.tensor([[1 + 2j, 3 - 1j], [0.5j, 2.0]]).H * 1,
    'mH_complex': lambda T: T.tensor([[[1 + 2j, 3 - 1j], [0.5j, 2.0]]]).mH * 1,
    'adjoint': lambda T: T.adjoint(y(T)),
    'adjoint_1d': lambda T: w(T).adjoint(),
    'movedim': lambda T: y(T).movedim(0, 2),
    'movedim_tuple': lambda T: T.movedim(y(T), (0, 1), (2, 0)),
    'moveaxis': lambda T: T.moveaxis(y(T), -1, 0),
    'movedim_dup': lambda T: y(T).movedim((0, 0), (1, 2)),
    'movedim_len': lambda T: y(T).movedim((0,), (1, 2)),
    'movedim_range': lambda T: y(T).movedim(3, 0),
    # squeeze / unsqueeze
    'squeeze_all': lambda T: T.ones(1, 2, 1, 3, 1).squeeze(),
    'squeeze_dim': lambda T: T.ones(1, 2, 1).squeeze(2),
    'squeeze_dim_not1': lambda T: T.ones(1, 2, 1).squeeze(1),
    'squeeze_dims': lambda T: T.squeeze(T.ones(1, 2, 1, 1), (0, 3)),
    'squeeze_dims_dup': lambda T: T.ones(1, 2).squeeze((0, 0)),
    'squeeze_range': lambda T: x(T).squeeze(2),
    'squeeze_scalar': lambda T: z(T).squeeze(0),
    'unsqueeze': lambda T: x(T).unsqueeze(1),
    'unsqueeze_end': lambda T: x(T).unsqueeze(-1),
    'unsqueeze_range': lambda T: x(T).unsqueeze(3),
    'unsqueeze_scalar': lambda T: T.unsqueeze(z(T), 0),
    # expand
    'expand': lambda T: x(T).expand(4, 2, 3),
    'expand_keep': lambda T: x(T).unsqueeze(1).expand(-1, 5, -1),
    'expand_tuple': lambda T: w(T).expand((3, 4)),
    'expand_kw': lambda T: w(T).expand(size=(2, 4)),
    'expand_bad': lambda T: x(T).expand(3, 3),
    'expand_too_few': lambda T: x(T).expand(3),
    'expand_leading_neg': lambda T: x(T).expand(-1, 2, 3),
    'expand_as': lambda T: w(T).expand_as(T.zeros(3, 4)),
    'broadcast_to': lambda T: T.broadcast_to(u(T), (2, 3)),
    'broadcast_to_bad': lambda T: T.broadcast_to(u(T), (2, 4)),
    'broadcast_tensors': lambda T: T.broadcast_tensors(x(T), u(T), z(T)),
    'broadcast_tensors_same_is_input': lambda T: (lambda a: T.broadcast_tensors(a, a)[0] is a)(x(T)),
    'broadcast_tensors_bad': lambda T: T.broadcast_tensors(x(T), w(T)),
    'broadcast_shapes': lambda T: T.broadcast_shapes((2, 1), (3,), (1, 1, 1)),
    'broadcast_shapes_int': lambda T: T.broadcast_shapes(2, (3, 1)),
    'broadcast_shapes_empty': lambda T: T.broadcast_shapes(),
    'broadcast_shapes_bad': lambda T: T.broadcast_shapes((2,), (3,)),
    'broadcast_shapes_neg': lambda T: T.broadcast_shapes((-1,), (3,)),
    # narrow / select / unbind
    'narrow': lambda T: y(T).narrow(2, 1, 2),
    'narrow_tensor_start': lambda T: T.narrow(y(T), 1, T.tensor(1), 2),
    'narrow_neg_start': lambda T: y(T).narrow(-1, -2, 2),
    'narrow_empty': lambda T: x(T).narrow(1, 3, 0),
    'narrow_too_long': lambda T: x(T).narrow(1, 2, 2),
    'narrow_start_range': lambda T: x(T).narrow(1, 4, 0),
    'narrow_neg_len': lambda T: x(T).narrow(1, 0, -1),
    'narrow_scalar': lambda T: z(T).narrow(0, 0, 1),
    'narrow_copy': lambda T: T.narrow_copy(y(T), 0, 1, 1),
    'select': lambda T: y(T).select(1, 2),
    'select_neg': lambda T: T.select(y(T), -1, -1),
    'select_tensor_index': lambda T: y(T).select(0, T.tensor(1)),
    'select_range': lambda T: x(T).select(0, 2),
    'select_scalar': lambda T: z(T).select(0, 0),
    'unbind': lambda T: y(T).unbind(1),
    'unbind_fn': lambda T: T.unbind(y(T), -1),
    'unbind_empty': lambda T: T.zeros(0, 2).unbind(0),
    'unbind_scalar': lambda T: z(T).unbind(0),
    'iter_rows': lambda T: tuple(x(T)),
    # split family
    'split_int': lambda T: y(T).split(3, 2),
    'split_list': lambda T: T.split(y(T), [1, 3], dim=2),
    'split_tuple': lambda T: T.split(y(T), (1, 1)),
    'split_kw': lambda T: x(T).split(split_size=1),
    'split_bad_sum': lambda T: x(T).split([1, 1], 1),
    'split_zero': lambda T: x(T).split(0),
    'split_neg': lambda T: x(T).split(-1),
    'split_empty_dim': lambda T: T.zeros(0, 2).split(2),
    'split_with_sizes': lambda T: y(T).split_with_sizes([2, 1], 1),
    'chunk': lambda T: y(T).chunk(3, 2),
    'chunk_fewer': lambda T: T.chunk(T.zeros(6), 4),
    'chunk_more_than_size': lambda T: T.zeros(3).chunk(5),
    'chunk_empty': lambda T: T.zeros(0, 2).chunk(3),
    'chunk_zero': lambda T: x(T).chunk(0),
    'tensor_split_sections': lambda T: y(T).tensor_split(3, 2),
    'tensor_split_more_sections': lambda T: x(T).tensor_split(4, 1),
    'tensor_split_indices': lambda T: T.tensor_split(y(T), [1, 3], dim=2),
    'tensor_split_unordered': lambda T: y(T).tensor_split([3, 1], 2),
    'tensor_split_neg_index': lambda T: y(T).tensor_split([-1], 2),
    'tensor_split_tensor_indices': lambda T: y(T).tensor_split(T.tensor([1, 2]), 2),
    'tensor_split_tensor_sections': lambda T: y(T).tensor_split(T.tensor(3), 2),
    'tensor_split_float_tensor': lambda T: y(T).tensor_split(T.tensor([1.0]), 2),
    'tensor_split_2d_tensor': lambda T: y(T).tensor_split(T.tensor([[1]]), 2),
    'tensor_split_zero': lambda T: y(T).tensor_split(0),
    'tensor_split_kw_sections': lambda T: y(T).tensor_split(sections=2, dim=2),
    'tensor_split_kw_indices': lambda T: y(T).tensor_split(indices=[1], dim=1),
    'hsplit': lambda T: y(T).hsplit(3),
    'hsplit_indices': lambda T: T.hsplit(y(T), [1]),
    'hsplit_1d': lambda T: w(T).hsplit(2),
    'hsplit_indivisible': lambda T: y(T).hsplit(2),
    'hsplit_scalar': lambda T: z(T).hsplit(1),
    'vsplit': lambda T: T.vsplit(y(T), 2),
    'vsplit_1d': lambda T: w(T).vsplit(1),
    'dsplit': lambda T: y(T).dsplit([1, 3]),
    'dsplit_2d': lambda T: x(T).dsplit(1),
    # diagonal / unfold / as_strided
    'diagonal': lambda T: y(T).diagonal(),
    'diagonal_offset_dims': lambda T: T.diagonal(y(T), 1, 0, 2),
    'diagonal_neg': lambda T: y(T).diagonal(-1, 2, 1),
    'diagonal_big_offset': lambda T: x(T).diagonal(5),
    'diagonal_same_dims': lambda T: y(T).diagonal(0, 1, 1),
    'diagonal_range': lambda T: x(T).diagonal(0, 2, 0),
    'unfold': lambda T: y(T).unfold(2, 2, 1),
    'unfold_step': lambda T: y(T).unfold(1, 2, 2),
    'unfold_neg_dim': lambda T: y(T).unfold(-1, 3, 1),
    'unfold_scalar': lambda T: z(T).unfold(0, 1, 1),
    'unfold_zero_size': lambda T: x(T).unfold(1, 0, 1),
    'unfold_too_big': lambda T: y(T).unfold(2, 5, 1),
    'unfold_step0': lambda T: y(T).unfold(2, 2, 0),
    'as_strided': lambda T: T.as_strided(x(T), (3, 3), (1, 1)),
    'as_strided_offset': lambda T: x(T).as_strided((2, 2), (1, 2), 1),
    'as_strided_overlap': lambda T: T.as_strided(y(T), (4, 3), (2, 5), 3),
    'as_strided_oob': lambda T: x(T).as_strided((2, 2), (1, 1), 5),
    'as_strided_len': lambda T: x(T).as_strided((2, 2), (1,)),
    'as_strided_neg_stride': lambda T: x(T).as_strided((2, 2), (1, -1)),
    'as_strided_neg_offset': lambda T: x(T).as_strided((2, 2), (1, 1), -1),
    'as_strided_on_view': lambda T: T.arange(20.).reshape(4, 5).narrow(1, 1, 3).as_strided((2, 2), (5, 1), 7),
    'as_strided_on_view_default_offset': lambda T: T.arange(20.).reshape(4, 5).narrow(0, 1, 2).as_strided((2, 2), (1, 2)),
    'as_strided_on_transpose': lambda T: T.arange(20.).reshape(4, 5).t().as_strided((2, 2), (1, 5)),
    # complex pairs
    'view_as_real': lambda T: T.view_as_real(T.tensor([1 + 2j, 3 - 1j])),
    'view_as_real_real': lambda T: T.view_as_real(x(T)),
    'view_as_complex': lambda T: T.view_as_complex(y(T).reshape(2, 6, 2)),
    'view_as_complex_double': lambda T: T.view_as_complex(y(T).double().reshape(12, 2)),
    'view_as_complex_bad_last': lambda T: T.view_as_complex(x(T)),
    'view_as_complex_int': lambda T: T.view_as_complex(i(T).reshape(3, 2)),
    'view_as_complex_scalar': lambda T: T.view_as_complex(z(T)),
    # cat family
    'cat': lambda T: T.cat([x(T), x(T)]),
    'cat_dim1': lambda T: T.cat((x(T), x(T), x(T)), 1),
    'cat_neg_dim': lambda T: T.cat([y(T), y(T)], dim=-1),
    'cat_promote_int_float': lambda T: T.cat([x(T), i(T)]),
    'cat_promote_bool_int': lambda T: T.cat([i(T), i(T).bool()]),
    'cat_promote_double': lambda T: T.cat([x(T), x(T).double()], 1),
    'cat_legacy_empty': lambda T: T.cat([x(T), T.tensor([], dtype=T.float64)]),
    'cat_legacy_empty_first': lambda T: T.cat([T.tensor([]), i(T)]),
    'cat_all_empty': lambda T: T.cat([T.tensor([], dtype=T.float64), T.tensor([])]),
    'cat_zero_rows': lambda T: T.cat([x(T), T.zeros(0, 3)]),
    'cat_empty_2d': lambda T: T.cat([T.zeros(2, 0), T.zeros(3, 0)]),
    'cat_ndim_mismatch': lambda T: T.cat([x(T), u(T)]),
    'cat_shape_mismatch': lambda T: T.cat([x(T), x(T).narrow(1, 0, 2)]),
    'cat_dim_range': lambda T: T.cat([x(T), x(T)], 2),
    'cat_scalars': lambda T: T.cat([z(T), z(T)]),
    'cat_empty_list': lambda T: T.cat([]),
    'cat_tensor_arg': lambda T: T.cat(x(T)),
    'cat_non_tensor': lambda T: T.cat([x(T), 1]),
    'concat': lambda T: T.concat([x(T), x(T)], dim=1),
    'concatenate_axis': lambda T: T.concatenate([x(T), x(T)], axis=1),
    'stack': lambda T: T.stack([x(T), x(T)]),
    'stack_dim': lambda T: T.stack([x(T), x(T), x(T)], 2),
    'stack_neg': lambda T: T.stack((x(T), x(T)), -1),
    'stack_promote': lambda T: T.stack([x(T), i(T)], 1),
    'stack_scalars': lambda T: T.stack([z(T), z(T)]),
    'stack_shape_mismatch': lambda T: T.stack([x(T), x(T).narrow(1, 0, 2)]),
    'stack_dim_range': lambda T: T.stack([x(T), x(T)], 3),
    'stack_empty': lambda T: T.stack([]),
    'stack_tensor_arg': lambda T: T.stack(x(T)),
    'hstack': lambda T: T.hstack([x(T), x(T)]),
    'hstack_1d_scalar': lambda T: T.hstack([w(T), z(T)]),
    'vstack': lambda T: T.vstack([x(T), u(T)]),
    'row_stack': lambda T: T.row_stack([w(T), w(T)]),
    'dstack': lambda T: T.dstack([x(T), x(T)]),
    'dstack_scalars': lambda T: T.dstack([z(T), z(T)]),
    'column_stack': lambda T: T.column_stack([w(T), w(T).reshape(4, 1), T.zeros(4, 2)]),
    'column_stack_scalars': lambda T: T.column_stack([z(T), z(T)]),
    # repeat / tile / repeat_interleave
    'repeat': lambda T: x(T).repeat(2, 3),
    'repeat_more_dims': lambda T: x(T).repeat(2, 1, 2),
    'repeat_tuple': lambda T: x(T).repeat((2, 2)),
    'repeat_zero': lambda T: x(T).repeat(0, 2),
    'repeat_scalar': lambda T: z(T).repeat(3),
    'repeat_too_few': lambda T: x(T).repeat(2),
    'repeat_negative': lambda T: x(T).repeat(-1, 2),
    'repeat_none': lambda T: x(T).repeat(),
    'tile': lambda T: T.tile(x(T), (2,)),
    'tile_more': lambda T: T.tile(x(T), [2, 1, 2]),
    'tile_method_varargs': lambda T: x(T).tile(2, 2),
    'tile_int': lambda T: T.tile(x(T), 2),
    'tile_empty': lambda T: x(T).tile(()),
    'repeat_interleave_int': lambda T: x(T).repeat_interleave(2),
    'repeat_interleave_dim': lambda T: T.repeat_interleave(y(T), 2, dim=1),
    'repeat_interleave_tensor': lambda T: x(T).repeat_interleave(T.tensor([1, 2, 0]), dim=1),
    'repeat_interleave_tensor_flat': lambda T: x(T).repeat_interleave(T.tensor([1, 0, 2, 1, 1, 3])),
    'repeat_interleave_scalar_tensor': lambda T: x(T).repeat_interleave(T.tensor(2), dim=0),
    'repeat_interleave_one_elem': lambda T: x(T).repeat_interleave(T.tensor([3]), dim=0),
    'repeat_interleave_output_size': lambda T: x(T).repeat_interleave(T.tensor([1, 2, 0]), dim=1, output_size=3),
    'repeat_interleave_bad_output_size': lambda T: x(T).repeat_interleave(T.tensor([1, 2, 0]), dim=1,
                                                                           output_size=4),
    'repeat_interleave_int_output_size': lambda T: x(T).repeat_interleave(2, dim=1, output_size=5),
    'repeat_interleave_len_mismatch': lambda T: x(T).repeat_interleave(T.tensor([1, 2]), dim=1),
    'repeat_interleave_negative': lambda T: x(T).repeat_interleave(T.tensor([1, -1, 2]), dim=1),
    'repeat_interleave_neg_int': lambda T: x(T).repeat_interleave(-1),
    'repeat_interleave_float_repeats': lambda T: x(T).repeat_interleave(T.tensor([1.0, 2, 0]), dim=1),
    'repeat_interleave_dim_range': lambda T: x(T).repeat_interleave(2, dim=2),
    'repeat_interleave_repeats_only': lambda T: T.repeat_interleave(T.tensor([1, 2, 3])),
    'repeat_interleave_int_tensor': lambda T: i(T).repeat_interleave(2, 0),
    # flips / rolls / rotations
    'flip': lambda T: T.flip(y(T), (0, 2)),
    'flip_method_varargs': lambda T: y(T).flip(0, 1),
    'flip_method_int': lambda T: y(T).flip(-1),
    'flip_fn_int': lambda T: T.flip(x(T), 0),
    'flip_dup': lambda T: x(T).flip(0, 0),
    'flip_range': lambda T: x(T).flip(2),
    'flip_empty_dims': lambda T: x(T).flip(()),
    'flip_scalar': lambda T: z(T).flip(0),
    'fliplr': lambda T: T.fliplr(y(T)),
    'fliplr_1d': lambda T: T.fliplr(w(T)),
    'flipud': lambda T: y(T).flipud(),
    'flipud_scalar': lambda T: T.flipud(z(T)),
    'roll_flat': lambda T: x(T).roll(1),
    'roll_dim': lambda T: T.roll(y(T), -1, 2),
    'roll_multi': lambda T: y(T).roll((1, -2), (0, 2)),
    'roll_big_shift': lambda T: y(T).roll(7, 1),
    'roll_misaligned': lambda T: x(T).roll(1, (0, 1)),
    'roll_no_dims_multi': lambda T: T.roll(x(T), (1, 2)),
    'roll_empty': lambda T: x(T).roll((), ()),
    'roll_scalar': lambda T: z(T).roll(2),
    'roll_zero_size': lambda T: T.zeros(0).roll(1),
    'rot90': lambda T: T.rot90(x(T)),
    'rot90_k2': lambda T: x(T).rot90(2),
    'rot90_neg': lambda T: T.rot90(x(T), -1),
    'rot90_dims': lambda T: T.rot90(y(T), 1, (2, 0)),
    'rot90_k3': lambda T: T.rot90(y(T), 3, [1, 2]),
    'rot90_k6': lambda T: x(T).rot90(6),
    'rot90_same_dims': lambda T: x(T).rot90(1, (0, 0)),
    'rot90_1d': lambda T: T.rot90(w(T)),
    'rot90_one_dim': lambda T: x(T).rot90(1, (0,)),
    'rot90_dim_range': lambda T: x(T).rot90(1, (0, 2)),
    # triangles and diagonals
    'tril': lambda T: y(T).tril(),
    'tril_k': lambda T: T.tril(x(T), 1),
    'triu_neg': lambda T: T.triu(y(T), -1),
    'triu_far': lambda T: y(T).triu(10),
    'tril_int': lambda T: i(T).tril(),
    'triu_bool': lambda T: T.triu(i(T).bool()),
    'tril_1d': lambda T: w(T).tril(),
    'tril_out': lambda T: (lambda o: (T.tril(x(T), out=o), o))(T.zeros(1)),
    'tril_inplace': lambda T: (lambda a: (a.tril_(-1), a))(x(T)),
    'triu_inplace': lambda T: (lambda a: (a.triu_(), a))(y(T)),
    'tril_indices': lambda T: T.tril_indices(3, 3),
    'tril_indices_rect': lambda T: T.tril_indices(3, 4, -1),
    'triu_indices': lambda T: T.triu_indices(3, 4, 1),
    'triu_indices_neg': lambda T: T.triu_indices(4, 3, -1),
    'tril_indices_int32': lambda T: T.tril_indices(3, 3, dtype=T.int32),
    'tril_indices_float': lambda T: T.tril_indices(3, 3, dtype=T.float32),
    'tril_indices_neg_row': lambda T: T.tril_indices(-1, 3),
    'tril_indices_zero': lambda T: T.tril_indices(0, 3),
    'triu_indices_big_offset': lambda T: T.triu_indices(3, 3, -10),
    'diag_2d': lambda T: T.diag(x(T)),
    'diag_2d_offset': lambda T: x(T).diag(1),
    'diag_2d_neg': lambda T: T.diag(x(T), -1),
    'diag_1d': lambda T: T.diag(w(T)),
    'diag_1d_offset': lambda T: w(T).diag(2),
    'diag_1d_neg': lambda T: T.diag(w(T), -1),
    'diag_3d': lambda T: T.diag(y(T)),
    'diag_scalar': lambda T: T.diag(z(T)),
    'diag_out': lambda T: (lambda o: (T.diag(x(T), out=o), o))(T.zeros(1)),
    'diag_embed': lambda T: T.diag_embed(x(T)),
    'diag_embed_offset': lambda T: x(T).diag_embed(1),
    'diag_embed_dims': lambda T: T.diag_embed(x(T), -1, 0, 2),
    'diag_embed_rev_dims': lambda T: T.diag_embed(y(T), 2, 1, 0),
    'diag_embed_same_dims': lambda T: T.diag_embed(x(T), 0, 1, 1),
    'diag_embed_scalar': lambda T: T.diag_embed(z(T)),
    'diagflat': lambda T: T.diagflat(x(T)),
    'diagflat_offset': lambda T: w(T).diagflat(1),
    'diagflat_scalar': lambda T: T.diagflat(z(T)),
    # grids, combinatorics, atleast, block_diag
    'meshgrid_ij': lambda T: T.meshgrid(w(T), u(T), indexing='ij'),
    'meshgrid_xy_list': lambda T: T.meshgrid([w(T), u(T)], indexing='xy'),
    'meshgrid_xy_three': lambda T: T.meshgrid(w(T), u(T), z(T), indexing='xy'),
    'meshgrid_single': lambda T: T.meshgrid(w(T), indexing='xy'),
    'meshgrid_dtype_mismatch': lambda T: T.meshgrid(w(T), i(T).select(0, 0), indexing='ij'),
    'meshgrid_2d': lambda T: T.meshgrid(x(T), w(T), indexing='ij'),
    'meshgrid_bad_indexing': lambda T: T.meshgrid(w(T), indexing='foo'),
    'meshgrid_empty': lambda T: T.meshgrid(indexing='ij'),
    'cartesian_prod': lambda T: T.cartesian_prod(w(T), u(T)),
    'cartesian_prod_three': lambda T: T.cartesian_prod(u(T), u(T), w(T)),
    'cartesian_prod_single': lambda T: T.cartesian_prod(w(T)),
    'cartesian_prod_2d': lambda T: T.cartesian_prod(x(T)),
    'combinations': lambda T: T.combinations(w(T)),
    'combinations_r3': lambda T: T.combinations(w(T), 3),
    'combinations_r0': lambda T: T.combinations(w(T), 0),
    'combinations_too_many': lambda T: T.combinations(w(T), 5),
    'combinations_replacement': lambda T: T.combinations(u(T), 2, True),
    'combinations_int': lambda T: T.combinations(T.arange(5), 2),
    'combinations_2d': lambda T: T.combinations(x(T)),
    'combinations_neg': lambda T: T.combinations(w(T), -1),
    'atleast_1d_scalar': lambda T: T.atleast_1d(z(T)),
    'atleast_1d_is_input': lambda T: (lambda a: T.atleast_1d(a) is a)(x(T)),
    'atleast_2d_1d': lambda T: T.atleast_2d(w(T)),
    'atleast_2d_scalar': lambda T: T.atleast_2d(z(T)),
    'atleast_3d_2d': lambda T: T.atleast_3d(x(T)),
    'atleast_3d_1d': lambda T: T.atleast_3d(w(T)),
    'atleast_3d_scalar': lambda T: T.atleast_3d(z(T)),
    'atleast_3d_3d': lambda T: T.atleast_3d(y(T)),
    'atleast_1d_varargs': lambda T: T.atleast_1d(z(T), w(T)),
    'atleast_2d_list': lambda T: T.atleast_2d([z(T), w(T), x(T)]),
    'atleast_1d_none': lambda T: T.atleast_1d(),
    'block_diag': lambda T: T.block_diag(x(T), w(T), z(T)),
    'block_diag_promote': lambda T: T.block_diag(i(T), x(T)),
    'block_diag_none': lambda T: T.block_diag(),
    'block_diag_3d': lambda T: T.block_diag(y(T)),
    'block_diag_empty_block': lambda T: T.block_diag(T.zeros(0, 2), x(T)),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_shape_op(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(CASES[name])


# ---- exception messages of the most common mistakes ----------------------------------------------

@pytest.mark.parametrize('fn', [
    lambda T: x(T).view(4),
    lambda T: y(T).reshape(5, -1),
    lambda T: x(T).transpose(0, 2),
    lambda T: T.cat([x(T), x(T).narrow(1, 0, 2)]),
    lambda T: T.stack([x(T), x(T).narrow(1, 0, 2)]),
    lambda T: x(T).expand(3, 3),
    lambda T: x(T).select(0, 2),
    lambda T: x(T).t().view(-1),
])
def test_error_messages(fn):
    msgs = []
    for T in (torch, torchlike):
        with pytest.raises(Exception) as e:
            fn(T)
        msgs.append((type(e.value), str(e.value)))
    assert msgs[0] == msgs[1]


def test_meshgrid_warns_without_indexing():
    for T in (torch, torchlike):
        with pytest.warns(UserWarning, match='indexing'):
            T.meshgrid(w(T), u(T))


# ---- gradients ---------------------------------------------------------------------------------

def _grad_case(make_inputs, fn):
    """fn(T, *inputs) -> tensor or sequence of tensors; backward of a weighted sum of the float outputs."""
    def run(T):
        ins = [T.tensor(a, requires_grad=True) for a in make_inputs()]
        out = fn(T, *ins)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        total = None
        for k, o in enumerate(outs):
            if not o.dtype.is_floating_point:
                continue
            wgt = T.tensor(np.linspace(-1.0, 2.0, max(o.numel(), 1)).astype('float32')[:o.numel()].reshape(
                tuple(o.shape)))
            s = (o * wgt).sum() * (k + 1)
            total = s if total is None else total + s
        total.backward()
        return tuple(a.grad for a in ins)
    return run


def _one(a):
    return lambda: [a]


GRADS = {
    'view': (_one(A234), lambda T, a: a.view(6, 4)),
    'reshape_noncontig': (_one(A234), lambda T, a: a.transpose(0, 2).reshape(-1)),
    'flatten': (_one(A234), lambda T, a: a.flatten(1)),
    'unflatten': (_one(A234), lambda T, a: a.unflatten(2, (2, 2))),
    'permute': (_one(A234), lambda T, a: a.permute(2, 0, 1)),
    'transpose': (_one(A234), lambda T, a: a.transpose(0, 2)),
    't': (_one(A23), lambda T, a: a.t()),
    'T': (_one(A23), lambda T, a: a.T),
    'mT': (_one(A234), lambda T, a: a.mT),
    'movedim': (_one(A234), lambda T, a: a.movedim((0, 1), (2, 0))),
    'squeeze': (lambda: [A23.reshape(2, 1, 3, 1)], lambda T, a: a.squeeze((1, 3))),
    'unsqueeze': (_one(A23), lambda T, a: a.unsqueeze(1)),
    'expand': (_one(A23), lambda T, a: a.expand(4, 2, 3)),
    'broadcast_to': (_one(V3), lambda T, a: T.broadcast_to(a, (5, 3))),
    'broadcast_tensors': (lambda: [A23, V3], lambda T, a, b: T.broadcast_tensors(a, b)),
    'narrow': (_one(A234), lambda T, a: a.narrow(2, 1, 2)),
    'select': (_one(A234), lambda T, a: a.select(1, -1)),
    'unbind': (_one(A234), lambda T, a: a.unbind(1)),
    'unbind_partial_use': (_one(A234), lambda T, a: a.unbind(1)[1]),
    'split': (_one(A234), lambda T, a: a.split([1, 3], 2)),
    'chunk': (_one(A234), lambda T, a: a.chunk(2, 2)),
    'tensor_split': (_one(A234), lambda T, a: a.tensor_split([1, 3], 2)),
    'diagonal': (_one(A234), lambda T, a: a.diagonal(1, 0, 2)),
    'unfold': (_one(A234), lambda T, a: a.unfold(2, 2, 1)),
    'as_strided_overlap': (_one(A234), lambda T, a: a.as_strided((4, 3), (2, 5), 3)),
    'cat': (lambda: [A23, A23 * 2], lambda T, a, b: T.cat([a, b], 1)),
    'cat_legacy_empty': (lambda: [A23, np.zeros(0, 'float32')], lambda T, a, b: T.cat([a, b])),
    'stack': (lambda: [A23, A23 * 2], lambda T, a, b: T.stack([a, b], 2)),
    'hstack': (lambda: [V4, V3], lambda T, a, b: T.hstack([a, b])),
    'dstack': (lambda: [A23, A23], lambda T, a, b: T.dstack([a, b])),
    'column_stack': (lambda: [V4, V4], lambda T, a, b: T.column_stack([a, b])),
    'repeat': (_one(A23), lambda T, a: a.repeat(2, 1, 3)),
    'tile': (_one(A23), lambda T, a: a.tile(2)),
    'repeat_interleave_int': (_one(A23), lambda T, a: a.repeat_interleave(3, 1)),
    'repeat_interleave_tensor': (_one(A23), lambda T, a: a.repeat_interleave(T.tensor([2, 0, 1]), 1)),
    'flip': (_one(A234), lambda T, a: a.flip(0, 2)),
    'roll': (_one(A234), lambda T, a: a.roll((1, 2), (0, 2))),
    'roll_flat': (_one(A234), lambda T, a: a.roll(5)),
    'rot90': (_one(A234), lambda T, a: a.rot90(1, (1, 2))),
    'tril': (_one(A234), lambda T, a: a.tril(1)),
    'triu': (_one(A234), lambda T, a: a.triu(-1)),
    'diag_1d': (_one(V4), lambda T, a: T.diag(a, -1)),
    'diag_2d': (_one(A23), lambda T, a: T.diag(a, 1)),
    'diag_embed': (_one(A23), lambda T, a: T.diag_embed(a, 1, 0, 2)),
    'diagflat': (_one(A23), lambda T, a: T.diagflat(a)),
    'meshgrid': (lambda: [V4, V3], lambda T, a, b: T.meshgrid(a, b, indexing='xy')),
    'cartesian_prod': (lambda: [V4, V3], lambda T, a, b: T.cartesian_prod(a, b)),
    'combinations': (_one(V4), lambda T, a: T.combinations(a, 3)),
    'block_diag': (lambda: [A23, V4], lambda T, a, b: T.block_diag(a, b)),
    'atleast_3d': (_one(V4), lambda T, a: T.atleast_3d(a)),
    'view_as_complex': (_one(A234.reshape(2, 6, 2)), lambda T, a: T.view_as_real(T.view_as_complex(a) * 2)),
}


@pytest.mark.parametrize('name', sorted(GRADS))
def test_shape_grad(name):
    make, fn = GRADS[name]
    check(_grad_case(make, fn))


def test_grad_fn_names():
    def f(T):
        a = T.tensor(A234, requires_grad=True) * 1
        return [r.grad_fn.name() for r in (
            a.view(-1), a.reshape(4, 6), a.transpose(0, 2).reshape(-1), a.permute(2, 1, 0), a.transpose(0, 1), a.T,
            a.mT, a.squeeze(), a.squeeze(0), a.squeeze((0, 1)), a.unsqueeze(0), a.expand(2, 2, 3, 4),
            a.narrow(1, 0, 1), a.select(0, 0), a.unbind(0)[0], a.split(1)[0], a.split([1, 1])[0], a.chunk(2)[0],
            a.diagonal(), a.unfold(2, 2, 1), a.as_strided((2,), (1,)), T.cat([a, a]), T.stack([a, a]),
            a.repeat(1, 1, 2), a.flip(0), a.roll(1), a.rot90(), a.tril(), T.diag_embed(a), a.flatten(),
            a.movedim(0, 1), a.contiguous(), a.transpose(0, 1).contiguous())]
    check(f)


# ---- view semantics ----------------------------------------------------------------------------

def _base(T):
    return T.arange(12, dtype=T.float32).reshape(3, 4)


WRITES = {
    't_add': lambda m: m.t().add_(1),
    'transpose_select': lambda m: m.transpose(0, 1).select(0, 2).mul_(10),
    'unbind_add': lambda m: m.unbind(0)[1].add_(1),
    'split_sub': lambda m: m.split(2, dim=1)[1].sub_(3),
    'chunk_zero': lambda m: m.chunk(3)[2].zero_(),
    'tensor_split_fill': lambda m: m.tensor_split([1], 1)[1].fill_(-1),
    'narrow_mul': lambda m: m.narrow(1, 1, 2).mul_(2),
    'diagonal_zero': lambda m: m.diagonal().zero_(),
    'diagonal_offset': lambda m: m.diagonal(1).fill_(7),
    'unfold_write': lambda m: m.unfold(1, 2, 2).mul_(-1),
    'as_strided_write': lambda m: m.as_strided((2, 2), (4, 1), 5).fill_(0),
    'movedim_write': lambda m: m.movedim(0, 1).select(0, 0).fill_(9),
    'squeeze_unsqueeze_chain': lambda m: m.unsqueeze(0).squeeze(0).view(12).narrow(0, 3, 4).add_(100),
    'expand_narrow_write': lambda m: m.select(0, 0).expand(2, 4).narrow(0, 0, 1).add_(1),
    'mT_write': lambda m: m.mT.select(1, 1).add_(5),
    'reshape_view_write': lambda m: m.reshape(2, 6).select(0, 1).fill_(3),
    'reshape_copy_write': lambda m: m.t().reshape(12).fill_(3),       # a copy in torch: the base keeps its values
    'flatten_copy_write': lambda m: m.t().flatten().fill_(3),
    'contiguous_copy_write': lambda m: m.t().contiguous().fill_(3),
    'contiguous_self_write': lambda m: m.contiguous().fill_(3),
    'ravel_copy_write': lambda m: m.t().ravel().fill_(3),
    'expand_write': lambda m: m.select(0, 0).expand(2, 4).add_(1),   # raises: overlapping memory
    'as_strided_stride0_write': lambda m: m.as_strided((2, 2), (0, 1)).add_(1),
}


def _write_case(fn):
    def run(T):
        m = _base(T)
        v1 = m.view(12)
        v2 = m.select(0, 2)
        r = fn(m)
        return m, v1, v2, r, m._version
    return run


@pytest.mark.parametrize('name', sorted(WRITES))
def test_write_through_view(name):
    check(_write_case(WRITES[name]))


def test_multi_output_view_inplace_with_grad_raises():
    for expr in ('a.unbind(0)[1].add_(1)', 'a.split(1)[0].add_(1)', 'a.chunk(3)[0].mul_(2)',
                 'a.unbind(0)[1].narrow(0, 0, 2).add_(1)'):
        def f(T, expr=expr):
            a = T.tensor(A23, requires_grad=True) * 1
            eval(expr)
        check(f)
        for T in (torch, torchlike):
            a = T.tensor(A23, requires_grad=True) * 1   # noqa: F841
            with pytest.raises(RuntimeError) as e:
                eval(expr)
            assert 'returns multiple views' in str(e.value)


def test_tensor_split_inplace_with_grad_allowed():
    def f(T):
        a = T.tensor(A23, requires_grad=True)
        b = a * 1
        b.tensor_split(2, 1)[0].mul_(3)
        b.sum().backward()
        return b, a.grad
    check(f)


def test_view_reads_after_base_inplace():
    def f(T):
        m = _base(T)
        views = [m.t(), m.transpose(0, 1).select(0, 1), m.unbind(1)[2], m.narrow(0, 1, 2), m.diagonal(),
                 m.select(0, 0).expand(3, 4), m.unfold(1, 2, 1), m.as_strided((3, 3), (1, 2)), m.permute(1, 0),
                 m.movedim(0, 1), m.split([1, 2])[1], m.chunk(2, 1)[0], m.unsqueeze(0), m.flatten(), m.mT]
        copies = [m.flip(0), m.roll(1), m.tril(), T.cat([m, m]), m.repeat(1, 2), m.t().reshape(-1)]
        m.add_(1)
        m.mul_(2)
        return views, copies
    check(f)


def test_write_then_grad_through_views():
    def f(T):
        a = T.tensor(A23, requires_grad=True)
        s = T.tensor(V3, requires_grad=True)
        b = a * 2
        b.diagonal().add_(s.narrow(0, 0, 2))
        b.t().select(1, 0).mul_(s)
        (b * b).sum().backward()
        return b, a.grad, s.grad
    check(f)


def test_strides_offsets_contiguity():
    def f(T):
        b = T.arange(24.).reshape(2, 3, 4)
        out = []
        for v in (b, b.transpose(0, 2), b.narrow(2, 1, 2), b.select(1, 1), b.unfold(2, 2, 1), b.diagonal(0, 1, 2),
                  b.expand(2, 2, 3, 4), b.unsqueeze(1), b.permute(1, 2, 0), b.t() if b.ndim == 2 else b.mT,
                  b.transpose(0, 1).contiguous(), b.flatten(1)):
            out.append((tuple(v.stride()), v.storage_offset(), v.is_contiguous()))
        return out
    check(f)


def test_contiguous_returns_self_when_contiguous():
    for T in (torch, torchlike):
        b = T.ones(2, 3)
        assert b.contiguous() is b
        assert b.narrow(0, 0, 1).contiguous()._base is not None
        assert b.t().contiguous()._base is None


def test_out_variants():
    def f(T):
        o1, o2, o3 = T.zeros(1), T.zeros(1, dtype=T.float64), T.zeros(5)
        r1 = T.cat([x(T), x(T)], out=o1)
        r2 = T.stack([x(T), x(T)], 1, out=o2)
        r3 = T.hstack([w(T), z(T)], out=o3)
        return o1, o2, o3, r1 is o1, r2 is o2, r3 is o3
    check(f)


def test_properties_warn_like_torch():
    # torch warns once per process (TORCH_WARN_ONCE), so only torchlike's warning is checked here
    with pytest.warns(UserWarning, match='deprecated'):
        y(torchlike).T
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        x(torchlike).T


@pytest.mark.parametrize('dtype', ['int64', 'int32', 'bool', 'float64', 'complex64', 'uint8'])
def test_dtypes_preserved(dtype):
    def f(T):
        a = T.tensor(np.arange(24).reshape(2, 3, 4) % 3).to(getattr(T, dtype))
        return (a.view(4, 6), a.transpose(0, 2), a.flip(1), a.roll(1, 2), T.cat([a, a], 1), T.stack([a, a]),
                a.repeat(1, 2, 1), a.tril(), a.diagonal(), a.unfold(2, 2, 2), a.unbind(1), a.expand(2, 2, 3, 4),
                T.diag_embed(a), a.rot90(1, (0, 2)), a.repeat_interleave(2, 0), T.block_diag(a.select(0, 0)))
    check(f)


def test_no_recompile_for_new_values():
    # a shape op's program depends on shapes and static arguments only
    from torchlike._ops import joining as S
    a = torchlike.tensor(A234)
    torchlike.cat([a, a], 1)
    n = len(S._cat.cache)
    for k in range(3):
        torchlike.cat([a * k, a], 1)
    assert len(S._cat.cache) == n
    assert_same(torchlike.cat([a, a * 2], 1), torch.cat([torch.tensor(A234), torch.tensor(A234) * 2], 1))
