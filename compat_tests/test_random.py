"""Randomness against real torch.

The numbers cannot equal torch's (a different generator), so these tests check: same seed => identical
numbers (manual_seed, Generator objects, get/set_state round trips, fork_rng), different seeds differ,
the distributions (compared with torch's own samples and with theory, within sampling error), dtypes and
shapes equal torch's, gradients and grad_fn names equal torch's, and errors are torch's.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import to_np

LIBS = (torch, torchlike)


def dt(lib, name):
    return getattr(lib, name)


def same_error(fn, msg=True):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(Exception) as e_th:
            fn(torch)
        with pytest.raises(Exception) as e_tl:
            fn(torchlike)
    assert type(e_tl.value) is type(e_th.value), (e_tl.value, e_th.value)
    if msg:
        assert str(e_tl.value).split('\n')[0] == str(e_th.value).split('\n')[0]


def same_meta(fn):
    """fn(lib) gives a tensor of the same dtype and shape in both libraries (and the same requires_grad)."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        a, b = fn(torchlike), fn(torch)
    assert isinstance(a, torchlike.Tensor)
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    assert a.requires_grad == b.requires_grad
    return a, b


# ---- every sampler: reproducibility, dtype and shape --------------------------------------

SAMPLERS = {
    'rand': lambda t, g: t.rand(3, 4, generator=g),
    'rand_f64': lambda t, g: t.rand((2, 3), dtype=t.float64, generator=g),
    'rand_c64': lambda t, g: t.rand(5, dtype=t.complex64, generator=g),
    'rand_f16': lambda t, g: t.rand(5, dtype=t.float16, generator=g),
    'rand_size_kw': lambda t, g: t.rand(size=(2, 2), generator=g),
    'randn': lambda t, g: t.randn(2, 3, generator=g),
    'randn_c128': lambda t, g: t.randn(4, dtype=t.complex128, generator=g),
    'randn_bf16': lambda t, g: t.randn(4, dtype=t.bfloat16, generator=g),
    'randint': lambda t, g: t.randint(10, (3, 4), generator=g),
    'randint_low': lambda t, g: t.randint(-5, 5, (7,), generator=g),
    'randint_kw': lambda t, g: t.randint(low=2, high=9, size=(3,), generator=g),
    'randint_f32': lambda t, g: t.randint(0, 5, (6,), dtype=t.float32, generator=g),
    'randint_u8': lambda t, g: t.randint(0, 256, (6,), dtype=t.uint8, generator=g),
    'randint_bool': lambda t, g: t.randint(0, 2, (6,), dtype=t.bool, generator=g),
    'randint_big': lambda t, g: t.randint(-2 ** 63, 2 ** 63 - 1, (6,), generator=g),
    'randint_scalar': lambda t, g: t.randint(10, (), generator=g),
    'rand_scalar': lambda t, g: t.rand((), generator=g),
    'randn_empty': lambda t, g: t.randn(0, 3, generator=g),
    'randperm': lambda t, g: t.randperm(10, generator=g),
    'randperm_f32': lambda t, g: t.randperm(7, dtype=t.float32, generator=g),
    'randperm_i32': lambda t, g: t.randperm(7, dtype=t.int32, generator=g),
    'normal_tt': lambda t, g: t.normal(t.zeros(2, 3), t.ones(3), generator=g),
    'normal_tf': lambda t, g: t.normal(t.zeros(4, dtype=t.float64), 2.0, generator=g),
    'normal_ft': lambda t, g: t.normal(1.0, t.ones(4), generator=g),
    'normal_ff': lambda t, g: t.normal(0.0, 1.0, (2, 5), generator=g),
    'normal_ff_kw': lambda t, g: t.normal(0, 1, size=(3,), dtype=t.float64, generator=g),
    'normal_mean_only': lambda t, g: t.normal(t.zeros(3), generator=g),
    'bernoulli': lambda t, g: t.bernoulli(t.full((10,), 0.5), generator=g),
    'bernoulli_f64': lambda t, g: t.bernoulli(t.full((2, 5), 0.3, dtype=t.float64), generator=g),
    'bernoulli_p': lambda t, g: t.bernoulli(t.zeros(10), 0.3, generator=g),
    'bernoulli_p_int': lambda t, g: t.bernoulli(t.zeros(10, dtype=t.int64), 0.3, generator=g),
    'bernoulli_method': lambda t, g: t.full((10,), 0.5).bernoulli(generator=g),
    'multinomial': lambda t, g: t.multinomial(t.ones(6), 4, generator=g),
    'multinomial_2d': lambda t, g: t.multinomial(t.ones(3, 6), 6, generator=g),
    'multinomial_repl': lambda t, g: t.multinomial(t.ones(3, 4), 9, True, generator=g),
    'multinomial_method': lambda t, g: t.ones(5).multinomial(2, replacement=True, generator=g),
    'poisson': lambda t, g: t.poisson(t.full((8,), 3.0), g),
    'poisson_f64': lambda t, g: t.poisson(t.full((8,), 3.0, dtype=t.float64), generator=g),
    'rand_like': lambda t, g: t.rand_like(t.zeros(2, 3, dtype=t.float64), generator=g),
    'rand_like_dtype': lambda t, g: t.rand_like(t.zeros(2, 3), dtype=t.float16, generator=g),
    'randn_like': lambda t, g: t.randn_like(t.zeros(4), generator=g),
    'randint_like': lambda t, g: t.randint_like(t.zeros(5, dtype=t.int32), 7, generator=g),
    'randint_like_low': lambda t, g: t.randint_like(t.zeros(5), 3, 9, generator=g),
    'uniform_': lambda t, g: t.zeros(6).uniform_(2, 5, generator=g),
    'uniform_c64': lambda t, g: t.zeros(6, dtype=t.complex64).uniform_(generator=g),
    'normal_': lambda t, g: t.zeros(6, dtype=t.float64).normal_(3, 0.5, generator=g),
    'normal_c64': lambda t, g: t.zeros(6, dtype=t.complex64).normal_(generator=g),
    'bernoulli_': lambda t, g: t.zeros(6).bernoulli_(0.4, generator=g),
    'bernoulli_int': lambda t, g: t.zeros(6, dtype=t.int64).bernoulli_(generator=g),
    'bernoulli_bool': lambda t, g: t.zeros(6, dtype=t.bool).bernoulli_(0.7, generator=g),
    'bernoulli_tensor_p': lambda t, g: t.zeros(2, 6).bernoulli_(t.full((6,), 0.3), generator=g),
    'exponential_': lambda t, g: t.zeros(6).exponential_(2.0, generator=g),
    'geometric_': lambda t, g: t.zeros(6).geometric_(0.3, generator=g),
    'geometric_int': lambda t, g: t.zeros(6, dtype=t.int64).geometric_(0.3, generator=g),
    'log_normal_': lambda t, g: t.zeros(6).log_normal_(generator=g),
    'cauchy_': lambda t, g: t.zeros(6, dtype=t.float64).cauchy_(1, 2, generator=g),
    'random_': lambda t, g: t.zeros(6).random_(generator=g),
    'random_to': lambda t, g: t.zeros(6, dtype=t.int64).random_(10, generator=g),
    'random_from_to': lambda t, g: t.zeros(6, dtype=t.int32).random_(-3, 3, generator=g),
    'random_from_none': lambda t, g: t.zeros(6, dtype=t.uint8).random_(200, None, generator=g),
    'random_bool': lambda t, g: t.zeros(6, dtype=t.bool).random_(generator=g),
    'random_i64': lambda t, g: t.zeros(6, dtype=t.int64).random_(generator=g),
}


