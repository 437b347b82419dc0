"""The autograd tour from PyTorch's "Deep Learning with PyTorch: A 60 Minute Blitz".

Plain PyTorch: run it with `python examples/autograd_tour.py` (real torch) or, unchanged, with
`python -m torchlike examples/autograd_tour.py`; both print the same thing.
(The tutorial's random inputs are replaced by fixed values so that the two runs can be compared.)
"""
import torch

# A tensor that records the operations done on it.
x = torch.ones(2, 2, requires_grad=True)
print(x)

y = x + 2
print(y)
print(y.grad_fn)          # y was made by an operation, so it has a grad_fn

z = y * y * 3
out = z.mean()
print(z, out)

# requires_grad_() changes a tensor's flag in place; it is False by default.
a = torch.tensor([[0.5, -1.0], [2.0, 3.0]])
a = (a * 3) / (a - 1)
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)

# Gradients: out is a scalar, so out.backward() is out.backward(torch.tensor(1.)).
out.backward()
print(x.grad)             # d(out)/dx = 3 * (x + 2) / 2 = 4.5

# A vector-Jacobian product: y is not a scalar, so backward() takes the vector v.
x = torch.tensor([0.5, -1.0, 0.25], requires_grad=True)
y = x * 2
for _ in range(9):        # the tutorial doubles y until its norm exceeds 1000
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)             # v^T . J = 1024 * v

# Stop tracking: torch.no_grad() and detach().
print(x.requires_grad)
print((x * x).requires_grad)
with torch.no_grad():
    print((x * x).requires_grad)

d = x.detach()
print(d.requires_grad)
print(d)
