"""Matrix products: matmul (all rank combinations), mm, bmm, mv, dot, vdot, inner, outer/ger, the add*
family (addmm, addmv, addr, addbmm, baddbmm), einsum, tensordot, kron, cross, trace, cdist, chain_matmul.

Products follow PyTorch's dtype rule: operands must share a dtype (no promotion), except outer/ger, kron
and addr, which promote like ``mul``. Checks (ranks, sizes, dtypes) run while the body is traced, so a
valid call pays nothing for them: jax.jit only re-traces, and so re-checks, for a new (shape, dtype).
Float32 products follow JAX's default matmul precision, which torch.set_float32_matmul_precision sets
(torchlike/_determinism.py; 'highest' from import, as torch: full-precision passes on GPU/TPU, matching
torch's CPU results to ~1e-6); float16/bfloat16 products accumulate in float32 (``matmul_acc``), backward included.
"""
import functools
import numbers
import warnings

from .. import _dtype as D
from .._engine.registry import op, public
from .._engine import dispatch
from .._engine.jaxrt import jax, jnp, lax
from ._util import wrap_dim

_HI = None      # the default precision: set_float32_matmul_precision decides

# c10's type names as they appear in ATen messages: ScalarType names ('Float') and C++ names ('float').
_CNAMES = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
           'int64': 'long int', 'int32': 'int', 'int16': 'short int', 'int8': 'signed char',
           'uint8': 'unsigned char', 'bool': 'bool', 'complex64': 'c10::complex<float>',
           'complex128': 'c10::complex<double>', 'uint16': 'unsigned short', 'uint32': 'unsigned int',
           'uint64': 'unsigned long'}


def sname(x):
    """ScalarType name of an array's (or torch dtype's) dtype: 'Float', 'Long', ..."""
    dt = x if isinstance(x, D.dtype) else D.from_np(x.dtype)
    return dispatch._tname(dt)


def cname(x):
    """C++ type name of an array's (or torch dtype's) dtype: 'float', 'long int', ..."""
    dt = x if isinstance(x, D.dtype) else D.from_np(x.dtype)
    return _CNAMES.get(dt.name, dt.name)


def _is_bool(x):
    return x.dtype == jnp.bool_


def _is_int(x):
    return jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_


def _not_impl(kernel, x):
    return NotImplementedError(f'"{kernel}" not implemented for \'{sname(x)}\'')


def _acc(dt):
    """Accumulation dtype for a product of ``dt`` operands (None: the operand dtype)."""
    if dt == jnp.float16 or dt == jnp.bfloat16:
        return jnp.float32
    return None


def _matmul(a, b):
    return matmul_acc(a, b, _HI)


def matmul_acc(a, b, precision=None):
    """jnp.matmul in ``a``'s dtype; float16/bfloat16 operands accumulate in float32 (torch's CPU gemm, and
    the fast path of CPUs with bf16 dot units) through ``_lowp_mm``, whose backward keeps the gradient
    products in the low dtype too (see there). ``precision=None`` follows jax_default_matmul_precision."""
    if _acc(a.dtype) is None or a.dtype != b.dtype:
        return jnp.matmul(a, b, precision=precision).astype(a.dtype)
    va, vb = a.ndim == 1, b.ndim == 1          # vectors as matrices: the custom rule sees (..., n, k) @ (..., k, m)
    y = _lowp_mm(a[None] if va else a, b[:, None] if vb else b, precision)
    if vb:
        y = y[..., 0]
    if va:
        y = y[..., 0, :] if not vb else y[..., 0]
    return y


def _sum_to(x, shape):
    """Reduce a broadcast gradient ``x`` back to ``shape`` (leading dims, then size-1 dims)."""
    lead = x.ndim - len(shape)
    if lead:
        x = x.sum(axis=tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and x.shape[i] != 1)
    return x.sum(axis=dims, keepdims=True) if dims else x


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _lowp_mm(a, b, precision):
    return jnp.matmul(a, b, precision=precision, preferred_element_type=jnp.float32).astype(a.dtype)


def _lowp_mm_fwd(a, b, precision):
    return _lowp_mm(a, b, precision), (a, b)


