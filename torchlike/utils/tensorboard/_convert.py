"""Values handed to SummaryWriter as numpy arrays (torch.utils.tensorboard._convert_np.make_np)."""
import numpy as np

from ..._dtype import bfloat16, float16
from ..._tensor import Tensor


def make_np(x):
    """numpy array of a Tensor (``.detach().cpu().numpy()``, as torch's writer), an array, or a scalar.

    A Python or numpy scalar becomes a 1-element array, as in torch."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.dtype is bfloat16:       # numpy has no bfloat16: torch's writer goes through float16
            x = x.to(float16)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f'Got {type(x)}, but numpy array or torch tensor are expected.')