@pytest.mark.parametrize('name', list(SAMPLERS))
def test_dtype_and_shape(name):
    f = SAMPLERS[name]
    same_meta(lambda t: f(t, t.Generator().manual_seed(1)))
    same_meta(lambda t: f(t, None))


@pytest.mark.parametrize('name', list(SAMPLERS))
def test_same_seed_same_numbers(name):
    f = SAMPLERS[name]
    a = to_np(f(torchlike, torchlike.Generator().manual_seed(123)))
    b = to_np(f(torchlike, torchlike.Generator().manual_seed(123)))
    np.testing.assert_array_equal(a, b)
    torchlike.manual_seed(7)
    c = to_np(f(torchlike, None))
    torchlike.manual_seed(7)
    d = to_np(f(torchlike, None))
    np.testing.assert_array_equal(c, d)


@pytest.mark.parametrize('name', [n for n in SAMPLERS
                                  if n not in ('randint_bool', 'random_bool', 'bernoulli_bool', 'randn_empty')])
def test_different_seeds_differ(name):
    f = SAMPLERS[name]
    outs = {to_np(f(torchlike, torchlike.Generator().manual_seed(s))).tobytes() for s in range(6)}
    assert len(outs) > 1


@pytest.mark.parametrize('name', list(SAMPLERS))
def test_successive_calls_differ(name):
    if 'bool' in name or 'empty' in name:
        pytest.skip('too few outcomes')
    f = SAMPLERS[name]
    g = torchlike.Generator().manual_seed(5)
    outs = {to_np(f(torchlike, g)).tobytes() for _ in range(4)}
    assert len(outs) > 1


def test_explicit_generator_leaves_default_alone():
    torchlike.manual_seed(3)
    a = to_np(torchlike.rand(5))
    torchlike.manual_seed(3)
    torchlike.rand(5, generator=torchlike.Generator().manual_seed(9))
    torchlike.zeros(3).normal_(generator=torchlike.Generator())
    b = to_np(torchlike.rand(5))
    np.testing.assert_array_equal(a, b)


def test_requires_grad_factories():
    same_meta(lambda t: t.rand(3, requires_grad=True))
    same_meta(lambda t: t.randn(3, dtype=t.float64, requires_grad=True))
    same_meta(lambda t: t.randint(0, 3, (3,), dtype=t.float32, requires_grad=True))
    same_meta(lambda t: t.normal(0., 1., (3,), requires_grad=True))
    same_meta(lambda t: t.rand_like(t.ones(3), requires_grad=True))
    same_meta(lambda t: t.rand_like(t.ones(3, requires_grad=True)))
    x = torchlike.rand(3, requires_grad=True)
    assert x.is_leaf and x.grad_fn is None


