"""torchlike: PyTorch's API on JAX.

``import torchlike as torch`` (or ``python -m torchlike script.py`` on an unchanged script) gives
PyTorch's behaviour with the work running as XLA programs. The architecture is described in the
Notes of torchlike/_engine (Op records, Backward rules, Views) and in README.md.
"""
from . import _allocator
_allocator.reexec_with_settings()    # python -m torchlike only, before jax loads (Note [Allocator settings])
from . import _dtype  # noqa: E402
from ._dtype import (dtype, bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
                     complex64, complex128, uint16, uint32, uint64, finfo, iinfo, promote_types, can_cast,
                     get_default_dtype, set_default_dtype)
from ._device import device
from ._layout import (layout, memory_format, strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr,  # noqa: F401
                      sparse_bsc, jagged, contiguous_format, preserve_format, channels_last, channels_last_3d)
from ._tensor import Tensor, Size
from ._engine import registry as _registry
from . import _ops

half, float, double, short, int, long = float16, float32, float64, int16, int32, int64
cfloat, cdouble = complex64, complex128

globals().update(_registry.PUBLIC['torch'])
globals().update(_ops.creation.LEGACY)
_tensor_mod = __import__('torchlike._tensor', fromlist=['install_methods'])
_tensor_mod.install_methods()

from . import autograd  # noqa: E402,F401
from . import _api  # noqa: E402,F401  (torch-level functions that are not ops: grad mode, seeds, ...)
from ._api import *  # noqa: E402,F401,F403
from . import cuda, random  # noqa: E402,F401
from . import serialization  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from ._engine.lazy import set_execution_mode, get_execution_mode, sync  # noqa: E402,F401
from . import debug  # noqa: E402,F401
from ._engine import lazy as _lazy  # noqa: E402
optim.optimizer.register_optimizer_step_post_hook(_lazy._step_boundary)   # the end of a step is a sync point
from . import func  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import fft, linalg, signal  # noqa: E402,F401
from . import _dynamo, compiler  # noqa: E402,F401
from ._dynamo.eval_frame import compile  # noqa: E402,F401

from . import backends  # noqa: E402,F401
from ._determinism import *  # noqa: E402,F401,F403  (determinism / float32 matmul precision flags)
from . import profiler  # noqa: E402,F401

from . import amp, cpu  # noqa: E402,F401  (automatic mixed precision)
from .amp import autocast  # noqa: E402,F401
from .amp.autocast_mode import (is_autocast_enabled, set_autocast_enabled, get_autocast_dtype,  # noqa: E402,F401
                                set_autocast_dtype, is_autocast_cpu_enabled, set_autocast_cpu_enabled,
                                get_autocast_cpu_dtype, set_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                set_autocast_gpu_dtype, is_autocast_cache_enabled, set_autocast_cache_enabled,
                                autocast_increment_nesting, autocast_decrement_nesting, clear_autocast_cache)
from .amp.grad_scaler import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_  # noqa: E402,F401

__version__ = '2.13.0'
