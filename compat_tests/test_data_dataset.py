"""torch.utils.data.dataset: datasets, combinators and random_split, compared with real torch.

Everything without randomness is compared value for value (and exception type for exception type).
random_split's permutation is torchlike's own stream, so the split is checked two ways: with both
libraries' ``randperm`` replaced by the same fixed permutation (then the subsets must be identical), and
by properties of the real draw (a partition of the indices, reproducible from the generator's seed).
"""
import warnings

import numpy as np
import pytest
import torch

import torchlike
import torchlike.utils.data  # noqa: F401  (until torchlike/__init__ imports utils itself)
from conftest import check, assert_same


def D(lib):
    return lib.utils.data


def _tensors(lib):
    x = lib.arange(12, dtype=lib.float32).reshape(6, 2)
    y = lib.arange(6) * 10
    return x, y


class _Range(object):
    """A plain sequence (not a Dataset), as torch's combinators accept any indexable with len."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __len__(self):
        return self.hi - self.lo

    def __getitem__(self, i):
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.lo + i


# ---- Dataset / IterableDataset ---------------------------------------------------------------

def test_dataset_base_getitem_and_len():
    check(lambda lib: D(lib).Dataset()[0])          # NotImplementedError
    check(lambda lib: len(D(lib).Dataset()))        # TypeError: no default __len__
    check(lambda lib: len(D(lib).IterableDataset()))


def test_dataset_generic_subscript():
    check(lambda lib: (D(lib).Dataset[int].__origin__.__name__, D(lib).Subset[int].__origin__.__name__,
                       D(lib).StackDataset[tuple].__origin__.__name__))


def test_dataset_add_is_concat():
    def fn(lib):
        a, b = D(lib).TensorDataset(*_tensors(lib)), D(lib).TensorDataset(*_tensors(lib))
        c = a + b
        return [type(c).__name__, len(c), c.cumulative_sizes, list(c[7]), list(c[-1])]
    check(fn)


def _stream_cls(lib):
    class Stream(D(lib).IterableDataset):
        def __init__(self, items, n=None):
            self.items, self.n = items, n

        def __iter__(self):
            return iter(self.items)

        def __len__(self):
            if self.n is None:
                raise TypeError("no len")
            return self.n
    return Stream


def test_iterable_add_is_chain():
    def fn(lib):
        S = _stream_cls(lib)
        c = S([1, 2], 2) + S([3, 4, 5], 3)
        c2 = c + S([6], 1)
        return [type(c).__name__, list(c), len(c), type(c2).__name__, list(c2), len(c2)]
    check(fn)


def test_chain_dataset_errors():
    def not_iterable(lib):
        return list(D(lib).ChainDataset([_stream_cls(lib)([1], 1), D(lib).TensorDataset(lib.zeros(2))]))
    check(not_iterable)   # AssertionError
    check(lambda lib: len(D(lib).ChainDataset([_stream_cls(lib)([1], 1), D(lib).TensorDataset(lib.zeros(2))])))
    check(lambda lib: len(D(lib).ChainDataset([_stream_cls(lib)([1])])))   # the member's TypeError
    check(lambda lib: list(D(lib).ChainDataset([])) + [len(D(lib).ChainDataset([]))])


# ---- TensorDataset ---------------------------------------------------------------------------

def test_tensor_dataset_items():
    def fn(lib):
        ds = D(lib).TensorDataset(*_tensors(lib))
        return [len(ds), ds[0], ds[5], ds[-2], ds[1:4], ds[[0, 3]], type(ds.tensors).__name__]
    check(fn)


def test_tensor_dataset_single_and_errors():
    check(lambda lib: D(lib).TensorDataset(lib.ones(3, 2))[1])
    check(lambda lib: D(lib).TensorDataset(lib.ones(3, 2), lib.ones(4)))      # AssertionError
    check(lambda lib: D(lib).TensorDataset(*_tensors(lib))[6])                # IndexError
    check(lambda lib: D(lib).TensorDataset().tensors)                         # no check with no tensors ...
    check(lambda lib: len(D(lib).TensorDataset()))                            # ... but len is an IndexError


def test_tensor_dataset_keeps_grad_and_dtype():
    def fn(lib):
        w = lib.ones(3, 2, dtype=lib.float64, requires_grad=True)
        ds = D(lib).TensorDataset(w, lib.tensor([1, 2, 3], dtype=lib.int16))
        a, b = ds[1]
        (a * 3).sum().backward()
        return [a.requires_grad, b, w.grad]
    check(fn)


# ---- ConcatDataset ---------------------------------------------------------------------------

def test_concat_dataset_indexing():
    def fn(lib):
        c = D(lib).ConcatDataset([_Range(0, 3), _Range(10, 10), _Range(20, 24), [100]])
        return [len(c), c.cumulative_sizes, [c[i] for i in range(len(c))], [c[-i] for i in range(1, len(c) + 1)],
                D(lib).ConcatDataset.cumsum([[1, 2], [], [3]])]
    check(fn)


def test_concat_dataset_errors():
    check(lambda lib: D(lib).ConcatDataset([]))                                   # AssertionError
    check(lambda lib: D(lib).ConcatDataset(iter([])))
    check(lambda lib: D(lib).ConcatDataset([[1, 2], _stream_cls(lib)([1], 1)]))   # AssertionError
    check(lambda lib: D(lib).ConcatDataset([[1, 2], [3]])[-4])                    # ValueError
    check(lambda lib: D(lib).ConcatDataset([[1, 2], [3]])[3])                     # IndexError from the last part
    check(lambda lib: D(lib).ConcatDataset([[1, 2], [3]])[-3])


def test_concat_dataset_from_generator_and_deprecated_name():
    for lib in (torch, torchlike):
        c = D(lib).ConcatDataset(x for x in ([1], [2, 3]))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            assert c.cummulative_sizes == [1, 3]
        assert [type(x.message).__name__ for x in w] == ['FutureWarning'], lib
        assert 'cumulative_sizes' in str(w[0].message)


# ---- Subset ----------------------------------------------------------------------------------

def test_subset():
    def fn(lib):
        ds = D(lib).TensorDataset(*_tensors(lib))
        s = D(lib).Subset(ds, [4, 0, 2])
        return [len(s), s[0], s[-1], s.__getitems__([2, 0]), s.indices]
    check(fn)


def test_subset_list_index_and_getitems_passthrough():
    class Batched:
        def __init__(self):
            self.calls = []

        def __len__(self):
            return 10

        def __getitem__(self, i):
            return ('one', i)

        def __getitems__(self, idx):
            self.calls.append(list(idx))
            return [('many', i) for i in idx]

    def fn(lib):
        base = Batched()
        s = D(lib).Subset(base, [9, 7, 5, 3])
        nested = D(lib).Subset(D(lib).Subset(list(range(100, 110)), [1, 2, 3, 4]), [3, 0])
        return [s[1], s.__getitems__([0, 3]), base.calls, nested[0], nested.__getitems__([1, 0]),
                D(lib).Subset(lib.arange(10) * 2, [1, 5, 7])[[0, 2]]]
    # torch's Subset passes a list index through to the dataset as a list of indices
    got, exp = fn(torchlike), fn(torch)
    assert got[:5] == exp[:5]
    assert_same(got[5], exp[5])


def test_subset_subclass_must_override_getitems():
    def fn(lib):
        class Bad(D(lib).Subset):
            def __getitem__(self, idx):
                return 0
        return Bad([1, 2], [0])
    check(fn)   # NotImplementedError

    def ok(lib):
        class Good(D(lib).Subset):
            def __getitem__(self, idx):
                return -self.dataset[self.indices[idx]]

            def __getitems__(self, indices):
                return [self[i] for i in indices]
        g = Good([1, 2, 3], [2, 0])
        return [g[0], g.__getitems__([0, 1]), len(g)]
    check(ok)


# ---- StackDataset ----------------------------------------------------------------------------

def test_stack_dataset_tuple_and_dict():
    def fn(lib):
        x, y = _tensors(lib)
        t = D(lib).StackDataset(D(lib).TensorDataset(x), y, list(range(6)))
        d = D(lib).StackDataset(a=x, b=list('abcdef'))
        items = d[4]
        return [len(t), t[3], len(d), sorted(items), items['a'], items['b']]
    check(fn)


def test_stack_dataset_getitems():
    class Batched:
        def __init__(self, n, short=False):
            self.n, self.short = n, short

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return i

        def __getitems__(self, idx):
            out = [1000 + i for i in idx]
            return out[:-1] if self.short else out

    def fn(lib):
        t = D(lib).StackDataset(Batched(5), list(range(50, 55)))
        d = D(lib).StackDataset(p=Batched(5), q=list(range(50, 55)))
        return [t.__getitems__([4, 1]), [sorted(s.items()) for s in d.__getitems__([0, 2, 2])]]
    check(fn)
    check(lambda lib: D(lib).StackDataset(Batched(3, short=True), [1, 2, 3]).__getitems__([0, 1]))   # ValueError
    check(lambda lib: D(lib).StackDataset(a=Batched(3, short=True)).__getitems__([0, 1]))


def test_stack_dataset_errors():
    check(lambda lib: D(lib).StackDataset())                          # ValueError
    check(lambda lib: D(lib).StackDataset([1, 2], [1]))               # ValueError: size mismatch
    check(lambda lib: D(lib).StackDataset(a=[1, 2], b=[1]))
    check(lambda lib: D(lib).StackDataset([1], b=[1]))                # ValueError: both forms
    for lib in (torch, torchlike):
        with pytest.raises(ValueError) as e:
            D(lib).StackDataset([1], b=[1])
        assert 'both types are given' in str(e.value)


# ---- random_split ----------------------------------------------------------------------------

_SPLITS = [
    (10, [3, 7]), (10, [0.3, 0.7]), (30, [0.3, 0.3, 0.4]), (7, [0.5, 0.5]), (5, [0.1, 0.2, 0.3, 0.4]),
    (11, [1 / 3, 1 / 3, 1 / 3]), (3, [0.25, 0.25, 0.25, 0.25]), (4, [1.0]), (0, [0.5, 0.5]), (6, [0, 6]),
]


@pytest.mark.parametrize('n,lengths', _SPLITS)
def test_random_split_lengths_and_warnings(n, lengths):
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            parts = D(lib).random_split(range(n), lengths, generator=lib.Generator().manual_seed(1))
        return [len(p) for p in parts], [(type(x.message).__name__, str(x.message)) for x in w]
    assert run(torchlike) == run(torch)


def _fixed_perm(lib, log):
    def randperm(n, generator=None, **kw):
        log.append((n, generator is not None, sorted(kw)))
        return lib.tensor(np.random.RandomState(n).permutation(n).tolist(), dtype=lib.int64)
    return randperm


@pytest.mark.parametrize('n,lengths', [(10, [3, 7]), (30, [0.3, 0.3, 0.4]), (7, [0.5, 0.5]), (5, [0, 5])])
def test_random_split_assignment_given_permutation(monkeypatch, n, lengths):
    out = {}
    for lib in (torch, torchlike):
        log = []
        monkeypatch.setattr(D(lib).dataset, 'randperm', _fixed_perm(lib, log))
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            parts = D(lib).random_split(list(range(100, 100 + n)), lengths)
        out[lib] = [(type(p).__name__, list(p.indices), [p[i] for i in range(len(p))]) for p in parts], log
    assert out[torchlike] == out[torch]


def test_random_split_errors():
    check(lambda lib: D(lib).random_split(range(10), [3, 6]))            # ValueError: sum != len
    check(lambda lib: D(lib).random_split(range(10), [1.5, -0.5]))       # ValueError: fraction out of range
    check(lambda lib: D(lib).random_split(range(10), [0.5, 0.4]))        # not fractions summing to 1: ValueError
    for lib in (torch, torchlike):
        with pytest.raises(ValueError, match='Fraction at index 0 is not between 0 and 1'):
            D(lib).random_split(range(10), [1.5, -0.5])


def test_random_split_is_a_reproducible_partition():
    data = list(range(50, 90))

    def split(gen):
        return [list(p.indices) for p in torchlike.utils.data.random_split(data, [0.25, 0.5, 0.25], generator=gen)]

    a = split(torchlike.Generator().manual_seed(7))
    assert [len(p) for p in a] == [10, 20, 10]
    assert sorted(sum(a, [])) == list(range(40))
    assert a == split(torchlike.Generator().manual_seed(7))
    assert a != split(torchlike.Generator().manual_seed(8))
    # the split is the generator's randperm cut into consecutive pieces, as in torch
    perm = torchlike.randperm(40, generator=torchlike.Generator().manual_seed(7)).tolist()
    assert sum(a, []) == perm
    # the default generator: torch.manual_seed fixes the split
    torchlike.manual_seed(3)
    b = split(torchlike.default_generator)
    torchlike.manual_seed(3)
    c = [list(p.indices) for p in torchlike.utils.data.random_split(data, [0.25, 0.5, 0.25])]
    assert b == c and sorted(sum(b, [])) == list(range(40))


def test_random_split_subsets_index_dataset():
    for lib in (torch, torchlike):
        ds = D(lib).TensorDataset(lib.arange(20) * 3)
        parts = D(lib).random_split(ds, [5, 15], generator=lib.Generator().manual_seed(0))
        got = sorted(int(p[i][0]) for p in parts for i in range(len(p)))
        assert got == list(range(0, 60, 3))


def test_public_names():
    import torch.utils.data as TD
    for name in ['Dataset', 'IterableDataset', 'TensorDataset', 'StackDataset', 'ConcatDataset', 'ChainDataset',
                 'Subset', 'random_split']:
        assert name in TD.__all__ and name in torchlike.utils.data.__all__
        assert getattr(torchlike.utils.data, name) is getattr(torchlike.utils.data.dataset, name)
    assert torchlike.utils.data.dataset.__all__ == TD.dataset.__all__
    # the package exports a sorted subset of torch's names (torch's datapipes are not provided)
    assert torchlike.utils.data.__all__ == sorted(torchlike.utils.data.__all__)
    assert set(torchlike.utils.data.__all__) <= set(TD.__all__)
    assert all(hasattr(torchlike.utils.data, n) for n in torchlike.utils.data.__all__)
