"""Elementwise ops: the ``@pw`` front end and the checks its ops share, unary math, rounding, sign/abs, complex
parts and frexp.

Binary arithmetic, powers, binary math, clamp/lerp/addcmul/addcdiv/where live in arithmetic.py;
closeness, classification, comparisons, logical and bitwise ops in comparison.py; special functions
(erf/gamma/bessel families and the ``torch.special`` namespace) in special.py. All use ``@pw``.

Note [Pointwise front ends]
Every op here is one registry entry (``@pw``, a thin layer over ``registry.op``). On top of what
``@op`` generates, ``@pw`` adds the argument checks PyTorch's argument parser and kernels do before
computing anything, written into the generated function/method/in-place variants:
* ``tensors``: parameters that must be Tensors (TypeError as torch's parser; default the input);
* ``check`` / ``check_inplace``: a host-side check of the arguments (bool subtraction, integer
  division by zero, negative integer powers, dtype agreement, ...);
* ``out_check``: torch's stricter ``out=`` dtype rules for some ops (abs, floor, clamp, ... require
  exactly the result dtype; signbit a bool out);
* ``select`` + ``variants``: torch records a different autograd node for an overload with a Python
  scalar (``x ** 2`` is PowBackward0, ``2 ** x`` PowBackward2, ``x * 2`` saves nothing): ``select``
  picks a key from the arguments and ``variants`` maps it to (node name, saves) — a copy of the same
  op sharing its compiled programs — or to another op with the same signature.
Broadcast errors are raised by the bodies (``bc=True``) as torch's RuntimeError. Checks that only
need dtypes run inside the body at trace time (once per compiled program); dtype-dependent errors
use torch's exception types ('"abs_cpu" not implemented for \'Bool\'' is a NotImplementedError).
"""
import copy
import functools
import math

import numpy as np

from .. import _dtype as D, return_types
from .._engine import registry, dispatch, views
from .._engine.registry import op, public, method, PUBLIC, METHODS
from .._engine.jaxrt import jax, jnp, lax
from .._tensor import Tensor

# ---- the @pw front end ---------------------------------------------------------------------------


def _bad_arg(fname, arg, pos, value):
    raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(value).__name__}")


def _gen(o, fname, kind, tensors, check, check_inplace, pick, has_out, out_check=None):
    """Source-generate one variant ('function' | 'method' | 'inplace') of op ``o`` with its checks."""
    names = list(o.signature.parameters)
    first = None if kind == 'function' else 'self'
    argn = [first if (i == 0 and first) else n for i, n in enumerate(names)]
    extra = ('out=None',) if (kind == 'function' and has_out) else ()
    params = registry._param_src(o.signature, rename_first=first, extra_kw=extra)
    dyn, st = registry._call_src(o, first=first)
    lines = []
    for t in tensors:
        i = names.index(t)
        if first and i == 0:
            continue
        lines.append(f'    if not isinstance({argn[i]}, _T): _bad({fname!r}, {t!r}, {i + (first is None)}, {argn[i]})')
    allargs = ', '.join(argn)
    if check is not None:
        lines.append(f'    _check({allargs})')
    if kind == 'inplace' and check_inplace is not None:
        lines.append(f'    _check_inplace({allargs})')
    if kind == 'function' and has_out and out_check is not None:
        lines.append(f'    if out is not None: _out_check(out, {allargs})')
    target = '_op'
    if pick is not None:
        lines.append(f'    _o = _pick({allargs})')
        target = '_o'
    if kind == 'function':
        lines.append(f'    return _apply({target}, {dyn}, {st}{", out" if has_out else ""})')
    elif kind == 'method':
        lines.append(f'    return _apply({target}, {dyn}, {st})')
    else:
        lines.append(f'    return _apply_inplace({target}, {dyn}, {st})')
    src = f'def {fname}({params}):\n' + '\n'.join(lines) + '\n'
    g = registry._globals(o)
    g.update(_T=Tensor, _bad=_bad_arg, _check=check, _check_inplace=check_inplace, _pick=pick, _out_check=out_check)
    exec(src, g)
    f = g[fname]
    f.__doc__ = o.fn.__doc__
    f.__module__ = 'torchlike'
    return f


def _variant(o, node, saves):
    v = copy.copy(o)             # shares o.cache: same body, same compiled programs
    v.node_name = node
    v.saves = saves
    v.bwd_cache = {}
    return v


