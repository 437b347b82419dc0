"""torch.utils.data samplers and DistributedSampler, compared with real torch.

Deterministic samplers (sequential, batch, distributed with shuffle=False) and every validation error are
compared exactly. The random ones draw from torchlike's own stream, so they are tested two ways:
(1) with the random ops of both libraries replaced by the same deterministic stand-ins, the outputs and
the calls made (sizes, generator seeds) must be identical -- this checks torch's drawing structure and
index assignment; (2) the real draws must have the properties torch guarantees (a permutation of the
right set, the right lengths, reproducible from a seed, different between epochs, frequencies
proportional to the weights).
"""
import numpy as np
import pytest
import torch

import torchlike
import torchlike.utils.data  # noqa: F401  (until torchlike/__init__ imports utils itself)
from conftest import check


def D(lib):
    return lib.utils.data


def _seeded(lib, s):
    return lib.Generator().manual_seed(s)


class _Fakes:
    """Deterministic stand-ins for randperm / randint that log how they were called.

    ``seedless``: log only whether a generator was passed, not its seed -- for samplers that seed a fresh
    generator from the default one, whose seed is a draw of each library's own stream.
    """

    def __init__(self, lib, seedless):
        self.lib, self.seedless, self.log = lib, seedless, []

    def _gen(self, generator):
        if self.seedless or generator is None:
            return generator is not None
        return generator.initial_seed()

    def randperm(self, n, *, generator=None, **kw):
        self.log.append(('randperm', n, self._gen(generator), sorted(kw)))
        perm = np.random.RandomState(n + len(self.log)).permutation(n).tolist()
        return self.lib.tensor(perm, dtype=self.lib.int64)

    def randint(self, *args, size=None, high=None, generator=None, dtype=None, **kw):
        self.log.append(('randint', args, tuple(size), high, self._gen(generator), str(dtype), sorted(kw)))
        vals = [(7 * i + len(self.log)) % high for i in range(size[0])]
        return self.lib.tensor(vals, dtype=self.lib.int64)


def _patched(monkeypatch, fn, seedless=False):
    """fn(lib) under both libraries with randperm/randint replaced by the same fakes: [(result, calls)] for
    torchlike, then torch."""
    out = []
    for lib in (torchlike, torch):
        fakes = _Fakes(lib, seedless)
        monkeypatch.setattr(lib, 'randperm', fakes.randperm)
        monkeypatch.setattr(lib, 'randint', fakes.randint)
        try:
            out.append((fn(lib), fakes.log))
        finally:
            monkeypatch.undo()
    return out


# ---- Sampler / SequentialSampler -------------------------------------------------------------

def test_sampler_base():
    check(lambda lib: iter(D(lib).Sampler()))           # NotImplementedError
    check(lambda lib: len(D(lib).Sampler()))            # TypeError: no default __len__

    def custom(lib):
        class Evens(D(lib).Sampler):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(0, self.n, 2))
        return list(Evens(9)), list(D(lib).BatchSampler(Evens(9), 2, False))
    check(custom)
    check(lambda lib: D(lib).Sampler[int].__origin__.__name__)


def test_sequential_sampler():
    def fn(lib):
        s = D(lib).SequentialSampler(lib.zeros(5, 3))
        data = [1, 2, 3]
        s2 = D(lib).SequentialSampler(data)
        first = list(s2)
        data.append(4)     # the length is read at each iteration
        return [list(s), len(s), first, list(s2), len(s2), list(D(lib).SequentialSampler([]))]
    check(fn)


# ---- RandomSampler ---------------------------------------------------------------------------

@pytest.mark.parametrize('kw', [dict(replacement=1), dict(replacement=None), dict(num_samples=0),
                                dict(num_samples=-3), dict(num_samples=2.0), dict(num_samples='3')])
