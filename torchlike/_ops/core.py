"""Core ops: dtype conversion, device moves, detach, clone, and the `to`/`type` front ends."""
from .._layout import check_memory_format
from ._util import inexact
from .. import _dtype as D
from .._device import as_device, jax_device, device as _device_cls
from .._engine.registry import op, method
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp


@op('_to_dtype', static=('dtype',), node='ToCopyBackward0', saves=(), function=False, method=False)
def _to_dtype(input, *, dtype):
    if dtype._cat == 1 and dtype.itemsize < 8 and inexact(input.dtype):
        # torch's float -> narrow int cast goes through int64 and wraps (-2.0 -> uint8 254); XLA would saturate
        input = jnp.real(input).astype(jnp.int64)
    if dtype.is_complex or not jnp.iscomplexobj(input):
        return input.astype(dtype.np)
    return jnp.real(input).astype(dtype.np)   # complex -> real drops the imaginary part, as torch (with a warning)


def to_dtype_op(t, dtype):
    return dispatch.apply(_to_dtype, (t,), (dtype,))


@op('_to_device', static=('device',), node='ToCopyBackward0', saves=(), function=False, method=False, jit=False)
def _to_device(input, *, device):
    return jax.device_put(input, jax_device(device))


@op('detach', view=True, differentiable=False, saves=(), function=True, method=False)
def detach(input):
    return input


@op('clone', static=('memory_format',), node='CloneBackward0', saves=())
def clone(input, *, memory_format=None):
    check_memory_format(memory_format, 'clone')
    return jnp.array(input, copy=True)


def _parse_to(args, kwargs):
    dtype = kwargs.pop('dtype', None)
    device = kwargs.pop('device', None)
    copy = kwargs.pop('copy', False)
    kwargs.pop('non_blocking', None)    # transfers are asynchronous in JAX anyway
    check_memory_format(kwargs.pop('memory_format', None), 'to')
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: unexpected {list(kwargs)}")
    from .._tensor import Tensor
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _device_cls, int)) and not isinstance(a, bool):
            device = a
        elif isinstance(a, bool):
            copy = a if dtype is not None or device is not None else copy
        elif a is None:
            continue
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    return dtype, (None if device is None else as_device(device)), copy


def to(self, *args, **kwargs):
    dtype, device, copy = _parse_to(args, dict(kwargs))
    t = self
    if device is not None:
        jd = jax_device(device)
        v = self._raw()
        # a tracer (inside a torch.compile trace) has no devices(); Tensor.device answers for it
        cur = jax_device(self.device) if isinstance(v, jax.core.Tracer) else next(iter(v.devices()))
        if jd != cur:
            t = dispatch.apply(_to_device, (t,), (device,))
    if dtype is not None and dtype is not t.dtype:
        t = to_dtype_op(t, dtype)
    if copy and t is self:
        t = clone(self)
    return t


_TYPE_NAMES = {'torch.FloatTensor': D.float32, 'torch.DoubleTensor': D.float64, 'torch.HalfTensor': D.float16,
               'torch.BFloat16Tensor': D.bfloat16, 'torch.LongTensor': D.int64, 'torch.IntTensor': D.int32,
               'torch.ShortTensor': D.int16, 'torch.CharTensor': D.int8, 'torch.ByteTensor': D.uint8,
               'torch.BoolTensor': D.bool, 'torch.ComplexFloatTensor': D.complex64,
               'torch.ComplexDoubleTensor': D.complex128}
_NAME_OF = {v: k for k, v in _TYPE_NAMES.items()}


def type_(self, dtype=None):
    if dtype is None:
        n = _NAME_OF[self.dtype]
        return n.replace('torch.', 'torch.cuda.') if self.device.type == 'cuda' else n
    if isinstance(dtype, str):
        key = dtype.replace('torch.cuda.', 'torch.')
        if key not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TYPE_NAMES[key]
    elif isinstance(dtype, type) and hasattr(dtype, '_legacy_dtype'):
        dtype = dtype._legacy_dtype
    return self if dtype is self.dtype else to_dtype_op(self, dtype)


def _make_cast(name, dt):
    def f(self, memory_format=None):
        check_memory_format(memory_format, name)
        return self if self.dtype is dt else to_dtype_op(self, dt)
    f.__name__ = name
    method(name)(f)


for _n, _d in (('float', D.float32), ('double', D.float64), ('half', D.float16), ('bfloat16', D.bfloat16),
               ('long', D.int64), ('int', D.int32), ('short', D.int16), ('char', D.int8), ('byte', D.uint8),
               ('bool', D.bool), ('cfloat', D.complex64), ('cdouble', D.complex128)):
    _make_cast(_n, _d)