def _make_pick(o, select, variants):
    table = {None: o}
    for k, spec in variants.items():
        table[k] = spec if isinstance(spec, registry.Op) else _variant(o, *spec)

    def pick(*args):
        return table.get(select(*args), o)
    return pick


def _broadcast_error(a, b):
    """torch's message for shapes a, b that do not broadcast (None if they do)."""
    n = max(len(a), len(b))
    for i in range(n - 1, -1, -1):
        off = n - 1 - i
        da = a[len(a) - 1 - off] if off < len(a) else 1
        db = b[len(b) - 1 - off] if off < len(b) else 1
        if da != db and da != 1 and db != 1:
            return (f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
                    f"dimension {i}")
    return None


def check_broadcast(*xs):
    shape = None
    for x in xs:
        if x is None or isinstance(x, (bool, int, float, complex)):
            continue
        s = tuple(jnp.shape(x))
        if shape is None:
            shape = s
            continue
        msg = _broadcast_error(shape, s)
        if msg:
            raise RuntimeError(msg)
        shape = tuple(np.broadcast_shapes(shape, s))


def _with_bcast(fn, names):
    @functools.wraps(fn)
    def body(**kw):
        check_broadcast(*[kw[n] for n in names])
        return fn(**kw)
    return body


def pw(name, *, tensors=('input',), check=None, check_inplace=None, select=None, variants=None, bc=False,
       function=True, method=True, inplace=False, torch_inplace=False, aliases=(), method_aliases=None,
       namespace='torch', out=None, out_check=None, **kw):
    """Register an elementwise op (see Note [Pointwise front ends])."""
    def deco(fn):
        static = kw.get('static', ())
        body = fn
        if bc:
            import inspect
            dyn = [p for p in inspect.signature(fn).parameters if p not in static]
            body = _with_bcast(fn, dyn)
        o = op(name, function=False, method=False, inplace=False, namespace=namespace, **kw)(body)
        has_out = (not kw.get('view', False)) if out is None else out
        pick = _make_pick(o, select, variants or {}) if select is not None else None
        f = _gen(o, name, 'function', tensors, check, None, pick, has_out, out_check)
        o.function = f
        if function:
            for n in (name,) + tuple(aliases):
                PUBLIC.setdefault(namespace, {})[n] = f
        malias = tuple(aliases) if method_aliases is None else tuple(method_aliases)
        if method:
            m = _gen(o, name, 'method', tensors, check, None, pick, False)
            for n in (name,) + malias:
                METHODS[n] = m
        if inplace:
            mi = _gen(o, name + '_', 'inplace', tensors, check, check_inplace, pick, False)
            for n in (name,) + malias:
                METHODS[n + '_'] = mi
            if torch_inplace:
                for n in (name,) + tuple(aliases):
                    PUBLIC['torch'][n + '_'] = mi
        return o
    return deco


# ---- helpers for bodies and checks -------------------------------------------------------------

def tname(x):
    """torch's short type name ('Float', 'Long', ...) of an array or torch dtype."""
    d = x if isinstance(x, D.dtype) else D.from_np(x.dtype)
    return dispatch._tname(d)


def not_impl(kernel, x):
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{tname(x)}'")


def kind(x):
    return jnp.asarray(x).dtype.kind if not hasattr(x, 'dtype') else np.dtype(x.dtype).kind


def floats_only(kernel, *xs):
    for x in xs:
        if kind(x) not in 'fc':
            not_impl(kernel, x)


def real_floats_only(kernel, *xs):
    for x in xs:
        if kind(x) != 'f':
            not_impl(kernel, x)


def _is_bool(x):
    t = type(x)
    if t is bool:
        return True
    return isinstance(x, Tensor) and x.dtype is D.bool


def _integral(x):
    """x is an integral (or bool) Tensor or Python int/bool."""
    if isinstance(x, Tensor):
        return x.dtype._cat <= 1
    return type(x) in (bool, int) or isinstance(x, (np.integer, np.bool_))


def need_tensor(input, other, *rest):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"expected at least one Tensor argument, got {type(input).__name__} and "
                        f"{type(other).__name__}")


def zero_division_check(input, other, *rest):
    """Integer division by zero raises (torch's CPU kernels do; the check reads the divisor)."""
    if not (_integral(input) and _integral(other)) or (_is_bool(input) and _is_bool(other)):
        return
    if isinstance(other, Tensor):
        if not bool(jnp.all(other._value() != 0)):
            raise RuntimeError("ZeroDivisionError")
    elif other == 0:
        raise RuntimeError("ZeroDivisionError")


