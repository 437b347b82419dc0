"""torch.backends.cuda: ``matmul`` (cuBLAS flags mapped onto XLA's matmul precision) and ``is_built``.

The scaled-dot-product-attention kernel switches (enable_flash_sdp, sdp_kernel, ...) are not provided:
torchlike's attention is one XLA program, with no flash / memory-efficient / cuDNN kernels to choose.
"""
from .. import _determinism as _d

__all__ = ['is_built', 'matmul', 'cuBLASModule']


def is_built():
    """Whether this JAX has its CUDA plugin (torch: whether PyTorch was built with CUDA)."""
    from jax._src import lib
    return lib.cuda_versions is not None


class cuBLASModule:
    """``torch.backends.cuda.matmul``: ``allow_tf32`` is ``get_float32_matmul_precision() != 'highest'``
    (torch defines it the same way) and setting it sets the precision, so it reaches XLA
    (Note [Matmul precision] in torchlike/_determinism.py)."""

    def __getattr__(self, name):
        if name == 'allow_tf32':
            return _d.flags.matmul_precision != 'highest'
        raise AttributeError('Unknown attribute ' + name)

    def __setattr__(self, name, value):
        if name == 'allow_tf32':
            _d.check_bool(value, 'set_allow_tf32_cublas')
            _d.flags.matmul_precision = 'high' if value else 'highest'
            _d.apply_precision()
            return
        raise AttributeError('Unknown attribute ' + name)


matmul = cuBLASModule()
