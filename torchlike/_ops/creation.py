"""Factories: tensor/as_tensor/from_numpy, zeros/ones/empty/full (+_like), arange, linspace, logspace, eye,
and the legacy typed constructors (FloatTensor, LongTensor, ...).

Factories have no tensor inputs; those that compute go through ``dispatch.apply`` as ops with only
static attributes, so each (shape, dtype) compiles once and a lazy engine can record them.
"""
import builtins
import math
import numbers

import numpy as np

from .._layout import check_layout, check_memory_format
from .. import _dtype as D
from .._device import as_device, jax_device, cpu_target
from .._engine.registry import op, public, method
from .._engine import dispatch, lazy
from .._engine.jaxrt import jax, jnp


def _infer(data):
    """(numpy array, torch dtype) for Python/NumPy data, with torch's dtype inference."""
    from .._tensor import Tensor
    if isinstance(data, Tensor):
        return np.asarray(data._materialize()), data.dtype
    if isinstance(data, np.ndarray):
        return data, D.from_np(data.dtype)
    if isinstance(data, np.generic):
        return np.asarray(data), D.from_np(data.dtype)
    if isinstance(data, (builtins.bool, numbers.Number)) and not isinstance(data, (list, tuple)):
        d = D.scalar_dtype(data)
        # keep the Python value exact (float64/complex128) until the final cast to the chosen dtype
        wide = np.asarray(data, d.np)
        d = D.state.default_dtype if d._cat == 2 else D.default_complex() if d._cat == 3 else d
        return wide, d
    if hasattr(data, '__array__') and not isinstance(data, (list, tuple)):
        a = np.asarray(data)
        return a, D.from_np(a.dtype)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple)):
        if data and isinstance(data[0], (str, bytes)):
            # torch reads the shape off the first elements, and a str is a sequence
            raise ValueError(f"too many dimensions '{type(data[0]).__name__}'")
        items = [_infer(x) for x in data]
        if not items:
            return np.zeros((0,), D.state.default_dtype.np), D.state.default_dtype
        dt = None
        shapes = {a.shape for a, _ in items}
        if len(shapes) > 1:
            raise ValueError(f"expected sequence of length {len(items[0][0])} at dim 1 (got {len(items[-1][0])})")
        for a, d in items:
            dt = d if dt is None else _join(dt, d)
        wide = np.result_type(*[a.dtype for a, _ in items])
        return np.stack([a.astype(wide) for a, _ in items]), dt
    raise (RuntimeError if data is None else TypeError)(f"Could not infer dtype of {type(data).__name__}")


def _join(a, b):
    # dtype of a list mixing Python scalars: the highest category wins, within a category promote
    if a is b:
        return a
    return D.promote_types(a, b)


def _place(arr, device):
    if device is None:
        return jnp.asarray(arr)
    return jax.device_put(arr, jax_device(device))


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


@public('tensor')
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    a, inferred = _infer(data)
    dt = dtype or inferred
    return _finish(dispatch.wrap(_place(np.asarray(a, dt.np), device)), requires_grad)


@public('as_tensor')
def as_tensor(data, dtype=None, device=None):
    from .._tensor import Tensor
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    a, inferred = _infer(data)
    return dispatch.wrap(_place(np.asarray(a, (dtype or inferred).np), device))


@public('asarray')
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy:
        t = t.clone()
    return _finish(t, requires_grad) if requires_grad else t


@public('from_numpy')
def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_np(ndarray.dtype)
    return dispatch.wrap(jnp.asarray(ndarray))


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        if not isinstance(s, numbers.Integral) and not hasattr(s, '__index__'):
            raise TypeError(f"zeros(): argument 'size' must be tuple of ints, but found element of type {type(s).__name__}")
        s = int(s.__index__()) if not isinstance(s, int) else s
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(s)
    return tuple(out)


@op('_full', static=('size', 'dtype'), function=False, method=False, differentiable=False)
def _full(fill_value, *, size, dtype):
    return jnp.full(size, fill_value, dtype.np)


def _fill(size, value, dtype, device, requires_grad):
    host = cpu_target(device)
    if host is not None:
        # the value converted by the 0-d program (one per dtype, not per shape), broadcast on the host
        with lazy.now():
            v = np.asarray(dispatch.apply(_full, (value,), ((), dtype))._value())
        t = dispatch.wrap(jax.device_put(np.full(size, v, v.dtype), host))
    else:
        t = dispatch.apply(_full, (value,), (size, dtype))
        if device is not None:
            t = t.to(device)
    return _finish(t, requires_grad)


def _default_for(value):
    d = D.scalar_dtype(value)
    return D.state.default_dtype if d._cat == 2 else D.default_complex() if d._cat == 3 else d


@public('zeros')
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    _check_fmt('zeros', layout, memory_format)
    t = _fill(_size(size), 0, dtype or D.state.default_dtype, device, requires_grad)
    return _out(t, out)


