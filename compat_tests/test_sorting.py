"""Sorting and searching against real torch: sort/argsort/msort (stability, NaN, -0.0, descending), topk,
kthvalue, unique/unique_consecutive, searchsorted/bucketize, histc, bincount; gradients and errors."""
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
F1 = rng.randn(9).astype(np.float32)
F0 = np.array(1.5, np.float32)
D2 = rng.randn(3, 5)
I = rng.randint(-3, 4, (3, 4, 8)).astype(np.int64)         # many ties
I1 = np.array([3, 1, 2, 1, 3, 0, 2, 2], np.int64)
I32 = rng.randint(-3, 4, (4, 6)).astype(np.int32)
U8 = rng.randint(0, 4, (10,)).astype(np.uint8)
B = rng.rand(3, 5) > 0.5
SPECIAL = np.array([[1., nan, -0., 0., 2, -inf, inf, 0., -0., nan]], np.float32)
NEGNAN = np.array([1., np.copysign(nan, -1), -inf, 0., nan, -2.], np.float32)   # a NaN with its sign bit set
E = np.zeros((0, 3), np.float32)
C = (rng.randn(4) + 1j * rng.randn(4)).astype(np.complex64)


_mk = make_input
_check = assert_same_named


def _id(case):
    return case[0]


FWD = [
    # sort / argsort / msort
    ('sort', lambda T, x: x.sort(), [F]),
    ('sort_dim', lambda T, x: T.sort(x, 1), [F]),
    ('sort_desc', lambda T, x: x.sort(descending=True), [F]),
    ('sort_desc_pos', lambda T, x: T.sort(x, 0, True), [F]),
    ('sort_int_stable', lambda T, x: x.sort(stable=True), [I]),
    ('sort_int_stable_desc', lambda T, x: T.sort(x, dim=1, descending=True, stable=True), [I]),
    ('sort_int_default', lambda T, x: x.sort(-1), [I1]),
    ('sort_int_desc_default', lambda T, x: x.sort(-1, True), [I1]),
    ('sort_int32', lambda T, x: x.sort(dim=1, stable=True), [I32]),
    ('sort_stable_false', lambda T, x: x.sort(stable=False, dim=0, descending=True), [I32]),
    ('sort_uint8', lambda T, x: x.sort(stable=True), [U8]),
    ('sort_special', lambda T, x: x.sort(stable=True), [SPECIAL]),
    ('sort_special_desc', lambda T, x: x.sort(descending=True, stable=True), [SPECIAL]),
    ('sort_negnan', lambda T, x: x.sort(), [NEGNAN]),
    ('sort_bool', lambda T, x: x.sort(dim=1, stable=True), [B]),
    ('sort_0d', lambda T, x: x.sort(), [F0]),
    ('sort_empty', lambda T, x: x.sort(0), [E]),
    ('sort_double', lambda T, x: x.sort(0), [D2]),
    ('argsort', lambda T, x: x.argsort(), [F]),
    ('argsort_desc', lambda T, x: T.argsort(x, 1, True), [F]),
    ('argsort_stable', lambda T, x: T.argsort(x, stable=True, descending=True), [I]),
    ('argsort_stable_asc', lambda T, x: x.argsort(dim=0, stable=True), [I]),
    ('argsort_special', lambda T, x: x.argsort(stable=True), [SPECIAL]),
    ('msort', lambda T, x: T.msort(x), [F]),
    ('sort_axis', lambda T, x: x.sort(axis=0, descending=True), [F]),
    ('topk_axis', lambda T, x: T.topk(x, 2, axis=0), [F]),
    ('msort_method', lambda T, x: x.msort(), [F2]),
    # topk / kthvalue (no ties: torch's tie order comes from std::nth_element)
    ('topk', lambda T, x: x.topk(3), [F]),
    ('topk_smallest', lambda T, x: T.topk(x, 2, largest=False), [F]),
    ('topk_dim', lambda T, x: x.topk(2, 0), [F]),
    ('topk_pos', lambda T, x: T.topk(x, 2, 1, False, True), [F]),
    ('topk_k0', lambda T, x: x.topk(0), [F2]),
    ('topk_full', lambda T, x: x.topk(6), [F2]),
    ('topk_nan', lambda T, x: x.topk(3), [np.array([[1., nan, 3, 2, -inf]], np.float32)]),
    ('topk_nan_smallest', lambda T, x: x.topk(2, largest=False), [np.array([[1., nan, 3, 2, -inf]], np.float32)]),
    ('topk_0d', lambda T, x: x.topk(1), [F0]),
    ('topk_int', lambda T, x: x.topk(3), [np.array([[5, 1, 9, 3, 7], [2, 8, 0, 6, 4]])]),
    ('topk_double', lambda T, x: x.topk(2, dim=0), [D2]),
    ('kthvalue', lambda T, x: x.kthvalue(2), [F]),
    ('kthvalue_dim_keep', lambda T, x: T.kthvalue(x, 3, 0, True), [F]),
    ('kthvalue_last', lambda T, x: x.kthvalue(6), [F2]),
    ('kthvalue_nan', lambda T, x: x.kthvalue(5), [np.array([[1., nan, 3, 2, -inf]], np.float32)]),
    ('kthvalue_int', lambda T, x: x.kthvalue(2), [np.array([[5, 1, 9, 3, 7], [2, 8, 0, 6, 4]])]),
    ('kthvalue_0d', lambda T, x: x.kthvalue(1), [F0]),
    # unique / unique_consecutive
    ('unique', lambda T, x: T.unique(x), [I]),
    ('unique_unsorted', lambda T, x: T.unique(x, sorted=False), [I]),
    ('unique_all', lambda T, x: T.unique(x, return_inverse=True, return_counts=True), [I]),
    ('unique_inverse', lambda T, x: x.unique(return_inverse=True), [I]),
    ('unique_counts', lambda T, x: x.unique(return_counts=True), [I1]),
    ('unique_float', lambda T, x: x.unique(return_inverse=True, return_counts=True), [np.round(F * 2) / 2]),
    ('unique_nan_zero', lambda T, x: T.unique(x, return_inverse=True, return_counts=True), [SPECIAL]),
    ('unique_bool', lambda T, x: x.unique(return_counts=True), [B]),
    ('unique_0d', lambda T, x: x.unique(return_inverse=True), [F0]),
    ('unique_empty', lambda T, x: x.unique(return_inverse=True, return_counts=True), [E]),
    ('unique_dim0', lambda T, x: T.unique(x, dim=0, return_inverse=True, return_counts=True),
     [np.array([[1, 2], [0, 1], [1, 2], [0, 0]])]),
    ('unique_dim1', lambda T, x: T.unique(x, dim=1, return_inverse=True, return_counts=True),
     [np.array([[1, 2, 1, 0], [0, 1, 0, 5]])]),
    ('unique_dim_3d', lambda T, x: T.unique(x, dim=1, return_inverse=True, return_counts=True),
     [rng.randint(0, 2, (2, 7, 2))]),
    ('unique_dim_neg', lambda T, x: T.unique(x, dim=-1), [np.array([[1, 2, 1, 0], [0, 1, 0, 5]])]),
    ('unique_dim_empty', lambda T, x: x.unique(dim=0, return_inverse=True, return_counts=True), [E]),
    ('unique_consecutive', lambda T, x: T.unique_consecutive(x, return_inverse=True, return_counts=True),
     [np.array([1, 1, 2, 2, 3, 1, 1, 2])]),
    ('unique_consecutive_plain', lambda T, x: x.unique_consecutive(), [np.array([1, 1, 2, 2, 3, 1, 1, 2])]),
    ('unique_consecutive_2d', lambda T, x: x.unique_consecutive(return_inverse=True), [np.array([[1, 1], [1, 2]])]),
    ('unique_consecutive_dim', lambda T, x: T.unique_consecutive(x, dim=0, return_inverse=True, return_counts=True),
     [np.array([[1, 2], [1, 2], [0, 1], [1, 2]])]),
    ('unique_consecutive_nan', lambda T, x: x.unique_consecutive(return_counts=True),
     [np.array([nan, nan, 1., 1.], np.float32)]),
    # searchsorted / bucketize
    ('searchsorted', lambda T, s, v: T.searchsorted(s, v), [np.array([1, 3, 5, 7, 9]), np.array([[3, 6, 9], [0, 10, 1]])]),
    ('searchsorted_right', lambda T, s, v: T.searchsorted(s, v, right=True),
     [np.array([1, 3, 5, 7, 9]), np.array([[3, 6, 9], [0, 10, 1]])]),
    ('searchsorted_side', lambda T, s, v: T.searchsorted(s, v, side='right'),
     [np.array([1, 3, 3, 3, 9]), np.array([3, 2, 10])]),
    ('searchsorted_side_left', lambda T, s, v: T.searchsorted(s, v, side='left', right=False),
     [np.array([1, 3, 3, 3, 9]), np.array([3, 2, 10])]),
    ('searchsorted_int32', lambda T, s, v: T.searchsorted(s, v, out_int32=True),
     [np.array([1, 3, 5, 7, 9]), np.array([3, 6, 9])]),
    ('searchsorted_scalar', lambda T, s: T.searchsorted(s, 4), [np.array([1, 3, 5, 7, 9])]),
    ('searchsorted_scalar_float', lambda T, s: T.searchsorted(s, 4.5, right=True), [np.array([1, 3, 5, 7, 9])]),
    ('searchsorted_0d_value', lambda T, s, v: T.searchsorted(s, v), [np.array([1., 3, 5]), np.array(4., np.float32)]),
    ('searchsorted_nd', lambda T, s, v: T.searchsorted(s, v),
     [np.sort(F2, axis=1), rng.randn(4, 3).astype(np.float32)]),
    ('searchsorted_nd_right', lambda T, s, v: T.searchsorted(s, v, right=True),
     [np.array([[1, 3, 5], [2, 4, 6]]), np.array([[3, 6], [1, 4]])]),
    ('searchsorted_mixed', lambda T, s, v: T.searchsorted(s, v), [np.array([1, 3, 5]), np.array([2.5, 3.], np.float32)]),
    ('searchsorted_sorter', lambda T, s, v, o: T.searchsorted(s, v, sorter=o),
     [np.array([5, 1, 9, 3]), np.array([4, 9, 0]), np.array([1, 3, 0, 2])]),
    ('searchsorted_nan', lambda T, s, v: T.searchsorted(s, v),
     [np.array([1., 2, nan], np.float32), np.array([nan, 1.5, inf, -inf], np.float32)]),
    ('searchsorted_nan_right', lambda T, s, v: T.searchsorted(s, v, right=True),
     [np.array([1., 2, nan, nan], np.float32), np.array([nan, 2, inf], np.float32)]),
    ('searchsorted_single', lambda T, s, v: T.searchsorted(s, v), [np.array([2.], np.float32), F2]),
    ('searchsorted_long', lambda T, s, v: T.searchsorted(s, v, right=True),
     [np.sort(rng.randint(0, 50, 1000)), np.arange(-1, 52)]),
    ('bucketize', lambda T, v, b: T.bucketize(v, b), [np.array([[3, 6, 9], [0, 10, 1]]), np.array([1, 3, 5, 7, 9])]),
    ('bucketize_right', lambda T, v, b: T.bucketize(v, b, right=True),
     [np.array([[3, 6, 9], [0, 10, 1]]), np.array([1, 3, 5, 7, 9])]),
    ('bucketize_int32', lambda T, v, b: T.bucketize(v, b, out_int32=True), [F2, np.array([-1., 0, 1], np.float32)]),
    ('bucketize_scalar', lambda T, b: T.bucketize(4, b), [np.array([1, 3, 5, 7, 9])]),
    # histc
    ('histc', lambda T, x: T.histc(x, 4), [np.array([1., 2, 1, 2.5, 4, 10], np.float32)]),
    ('histc_range', lambda T, x: T.histc(x, 4, 0, 3), [np.array([1., 2, 1, 2.5, 4, 10], np.float32)]),
    ('histc_kw_method', lambda T, x: x.histc(bins=10, min=-1, max=1), [F]),
    ('histc_default', lambda T, x: x.histc(), [F]),
    ('histc_const', lambda T, x: T.histc(x, 4), [np.array([2., 2], np.float32)]),
    ('histc_nan_range', lambda T, x: T.histc(x, 4, 0, 3), [np.array([2., nan, 1.], np.float32)]),
    ('histc_edges', lambda T, x: T.histc(x, 10, 0, 1), [np.array([0.1, 0.2, 0.3, 0.7, 1.0, 0.0, 0.9999], np.float32)]),
    ('histc_double', lambda T, x: T.histc(x, 7), [D2]),
    ('histc_empty', lambda T, x: T.histc(x, 3), [np.zeros(0, np.float32)]),
    # bincount
    ('bincount', lambda T, x: T.bincount(x), [I1]),
    ('bincount_minlength', lambda T, x: T.bincount(x, minlength=10), [I1]),
    ('bincount_weights', lambda T, x, w: T.bincount(x, w), [I1, rng.randn(8).astype(np.float32)]),
    ('bincount_weights_f64', lambda T, x, w: x.bincount(w), [I1, rng.randn(8)]),
    ('bincount_weights_int', lambda T, x, w: T.bincount(x, w), [I1, np.arange(8)]),
    ('bincount_uint8', lambda T, x: x.bincount(), [U8]),
    ('bincount_empty', lambda T, x: T.bincount(x, minlength=3), [np.zeros(0, np.int64)]),
    ('bincount_empty_nominlength', lambda T, x: T.bincount(x), [np.zeros(0, np.int64)]),
]


