"""torch-level functions that scripts call and that are thin compositions of other ops: vander, is_same_size,
frobenius_norm / nuclear_norm (deprecated ATen names), set_default_tensor_type, and top-level spellings of
Tensor methods (torch.is_signed(t), torch.get_device(t), torch.detach_(t), torch.as_strided_(t, ...))."""
import warnings

from .. import _dtype as D
from .._engine.registry import public
from .._tensor import Tensor


_warned = set()


def _warn_once(msg):
    # these are TORCH_WARN_ONCE in ATen: the first call in a process warns, later ones do not
    if msg not in _warned:
        _warned.add(msg)
        warnings.warn(msg, UserWarning, stacklevel=3)


def _need_tensor(fname, x, pname='input', pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{pname}' (position {pos}) must be Tensor, not {type(x).__name__}")


@public('vander')
def vander(x, N=None, increasing=False):
    """torch.vander: columns x^(N-1) .. x^0 (x^0 .. x^(N-1) with increasing=True); integers and bool compute in
    int64, as torch's decomposition (cumprod of [1, x, x, ...])."""
    _need_tensor('vander', x, 'x')
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(D.int64)
    if n == 0:
        return x.new_empty((x.shape[0], 0))
    cols = x.new_ones((x.shape[0], 1))
    if n > 1:
        from .joining import cat
        cols = cat([cols, x[:, None].expand(x.shape[0], n - 1)], dim=1).cumprod(dim=1)
    return cols if increasing else cols.flip(1)


@public('is_same_size', method=True)
def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


@public('frobenius_norm')
def frobenius_norm(input, dim, keepdim=False, *, out=None):
    _warn_once("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
               "future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")
    from .. import linalg
    return linalg.vector_norm(input, 2.0, dim, keepdim, out=out)


@public('nuclear_norm')
def nuclear_norm(input, dim=(-2, -1), keepdim=False, *, out=None):
    # torch.nuclear_norm(input, keepdim) is an overload: a bool second argument is keepdim
    if isinstance(dim, bool):
        dim, keepdim = (-2, -1), dim
    _warn_once("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
               "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    from .. import linalg
    return linalg.matrix_norm(input, 'nuc', dim, keepdim, out=out)


_DEFAULT_TYPES = {'torch.FloatTensor': D.float32, 'torch.DoubleTensor': D.float64, 'torch.HalfTensor': D.float16,
                  'torch.BFloat16Tensor': D.bfloat16}


@public('set_default_tensor_type')
def set_default_tensor_type(t):
    _warn_once("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
    if isinstance(t, str):
        name = t
    elif isinstance(t, type) and hasattr(t, '_legacy_dtype'):
        name = f'torch.{t.__name__}'
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    cuda = name.startswith('torch.cuda.')
    base = name.replace('torch.cuda.', 'torch.')
    from .core import _TYPE_NAMES
    if base not in _TYPE_NAMES:      # torch resolves the name as an attribute path of its module
        raise AttributeError(f"module 'torch' has no attribute '{base.split('.')[-1]}'")
    if base not in _DEFAULT_TYPES:
        raise TypeError("only floating-point types are supported as the default type")
    if cuda:
        from .. import cuda as _cuda
        if not _cuda.is_available():
            raise TypeError(f"type {name} not available. Torch not compiled with CUDA enabled.")
        from .. import _api
        _api.set_default_device('cuda')
    D.set_default_dtype(_DEFAULT_TYPES[base])


def _method_spelling(name):
    def f(input, *args, **kwargs):
        _need_tensor(name, input)
        return getattr(input, name)(*args, **kwargs)
    f.__name__ = name
    f.__doc__ = f'torch.{name}(input, ...): the same as ``input.{name}(...)``.'
    public(name)(f)


for _n in ('is_signed', 'get_device', 'detach_', 'as_strided_'):
    _method_spelling(_n)