def _exact(out, want):
    if isinstance(out, Tensor) and out.dtype is not want:
        raise RuntimeError(f"Found dtype {tname(out.dtype)} but expected {tname(want)}")


def exact_out(out, input, *rest):
    """out= must have the input's dtype exactly (torch's 'Found dtype X but expected Y')."""
    _exact(out, input.dtype)


def exact_out_promoted(out, *args):
    """out= must have the promoted dtype of the (Tensor / number) arguments exactly."""
    _exact(out, dispatch.result_dtype([a for a in args if a is not None]))


def bool_out(name):
    def chk(out, *args):
        if isinstance(out, Tensor) and out.dtype is not D.bool:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return chk


def _scalar_key(*names):
    """select: a key naming which of the given positional args are not Tensors ('' when all are)."""
    def sel(*args):
        k = ''.join(n for n, a in zip(names, args) if not isinstance(a, Tensor))
        return k or None
    return sel


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def _nyi(x, msg, exc):
    return x


def _nyi_fwd(x, msg, exc):
    return x, None


def _nyi_bwd(msg, exc, res, g):
    raise exc(msg)


_nyi.defvjp(_nyi_fwd, _nyi_bwd)


def grad_raises(result, msg, *inputs, exc=RuntimeError):
    """``result``, whose backward through ``inputs`` raises ``exc(msg)`` (torch's not-implemented
    derivatives); the values are untouched."""
    never = jnp.zeros(jnp.shape(result), bool)
    for x in inputs:
        if x is not None and kind(x) in 'fc':
            result = jnp.where(never, _nyi(x, msg, exc).astype(result.dtype), result)
    return result


def where_clamp(x, lo, hi):
    """min(max(x, lo), hi) with torch's clamp gradient: x's gradient flows where lo <= x <= hi."""
    if lo is not None:
        x = jnp.where(x < lo, lo, x)
    if hi is not None:
        x = jnp.where(x > hi, hi, x)
    return x


# ---- unary math ------------------------------------------------------------------------------
# (name, jnp function, saves, torch.xxx_ exists, aliases, node)
_UNARY_FLOAT = (
    ('acos', jnp.arccos, 'inputs', True, ('arccos',), None),
    ('acosh', jnp.arccosh, 'inputs', True, ('arccosh',), None),
    ('asin', jnp.arcsin, 'inputs', True, ('arcsin',), None),
    ('asinh', jnp.arcsinh, 'inputs', True, ('arcsinh',), None),
    ('atan', jnp.arctan, 'inputs', True, ('arctan',), None),
    ('atanh', jnp.arctanh, 'inputs', True, ('arctanh',), None),
    ('sqrt', jnp.sqrt, 'result', True, (), None),
    ('rsqrt', lax.rsqrt, 'result', True, (), None),
    ('exp', jnp.exp, 'result', True, (), None),
    ('exp2', jnp.exp2, 'result', True, (), None),
    ('expm1', jnp.expm1, 'result', True, (), None),
    ('log', jnp.log, 'inputs', True, (), None),
    ('log2', jnp.log2, 'inputs', True, (), None),
    ('log10', jnp.log10, 'inputs', True, (), None),
    ('log1p', jnp.log1p, 'inputs', True, (), 'Log1PBackward0'),
    ('sin', jnp.sin, 'inputs', True, (), None),
    ('cos', jnp.cos, 'inputs', True, (), None),
    ('tan', jnp.tan, 'result', True, (), None),
    ('sinh', jnp.sinh, 'inputs', True, (), None),
    ('cosh', jnp.cosh, 'inputs', True, (), None),
    ('tanh', jnp.tanh, 'result', True, (), None),
    ('sigmoid', jax.nn.sigmoid, 'result', True, (), None),
    ('reciprocal', lambda x: 1 / x, 'result', True, (), None),
)


def _unary(name, f, saves, torch_inplace, aliases, node):
    def body(input):
        return f(input)
    body.__name__ = name
    body.__doc__ = f'torch.{name}(input, *, out=None): elementwise {name}; integer inputs give the default float dtype.'
    pw(name, promote='float', saves=saves, inplace=True, torch_inplace=torch_inplace, aliases=aliases, node=node)(body)


for _spec in _UNARY_FLOAT:
    _unary(*_spec)


@pw('deg2rad', promote='float', saves=(), inplace=True, torch_inplace=True, node='Deg2RadBackward0')
def deg2rad(input):
    return input * jnp.asarray(math.pi / 180, input.dtype)