@public('ones')
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
         memory_format=None):
    _check_fmt('ones', layout, memory_format)
    return _out(_fill(_size(size), 1, dtype or D.state.default_dtype, device, requires_grad), out)


def _uninit_value(dtype):
    """What torch writes into "uninitialised" memory when use_deterministic_algorithms(True) (warn_only or not)
    and torch.utils.deterministic.fill_uninitialized_memory (default True) are set: NaN for floating and
    complex dtypes (NaN + 0j), the largest value for integers, True for bool. None otherwise."""
    from .._determinism import flags
    if not (flags.deterministic and flags.fill_uninitialized_memory):
        return None
    if dtype.is_floating_point or dtype.is_complex:
        return float('nan')
    if dtype is D.bool:
        return True
    return np.iinfo(dtype.np).max


@op('_full_uninit', static=('size', 'dtype'), function=False, method=False, differentiable=False)
def _full_uninit(*, size, dtype):
    # the value is a constant of the program: uint64's largest value does not fit a dynamic (int64) argument
    return jnp.full(size, np.asarray(_uninit_value(dtype), dtype.np), dtype.np)


def _empty(size, dtype, device, requires_grad):
    """Contents of torch.empty & co. Uninitialised memory in torch; zeros here (any value is a valid 'empty'
    content), except under deterministic algorithms, where torch fills it with a known value (_uninit_value)."""
    v = _uninit_value(dtype)
    if v is None:
        return _fill(size, 0, dtype, device, requires_grad)
    host = cpu_target(device)
    if host is not None:
        t = dispatch.wrap(jax.device_put(np.full(size, v, dtype.np), host))
    else:
        t = dispatch.apply(_full_uninit, (), (size, dtype))
        if device is not None:
            t = t.to(device)
    return _finish(t, requires_grad)


@public('empty')
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    _check_fmt('empty', layout, memory_format)
    return _out(_empty(_size(size), dtype or D.state.default_dtype, device, requires_grad), out)


@public('full')
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    _check_fmt('full', layout, None)
    if hasattr(fill_value, '_materialize'):
        fill_value = fill_value.item()
    return _out(_fill(_size((size,)), fill_value, dtype or _default_for(fill_value), device, requires_grad), out)


def _check_fmt(api, layout, memory_format):
    check_layout(layout, api)
    check_memory_format(memory_format, api)


def _out(t, out):
    if out is None:
        return t
    out._set_value_inplace(t._value().astype(out._value().dtype), resize=True)
    return out


def _like(name, value):
    def f(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
        _check_fmt(name, layout, memory_format)
        return _fill(tuple(input.shape), value, dtype or input.dtype, device or None, requires_grad)
    f.__name__ = name
    public(name)(f)
    return f


zeros_like = _like('zeros_like', 0)
ones_like = _like('ones_like', 1)


@public('empty_like')
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    _check_fmt('empty_like', layout, memory_format)
    return _empty(tuple(input.shape), dtype or input.dtype, device, requires_grad)


@public('full_like')
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    _check_fmt('full_like', layout, memory_format)
    return _fill(tuple(input.shape), fill_value, dtype or input.dtype, device, requires_grad)


@public('empty_strided')
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    _check_fmt('empty_strided', layout, None)
    return _empty(_size((tuple(size),)), dtype or D.state.default_dtype, device, requires_grad)


@public('empty_permuted')
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    # like empty_strided: the memory layout (here the permuted strides) is torch's allocation detail; the values
    # (uninitialised) and shape are what a program sees
    _check_fmt('empty_permuted', layout, None)
    size = _size((tuple(size),))
    perm = tuple(int(p) for p in physical_layout)
    if len(perm) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")
    for i, p in enumerate(perm):
        if not 0 <= p < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {p} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you "
                               f"want it.")
    if len(set(perm)) != len(perm):
        raise RuntimeError("Duplicate dim not allowed")
    return _empty(size, dtype or D.state.default_dtype, device, requires_grad)


@method('new_empty_strided')
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                      pin_memory=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, layout=layout,
                         device=self.device if device is None else device, requires_grad=requires_grad)


@op('_arange', static=('start', 'end', 'step', 'n', 'dtype'), function=False, method=False, differentiable=False)
def _arange(*, start, end, step, n, dtype):
    # start + i*step computed in float64/int64 then cast, as torch's kernel does
    if dtype.is_floating_point or dtype.is_complex or any(isinstance(v, float) for v in (start, step)):
        i = jnp.arange(n, dtype=jnp.float64)
        # element 0 is ``start`` itself: XLA folds ``0.0 + i*step`` to ``i*step``, which is -0.0 for step < 0
        return jnp.where(i == 0, start, start + i * step).astype(dtype.np)
    return (start + jnp.arange(n, dtype=jnp.int64) * step).astype(dtype.np)


def _num(v):
    return v.item() if hasattr(v, '_materialize') else v