def test_out():
    for lib in LIBS:
        o = lib.empty(0, dtype=lib.float64)
        r = lib.rand(2, 3, out=o)
        assert r is o and tuple(o.shape) == (2, 3) and o.dtype == lib.float64
        o = lib.empty(0, dtype=lib.int64)
        assert lib.randint(0, 5, (4,), out=o) is o and tuple(o.shape) == (4,)
        o = lib.empty(0, dtype=lib.int64)
        assert lib.randperm(4, out=o) is o and sorted(o.tolist()) == [0, 1, 2, 3]
        o = lib.empty(0)
        assert lib.normal(0., 1., (5,), out=o) is o and tuple(o.shape) == (5,)


# ---- Generator, seeds and states -----------------------------------------------------------

def test_generator_api():
    g = torchlike.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()
    assert g.manual_seed(42) is g and g.initial_seed() == 42
    assert str(g.device) == str(torch.Generator().device) == 'cpu'
    assert g.device == torchlike.device('cpu')
    assert torchlike.Generator('cpu').device.type == 'cpu'
    assert torchlike.Generator(device=torchlike.device('cpu')).device.type == 'cpu'
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s and 0 <= s < 2 ** 64
    assert isinstance(torchlike.default_generator, torchlike.Generator)
    assert torchlike.random.default_generator is torchlike.default_generator
    assert torchlike.manual_seed(5) is torchlike.default_generator
    assert torchlike.initial_seed() == 5 == torchlike.random.initial_seed()


@pytest.mark.parametrize('seed', [0, 1, -1, -5, 2 ** 63, 2 ** 64 - 1, -2 ** 63, 1.7, True, '12'])
def test_manual_seed_values(seed):
    # torch.manual_seed converts with int(); negative seeds wrap to uint64
    a = torchlike.manual_seed(seed).initial_seed()
    b = torch.manual_seed(seed).initial_seed()
    assert a == b


@pytest.mark.parametrize('seed', [2 ** 64, -2 ** 63 - 1, 'a'])
def test_manual_seed_errors(seed):
    same_error(lambda t: t.manual_seed(seed))


@pytest.mark.parametrize('seed', [2 ** 64, 1.5, True, None])
def test_generator_manual_seed_errors(seed):
    same_error(lambda t: t.Generator().manual_seed(seed), msg=seed != None)  # noqa: E711


@pytest.mark.parametrize('seed', [-5, 2 ** 64 - 1, 3])
def test_generator_manual_seed_values(seed):
    assert torchlike.Generator().manual_seed(seed).initial_seed() == torch.Generator().manual_seed(seed).initial_seed()


def test_seed():
    s = torchlike.seed()
    assert isinstance(s, int) and torchlike.initial_seed() == s
    assert torchlike.random.seed() != s


def test_get_set_state_round_trip():
    g = torchlike.Generator().manual_seed(11)
    torchlike.rand(3, generator=g)
    st = g.get_state()
    assert st.dtype == torchlike.uint8 and st.ndim == 1
    a = to_np(torchlike.randn(4, generator=g))
    b = to_np(torchlike.randint(0, 100, (4,), generator=g))
    assert g.set_state(st) is g
    np.testing.assert_array_equal(to_np(torchlike.randn(4, generator=g)), a)
    np.testing.assert_array_equal(to_np(torchlike.randint(0, 100, (4,), generator=g)), b)
    # the state moves to another generator
    h = torchlike.Generator().set_state(st)
    assert h.initial_seed() == 11
    np.testing.assert_array_equal(to_np(torchlike.randn(4, generator=h)), a)


def test_rng_state_round_trip():
    torchlike.manual_seed(0)
    st = torchlike.get_rng_state()
    a = to_np(torchlike.rand(5))
    torchlike.zeros(3).uniform_()
    torchlike.set_rng_state(st)
    np.testing.assert_array_equal(to_np(torchlike.rand(5)), a)
    st = torchlike.random.get_rng_state()
    b = to_np(torchlike.randn(3))
    torchlike.random.set_rng_state(st)
    np.testing.assert_array_equal(to_np(torchlike.randn(3)), b)


def test_clone_state():
    g = torchlike.Generator().manual_seed(4)
    torchlike.rand(2, generator=g)
    h = g.clone_state()
    assert isinstance(h, torchlike.Generator) and h is not g
    np.testing.assert_array_equal(to_np(torchlike.rand(5, generator=g)), to_np(torchlike.rand(5, generator=h)))


def test_fork_rng():
    torchlike.manual_seed(9)
    with torchlike.random.fork_rng():
        inside = to_np(torchlike.rand(4))
        torchlike.manual_seed(1234)
        torchlike.randn(10)
    after = to_np(torchlike.rand(4))
    np.testing.assert_array_equal(inside, after)
    with torchlike.random.fork_rng(enabled=False):
        torchlike.rand(4)
    torchlike.manual_seed(9)
    torchlike.rand(4)
    again = to_np(torchlike.rand(4))
    torchlike.manual_seed(9)
    with torchlike.random.fork_rng(devices=[]):
        torchlike.rand(4)
    torchlike.rand(4)
    np.testing.assert_array_equal(to_np(torchlike.rand(4)), again)


def test_fork_rng_as_decorator():
    @torchlike.random.fork_rng()
    def draw():
        return to_np(torchlike.rand(3))
    torchlike.manual_seed(2)
    a = draw()
    b = to_np(torchlike.rand(3))
    np.testing.assert_array_equal(a, b)