def _lowp_mm_bwd(precision, res, g):
    # The automatic VJP would multiply the float32 cotangent of the accumulation with the low-precision
    # operands, i.e. float32 products (2-4x slower on CPU). torch's backward is two low-precision gemms on
    # the low-precision output gradient, accumulated in float32: the same here.
    a, b = res
    g = g.astype(a.dtype)
    ga = jnp.matmul(g, jnp.swapaxes(b, -1, -2), precision=precision, preferred_element_type=jnp.float32)
    gb = jnp.matmul(jnp.swapaxes(a, -1, -2), g, precision=precision, preferred_element_type=jnp.float32)
    return _sum_to(ga, a.shape).astype(a.dtype), _sum_to(gb, b.shape).astype(b.dtype)


_lowp_mm.defvjp(_lowp_mm_fwd, _lowp_mm_bwd)


def linear_acc(x, w):
    """``x @ w.T`` for nn.Linear's (out, in) weight. Float16/bfloat16 contract the weight's last dim in place
    (lax.dot_general) instead of materialising ``w.T``: XLA:CPU's bf16 gemm with a transposed operand ran at
    half the speed (measured 256x2048 @ 2048x2048 on this 2-core CPU: 14.6 ms with ``w.T``, 7.4 ms in place)."""
    if _acc(x.dtype) is None or x.dtype != w.dtype or w.ndim != 2:
        return matmul_acc(x, w.T)
    return _lowp_linear(x, w)


def _dot(a, b, ca, cb):
    return lax.dot_general(a, b, (((ca,), (cb,)), ((), ())), preferred_element_type=jnp.float32)


@jax.custom_vjp
def _lowp_linear(x, w):
    return _dot(x, w, x.ndim - 1, 1).astype(x.dtype)


def _lowp_linear_fwd(x, w):
    return _lowp_linear(x, w), (x, w)


def _lowp_linear_bwd(res, g):
    # as _lowp_mm_bwd: low-precision products on the low-precision gradient, float32 accumulation
    x, w = res
    g = g.astype(x.dtype)
    gx = _dot(g, w, g.ndim - 1, 0)
    gw = _dot(g.reshape(-1, w.shape[0]), x.reshape(-1, w.shape[1]), 0, 0)
    return gx.astype(x.dtype), gw.astype(w.dtype)


_lowp_linear.defvjp(_lowp_linear_fwd, _lowp_linear_bwd)


def _shape_str(s):
    return 'x'.join(str(n) for n in s)


def _list(s):
    return '[' + ', '.join(str(n) for n in s) + ']'


def broadcast_shapes(a, b):
    """Broadcast two shapes with torch's error message."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _expand_to(x, shape, tname=None):
    """x.expand(shape) with torch's errors (the add* family's ``input``)."""
    if x.ndim > len(shape):
        raise RuntimeError(f"expand(torch.{tname or sname(x)}Tensor{{{_list(x.shape)}}}, size={_list(shape)}): the "
                           f"number of sizes provided ({len(shape)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({x.ndim})")
    off = len(shape) - x.ndim
    for i, s in enumerate(x.shape):
        if s != 1 and s != shape[off + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[off + i]}) must match the existing size ({s}) "
                               f"at non-singleton dimension {off + i}.  Target sizes: {_list(shape)}.  "
                               f"Tensor sizes: {_list(x.shape)}")
    return jnp.broadcast_to(x, shape)


# ---- mm / bmm / mv / dot ---------------------------------------------------------------

def _check_mm(a, b):
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a.shape)} and "
                           f"{_shape_str(b.shape)})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cname(a)} != {cname(b)}")
    if _is_bool(a):
        raise _not_impl('addmm_impl_cpu_', a)


def _check_bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {sname(a)} but found {sname(b)}")
    if _is_bool(a):
        raise _not_impl('bmm', a)


def _check_mv(m, v):
    if m.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {m.ndim}, {v.ndim}")
    if m.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({m.shape[0]}), mat ({_shape_str(m.shape)}), vec ({v.shape[0]})")
    if m.dtype != v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {sname(v)}, {sname(m)}, "
                           f"and {sname(v)}")
    if _is_bool(m):
        raise _not_impl('addmv_impl_cpu', m)


def _check_dot(a, b, name='dot'):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {sname(a)} and {sname(b)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           f"the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")
    if _is_bool(a):
        raise _not_impl(name, a)


@op('mm', saves='inputs')
def mm(input, mat2):
    _check_mm(input, mat2)
    return _matmul(input, mat2)


@op('bmm', saves='inputs')
def bmm(input, mat2):
    _check_bmm(input, mat2)
    return _matmul(input, mat2)


@op('mv', saves='inputs')
def mv(input, vec):
    _check_mv(input, vec)
    return _matmul(input, vec)


@op('dot', saves='inputs')
def dot(input, tensor):
    _check_dot(input, tensor)
    return _matmul(input, tensor)


@op('vdot', saves='inputs')
def vdot(input, other):
    _check_dot(input, other, 'vdot')
    return _matmul(jnp.conj(input), other)


# ---- matmul ------------------------------------------------------------------------------
# torch.matmul is a composite whose kernel (and so grad_fn) depends on the ranks: one op per path,
# sharing the body, so each reports torch's node name and error messages.

def _check_batched(a, b):
    """Checks of matmul's broadcast-batched path (bmm after expanding the batch dims)."""
    ba = a.shape[:-2] if a.ndim >= 2 else ()
    bb = b.shape[:-2] if b.ndim >= 2 else ()
    batch = broadcast_shapes(ba, bb)
    n = 1
    for s in batch:
        n *= s
    k1 = a.shape[-1]
    k2 = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if k1 != k2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k1}] but got: "
                           f"[{n}, {k2}].")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {sname(a)} but found {sname(b)}")
    if _is_bool(a):
        raise _not_impl('bmm', a)