@pw('rad2deg', promote='float', saves=(), inplace=True, torch_inplace=True, node='Rad2DegBackward0')
def rad2deg(input):
    return input * jnp.asarray(180 / math.pi, input.dtype)


@jax.custom_jvp
def _logit(x):
    return jnp.log(x / (1 - x))


@_logit.defjvp
def _logit_jvp(p, t):
    x, = p
    return _logit(x), t[0] / (x * (1 - x))


@pw('logit', promote='float', promote_args=('input',), diff=('input',), inplace=True, torch_inplace=True)
def logit(input, eps=None):
    if input.dtype.kind == 'c':
        not_impl('logit_cpu', input)
    if eps is not None:
        input = where_clamp(input, eps, 1 - eps)
    return _logit(input)


# ---- rounding, sign, abs -----------------------------------------------------------------------

def _rounding(name, f, kernel):
    def body(input):
        k = input.dtype.kind
        if k == 'b':
            not_impl(kernel, input)
        if k == 'c':
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        return input if k in 'iu' else f(input)
    body.__name__ = name
    body.__doc__ = f'torch.{name}(input, *, out=None): integer inputs are returned unchanged.'
    return body


pw('ceil', saves=(), inplace=True, torch_inplace=True, out_check=exact_out)(_rounding('ceil', jnp.ceil, 'ceil_vml_cpu'))
pw('floor', saves=(), inplace=True, torch_inplace=True, out_check=exact_out)(_rounding('floor', jnp.floor, 'floor_vml_cpu'))
pw('trunc', saves=(), inplace=True, torch_inplace=True, aliases=('fix',), out_check=exact_out)(_rounding('trunc', jnp.trunc,
                                                                                     'trunc_vml_cpu'))


@pw('round', static=('decimals',), saves=(), inplace=True, torch_inplace=True, out_check=exact_out,
    select=lambda input, decimals=None: None if decimals is None else 'd', variants={'d': ('RoundBackward1', ())})
def round(input, *, decimals=None):
    """torch.round(input, *, decimals=0): half to even; ``decimals`` rounds to 10**-decimals as torch."""
    k = input.dtype.kind
    if k == 'b' or (k in 'iu' and decimals is not None):
        not_impl('round_vml_cpu' if decimals is None else 'round_cpu', input)
    if k == 'c':
        raise NotImplementedError("round is not supported for complex inputs")
    if k in 'iu':
        return input
    if not decimals:
        return jnp.round(input)
    if decimals > 0:
        p = jnp.asarray(10.0 ** decimals, input.dtype)
        return jnp.round(input * p) / p
    p = jnp.asarray(10.0 ** -decimals, input.dtype)
    return jnp.round(input / p) * p


@pw('frac', saves=(), inplace=True, torch_inplace=True, out_check=exact_out)
def frac(input):
    if input.dtype.kind not in 'f':
        not_impl('frac_cpu', input)
    return input - jnp.trunc(input)


def _sign(x):
    if x.dtype == jnp.bool_:
        return x
    if x.dtype.kind == 'u':
        return (x > 0).astype(x.dtype)
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


@pw('sign', saves=(), inplace=True, out_check=exact_out)
def sign(input):
    if input.dtype.kind == 'c':
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead.")
    return _sign(input)


@pw('sgn', inplace=True, out_check=exact_out)
def sgn(input):
    if input.dtype.kind == 'c':
        a = jnp.abs(input)
        nz = a != 0
        return jnp.where(nz, input / jnp.where(nz, a, 1).astype(input.dtype), jnp.zeros_like(input))
    return _sign(input)


@pw('signbit', differentiable=False, out_check=bool_out('signbit'))
def signbit(input):
    k = input.dtype.kind
    if k == 'c':
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if k == 'b' or k == 'u':
        return jnp.zeros(input.shape, jnp.bool_)
    if k == 'i':
        return input < 0
    return jnp.signbit(input)


@jax.custom_jvp
def _abs(x):
    return jnp.abs(x)


@_abs.defjvp
def _abs_jvp(p, t):
    x, = p
    tx, = t
    if jnp.iscomplexobj(x):
        a = jnp.abs(x)
        nz = a != 0
        s = jnp.where(nz, x / jnp.where(nz, a, 1).astype(x.dtype), 0)
        return a, jnp.real(jnp.conj(s) * tx)
    return jnp.abs(x), _sign(x) * tx