def test_random_sampler_validation(kw):
    check(lambda lib: D(lib).RandomSampler(range(5), **kw))
    for lib in (torch, torchlike):
        with pytest.raises(Exception) as e:
            D(lib).RandomSampler(range(5), **kw)
        msg = str(e.value)
        assert ('replacement should be a boolean value' in msg) or ('num_samples should be a positive' in msg)


def test_random_sampler_empty_dataset():
    check(lambda lib: D(lib).RandomSampler([]))                                   # ValueError
    check(lambda lib: len(D(lib).RandomSampler([], num_samples=3)))


@pytest.mark.parametrize('n,kw', [(7, {}), (5, dict(num_samples=12)), (6, dict(num_samples=4)),
                                  (10, dict(replacement=True)), (3, dict(replacement=True, num_samples=70)),
                                  (4, dict(replacement=True, num_samples=32))])
def test_random_sampler_structure(monkeypatch, n, kw):
    # with a generator: its seed reaches every draw
    got, exp = _patched(monkeypatch, lambda lib: (list(D(lib).RandomSampler(
        range(n), generator=_seeded(lib, 5), **kw)), len(D(lib).RandomSampler(range(n), **kw))))
    assert got == exp
    # without one: a fresh generator per iteration, seeded from the default generator
    got, exp = _patched(monkeypatch, lambda lib: list(D(lib).RandomSampler(range(n), **kw)), seedless=True)
    assert got == exp


def test_random_sampler_permutation_properties():
    S = torchlike.utils.data.RandomSampler
    a = list(S(range(20), generator=_seeded(torchlike, 3)))
    assert sorted(a) == list(range(20))
    assert a == list(S(range(20), generator=_seeded(torchlike, 3)))
    assert a != list(S(range(20), generator=_seeded(torchlike, 4)))
    # num_samples > n: whole permutations, then a prefix of one more
    b = list(S(range(6), num_samples=15, generator=_seeded(torchlike, 0)))
    assert len(b) == 15 and sorted(b[:6]) == sorted(b[6:12]) == list(range(6)) and len(set(b[12:])) == 3
    # no generator: reproducible under manual_seed, different between epochs
    s = S(range(20))
    torchlike.manual_seed(11)
    e1, e2 = list(s), list(s)
    torchlike.manual_seed(11)
    assert list(s) == e1 and e1 != e2 and sorted(e2) == list(range(20))


def test_random_sampler_replacement_properties():
    S = torchlike.utils.data.RandomSampler
    a = list(S(range(5), replacement=True, num_samples=40, generator=_seeded(torchlike, 1)))
    assert len(a) == 40 and set(a) <= set(range(5)) and len(set(a)) > 1
    assert all(type(i) is int for i in a)
    assert a == list(S(range(5), replacement=True, num_samples=40, generator=_seeded(torchlike, 1)))
    g = _seeded(torchlike, 2)
    s = S(range(5), replacement=True, num_samples=40, generator=g)
    assert list(s) != list(s)        # a shared generator advances between epochs


def test_random_sampler_num_samples_tracks_dataset():
    for lib in (torch, torchlike):
        data = [0, 1, 2]
        s = D(lib).RandomSampler(data)
        data.extend([3, 4])
        assert len(s) == s.num_samples == 5
        assert sorted(s) == list(range(5))


# ---- SubsetRandomSampler ---------------------------------------------------------------------

def test_subset_random_sampler(monkeypatch):
    got, exp = _patched(monkeypatch, lambda lib: (
        list(D(lib).SubsetRandomSampler([10, 30, 20, 50], generator=_seeded(lib, 9))),
        list(D(lib).SubsetRandomSampler((4, 5, 6))), len(D(lib).SubsetRandomSampler(range(3, 9)))))
    assert got == exp
    s = torchlike.utils.data.SubsetRandomSampler([10, 30, 20, 50, 70], generator=_seeded(torchlike, 1))
    a = list(s)
    assert sorted(a) == [10, 20, 30, 50, 70] and len(s) == 5
    assert a == list(torchlike.utils.data.SubsetRandomSampler([10, 30, 20, 50, 70], generator=_seeded(torchlike, 1)))
    assert list(torchlike.utils.data.SubsetRandomSampler([])) == []