def _check_fold(a, b):
    """matmul's folded path: (..., n, k) @ (k, m) or (k,) becomes one mm/mv over the flattened rows."""
    rows = 1
    for s in a.shape[:-1]:
        rows *= s
    k = a.shape[-1]
    if b.ndim == 2:
        if k != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {_shape_str(b.shape)})")
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cname(a)} != {cname(b)}")
        if _is_bool(a):
            raise _not_impl('addmm_impl_cpu_', a)
    else:
        if k != b.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({b.shape[0]})")
        if a.dtype != b.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {sname(b)}, {sname(a)}, "
                               f"and {sname(b)}")
        if _is_bool(a):
            raise _not_impl('addmv_impl_cpu', a)


def _check_vm(a, b):
    # (k,) @ (k, m): torch runs a.unsqueeze(0).mm(b).squeeze(0)
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{a.shape[0]} and {_shape_str(b.shape)})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cname(a)} != {cname(b)}")
    if _is_bool(a):
        raise _not_impl('addmm_impl_cpu_', a)


def _matmul_op(name, node, check):
    def body(input, other):
        check(input, other)
        return _matmul(input, other)
    body.__name__ = name
    return op(name, node=node, function=False, method=False)(body)


_matmul_dot = _matmul_op('_matmul_dot', 'DotBackward0', _check_dot)
_matmul_mv = _matmul_op('_matmul_mv', 'MvBackward0', _check_mv)
_matmul_vm = _matmul_op('_matmul_vm', 'SqueezeBackward4', _check_vm)
_matmul_fold = _matmul_op('_matmul_fold', 'UnsafeViewBackward0', _check_fold)
_matmul_batched = _matmul_op('_matmul_batched', 'UnsafeViewBackward0', _check_batched)
_matmul_batched_t = _matmul_op('_matmul_batched_t', 'CloneBackward0', _check_batched)


def _need_tensor(fname, argname, pos, x):
    if not isinstance(x, dispatch.Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}")


@public('matmul', method=True)
def matmul(input, other, *, out=None):
    _need_tensor('matmul', 'input', 1, input)
    _need_tensor('matmul', 'other', 2, other)
    d1, d2 = input.ndim, other.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        o = _matmul_dot
    elif d1 == 2 and d2 == 1:
        o = _matmul_mv
    elif d1 == 1 and d2 == 2:
        o = _matmul_vm
    elif d1 == 2 and d2 == 2:
        o = mm
    elif d1 >= 3 and d2 <= 2:
        o = _matmul_fold
    elif input.requires_grad and d2 >= 3 and (d1 == 2 or (d1 == d2 == 3 and input.shape[0] == 1 != other.shape[0])):
        o = _matmul_batched_t       # torch folds (m, k) @ (..., k, n) via a transpose when input needs grad
    else:
        o = _matmul_batched
    return dispatch.apply(o, (input, other), (), out)