@pytest.mark.parametrize('case', FWD, ids=_id)
def test_forward(case):
    name, fn, args = case[:3]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        th = fn(torch, *[_mk(torch, a) for a in args])
        tl = fn(torchlike, *[_mk(torchlike, a) for a in args])
    _check(tl, th)


def test_sort_stable_descending_ties():
    # long rows with many ties: the stable order (ties by original position) must match exactly
    x = rng.randint(0, 5, (6, 300))
    for desc in (False, True):
        th = torch.from_numpy(x).sort(dim=1, descending=desc, stable=True)
        tl = torchlike.from_numpy(x).sort(dim=1, descending=desc, stable=True)
        _check(tl, th)


@pytest.mark.parametrize('largest', [True, False])
def test_topk_kthvalue_ties_consistent(largest):
    # with ties torch's index choice is unspecified (std::nth_element); values must match and the
    # indices must point at elements holding those values
    x = rng.randint(0, 4, (5, 40))
    vt, it = torchlike.from_numpy(x).topk(7, dim=1, largest=largest)
    vh, _ = torch.from_numpy(x).topk(7, dim=1, largest=largest)
    assert_same(vt, vh)
    assert (np.take_along_axis(x, it.numpy(), 1) == vt.numpy()).all()
    assert all(len(set(r)) == 7 for r in it.numpy().tolist())
    kt = torchlike.from_numpy(x).kthvalue(13, dim=1)
    kh = torch.from_numpy(x).kthvalue(13, dim=1)
    assert_same(kt.values, kh.values)
    assert (np.take_along_axis(x, kt.indices.numpy()[:, None], 1)[:, 0] == kt.values.numpy()).all()