@pw('abs', inplace=True, torch_inplace=True, aliases=('absolute',),
    out_check=lambda out, input: _exact(out, input.dtype.to_real()))
def abs(input):
    k = input.dtype.kind
    if k == 'b':
        not_impl('abs_cpu', input)
    if k == 'u':
        return input
    if k == 'i':
        return jnp.abs(input)
    return _abs(input)


def _neg_check(input):
    if _is_bool(input):
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


@pw('neg', inplace=True, torch_inplace=True, saves=(), aliases=('negative',), check=_neg_check, out_check=exact_out)
def neg(input):
    return -input


@public('positive', method=True)
def positive(input):
    """torch.positive(input): returns ``input`` itself (bool tensors raise)."""
    if not isinstance(input, Tensor):
        _bad_arg('positive', 'input', 1, input)
    if input.dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@pw('relu', inplace=True, torch_inplace=True, saves='result', out=False)
def relu(input):
    k = input.dtype.kind
    if k == 'b':
        raise RuntimeError("Boolean inputs not supported for relu")
    if k == 'c':
        raise NotImplementedError("clamp is not supported for complex types")
    keep = input > 0
    if k == 'f':
        keep = keep | jnp.isnan(input)
    return jnp.where(keep, input, jnp.zeros_like(input))


@pw('angle', promote='float')
def angle(input):
    if input.dtype.kind == 'c':
        return jnp.angle(input)
    x = lax.stop_gradient(input)
    r = jnp.where(x < 0, jnp.asarray(math.pi, x.dtype), jnp.zeros_like(x))
    return jnp.where(jnp.isnan(x), x, r)


# ---- complex parts -------------------------------------------------------------------------------

# Note [Conjugate and negative bits]: torch.conj on a complex tensor is a view that carries a conj bit (the
# values are read conjugated; writes through it reach the base conjugated back), and the imaginary part of such
# a view carries a neg bit. torchlike's conj is a reinterpreting view step (views.REINTERPRET), so values and
# writes behave alike; views.mark keeps the bits as torch does, so is_conj()/is_neg(), resolve_conj()/
# resolve_neg() and the errors torch raises for unresolved tensors (numpy(), view_as_real, view(dtype)) match.
@op('_conj', view=True, node='ConjBackward0', saves=(), function=False, method=False)
def _conj(input):
    return jnp.conj(input)


views.reinterpreting('_conj', lambda w, v: jnp.conj(w), lambda p, dt, key: (p, dt))


@public('conj', method=True)
def conj(input):
    """torch.conj: a real tensor is returned itself; a complex one gives a view with the conj bit flipped."""
    if not isinstance(input, Tensor):
        _bad_arg('conj', 'input', 1, input)
    return input if not input.dtype.is_complex else dispatch.apply(_conj, (input,))


@pw('conj_physical', node='ConjPhysicalBackward0', saves=(), function=False, method=False)
def _conj_physical(input):
    return jnp.conj(input)


@public('conj_physical', method=True)
def conj_physical(input, *, out=None):
    if not isinstance(input, Tensor):
        _bad_arg('conj_physical', 'input', 1, input)
    if out is None and not input.dtype.is_complex:
        return input
    exact_out(out, input)
    return dispatch.apply(_conj_physical, (input,), (), out)


@public('conj_physical_')
@method('conj_physical_')
def conj_physical_(self):
    if not self.dtype.is_complex:
        return self
    return dispatch.apply_inplace(_conj_physical, (self,))


@op('_real', view=True, node='RealBackward0', saves=(), function=False, method=False)
def _real(input):
    return jnp.real(input)


@op('_imag', view=True, node='ImagBackward0', saves=(), function=False, method=False)
def _imag(input):
    return jnp.imag(input)


@public('real')
def real(input):
    """torch.real: a real tensor is returned itself; the real part of a complex one is a view of it."""
    if not isinstance(input, Tensor):
        _bad_arg('real', 'input', 1, input)
    return input if not input.dtype.is_complex else dispatch.apply(_real, (input,))


@public('imag')
def imag(input):
    if not isinstance(input, Tensor):
        _bad_arg('imag', 'input', 1, input)
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return dispatch.apply(_imag, (input,))