# ---- WeightedRandomSampler -------------------------------------------------------------------

@pytest.mark.parametrize('args,kw', [(([1.0, 2.0], 0), {}), (([1.0, 2.0], -1), {}), (([1.0, 2.0], True), {}),
                                     (([1.0, 2.0], 2.0), {}), (([1.0, 2.0], 2), dict(replacement=1)),
                                     (([[1.0, 2.0]], 2), {}), ((3.0, 2), {})])
def test_weighted_sampler_validation(args, kw):
    check(lambda lib: D(lib).WeightedRandomSampler(*args, **kw))


def test_weighted_sampler_attributes():
    def fn(lib):
        s = D(lib).WeightedRandomSampler([1, 2, 3], 4, replacement=False)
        s2 = D(lib).WeightedRandomSampler(lib.tensor([0.5, 0.25], dtype=lib.float32), 7)
        return [s.weights, len(s), s.num_samples, s.replacement, s2.weights, s2.replacement, len(s2)]
    check(fn)


def test_weighted_sampler_iteration_errors():
    check(lambda lib: list(D(lib).WeightedRandomSampler([1.0, -1.0], 3)))            # RuntimeError
    check(lambda lib: list(D(lib).WeightedRandomSampler([1.0, 2.0], 3, replacement=False)))
    check(lambda lib: list(D(lib).WeightedRandomSampler([0.0, 0.0], 1)))


def test_weighted_sampler_properties():
    W = torchlike.utils.data.WeightedRandomSampler
    w = [0.1, 0.9, 0.0, 2.0, 1.0]
    draws = list(W(w, 8000, generator=_seeded(torchlike, 0)))
    assert len(draws) == 8000 and all(type(i) is int for i in draws)
    freq = np.bincount(draws, minlength=5) / 8000
    np.testing.assert_allclose(freq, np.array(w) / sum(w), atol=0.02)
    assert freq[2] == 0
    assert draws[:50] == list(W(w, 8000, generator=_seeded(torchlike, 0)))[:50]
    nr = list(W(w, 4, replacement=False, generator=_seeded(torchlike, 1)))
    assert len(set(nr)) == 4 and 2 not in nr
    torchlike.manual_seed(5)
    a = list(W(w, 20))
    torchlike.manual_seed(5)
    assert a == list(W(w, 20))


# ---- BatchSampler ----------------------------------------------------------------------------

@pytest.mark.parametrize('n', [0, 1, 9, 10, 11])
@pytest.mark.parametrize('bs', [1, 3, 10, 12])
@pytest.mark.parametrize('drop_last', [False, True])
def test_batch_sampler(n, bs, drop_last):
    def fn(lib):
        s = D(lib).BatchSampler(D(lib).SequentialSampler(range(n)), bs, drop_last)
        return [list(s), len(s), list(D(lib).BatchSampler(range(100, 100 + n), bs, drop_last))]
    check(fn)


def test_batch_sampler_any_iterable():
    class GetitemOnly:
        def __getitem__(self, i):
            if i >= 5:
                raise IndexError
            return i * i

    def fn(lib):
        gen = (i for i in 'abcdefg')
        return [list(D(lib).BatchSampler(GetitemOnly(), 2, False)), list(D(lib).BatchSampler(gen, 3, True))]
    check(fn)
    check(lambda lib: len(D(lib).BatchSampler(iter(range(5)), 2, False)))       # TypeError: no len


@pytest.mark.parametrize('args', [(0, False), (-1, True), (2.0, False), (True, False), ('2', False), (2, 0),
                                  (2, None), (2, 'yes')])
def test_batch_sampler_validation(args):
    check(lambda lib: D(lib).BatchSampler(range(5), *args))


# ---- DistributedSampler ----------------------------------------------------------------------

