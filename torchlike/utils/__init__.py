"""torch.utils: the utility namespaces of PyTorch that torchlike provides (so far ``data``)."""
from . import data  # noqa: F401
