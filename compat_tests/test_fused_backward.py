"""The fused whole-graph backward (Note [Fused backward] in torchlike/_engine/fused.py).

A graph seen repeatedly (a training loop) has its backward compiled as one program; every
scenario here runs the same graph several times, comparing every gradient with torch after
every iteration, and checks that the fused path was really taken.
"""
import numpy as np
import pytest
import torch

import torchlike
from torchlike._engine import fused

from conftest import assert_same

pytestmark = pytest.mark.usefixtures('eager_mode')   # fusion is eager mode's mechanism


def _leaves(T, n, shapes, seed=0):
    rs = np.random.RandomState(seed)
    return [T.tensor(rs.uniform(-1, 1, s).astype(np.float32), requires_grad=True) for s in shapes][:n]


def _fanin(T, a, b):          # a used three times, reductions over dims, broadcasting
    h = T.tanh(a @ b) + a.sum(0, keepdim=True) * 2
    return (h * h).mean() + a.exp().sum()


def _unused_output(T, a, b):  # max returns (values, indices); only values carry a gradient
    v, i = (a * b).max(dim=1)
    return v.sum() + T.relu(b).pow(2).sum()


def _views(T, a, b):          # views and a slice written in place inside the graph
    c = a.clone()
    c[:, 0] = b[:, 1] * 3
    return (c.t().reshape(-1)[2:] * 2).sum() + a.view(-1).softmax(0)[0]


def _broadcast_leaf(T, a, b):  # a (3,1) leaf broadcast against (3,4)
    return ((a + b) ** 2).sum() + (a * 0.5).sum()


SCENARIOS = {
    'fanin': (_fanin, [(3, 4), (4, 4)]),
    'unused_output': (_unused_output, [(3, 4), (3, 4)]),
    'views': (_views, [(3, 4), (3, 4)]),
    'broadcast_leaf': (_broadcast_leaf, [(3, 1), (3, 4)]),
}


@pytest.mark.parametrize('name', list(SCENARIOS))
@pytest.mark.parametrize('zero_grad', [True, False])
def test_repeated_graph_matches_torch(name, zero_grad):
    fn, shapes = SCENARIOS[name]
    th = _leaves(torch, 2, shapes)
    tl = _leaves(torchlike, 2, shapes)
    before = fused.stats['runs']
    for it in range(4):
        if zero_grad:
            for p in th + tl:
                p.grad = None
        lt = fn(torch, *th)
        ll = fn(torchlike, *tl)
        lt.backward()
        ll.backward()
        assert_same(ll.detach(), lt.detach())
        for a, b in zip(tl, th):
            assert_same(a.grad, b.grad, atol=1e-4, rtol=1e-4)
        # the leaves move like an optimiser step, so every iteration sees new values
        with torch.no_grad():
            for p in th:
                p.sub_(0.1 * p.grad)
        with torchlike.no_grad():
            for p in tl:
                p.sub_(0.1 * p.grad)
    assert fused.stats['runs'] > before, 'the repeated graph never took the fused backward'


def test_hot_graph_still_checks_versions():
    # torch raises when a tensor saved for backward was modified in place; so must the fused path.
    for T in (torch, torchlike):
        a = T.ones(3, requires_grad=True)
        for it in range(4):
            y = a.exp()
            z = y.sum()
            if it == 3:
                y.add_(1)
                with pytest.raises(RuntimeError, match='modified by an inplace operation'):
                    z.backward()
            else:
                z.backward()


def test_hot_graph_frees_buffers():
    # backward twice without retain_graph raises on the fused path as on torch's
    for T in (torch, torchlike):
        a = T.ones(3, requires_grad=True)
        for it in range(4):
            z = (a.exp() * a).sum()
            z.backward(retain_graph=(it == 3))
            if it == 3:
                z.backward()
                with pytest.raises(RuntimeError, match='backward through the graph a second time'):
                    z.backward()


def test_hooks_take_the_node_by_node_path():
    # a hook on an intermediate runs (and can rewrite the gradient) however hot the graph is
    for T in (torch, torchlike):
        a = T.ones(2, requires_grad=True)
        seen = []
        for it in range(4):
            a.grad = None
            y = a * 2
            y.register_hook(lambda g: seen.append(1) or g * 10)
            y.sum().backward()
        assert len(seen) == 4
        assert a.grad.tolist() == [20.0, 20.0]
