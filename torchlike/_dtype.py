"""torch dtypes, their JAX/NumPy counterparts, and PyTorch's type-promotion rules.

The promotion table and the three-tier (dimensioned tensor / zero-dim tensor / Python
scalar) ``result_type`` follow ATen's ``c10/core/ScalarType.h`` and
``aten/src/ATen/native/TypeProperties.cpp``.
"""
import builtins

import ml_dtypes
import numpy as np


class dtype:
    """A torch dtype. ``str(torch.float32) == 'torch.float32'``."""
    __slots__ = ('name', 'np', 'is_floating_point', 'is_complex', 'is_signed', 'itemsize', '_rank', '_cat', '__weakref__')

    def __init__(self, name, np_dtype, cat, rank):
        self.name = name
        self.np = np.dtype(np_dtype)
        self._cat = cat          # 0 bool, 1 integral, 2 floating, 3 complex
        self._rank = rank
        self.is_floating_point = cat == 2
        self.is_complex = cat == 3
        self.is_signed = name not in ('bool', 'uint8', 'uint16', 'uint32', 'uint64')
        self.itemsize = self.np.itemsize

    def __repr__(self):
        return 'torch.' + self.name

    def __reduce__(self):
        return self.name

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        return {float32: complex64, float64: complex128, float16: complex64, bfloat16: complex64}.get(self, self)


bool = dtype('bool', np.bool_, 0, 0)
uint8 = dtype('uint8', np.uint8, 1, 1)
int8 = dtype('int8', np.int8, 1, 2)
int16 = dtype('int16', np.int16, 1, 3)
int32 = dtype('int32', np.int32, 1, 4)
int64 = dtype('int64', np.int64, 1, 5)
float16 = dtype('float16', np.float16, 2, 6)
bfloat16 = dtype('bfloat16', ml_dtypes.bfloat16, 2, 7)
float32 = dtype('float32', np.float32, 2, 8)
float64 = dtype('float64', np.float64, 2, 9)
complex64 = dtype('complex64', np.complex64, 3, 10)
complex128 = dtype('complex128', np.complex128, 3, 11)
uint16 = dtype('uint16', np.uint16, 1, 12)
uint32 = dtype('uint32', np.uint32, 1, 13)
uint64 = dtype('uint64', np.uint64, 1, 14)

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128,
       uint16, uint32, uint64)
# torch aliases
ALIASES = {'half': float16, 'float': float32, 'double': float64, 'short': int16, 'int': int32, 'long': int64,
           'cfloat': complex64, 'cdouble': complex128, 'complex32': None}
del ALIASES['complex32']

_FROM_NP = {d.np: d for d in ALL}