STATE_ERRORS = [
    lambda t: t.Generator().set_state([1, 2]),
    lambda t: t.Generator().set_state(t.zeros(16)),
    lambda t: t.set_rng_state(t.zeros(3)),
    lambda t: t.Generator().set_state(t.zeros(3, dtype=t.uint8)),
    lambda t: t.set_rng_state(t.zeros(3, dtype=t.uint8)),
    lambda t: t.Generator().get_offset(),
    lambda t: t.Generator().set_offset(1),
    lambda t: t.Generator().graphsafe_get_state(),
    lambda t: t.Generator(device='meta'),
    lambda t: t.Generator(device='cuda'),
]


@pytest.mark.parametrize('i', range(len(STATE_ERRORS)))
def test_state_errors(i):
    # our state is 16 bytes, torch's CPU state 5056: messages differ for the size check
    same_error(STATE_ERRORS[i], msg=i not in (3, 4, 9))


def test_seeding_does_not_start_backend():
    code = ("import torchlike, sys; from jax._src import xla_bridge as xb; torchlike.manual_seed(3); "
            "torchlike.seed(); torchlike.initial_seed(); g = torchlike.Generator().manual_seed(1); "
            "torchlike.random.manual_seed(2); assert 'torch' not in sys.modules; "
            "assert not xb._backends, 'backend started'")
    subprocess.run([sys.executable, '-c', code], check=True)


def _programs(o):
    """How many XLA programs the op's jitted functions hold."""
    return sum(f._cache_size() for f in o.cache.values())


def test_no_recompile_per_call():
    # seed and offset are data: a new seed or a later call reuses the compiled program
    from torchlike._ops import random as R
    torchlike.rand(3, 5)
    n = _programs(R._rand_draw)
    for s in (0, 1, 2 ** 63 + 5, 2 ** 64 - 1):
        torchlike.manual_seed(s)
        torchlike.rand(3, 5)
        torchlike.rand(3, 5, generator=torchlike.Generator().manual_seed(s))
    x = torchlike.zeros(4)
    for k in range(4):
        x.uniform_(0.5 * k, 2. + k)
    assert _programs(R._rand_draw) == n


def test_shapes_share_bucket_programs():
    # Note [Bucketed draws]: draws of different shapes up to the bucket size run one program, and keep
    # exactly the numbers an exact-size draw gives (threefry is partitionable)
    from torchlike._ops import random as R
    torchlike.rand(2)
    n = _programs(R._rand_draw)
    for shape in [(5, 6), (7, 8), (3, 4, 5), (1000,)]:
        torchlike.rand(*shape)
        torchlike.empty(*shape).uniform_(-1, 1)
    assert _programs(R._rand_draw) == n
    for sampler, a, b, dt in [('uniform', 0, 1, torchlike.float32), ('normal', 0.5, 2., torchlike.float64),
                              ('int', -3, 9, torchlike.int64), ('uniform', 0, 1, torchlike.complex64),
                              ('_exponential_fill', 1.5, 0, torchlike.float32)]:
        got = R._draw(sampler, 7, 3, a, b, (6, 7), dt, None)
        exact = R._run(R._rand_draw, (7, 3, a, b), (sampler, (6, 7), dt), None)
        assert got.dtype == dt and tuple(got.shape) == (6, 7)
        np.testing.assert_array_equal(to_np(got), to_np(exact))


def test_large_seeds_and_offsets_distinct():
    a = to_np(torchlike.rand(4, generator=torchlike.Generator().manual_seed(2 ** 64 - 1)))
    b = to_np(torchlike.rand(4, generator=torchlike.Generator().manual_seed(2 ** 63 - 1)))
    assert not np.array_equal(a, b)
    g = torchlike.Generator().manual_seed(0)
    g._offset = 2 ** 32
    c = to_np(torchlike.rand(4, generator=g))
    g = torchlike.Generator().manual_seed(0)
    d = to_np(torchlike.rand(4, generator=g))
    assert not np.array_equal(c, d)


# ---- distributions: torchlike's samples vs torch's samples and theory ----------------------

N = 200_000


def samples(fn):
    """fn(lib, generator) for both libraries, as float64 numpy arrays."""
    a = to_np(fn(torchlike, torchlike.Generator().manual_seed(0))).astype(np.float64).ravel()
    b = to_np(fn(torch, torch.Generator().manual_seed(0))).astype(np.float64).ravel()
    return a, b


def close_stats(a, b, mean=None, std=None, k=6):
    se = b.std() / np.sqrt(len(b)) + 1e-12
    assert abs(a.mean() - b.mean()) < k * se * np.sqrt(2), (a.mean(), b.mean())
    assert abs(a.std() - b.std()) <= 0.02 * b.std() + 1e-9, (a.std(), b.std())
    if mean is not None:
        assert abs(a.mean() - mean) < k * se
    if std is not None:
        assert abs(a.std() - std) <= 0.02 * std


def test_rand_distribution():
    a, b = samples(lambda t, g: t.rand(N, generator=g))
    assert a.min() >= 0 and a.max() < 1
    close_stats(a, b, 0.5, np.sqrt(1 / 12))
    a, b = samples(lambda t, g: t.rand(N, dtype=t.float16, generator=g))
    assert a.min() >= 0 and a.max() < 1
    close_stats(a, b, 0.5, np.sqrt(1 / 12))


def test_randn_distribution():
    a, b = samples(lambda t, g: t.randn(N, generator=g))
    close_stats(a, b, 0, 1)
    a, b = samples(lambda t, g: t.randn(N, dtype=t.float64, generator=g))
    close_stats(a, b, 0, 1)


