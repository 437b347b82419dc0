"""The classic autograd tour, against real torch."""
import torch
import torchlike


def run(T):
    x = T.ones(5, 3, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    out.backward()
    return x.grad, out, z.grad_fn.name(), out.grad_fn.name()


def test_autograd_tour(same):
    a, b = run(torchlike), run(torch)
    same(a[0], b[0])
    same(a[1], b[1])
    assert a[2:] == b[2:]


def test_import_does_not_import_torch():
    import subprocess, sys
    code = "import torchlike, sys; assert 'torch' not in sys.modules; import jax; " \
           "from jax._src import xla_bridge as xb; assert not xb._backends, 'backend started at import'"
    subprocess.run([sys.executable, '-c', code], check=True)