def from_np(np_dtype):
    """The torch dtype of a NumPy/JAX dtype."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        d = _FROM_NP.get(np.dtype(np_dtype))
        if d is None:
            raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
                            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")
        _FROM_NP[np_dtype] = d
        return d


# ---- promotion table (c10::promoteTypes) -------------------------------------------------
_u1, _i1, _i2, _i4, _i8 = uint8, int8, int16, int32, int64
_f2, _bf, _f4, _f8, _c4, _c8, _b1 = float16, bfloat16, float32, float64, complex64, complex128, bool
_ORDER = (_u1, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _b1, _bf)
_TABLE = (
    # u1  i1   i2   i4   i8   f2   f4   f8   c4   c8   b1   bf
    (_u1, _i2, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _u1, _bf),  # u1
    (_i2, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _i1, _bf),  # i1
    (_i2, _i2, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _i2, _bf),  # i2
    (_i4, _i4, _i4, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _i4, _bf),  # i4
    (_i8, _i8, _i8, _i8, _i8, _f2, _f4, _f8, _c4, _c8, _i8, _bf),  # i8
    (_f2, _f2, _f2, _f2, _f2, _f2, _f4, _f8, _c4, _c8, _f2, _f4),  # f2
    (_f4, _f4, _f4, _f4, _f4, _f4, _f4, _f8, _c4, _c8, _f4, _f4),  # f4
    (_f8, _f8, _f8, _f8, _f8, _f8, _f8, _f8, _c8, _c8, _f8, _f8),  # f8
    (_c4, _c4, _c4, _c4, _c4, _c4, _c4, _c8, _c4, _c8, _c4, _c4),  # c4
    (_c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8),  # c8
    (_u1, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _b1, _bf),  # b1
    (_bf, _bf, _bf, _bf, _bf, _f4, _f4, _f8, _c4, _c8, _bf, _bf),  # bf
)
_PROMOTE = {}
for _i, _a in enumerate(_ORDER):
    for _j, _b in enumerate(_ORDER):
        _PROMOTE[_a, _b] = _TABLE[_i][_j]
for _u in (uint16, uint32, uint64):   # barebones unsigned types: only promote with themselves and bool
    _PROMOTE[_u, _u] = _PROMOTE[_u, bool] = _PROMOTE[bool, _u] = _u


def promote_types(a, b):
    if a is b:
        return a
    try:
        return _PROMOTE[a, b]
    except KeyError:
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote {a.name.capitalize()} and {b.name.capitalize()}")


def _combine(higher, lower):
    # c10 combine_categories: a higher tier keeps its type unless the lower tier is of a higher category
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._cat == 3:
        return higher
    if lower._cat == 3:
        return higher.to_complex() if higher._cat == 2 else lower
    if higher._cat == 2:
        return higher
    if higher is bool or lower._cat == 2:
        return promote_types(higher, lower)
    return higher


class _State:
    default_dtype = float32


state = _State()


def default_complex():
    return complex128 if state.default_dtype is float64 else complex64


def scalar_dtype(v):
    """dtype of a Python scalar as a wrapped number (before default-dtype substitution)."""
    t = type(v)
    if t is builtins.bool:
        return bool
    if t is builtins.int:
        return int64
    if t is builtins.float:
        return float64
    if t is builtins.complex:
        return complex128
    if isinstance(v, (builtins.bool, np.bool_)):
        return bool
    if isinstance(v, (builtins.int, np.integer)):
        return int64
    if isinstance(v, (builtins.float, np.floating)):
        return float64
    if isinstance(v, (builtins.complex, np.complexfloating)):
        return complex128
    raise TypeError(f"unsupported scalar type {t.__name__}")


def wrapped_scalar_dtype(v):
    """The dtype a Python scalar contributes to promotion (floats -> default dtype)."""
    t = type(v)
    if t is builtins.float:
        return state.default_dtype
    if t is builtins.int:
        return int64
    if t is builtins.bool:
        return bool
    if t is builtins.complex:
        return default_complex()
    d = scalar_dtype(v)
    return state.default_dtype if d._cat == 2 else default_complex() if d._cat == 3 else d


def result_type_of(dim_dtypes, zero_dtypes, scalar_dtypes):
    """ATen's result_type over the three tiers; each argument is an iterable of dtypes."""
    d = z = s = None
    for x in dim_dtypes:
        d = x if d is None else promote_types(d, x)
    for x in zero_dtypes:
        z = x if z is None else promote_types(z, x)
    for x in scalar_dtypes:
        s = x if s is None else promote_types(s, x)
    return _combine(d, _combine(z, s))


def can_cast(from_, to):
    """torch.can_cast: no category demotion (complex->float->int->bool)."""
    return from_._cat <= to._cat


def get_default_dtype():
    return state.default_dtype


def set_default_dtype(d):
    if not isinstance(d, dtype) or d._cat != 2 or d in (bfloat16,) and False:
        raise TypeError(f"only floating-point types are supported as the default type")
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    state.default_dtype = d


class finfo:
    def __init__(self, type=None):
        type = state.default_dtype if type is None else type
        if not isinstance(type, dtype) or type._cat < 2:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        self.dtype = type.to_real().name
        fi = ml_dtypes.finfo(type.to_real().np)
        self.bits = fi.bits
        self.eps = builtins.float(fi.eps)
        self.max = builtins.float(fi.max)
        self.min = builtins.float(fi.min)
        self.tiny = self.smallest_normal = builtins.float(fi.smallest_normal)
        self.resolution = 10.0 ** -fi.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    def __init__(self, type):
        if not isinstance(type, dtype) or type._cat > 1:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        ii = np.iinfo(type.np) if type is not bool else None
        self.dtype = type.name
        self.bits = ii.bits
        self.max = builtins.int(ii.max)
        self.min = builtins.int(ii.min)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