def test_complex_distributions():
    for f in (lambda t, g: t.randn(N, dtype=t.complex64, generator=g),
              lambda t, g: t.rand(N, dtype=t.complex64, generator=g),
              lambda t, g: t.zeros(N, dtype=t.complex64).normal_(2, 3, generator=g)):
        a = to_np(f(torchlike, torchlike.Generator().manual_seed(0)))
        b = to_np(f(torch, torch.Generator().manual_seed(0)))
        close_stats(a.real.astype(np.float64), b.real.astype(np.float64))
        close_stats(a.imag.astype(np.float64), b.imag.astype(np.float64))


@pytest.mark.parametrize('low,high', [(0, 10), (-5, 3), (100, 101), (0, 2)])
def test_randint_distribution(low, high):
    a, b = samples(lambda t, g: t.randint(low, high, (N,), generator=g))
    assert a.min() >= low and a.max() < high
    assert set(np.unique(a)) == set(range(low, high))
    close_stats(a, b, (low + high - 1) / 2)


def test_randint_full_range():
    a = to_np(torchlike.randint(-2 ** 63, 2 ** 63 - 1, (N,)))
    assert (a < 0).mean() > 0.45 and (a > 0).mean() > 0.45
    assert a.min() < -2 ** 62 and a.max() > 2 ** 62


def test_randperm_valid():
    for n in (0, 1, 2, 10, 1000):
        p = to_np(torchlike.randperm(n))
        assert sorted(p.tolist()) == list(range(n))
    # every position sees every value
    counts = np.zeros((5, 5))
    g = torchlike.Generator().manual_seed(0)
    for _ in range(300):
        p = to_np(torchlike.randperm(5, generator=g))
        counts[np.arange(5), p] += 1
    assert counts.min() > 30


@pytest.mark.parametrize('which', ['tt', 'tf', 'ft', 'ff'])
def test_normal_distribution(which):
    f = {'tt': lambda t, g: t.normal(t.full((N,), 2.0), t.full((N,), 3.0), generator=g),
         'tf': lambda t, g: t.normal(t.full((N,), -1.0), 0.5, generator=g),
         'ft': lambda t, g: t.normal(4.0, t.full((N,), 2.0), generator=g),
         'ff': lambda t, g: t.normal(1.0, 2.0, (N,), generator=g)}[which]
    m, s = {'tt': (2, 3), 'tf': (-1, 0.5), 'ft': (4, 2), 'ff': (1, 2)}[which]
    a, b = samples(f)
    close_stats(a, b, m, s)