def _complex_args_check(fname):
    def chk(a, b):
        fl = (D.float16, D.float32, D.float64)
        if a.dtype not in fl or b.dtype not in fl:
            raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {tname(a.dtype)} "
                               f"and {tname(b.dtype)}")
        if a.dtype is not b.dtype:
            raise RuntimeError(f"Expected object of scalar type {tname(a.dtype)} but got scalar type "
                               f"{tname(b.dtype)} for second argument")
        if a.dtype is D.float16:   # the result would be complex32, which torchlike (like JAX) has no dtype for
            raise NotImplementedError(f"torch.{fname} of Half tensors (a complex32 result) is not supported")
    return chk


@pw('complex', tensors=('real', 'imag'), check=_complex_args_check('complex'), bc=True, method=False, saves=())
def _complex(real, imag):
    return lax.complex(*jnp.broadcast_arrays(real, imag))


@jax.custom_vjp
def _polar_fn(abs, angle):
    return lax.complex(abs * jnp.cos(angle), abs * jnp.sin(angle))


def _polar_fwd(abs, angle):
    r = _polar_fn(abs, angle)
    return r, r


def _polar_bwd(r, ct):
    # torch's polar_backward uses sgn(result) as d result / d abs: a negative abs flips the sign and abs == 0 gives
    # a zero gradient (not the analytic derivative); ct is JAX's cotangent (the conjugate of torch's grad)
    sgn = jnp.where(r == 0, jnp.zeros_like(r), r / jnp.where(r == 0, jnp.ones_like(r), jnp.abs(r)))
    return jnp.real(ct * sgn), jnp.real(ct * r * 1j)


_polar_fn.defvjp(_polar_fwd, _polar_bwd)


@pw('polar', tensors=('abs', 'angle'), check=_complex_args_check('polar'), bc=True, method=False)
def _polar(abs, angle):
    return _polar_fn(*jnp.broadcast_arrays(abs, angle))


method('real')(property(real))
method('imag')(property(imag))


def _bit(name, flag):
    def is_bit(input):
        if not isinstance(input, Tensor):
            _bad_arg(f'is_{name}', 'input', 1, input)
        return input.__dict__.get(flag, False)

    def resolve(input):
        """A tensor without the bit is returned itself; one with it is materialised into a new tensor."""
        if not isinstance(input, Tensor):
            _bad_arg(f'resolve_{name}', 'input', 1, input)
        if not input.__dict__.get(flag, False):
            return input
        return input.clone()
    is_bit.__name__, resolve.__name__ = f'is_{name}', f'resolve_{name}'
    public(f'is_{name}', method=True)(is_bit)
    public(f'resolve_{name}', method=True)(resolve)


_bit('conj', '_conj_bit')
_bit('neg', '_neg_bit')


_FREXP_LAYOUT = {np.dtype(np.float16): (jnp.int16, 10, 31, 15), np.dtype(D.bfloat16.np): (jnp.int16, 7, 255, 127),
                 np.dtype(np.float32): (jnp.int32, 23, 255, 127), np.dtype(np.float64): (jnp.int64, 52, 2047, 1023)}


def _frexp_bits(x):
    """frexp on the bit pattern: exact for subnormals, which XLA's CPU arithmetic flushes to zero."""
    it, mbits, emax, bias = _FREXP_LAYOUT[np.dtype(x.dtype)]
    nbits = np.dtype(it).itemsize * 8
    b = lax.bitcast_convert_type(x, it)
    ab = b & ((1 << (nbits - 1)) - 1)
    sign = b ^ ab
    ef = ab >> mbits
    mf = ab & ((1 << mbits) - 1)
    lz = lax.clz(mf) - (nbits - mbits)            # leading zeros of a subnormal's fraction field
    sub = (ef == 0) & (mf != 0)
    frac = jnp.where(sub, (mf << (lz + 1)) & ((1 << mbits) - 1), mf)
    e = jnp.where(sub, 1 - lz - bias, ef - (bias - 1))
    m = lax.bitcast_convert_type(sign | ((bias - 1) << mbits) | frac, x.dtype)
    special = (ab == 0) | (ef == emax)
    return jnp.where(special, x, m), jnp.where(special, 0, e).astype(jnp.int32)


@jax.custom_jvp
def _frexp(x):
    return _frexp_bits(x)


@_frexp.defjvp
def _frexp_jvp(p, t):
    m, e = _frexp_bits(p[0])
    return (m, e), (t[0] / jnp.exp2(e.astype(m.dtype)), np.zeros(e.shape, jax.dtypes.float0))


def _frexp_check(input):
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")


@pw('frexp', check=_frexp_check, ret=return_types.frexp, node='FrexpBackward0')
def frexp(input):
    return _frexp(input)