# ---- the add* family: beta * input + alpha * product -----------------------------------

def _coef(v, dt, name, strict):
    """A Python-number coefficient (a weak-typed scalar in the trace) converted as ATen's Scalar.to<T>()."""
    if v is None:
        return None
    if jnp.issubdtype(dt, jnp.integer) or dt == jnp.bool_:
        if strict and (jnp.issubdtype(v.dtype, jnp.floating) or jnp.issubdtype(v.dtype, jnp.complexfloating)):
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
        if jnp.issubdtype(v.dtype, jnp.complexfloating):
            v = jnp.real(v)
        return v.astype(dt)
    if jnp.issubdtype(v.dtype, jnp.complexfloating) and not jnp.issubdtype(dt, jnp.complexfloating):
        v = jnp.real(v)
    return v.astype(dt)


def _axpby(input, prod, beta, alpha, strict=False):
    """beta * input + alpha * prod; beta == 0 ignores input (NaN/inf in it do not propagate), as torch."""
    dt = prod.dtype
    b = _coef(jnp.asarray(beta), dt, 'beta', strict)
    a = _coef(jnp.asarray(alpha), dt, 'alpha', strict)
    if dt == jnp.bool_:
        return (b & input) | (a & prod)
    scaled = jnp.where(b == 0, jnp.zeros((), dt), b * input)
    return scaled + a * prod


@op('addmm', diff=('input', 'mat1', 'mat2'))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(mat1.shape)} and "
                           f"{_shape_str(mat2.shape)})")
    if input.dtype != mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {sname(input)} and {sname(mat2)}")
    if mat1.dtype != mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {sname(mat1)} and {sname(mat2)}")
    if _is_bool(mat1):
        raise _not_impl('addmm_impl_cpu_', mat1)
    inp = _expand_to(input, (mat1.shape[0], mat2.shape[1]))
    return _axpby(inp, _matmul(mat1, mat2), beta, alpha)


@op('addmv', diff=('input', 'mat', 'vec'))
def addmv(input, mat, vec, *, beta=1, alpha=1):
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0] or (input.ndim == 1 and input.shape[0] not in (1, mat.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                           f"({_shape_str(mat.shape)}), vec ({vec.shape[0]})")
    if not (input.dtype == mat.dtype == vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {sname(input)}, {sname(mat)}, "
                           f"and {sname(vec)}")
    if _is_bool(mat):
        raise _not_impl('addmv_impl_cpu', mat)
    inp = jnp.broadcast_to(input, (mat.shape[0],))
    return _axpby(inp, _matmul(mat, vec), beta, alpha)


@op('addr', promote='same', promote_args=('input', 'vec1', 'vec2'), diff=('input', 'vec1', 'vec2'))
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if vec1.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    inp = _expand_to(input, (vec1.shape[0], vec2.shape[0]))
    if input.dtype == jnp.bool_:
        prod = vec1[:, None] & vec2[None, :]
    else:
        prod = vec1[:, None] * vec2[None, :]
    return _axpby(inp, prod, beta, alpha, strict=True)


def _check_add_bmm(input, b1, b2):
    if b1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b1.shape[0] != b2.shape[0] or b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, {b2.shape[1]}].")


@op('addbmm', diff=('input', 'batch1', 'batch2'))
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _check_add_bmm(input, batch1, batch2)
    if input.dtype != batch2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {sname(input)} and {sname(batch2)}")
    if batch1.dtype != batch2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {sname(batch1)} and {sname(batch2)}")
    if _is_bool(batch1):
        raise _not_impl('addbmm', batch1)
    inp = _expand_to(input, (batch1.shape[1], batch2.shape[2]))
    prod = jnp.einsum('bij,bjk->ik', batch1, batch2, precision=_HI,
                      preferred_element_type=_acc(batch1.dtype)).astype(batch1.dtype)
    return _axpby(inp, prod, beta, alpha)


