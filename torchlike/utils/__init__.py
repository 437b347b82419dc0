"""torch.utils: the utility namespaces of PyTorch that torchlike provides (so far ``data`` and ``deterministic``)."""
from . import data  # noqa: F401
from . import deterministic  # noqa: F401