def test_normal_per_element_params():
    mean = np.repeat(np.array([-10.0, 0.0, 10.0]), N // 3)
    a = to_np(torchlike.normal(torchlike.tensor(mean), torchlike.tensor(np.abs(mean) / 10 + 1)))
    for v in (-10, 0, 10):
        sel = a[mean == v]
        assert abs(sel.mean() - v) < 0.05 and abs(sel.std() - (abs(v) / 10 + 1)) < 0.05


def test_bernoulli_distribution():
    a, b = samples(lambda t, g: t.bernoulli(t.full((N,), 0.3), generator=g))
    assert set(np.unique(a)) == {0.0, 1.0}
    close_stats(a, b, 0.3)
    a, b = samples(lambda t, g: t.bernoulli(t.zeros(N), 0.8, generator=g))
    close_stats(a, b, 0.8)
    a, b = samples(lambda t, g: t.zeros(N).bernoulli_(0.6, generator=g))
    close_stats(a, b, 0.6)
    a, b = samples(lambda t, g: t.zeros(N).bernoulli_(t.full((N,), 0.1), generator=g))
    close_stats(a, b, 0.1)
    # p in {0, 1} is exact
    p = np.array([0.0, 1.0] * 500)
    np.testing.assert_array_equal(to_np(torchlike.bernoulli(torchlike.tensor(p))), p)


def test_multinomial_with_replacement_frequencies():
    p = np.array([0.1, 0.0, 0.6, 0.3])
    a = to_np(torchlike.multinomial(torchlike.tensor(p), N, replacement=True))
    freq = np.bincount(a, minlength=4) / N
    assert freq[1] == 0
    np.testing.assert_allclose(freq, p, atol=0.01)
    rows = to_np(torchlike.multinomial(torchlike.tensor([[1., 0, 0], [0, 0, 5]]), 100, True))
    assert (rows[0] == 0).all() and (rows[1] == 2).all()


def test_multinomial_without_replacement():
    g = torchlike.Generator().manual_seed(0)
    first = np.zeros(4)
    w = np.array([1., 2., 3., 4.])
    for _ in range(2000):
        s = to_np(torchlike.multinomial(torchlike.tensor(w), 3, generator=g))
        assert len(set(s.tolist())) == 3
        first[s[0]] += 1
    np.testing.assert_allclose(first / 2000, w / w.sum(), atol=0.04)
    s = to_np(torchlike.multinomial(torchlike.ones(4, 50), 50))
    for row in s:
        assert sorted(row.tolist()) == list(range(50))
    # zero-probability categories come last, as in torch
    assert sorted(to_np(torchlike.multinomial(torchlike.tensor([1., 0, 0]), 3)).tolist()) == [0, 1, 2]
    assert to_np(torchlike.multinomial(torchlike.tensor([0., 0, 1]), 1)).tolist() == [2]


@pytest.mark.parametrize('lam', [0.0, 0.5, 4.0, 100.0])
def test_poisson_distribution(lam):
    a, b = samples(lambda t, g: t.poisson(t.full((N,), lam), generator=g))
    assert (a == np.round(a)).all() and a.min() >= 0
    close_stats(a, b, lam, np.sqrt(lam))


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_inplace_distributions(dtype):
    def run(f, **kw):
        a, b = samples(lambda t, g: f(t.zeros(N, dtype=getattr(t, dtype)), g))
        close_stats(a, b, **kw)
        return a
    a = run(lambda x, g: x.uniform_(-2, 3, generator=g), mean=0.5, std=5 / np.sqrt(12))
    assert a.min() >= -2 and a.max() < 3
    run(lambda x, g: x.normal_(1, 2, generator=g), mean=1, std=2)
    a = run(lambda x, g: x.exponential_(2.0, generator=g), mean=0.5, std=0.5)
    assert a.min() >= 0
    a = run(lambda x, g: x.geometric_(0.25, generator=g), mean=4, std=np.sqrt(0.75) / 0.25)
    assert a.min() >= 1 and (a == np.round(a)).all()
    a = run(lambda x, g: x.log_normal_(0.5, 0.25, generator=g))
    la = np.log(a)
    assert abs(la.mean() - 0.5) < 0.01 and abs(la.std() - 0.25) < 0.01
    # cauchy: compare quantiles (no mean)
    a, b = samples(lambda t, g: t.zeros(N, dtype=getattr(t, dtype)).cauchy_(1.0, 2.0, generator=g))
    qa, qb = np.percentile(a, [25, 50, 75]), np.percentile(b, [25, 50, 75])
    np.testing.assert_allclose(qa, [-1, 1, 3], atol=0.06)
    np.testing.assert_allclose(qa, qb, atol=0.08)


@pytest.mark.parametrize('dtype,args,lo,hi', [
    ('float32', (), 0, 2 ** 24), ('float64', (), 0, 2 ** 53), ('float16', (), 0, 2 ** 11),
    ('bfloat16', (), 0, 2 ** 8), ('int64', (), 0, 2 ** 63 - 1), ('int32', (), 0, 2 ** 31 - 1),
    ('int16', (), 0, 2 ** 15 - 1), ('uint8', (), 0, 255), ('int8', (), 0, 127), ('bool', (), 0, 1),
    ('float32', (5,), 0, 4), ('int64', (2, 9), 2, 8), ('int32', (-3, 3), -3, 2), ('uint8', (200, None), 200, 255),
    ('float32', (3, None), 3, 2 ** 24)])
def test_random_ranges(dtype, args, lo, hi):
    x = getattr(torchlike, dtype)
    a = to_np(torchlike.zeros(N, dtype=x).random_(*args)).astype(np.float64)
    b = to_np(torch.zeros(N, dtype=getattr(torch, dtype)).random_(*args)).astype(np.float64)
    assert a.min() >= lo and a.max() <= hi
    assert (a == np.round(a)).all()
    span = hi - lo
    # both cover the range like torch: the extremes are near the bounds
    for arr in (a, b):
        assert arr.min() - lo <= span * 0.01 + 1 and hi - arr.max() <= span * 0.01 + 1
    if span < 1000:
        assert set(np.unique(a)) == set(np.unique(b))


# ---- gradients: samplers are not differentiable paths --------------------------------------

def grads_of(lib, fn):
    x = lib.ones(5, dtype=lib.float64, requires_grad=True)
    s = lib.full((5,), 2.0, dtype=lib.float64, requires_grad=True)
    y = fn(lib, x * 1.0, s * 1.0)
    name = y.grad_fn.name()
    y.sum().backward()
    return name, x.grad, s.grad


@pytest.mark.parametrize('case', ['normal_tt', 'normal_tf', 'normal_ft', 'bernoulli', 'poisson'])
def test_sampler_grads(case):
    fn = {'normal_tt': lambda t, x, s: t.normal(x, s) + x * s,
          'normal_tf': lambda t, x, s: t.normal(x, 2.0) * s,
          'normal_ft': lambda t, x, s: t.normal(1.0, s) * x,
          'bernoulli': lambda t, x, s: t.bernoulli(x / 2) + s,
          'poisson': lambda t, x, s: t.poisson(x) * s}[case]
    n_tl, gx_tl, gs_tl = grads_of(torchlike, fn)
    n_th, gx_th, gs_th = grads_of(torch, fn)
    assert n_tl == n_th
    # the sampled values differ, so compare the gradient only where it does not depend on them
    if case == 'normal_tt':
        np.testing.assert_allclose(to_np(gx_tl), to_np(gx_th))
        np.testing.assert_allclose(to_np(gs_tl), to_np(gs_th))
    for lib, (gx, gs) in ((torchlike, (gx_tl, gs_tl)), (torch, (gx_th, gs_th))):
        assert gx is not None and gs is not None


@pytest.mark.parametrize('case', ['normal', 'bernoulli_', 'bernoulli_tensor', 'poisson'])
def test_sampler_grad_is_zero(case):
    def run(lib):
        x = lib.full((4,), 0.5, dtype=lib.float64, requires_grad=True)
        if case == 'normal':
            y = lib.normal(x, x)
        elif case == 'bernoulli_':
            y = x * 1.0
            y.bernoulli_(0.5)
        elif case == 'bernoulli_tensor':
            y = lib.bernoulli(x)
        else:
            y = lib.poisson(x)
        name = y.grad_fn.name()
        y.sum().backward()
        return name, x.grad
    (na, ga), (nb, gb) = run(torchlike), run(torch)
    assert na == nb
    np.testing.assert_array_equal(to_np(ga), to_np(gb))


INPLACE = [('uniform_', ()), ('normal_', ()), ('bernoulli_', ()), ('bernoulli_', (0.3,)), ('exponential_', ()),
           ('geometric_', (0.5,)), ('log_normal_', ()), ('cauchy_', ()), ('random_', ()), ('random_', (5,)),
           ('random_', (2, 5))]


@pytest.mark.parametrize('name,args', INPLACE, ids=str)
def test_inplace_autograd(name, args):
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        r = getattr(y, name)(*args)
        assert r is y
        n = y.grad_fn.name()
        (y.sum() + (x * 3).sum()).backward()    # y's contribution is zero: x.grad == 3
        return n, x.grad
    (na, ga), (nb, gb) = run(torchlike), run(torch)
    assert na == nb
    np.testing.assert_array_equal(to_np(ga), to_np(gb))
    # a leaf that requires grad cannot be overwritten in place
    same_error(lambda t: getattr(t.ones(3, requires_grad=True), name)(*args))


def test_inplace_tensor_p_name():
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True) * 2
        x.bernoulli_(lib.full((3,), 0.2))
        assert x.grad_fn.name() == 'BernoulliBackward1'