@op('baddbmm', diff=('input', 'batch1', 'batch2'))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _check_add_bmm(input, batch1, batch2)
    if not (input.dtype == batch1.dtype == batch2.dtype):
        raise RuntimeError(f"Input dtypes must be the same, got: input {cname(input)}, batch1: {cname(batch1)}, "
                           f"batch2: {cname(batch2)}")
    if _is_bool(batch1):
        raise _not_impl('baddbmm', batch1)
    inp = _expand_to(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    return _axpby(inp, _matmul(batch1, batch2), beta, alpha)


# ---- outer products, inner, kron, tensordot ---------------------------------------------

@op('outer', promote='same', node='MulBackward0', aliases=('ger',))
def outer(input, vec2):
    if input.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    if input.dtype == jnp.bool_:
        return input[:, None] & vec2[None, :]
    return input[:, None] * vec2[None, :]


@op('_inner', node='ViewBackward0', function=False, method=False)
def _inner(input, other):
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{_list(input.shape)} and {_list(other.shape)}")
    if input.dtype != other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if _is_bool(input):
        raise _not_impl('dot' if input.ndim == 1 and other.ndim == 1 else 'addmm_impl_cpu_', input)
    return jnp.tensordot(input, other, axes=((input.ndim - 1,), (other.ndim - 1,)), precision=_HI,
                         preferred_element_type=_acc(input.dtype)).astype(input.dtype)


@public('inner', method=True)
def inner(input, other, *, out=None):
    _need_tensor('inner', 'input', 1, input)
    _need_tensor('inner', 'other', 2, other)
    if input.ndim == 0 or other.ndim == 0:
        from .._engine.registry import PUBLIC
        return PUBLIC['torch']['mul'](input, other, out=out)
    return dispatch.apply(_inner, (input, other), (), out)


@op('kron', promote='same', node='UnsafeViewBackward0')
def kron(input, other):
    n = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (n - input.ndim) + input.shape)
    b = other.reshape((1,) * (n - other.ndim) + other.shape)
    # out[i*Bs + j] = a[i] * b[j] per dim: interleave the dims of a and b, then merge them
    ea = a.reshape(sum(((s, 1) for s in a.shape), ()))
    eb = b.reshape(sum(((1, s) for s in b.shape), ()))
    prod = (ea & eb) if input.dtype == jnp.bool_ else ea * eb
    return prod.reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


@op('_tensordot', static=('dims_a', 'dims_b', 'shown'), node='ViewBackward0', function=False, method=False)
def _tensordot(input, other, *, dims_a, dims_b, shown):
    da = tuple(wrap_dim(d, input.ndim) for d in dims_a)
    db = tuple(wrap_dim(d, other.ndim) for d in dims_b)
    for (x, y), (sx, sy) in zip(zip(da, db), zip(*shown)):
        n1, n2 = input.shape[x], other.shape[y]
        if n1 != n2 and n1 == 1:          # a size-1 dim contracts against the other's sum, as in torch
            input = jnp.broadcast_to(input, input.shape[:x] + (n2,) + input.shape[x + 1:])
        elif n1 != n2 and n2 == 1:
            other = jnp.broadcast_to(other, other.shape[:y] + (n1,) + other.shape[y + 1:])
        elif n1 != n2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {input.shape[x]} in dim {sx} "
                               f"and second has size {other.shape[y]} in dim {sy}")
    if input.dtype != other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if _is_bool(input):
        raise _not_impl('addmm_impl_cpu_', input)
    return jnp.tensordot(input, other, axes=(da, db), precision=_HI,
                         preferred_element_type=_acc(input.dtype)).astype(input.dtype)


def _int_list(v):
    if isinstance(v, dispatch.Tensor):
        v = v.tolist()
    if isinstance(v, numbers.Integral):
        return (int(v),)
    return tuple(int(x) for x in v)