@public('arange')
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False):
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = D.state.default_dtype if any(isinstance(v, float) for v in (start, end, step)) else D.int64
    elif not (dtype.is_floating_point or dtype.is_complex):
        # torch casts start, end and step to the integral dtype first (arange(0, 5, 1.5, dtype=long) steps by 1)
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    n = max(0, math.ceil((end - start) / step))
    t = dispatch.apply(_arange, (), (start, end, step, n, dtype))
    if device is not None:
        t = t.to(device)
    return _out(_finish(t, requires_grad), out)


@public('range')
def range_(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    dtype = dtype or D.state.default_dtype
    t = dispatch.apply(_arange, (), (start, end, step, max(n, 0), dtype))
    return _out(_finish(t, requires_grad), out)


@op('_linspace', static=('start', 'end', 'steps', 'dtype'), function=False, method=False, differentiable=False)
def _linspace(*, start, end, steps, dtype):
    # torch's linspace kernel: the first half steps from start, the second half from end
    if steps == 1:
        return jnp.full((1,), start).astype(dtype.np)
    wdt = jnp.complex128 if dtype.is_complex else jnp.float64
    step = (jnp.asarray(end, wdt) - jnp.asarray(start, wdt)) / (steps - 1)
    i = jnp.arange(steps, dtype=jnp.float64)
    half = steps // 2
    v = jnp.where(i < half, start + step * i, end - step * (steps - 1 - i))
    if dtype.is_floating_point or dtype.is_complex:
        return v.astype(dtype.np)
    return v.astype(dtype.np) if dtype is D.bool else jnp.trunc(jnp.real(v)).astype(dtype.np)


@public('linspace')
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or (D.default_complex() if isinstance(start, complex) or isinstance(end, complex)
                      else D.state.default_dtype)
    if steps == 0:
        t = zeros(0, dtype=dtype)
    else:
        t = dispatch.apply(_linspace, (), (start, end, steps, dtype))
    if device is not None:
        t = t.to(device)
    return _out(_finish(t, requires_grad), out)


@public('logspace')
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    dtype = dtype or D.state.default_dtype
    lin = linspace(start, end, steps, dtype=D.float64)
    t = dispatch.apply(_pow_base, (lin,), (float(base), dtype))
    return _out(_finish(t, requires_grad), out)


@op('_pow_base', static=('base', 'dtype'), function=False, method=False, differentiable=False)
def _pow_base(x, *, base, dtype):
    return jnp.power(base, x).astype(dtype.np)


@op('_eye', static=('n', 'm', 'dtype'), function=False, method=False, differentiable=False)
def _eye(*, n, m, dtype):
    return jnp.eye(n, m, dtype=dtype.np)


@public('eye')
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    t = dispatch.apply(_eye, (), (int(n), int(n if m is None else m), dtype or D.state.default_dtype))
    if device is not None:
        t = t.to(device)
    return _out(_finish(t, requires_grad), out)


@public('scalar_tensor')
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return full((), s, dtype=dtype or D.state.default_dtype, device=device, requires_grad=requires_grad)


# ---- legacy constructors: torch.FloatTensor(2, 3), torch.LongTensor([1, 2]), torch.Tensor(...) ----

def _legacy_ctor_value(args, kwargs, dtype=None):
    dtype = dtype or D.state.default_dtype
    device = kwargs.pop('device', None)
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got unexpected {list(kwargs)}")
    from .._tensor import Tensor
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)) and not (
            isinstance(args[0], Tensor) and False):
        a = args[0]
        if isinstance(a, Tensor):
            return a._value().astype(dtype.np)
        if isinstance(a, (tuple, list)) and all(isinstance(x, int) for x in a) and type(a).__name__ == 'Size':
            return _place(np.zeros(tuple(a), dtype.np), device)
        arr, _ = _infer(a)
        return _place(np.asarray(arr, dtype.np), device)
    size = _size(args)
    return _place(np.zeros(size, dtype.np), device)


class _LegacyMeta(type):
    def __instancecheck__(cls, obj):
        from .._tensor import Tensor
        return isinstance(obj, Tensor) and obj.dtype is cls._legacy_dtype


def _legacy(name, dt):
    def __new__(cls, *args, **kwargs):
        from .._tensor import Tensor
        return dispatch.wrap(_legacy_ctor_value(args, dict(kwargs), dt))
    return _LegacyMeta(name, (), {'__new__': __new__, '_legacy_dtype': dt, '__module__': 'torch'})


LEGACY = {n: _legacy(n, d) for n, d in (
    ('FloatTensor', D.float32), ('DoubleTensor', D.float64), ('HalfTensor', D.float16),
    ('BFloat16Tensor', D.bfloat16), ('LongTensor', D.int64), ('IntTensor', D.int32), ('ShortTensor', D.int16),
    ('CharTensor', D.int8), ('ByteTensor', D.uint8), ('BoolTensor', D.bool))}
