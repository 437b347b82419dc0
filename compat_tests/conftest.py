"""Shared fixtures: real PyTorch is the oracle; torchlike is the system under test."""
import contextlib

import numpy as np
import pytest

import torch          # the oracle (test dependency only)
import torchlike


def to_np(x):
    """numpy value of a torch or torchlike tensor (or nested structure)."""
    if isinstance(x, torch.Tensor):
        x = x.detach().resolve_conj().resolve_neg()
        if x.dtype == torch.bfloat16:
            x = x.float()
        return x.cpu().numpy()
    if isinstance(x, torchlike.Tensor):
        return np.asarray(x.detach()._materialize())
    return np.asarray(x)


def assert_same(tl, th, atol=1e-4, rtol=1e-4, check_dtype=True):
    """Compare a torchlike result with a torch result: type, dtype, shape, values."""
    if isinstance(th, (tuple, list)):
        assert isinstance(tl, (tuple, list)), f'expected a sequence, got {type(tl)}'
        assert len(tl) == len(th)
        for a, b in zip(tl, th):
            assert_same(a, b, atol, rtol, check_dtype)
        return
    if isinstance(th, torch.Tensor):
        assert isinstance(tl, torchlike.Tensor), f'expected a Tensor, got {type(tl)}'
        if check_dtype:
            assert str(tl.dtype) == str(th.dtype), f'dtype {tl.dtype} != {th.dtype}'
        assert tuple(tl.shape) == tuple(th.shape), f'shape {tuple(tl.shape)} != {tuple(th.shape)}'
        np.testing.assert_allclose(to_np(tl), to_np(th), atol=atol, rtol=rtol, equal_nan=True)
        return
    if isinstance(th, torch.dtype):
        assert str(tl) == str(th), f'{tl} != {th}'
        return
    assert type(tl) is type(th) or (isinstance(tl, (int, float)) and isinstance(th, (int, float))), (tl, th)
    if isinstance(th, float):
        np.testing.assert_allclose(tl, th, atol=atol, rtol=rtol, equal_nan=True)
    else:
        assert tl == th


@pytest.fixture
def same():
    return assert_same


def check(fn, atol=1e-4, rtol=1e-4, check_dtype=True):
    """Run ``fn(torch)`` and ``fn(torchlike)``; the results must match, or both must raise the same type."""
    try:
        expected, exp_exc = fn(torch), None
    except Exception as e:  # noqa: BLE001 - the oracle's exception type is the expectation
        expected, exp_exc = None, e
    try:
        got, got_exc = fn(torchlike), None
    except Exception as e:  # noqa: BLE001
        got, got_exc = None, e
    if exp_exc is not None:
        assert got_exc is not None, f'torch raised {type(exp_exc).__name__}: {exp_exc}, torchlike returned {got!r}'
        assert type(got_exc) is type(exp_exc), \
            f'torch raised {type(exp_exc).__name__}: {exp_exc}\ntorchlike raised {type(got_exc).__name__}: {got_exc}'
        return
    if got_exc is not None:
        raise got_exc
    assert_same(got, expected, atol=atol, rtol=rtol, check_dtype=check_dtype)


def make_input(lib, a, grad=False):
    """A torch or torchlike tensor from a numpy array (other values pass through)."""
    if isinstance(a, np.ndarray):
        t = lib.from_numpy(a.copy()) if a.dtype != np.float16 else lib.tensor(a)
        if grad:
            t.requires_grad_(True)
        return t
    return a


def assert_same_named(tl, th, atol=1e-5, rtol=1e-5):
    """assert_same that also checks named-tuple return types (torch.return_types.*) by name."""
    if isinstance(th, tuple):
        assert isinstance(tl, tuple), type(tl)
        assert type(tl).__name__ == type(th).__name__, (type(tl), type(th))
        assert len(tl) == len(th)
        for a, b in zip(tl, th):
            assert_same_named(a, b, atol, rtol)
        return
    assert_same(tl, th, atol, rtol)


@contextlib.contextmanager
def execution_mode(mode):
    """Run the block in torchlike's ``mode`` ('eager' or 'lazy'), then restore the previous one."""
    prev = torchlike.get_execution_mode()
    torchlike.set_execution_mode(mode)
    try:
        yield
    finally:
        torchlike.set_execution_mode(prev)


@pytest.fixture
def eager_mode():
    """Pin eager execution for a test about an eager-only mechanism (e.g. the fused backward), so the suite
    also holds when run with TORCHLIKE_MODE=lazy."""
    with execution_mode('eager'):
        yield