@public('tensordot')
def tensordot(a, b, dims=2, out=None):
    _need_tensor('tensordot', 'a', 1, a)
    _need_tensor('tensordot', 'b', 2, b)
    if isinstance(dims, dispatch.Tensor):
        dims = dims.item() if dims.numel() == 1 else dims.tolist()
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        dims = int(dims)
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da = tuple(range(-dims, 0))
        db = tuple(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = _int_list(dims[0]), _int_list(dims[1])
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    else:
        raise RuntimeError(f"tensordot expects dims to be an int or a pair of lists of dims, got {dims!r}")
    return dispatch.apply(_tensordot, (a, b), (da, db, (da, db)), out)


# ---- einsum ----------------------------------------------------------------------------

def _parse_einsum(equation, n_ops):
    """Parse an einsum equation: (per-operand label tuples with '.' for an ellipsis, output labels or None)."""
    terms, cur, out = [], [], None
    i, n = 0, len(equation)
    in_out = False
    while i < n:
        c = equation[i]
        if c == ' ':
            i += 1
            continue
        if equation.startswith('...', i):
            if '.' in cur:
                where = 'output' if in_out else f'operand {len(terms)}'
                raise RuntimeError(f"einsum(): found '.' for {where} that is not part of any ellipsis")
            cur.append('.')
            i += 3
            continue
        if not in_out and c == ',':
            terms.append(cur)
            cur = []
            i += 1
            continue
        if not in_out and equation.startswith('->', i):
            terms.append(cur)
            cur = []
            in_out = True
            i += 2
            continue
        if not (c.isascii() and c.isalpha()):
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
        if in_out:
            if c in cur:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            if not any(c in t for t in terms):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   "operand")
        cur.append(c)
        i += 1
    if in_out:
        out = cur
    else:
        terms.append(cur)
    if len(terms) > n_ops:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < n_ops:
        if n_ops >= 3:
            raise ValueError(f"Number of einsum subscripts, {len(terms)}, must be equal to the number of operands, "
                             f"{n_ops}.")
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return tuple(tuple(t) for t in terms), (tuple(out) if out is not None else None)


def _einsum_body(operands, *, terms, out_labels):
    ops = list(operands)
    if not ops:
        raise RuntimeError("einsum(): must provide at least one operand")
    for o in ops[1:]:
        if o.dtype != ops[0].dtype:
            raise RuntimeError(f"expected scalar type {sname(ops[0])} but found {sname(o)}")
    if ops and _is_bool(ops[0]) and len(ops) > 1:
        raise _not_impl('bmm', ops[0])
    sizes = {}
    ell = 0
    for k, (x, labels) in enumerate(zip(ops, terms)):
        named = [c for c in labels if c != '.']
        if '.' in labels:
            if len(named) > x.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) is more than "
                                   f"the number of dimensions ({x.ndim}) for operand {k}")
            ell = max(ell, x.ndim - len(named))
        elif len(named) != x.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) does not match the "
                               f"number of dimensions ({x.ndim}) for operand {k} and no ellipsis was given")
    # label sizes (size-1 dims broadcast, as torch allows)
    dims_of = []
    for k, (x, labels) in enumerate(zip(ops, terms)):
        shape = list(x.shape)
        e = x.ndim - sum(1 for c in labels if c != '.')
        per, i, seen = [], 0, {}
        for c in labels:
            if c == '.':
                per.append(('.', tuple(shape[i:i + e])))
                i += e
                continue
            s = shape[i]
            if c in seen and seen[c] != s:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                                   f"{s} != {seen[c]}")
            seen[c] = s
            prev = sizes.get(c)
            if prev is not None and s != prev and s != 1 and prev != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which does not broadcast "
                                   f"with previously seen size {prev}")
            sizes[c] = s if prev is None or prev == 1 else prev
            per.append((c, s))
            i += 1
        dims_of.append(per)
    # broadcast size-1 labelled dims to the label's size
    new_ops = []
    for x, per in zip(ops, dims_of):
        target = []
        for c, s in per:
            if c == '.':
                target.extend(s)
            else:
                target.append(sizes[c])
        new_ops.append(x if tuple(target) == x.shape else jnp.broadcast_to(x, tuple(target)))
    counts = {}
    for labels in terms:
        for c in labels:
            if c != '.':
                counts[c] = counts.get(c, 0) + 1
    if out_labels is None:   # implicit output: the ellipsis dims, then the labels seen once, sorted
        out = (['.'] if any('.' in t for t in terms) else []) + sorted(c for c, n in counts.items() if n == 1)
    else:
        out = list(out_labels)
    lhs = ','.join(''.join('...' if c == '.' else c for c in t) for t in terms)
    rhs = ''.join('...' if c == '.' else c for c in out)
    dt = ops[0].dtype
    if _is_bool(ops[0]):
        return jnp.einsum(f'{lhs}->{rhs}', *[o.astype(jnp.int64) for o in new_ops]) != 0
    return jnp.einsum(f'{lhs}->{rhs}', *new_ops, precision=_HI, preferred_element_type=_acc(dt)).astype(dt)