def _dist_run(lib, n, replicas, drop_last, shuffle=False, seed=0, epoch=None):
    ranks = []
    for r in range(replicas):
        s = D(lib).distributed.DistributedSampler(list(range(n)), num_replicas=replicas, rank=r, shuffle=shuffle,
                                                  seed=seed, drop_last=drop_last)
        if epoch is not None:
            s.set_epoch(epoch)
        ranks.append([list(s), len(s), s.num_samples, s.total_size, s.epoch])
    return ranks


@pytest.mark.parametrize('n', [0, 1, 2, 7, 10, 12])
@pytest.mark.parametrize('replicas', [1, 3, 5])
@pytest.mark.parametrize('drop_last', [False, True])
def test_distributed_sampler_unshuffled(n, replicas, drop_last):
    check(lambda lib: _dist_run(lib, n, replicas, drop_last))


@pytest.mark.parametrize('n,replicas,drop_last,seed,epoch', [
    (10, 3, False, 0, None), (10, 3, True, 4, 2), (2, 5, False, 1, 7), (12, 4, False, 0, 1), (7, 2, True, 3, 0)])
def test_distributed_sampler_shuffled_assignment(monkeypatch, n, replicas, drop_last, seed, epoch):
    got, exp = _patched(monkeypatch, lambda lib: _dist_run(lib, n, replicas, drop_last, True, seed, epoch))
    assert got == exp
    assert any(e[0] == 'randperm' for e in got[1])


def test_distributed_sampler_shuffled_properties():
    DS = torchlike.utils.data.DistributedSampler
    n, R = 23, 4
    samplers = [DS(range(n), num_replicas=R, rank=r, seed=5) for r in range(R)]
    parts = [list(s) for s in samplers]
    assert all(len(p) == 6 for p in parts)
    # the ranks interleave the one permutation that randperm draws from a generator seeded seed + epoch
    perm = torchlike.randperm(n, generator=_seeded(torchlike, 5)).tolist()
    padded = perm + perm[:R * 6 - n]
    assert parts == [padded[r::R] for r in range(R)]
    assert parts == [list(s) for s in samplers]                 # the same epoch gives the same order
    for s in samplers:
        s.set_epoch(1)
    parts1 = [list(s) for s in samplers]
    assert parts1 != parts and set(i for p in parts1 for i in p) == set(range(n))
    assert parts1[0] == list(DS(range(n), num_replicas=R, rank=0, seed=6))    # seed + epoch


def test_distributed_sampler_validation():
    check(lambda lib: D(lib).DistributedSampler(range(4), num_replicas=2, rank=2))      # ValueError
    check(lambda lib: D(lib).DistributedSampler(range(4), num_replicas=2, rank=-1))
    for lib in (torch, torchlike):
        with pytest.raises(ValueError, match=r'Invalid rank 3, rank should be in the interval \[0, 2\]'):
            D(lib).DistributedSampler(range(4), num_replicas=3, rank=3)


def test_distributed_sampler_needs_distributed_package():
    # torch takes num_replicas / rank from torch.distributed. While torchlike has no distributed package it
    # raises torch's error for a build without one; once it has, the behaviour must be torch's.
    import importlib.util
    for kw in (dict(rank=0), dict(num_replicas=2), {}):
        if importlib.util.find_spec('torchlike.distributed') is not None:
            check(lambda lib: list(D(lib).DistributedSampler(range(4), **kw)))
            continue
        with pytest.raises(RuntimeError, match='Requires distributed package to be available'):
            torchlike.utils.data.DistributedSampler(range(4), **kw)


def test_public_names():
    import torch.utils.data as TD
    for mod in ('sampler', 'distributed'):
        assert getattr(torchlike.utils.data, mod).__all__ == getattr(TD, mod).__all__
        for name in getattr(TD, mod).__all__:
            assert getattr(torchlike.utils.data, name) is getattr(getattr(torchlike.utils.data, mod), name)