GRAD = [
    ('sort', lambda T, x: x.sort(1)[0], [F]),
    ('sort_desc_stable', lambda T, x: x.sort(dim=0, descending=True, stable=True).values, [F]),
    ('sort_ties', lambda T, x: x.sort(dim=1, stable=True)[0], [np.array([[1., 2, 1, 2, 1], [0, 0, 3, 0, 3]], np.float32)]),
    ('msort', lambda T, x: x.msort(), [F2]),
    ('topk', lambda T, x: x.topk(3, 1)[0], [F]),
    ('topk_smallest', lambda T, x: x.topk(2, 0, largest=False).values, [F]),
    ('kthvalue', lambda T, x: x.kthvalue(2, 1)[0], [F]),
    ('kthvalue_keep', lambda T, x: x.kthvalue(3, 0, keepdim=True).values, [F2]),
]


def _grad_run(lib, fn, args):
    ts = [_mk(lib, a, grad=a.dtype.kind == 'f') for a in args]
    out = fn(lib, *ts)
    w = np.asarray(np.random.RandomState(1).randn(*out.shape), np.float32)
    (out * lib.from_numpy(w)).sum().backward()
    return out, [t.grad for t in ts]


@pytest.mark.parametrize('case', GRAD, ids=_id)
def test_grad(case):
    name, fn, args = case
    o_th, g_th = _grad_run(torch, fn, args)
    o_tl, g_tl = _grad_run(torchlike, fn, args)
    assert o_tl.grad_fn.name() == o_th.grad_fn.name()
    for a, b in zip(g_tl, g_th):
        assert_same(a, b, 1e-5, 1e-5)