def _einsum_op(name, node):
    def body(operands, *, terms, out_labels):
        return _einsum_body(operands, terms=terms, out_labels=out_labels)
    body.__name__ = name
    return op(name, static=('terms', 'out_labels'), lists=('operands',), node=node, function=False,
              method=False)(body)


# torch's einsum is a composite; its result's grad_fn is that of the last kernel it ran
_einsum = _einsum_op('_einsum', 'ViewBackward0')                   # a contraction through bmm
_einsum_sum = _einsum_op('_einsum_sum', 'SumBackward1')             # one operand, some label summed
_einsum_perm = _einsum_op('_einsum_perm', 'PermuteBackward0')       # one operand, labels permuted/diagonal
_einsum_mul = _einsum_op('_einsum_mul', 'MulBackward0')             # several operands, nothing contracted


def _einsum_kind(terms, out):
    if out is None:
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = [c for c, n in counts.items() if n == 1 or c == '.']
    if len(terms) == 1:
        return _einsum_sum if any(c not in out for c in terms[0]) else _einsum_perm
    if len(terms) == 2 and all(c in out for t in terms for c in t):
        return _einsum_mul
    return _einsum


def _sublist_label(n):
    if n is Ellipsis:
        return '...'
    if isinstance(n, numbers.Integral) and 0 <= n < 26:
        return chr(ord('A') + n)
    if isinstance(n, numbers.Integral) and 26 <= n < 52:
        return chr(ord('a') + n - 26)
    raise ValueError("einsum(): expected subscript to be within the range [0, 52)")


@public('einsum')
def einsum(*args):
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, or at least one "
                        "operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        # sublist format: einsum(op1, sub1, op2, sub2, ..., [sub_out])
        ops, subs = list(args[0::2]), list(args[1::2])
        out_sub = ops.pop() if len(args) % 2 == 1 else None
        if len(args) % 2 == 1 and not isinstance(out_sub, (list, tuple)):
            raise TypeError("einsum(): the output subscripts must be a list")
        equation = ','.join(''.join(_sublist_label(n) for n in s) for s in subs)
        if out_sub is not None:
            equation += '->' + ''.join(_sublist_label(n) for n in out_sub)
        operands = tuple(ops)
    for i, o in enumerate(operands):
        if not isinstance(o, dispatch.Tensor):
            raise TypeError(f"einsum(): argument 'tensors' must be tuple of Tensors, but found element of type "
                            f"{type(o).__name__} at pos {i}")
    terms, out = _parse_einsum(equation, len(operands))
    return dispatch.apply(_einsum_kind(terms, out), (list(operands),), (terms, out))


# ---- cross, trace, cdist, chain_matmul -------------------------------------------------