def test_bernoulli_float_p_not_differentiable():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = lib.bernoulli(x * 0.5, 0.3)
        assert y.requires_grad
        y.sum().backward()
    same_error(run, msg=False)


def test_inplace_through_view_and_version():
    for lib in LIBS:
        base = lib.zeros(4, 3)
        row = base[1]
        v = base._version
        row.uniform_(5, 6)
        vals = np.asarray(to_np(base))
        assert (vals[1] >= 5).all() and (vals[0] == 0).all() and (vals[2:] == 0).all()
        assert base._version > v


# ---- errors ----------------------------------------------------------------------------

ERRORS = [
    lambda t: t.rand(2, dtype=t.int64),
    lambda t: t.rand(2, dtype=t.bool),
    lambda t: t.randn(2, dtype=t.int32),
    lambda t: t.rand(),
    lambda t: t.rand(-1),
    lambda t: t.rand(2, generator=5),
    lambda t: t.randint(5, 5, (3,)),
    lambda t: t.randint(6, 5, (3,)),
    lambda t: t.randint(5, 3),
    lambda t: t.randint(0, 5, (3,), dtype=t.bool),
    lambda t: t.randint(0, 300, (3,), dtype=t.uint8),
    lambda t: t.randint(-1, 3, (3,), dtype=t.uint8),
    lambda t: t.randint(-200, 3, (3,), dtype=t.int8),
    lambda t: t.randint(0, 2 ** 40, (3,), dtype=t.int32),
    lambda t: t.randint(0, 2 ** 63, (3,)),
    lambda t: t.randint(0, 3, (3,), requires_grad=True),
    lambda t: t.randperm(-1),
    lambda t: t.randperm(5, dtype=t.bool),
    lambda t: t.randperm(257, dtype=t.int8),
    lambda t: t.randperm(3000, dtype=t.float16),
    lambda t: t.normal(t.zeros(3), t.ones(2, 4)),
    lambda t: t.normal(0., -1., (3,)),
    lambda t: t.normal(t.zeros(3), -1.),
    lambda t: t.normal(t.zeros(3, dtype=t.int64), t.ones(3)),
    lambda t: t.normal(t.zeros(3, dtype=t.int64), 1.),
    lambda t: t.normal(0., t.ones(3, dtype=t.int64)),
    lambda t: t.normal(t.zeros(3), t.ones(3, dtype=t.complex64)),
    lambda t: t.normal(0., 1.),
    lambda t: t.bernoulli(t.full((3,), 1, dtype=t.int64)),
    lambda t: t.bernoulli(t.full((3,), 0.5), 1.3),
    lambda t: t.bernoulli(t.full((3,), 0.5, dtype=t.complex64), 0.5),
    lambda t: t.full((3,), 0.5).bernoulli_(1.2),
    lambda t: t.full((3,), 0.5).bernoulli_(-0.1),
    lambda t: t.full((3,), 0.5).bernoulli_(t.full((2, 3), 0.2)),
    lambda t: t.multinomial(t.tensor([1., -1.]), 1),
    lambda t: t.multinomial(t.tensor([0., 0.]), 1),
    lambda t: t.multinomial(t.tensor([1., float('nan')]), 1),
    lambda t: t.multinomial(t.tensor([1., float('inf')]), 1),
    lambda t: t.multinomial(t.tensor([[1., 1.], [0., 0.]]), 1, True),
    lambda t: t.multinomial(t.tensor([1, 2]), 1),
    lambda t: t.multinomial(t.ones(2, 2, 2), 1),
    lambda t: t.multinomial(t.tensor(1.), 1),
    lambda t: t.multinomial(t.ones(2, 4), 5),
    lambda t: t.multinomial(t.ones(2, 4), 0),
    lambda t: t.multinomial(t.ones(2, 4), -1, True),
    lambda t: t.poisson(t.ones(3, dtype=t.int64)),
    lambda t: t.rand_like(t.ones(3, dtype=t.int64)),
    lambda t: t.randn_like(t.ones(3, dtype=t.int64)),
    lambda t: t.randint_like(t.ones(3, dtype=t.int32), 5, 5),
    lambda t: t.zeros(3).uniform_(2, 1),
    lambda t: t.zeros(3, dtype=t.float16).uniform_(0.5, 0.25),
    lambda t: t.zeros(3, dtype=t.int64).uniform_(),
    lambda t: t.zeros(3, dtype=t.int64).normal_(),
    lambda t: t.zeros(3).normal_(0, -1),
    lambda t: t.zeros(3, dtype=t.int64).normal_(0, -1),
    lambda t: t.zeros(3, dtype=t.complex64).bernoulli_(),
    lambda t: t.zeros(3).exponential_(0),
    lambda t: t.zeros(3).exponential_(-1),
    lambda t: t.zeros(3, dtype=t.int64).exponential_(),
    lambda t: t.zeros(3, dtype=t.complex64).exponential_(),
    lambda t: t.zeros(3).geometric_(0),
    lambda t: t.zeros(3).geometric_(1),
    lambda t: t.zeros(3, dtype=t.bool).geometric_(0.5),
    lambda t: t.zeros(3).log_normal_(1, 0),
    lambda t: t.zeros(3, dtype=t.int32).log_normal_(),
    lambda t: t.zeros(3).cauchy_(0, 0),
    lambda t: t.zeros(3, dtype=t.float16).cauchy_(0, -1.5),
    lambda t: t.zeros(3, dtype=t.int64).cauchy_(),
    lambda t: t.zeros(3, dtype=t.uint8).cauchy_(),
    lambda t: t.zeros(3, dtype=t.bool).cauchy_(),
    lambda t: t.zeros(3, dtype=t.int8).cauchy_(),
    lambda t: t.zeros(3, dtype=t.int16).cauchy_(),
    lambda t: t.zeros(3, dtype=t.int32).cauchy_(),
    lambda t: t.zeros(3).random_(5, 2),
    lambda t: t.zeros(3, dtype=t.uint8).random_(-3, 5),
    lambda t: t.zeros(3, dtype=t.bool).random_(5),
    lambda t: t.zeros(3, dtype=t.bool).random_(2, 5),
    lambda t: t.zeros(3, dtype=t.bool).random_(3, None),
    lambda t: t.zeros(3).random_(1.5, 3.5),
    lambda t: t.zeros(3, dtype=t.complex64).random_(),
    lambda t: t.zeros(3, dtype=t.complex64).random_(5),
    lambda t: t.zeros(3, dtype=t.complex64).random_(0, None),
    lambda t: t.zeros(3).random_(**{'from': 2}),
]
# type-only comparisons: torch's argument parser messages, and 'random_(**{from})'
_TYPE_ONLY = {3, 5, 8, 14, 27, 78, 82}


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    same_error(ERRORS[i], msg=i not in _TYPE_ONLY)