def test_indices_not_differentiable():
    x = torchlike.tensor(F2, requires_grad=True)
    v, i = x.sort(1)
    assert v.requires_grad and not i.requires_grad
    assert not x.argsort().requires_grad
    assert not torchlike.searchsorted(x.detach().sort(1)[0], x.detach()).requires_grad


ERR = [
    ('sort_oob', lambda T, x: x.sort(3), [F]),
    ('sort_complex', lambda T, x: x.sort(), [C]),
    ('sort_stable_positional', lambda T, x: T.sort(x, 0, True, True), [F]),
    ('sort_stable_with_positional_dim', lambda T, x: x.sort(1, stable=True), [F]),
    ('argsort_out_without_stable', lambda T, x: T.argsort(x, 0, out=T.empty(0, dtype=T.int64)), [F]),
    ('argsort_oob', lambda T, x: x.argsort(-4), [F]),
    ('topk_k_big', lambda T, x: x.topk(7), [F2]),
    ('topk_k_neg', lambda T, x: x.topk(-1), [F2]),
    ('topk_bool', lambda T, x: x.topk(1), [B]),
    ('topk_oob', lambda T, x: x.topk(1, 2), [F2]),
    ('kthvalue_k0', lambda T, x: x.kthvalue(0), [F2]),
    ('kthvalue_k_big', lambda T, x: x.kthvalue(7), [F2]),
    ('kthvalue_bool', lambda T, x: x.kthvalue(1), [B]),
    ('unique_oob', lambda T, x: x.unique(dim=2), [I1]),
    ('unique_consecutive_oob', lambda T, x: x.unique_consecutive(dim=-2), [I1]),
    ('searchsorted_conflict', lambda T, s, v: T.searchsorted(s, v, right=True, side='left'),
     [np.array([1, 2, 3]), np.array([2])]),
    ('searchsorted_bad_side', lambda T, s, v: T.searchsorted(s, v, side='up'), [np.array([1, 2, 3]), np.array([2])]),
    ('searchsorted_0d_seq', lambda T, s, v: T.searchsorted(s, v), [np.array(1), np.array([2])]),
    ('searchsorted_shape', lambda T, s, v: T.searchsorted(s, v),
     [np.array([[1, 3, 5], [2, 4, 6]]), np.array([[3, 6]])]),
    ('searchsorted_scalar_nd', lambda T, s: T.searchsorted(s, 3), [np.array([[1, 3, 5], [2, 4, 6]])]),
    ('searchsorted_sorter_dtype', lambda T, s, v, o: T.searchsorted(s, v, sorter=o),
     [np.array([5, 1, 9]), np.array([4]), np.array([1, 0, 2], np.int32)]),
    ('bucketize_2d_boundaries', lambda T, v, b: T.bucketize(v, b), [np.array([1, 2]), np.array([[1, 3, 5]])]),
    ('histc_int', lambda T, x: T.histc(x, 3), [I1]),
    ('histc_min_gt_max', lambda T, x: T.histc(x, 4, 3, 1), [F1]),
    ('histc_nan_data_range', lambda T, x: T.histc(x, 4), [np.array([2., nan, 1.], np.float32)]),
    ('histc_inf_data_range', lambda T, x: T.histc(x, 4), [np.array([2., inf, 1.], np.float32)]),
    ('histc_bins0', lambda T, x: T.histc(x, 0), [F1]),
    ('bincount_negative', lambda T, x: T.bincount(x), [np.array([-1, 2])]),
    ('bincount_float', lambda T, x: T.bincount(x), [F1]),
    ('bincount_bool', lambda T, x: T.bincount(x), [B[0]]),
    ('bincount_2d', lambda T, x: T.bincount(x), [np.array([[1, 2]])]),
    ('bincount_neg_minlength', lambda T, x: T.bincount(x, minlength=-1), [I1]),
    ('bincount_weights_len', lambda T, x, w: T.bincount(x, w), [I1, np.ones(3, np.float32)]),
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


def test_out_variants():
    def run(T):
        x = _mk(T, F2)
        v, i = T.empty(0), T.empty(0, dtype=T.int64)
        r = T.sort(x, 1, out=(v, i))
        assert r[0] is v and r[1] is i
        a = T.empty(0, dtype=T.int64)
        T.argsort(x, dim=0, stable=True, out=a)
        s = T.empty(0, dtype=T.int64)
        T.searchsorted(T.tensor([1., 2, 3]), x, out=s)
        h = T.empty(0)
        T.histc(x, 5, out=h)
        return v, i, a, s, h
    for p, q in zip(run(torchlike), run(torch)):
        assert_same(p, q)


def test_return_types():
    x = torchlike.tensor(F2)
    for r, name in ((x.sort(), 'sort'), (x.topk(2), 'topk'), (x.kthvalue(2), 'kthvalue')):
        assert type(r).__name__ == name and r.values is r[0] and r.indices is r[1]
    assert isinstance(x.unique(), torchlike.Tensor)
    assert len(x.unique(return_inverse=True, return_counts=True)) == 3