@op('_linalg_cross', static=('dim',), node='LinalgCrossBackward0', function=False, method=False)
def _linalg_cross(input, other, *, dim):
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    shape = broadcast_shapes(input.shape, other.shape)
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {sname(input)} but found {sname(other)}")
    if _is_bool(input):
        raise _not_impl('cross', input)
    a = jnp.broadcast_to(input, shape)
    b = jnp.broadcast_to(other, shape)
    a0, a1, a2 = (lax.index_in_dim(a, i, d, keepdims=True) for i in range(3))
    b0, b1, b2 = (lax.index_in_dim(b, i, d, keepdims=True) for i in range(3))
    return jnp.concatenate([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=d)


@public('cross', method=True)
def cross(input, other, dim=None, *, out=None):
    _need_tensor('cross', 'input', 1, input)
    _need_tensor('cross', 'other', 2, other)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = tuple(input.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    else:
        dim = wrap_dim(int(dim), max(input.ndim, other.ndim))
    return dispatch.apply(_linalg_cross, (input, other), (dim,), out)


@op('trace', saves=())
def trace(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if _is_bool(input):
        raise _not_impl('trace', input)
    d = jnp.diagonal(input)
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.sum(d, dtype=jnp.int64)
    return jnp.sum(d, dtype=_acc(input.dtype)).astype(input.dtype)


_CDIST_MODES = ('use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist', 'donot_use_mm_for_euclid_dist')


def _cdist_checks(x1, x2, p):
    for name, x in (('X1', x1), ('X2', x2)):
        if not jnp.issubdtype(x.dtype, jnp.floating):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {sname(x)}")
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {sname(x1)} but found {sname(x2)}")
    if x1.dtype in (jnp.float16, jnp.bfloat16):
        raise _not_impl('cdist', x1)
    batch = broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    return (jnp.broadcast_to(x1, batch + x1.shape[-2:]), jnp.broadcast_to(x2, batch + x2.shape[-2:]))


def _safe_pow(s, e):
    """s ** e with a zero gradient (not NaN/inf) where s == 0."""
    pos = s > 0
    return jnp.where(pos, jnp.where(pos, s, 1) ** e, 0)


@op('_cdist', static=('p',), node='CdistBackward0', function=False, method=False)
def _cdist(x1, x2, *, p):
    x1, x2 = _cdist_checks(x1, x2, p)
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    a = jnp.abs(diff)
    if p == 0:
        return jnp.sum(a != 0, axis=-1).astype(x1.dtype)
    if p == 1:
        return jnp.sum(a, axis=-1)
    if p == 2:
        return _safe_pow(jnp.sum(diff * diff, axis=-1), 0.5)
    if p == float('inf'):
        if a.shape[-1] == 0:
            return jnp.zeros(a.shape[:-1], x1.dtype)
        return jnp.max(a, axis=-1)
    return _safe_pow(jnp.sum(_safe_pow(a, p), axis=-1), 1.0 / p)


@op('_cdist_mm', node='ViewBackward0', function=False, method=False)
def _cdist_mm(x1, x2):
    # torch's _euclidean_dist: |x1|^2 - 2 x1.x2 + |x2|^2 through one matmul, clamped, then sqrt
    x1, x2 = _cdist_checks(x1, x2, 2.0)
    n1 = jnp.sum(x1 * x1, axis=-1, keepdims=True)
    n2 = jnp.sum(x2 * x2, axis=-1, keepdims=True)
    a = jnp.concatenate([x1 * -2, n1, jnp.ones_like(n1)], axis=-1)
    b = jnp.concatenate([x2, jnp.ones_like(n2), n2], axis=-1)
    r = jnp.matmul(a, jnp.swapaxes(b, -1, -2), precision=_HI)
    r = jnp.where(r > 1e-30, r, jnp.asarray(1e-30, r.dtype))
    return jnp.sqrt(r)


@public('cdist')
def cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'):
    _need_tensor('cdist', 'x1', 1, x1)
    _need_tensor('cdist', 'x2', 2, x2)
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    p = float(p)
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    use_mm = False
    if p == 2.0 and compute_mode != 'donot_use_mm_for_euclid_dist' and x1.ndim >= 2 and x2.ndim >= 2:
        use_mm = compute_mode == 'use_mm_for_euclid_dist' or x1.shape[-2] > 25 or x2.shape[-2] > 25
    if use_mm:
        return dispatch.apply(_cdist_mm, (x1, x2), ())
    return dispatch.apply(_cdist, (x1, x2), (p,))


@public('chain_matmul')
def chain_matmul(*matrices, out=None):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        _need_tensor('chain_matmul', 'matrices', 1, m)
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        from . import core
        r = core.clone(matrices[0])
    else:
        for i in range(len(matrices) - 1):
            a, b = matrices[i], matrices[i + 1]
            if a.shape[1] != b.shape[0]:
                raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {_list(a.shape)} and "
                                   f"{_list(b.shape)} cannot be multiplied")
        r = matrices[0]
        for m in matrices[1:]:
            r = mm(r, m)
    if out is not None:
        out._set_value_inplace(r._value().astype(out._value().dtype), resize=True)
        return out
    return r