def test_unrolled_threefry_draws_jax_random_numbers():
    """Note [Unrolled threefry]: the key derivation and the uniform / normal draws written out in random.py give
    jax.random's numbers bit for bit (so torchlike's stream did not change when the hash was unrolled), for every
    float width and for ranges other than [0, 1)."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from torchlike._ops import random as R

    def jax_key(seed, offset):         # the derivation random._key replaced, with jax.random's own functions
        k = jax.random.key(lax.bitcast_convert_type(jnp.asarray(seed, jnp.int64), jnp.uint64))
        off = jnp.asarray(offset, jnp.int64)
        k = jax.random.fold_in(k, (off & 0xFFFFFFFF).astype(jnp.uint32))
        return jax.random.fold_in(k, (off >> 32).astype(jnp.uint32))
    data = jax.random.key_data
    # jitted, as inside the ops (and as jax.random's own functions are: XLA may fuse a * b + c)
    uniform = jax.jit(R.uniform_draw, static_argnums=(1, 2))
    normal = jax.jit(R.normal_draw, static_argnums=(1, 2))
    for seed, off in [(0, 0), (67280421310721, 5), (-3, 2 ** 33 + 7), (2 ** 62, 123456)]:
        ref, key = jax_key(seed, off), jax.jit(R._key)(seed, off)
        np.testing.assert_array_equal(data(key), data(ref))
        np.testing.assert_array_equal(data(R.fold_in(key, 3)), data(jax.random.fold_in(ref, 3)))
        for shape in [(), (1,), (7,), (3, 5), (2, 3, 4)]:
            for dtype in [jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64]:
                for lo, hi in [(0., 1.), (-2., 3.5)]:
                    a = jax.random.uniform(ref, shape, dtype, lo, hi)
                    b = uniform(key, shape, dtype, lo, hi)
                    assert (a.dtype, a.shape) == (b.dtype, b.shape)
                    np.testing.assert_array_equal(np.asarray(a, np.float64), np.asarray(b, np.float64))
                a, b = jax.random.normal(ref, shape, dtype), normal(key, shape, dtype)
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(np.asarray(a, np.float64), np.asarray(b, np.float64))
