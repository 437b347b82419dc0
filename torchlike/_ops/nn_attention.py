"""torch.nn.functional attention: scaled_dot_product_attention (one registry op) and
multi_head_attention_forward (a composite of public ops, written as torch's Python reference), plus the
private mask/projection helpers torch.nn.functional exposes and the transformer modules call
(_canonical_mask, _none_or_dtype, _mha_shape_check, _in_projection_packed, _in_projection).

scaled_dot_product_attention follows ATen's math kernel (``_scaled_dot_product_attention_math``): a bool
mask (or ``is_causal``'s top-left aligned lower triangle) becomes an additive 0/-inf bias, a float mask is
added, key/value heads are repeated (repeat_interleave) under ``enable_gqa``, and the softmax is torch's
``_safe_softmax``: a row whose every logit is -inf gives zeros (and zero gradients), not NaN. Dropout
draws its mask inside the program from the default generator, as F.dropout does; the op saves its VJP
residuals (Note [Saved residuals]), so the backward reuses the mask and the attention weights. Shape, dtype and
argument errors are checked in Python first, with torch's exception types.
"""
import math
import numbers
import warnings

from .._engine.jaxrt import jax, jnp
from .._engine.registry import PUBLIC, op, public
from .._tensor import Tensor
from .nn_activation import NN, call, need_tensor, next_key
from .nn_misc import _dropout as _dropout_op
from .pointwise import _variant
from . import random as _random

_NEG_INF = float('-inf')


def _t(name):
    """A torch-level public function (looked up at call time: the op files load in name order)."""
    return PUBLIC['torch'][name]


def _f(name):
    return PUBLIC[NN][name]


# ---- scaled_dot_product_attention ------------------------------------------------------------------

@op('_scaled_dot_product_attention_math', namespace=NN, function=False, method=False,
    static=('is_causal', 'gqa', 'mode'), diff=('query', 'key', 'value', 'attn_mask'), node='UnsafeViewBackward0',
    residuals=True)
def _sdpa(query, key, value, attn_mask, scale, p, seed, offset, *, is_causal, gqa, mode):
    if gqa:
        hq = query.shape[-3]
        key = jnp.repeat(key, hq // key.shape[-3], axis=-3)
        value = jnp.repeat(value, hq // value.shape[-3], axis=-3)
    dt = query.dtype
    s = jnp.matmul(query, jnp.swapaxes(key, -1, -2)) * jnp.asarray(scale, dt)
    ninf = jnp.asarray(_NEG_INF, dt)
    if is_causal:
        L, S = s.shape[-2], s.shape[-1]
        s = s + jnp.where(jnp.tril(jnp.ones((L, S), bool)), jnp.zeros((), dt), ninf)
    if attn_mask is not None:
        bias = jnp.where(attn_mask, jnp.zeros((), dt), ninf) if attn_mask.dtype == jnp.bool_ else attn_mask.astype(dt)
        s = s + bias
    # _safe_softmax: fully masked rows give 0. Their logits are replaced before the softmax so that
    # neither the value nor the gradient passes through a NaN (a where after it would leak NaN*0).
    dead = jnp.all(s == ninf, axis=-1, keepdims=True)
    w = s.astype(jnp.float32) if dt in (jnp.float16, jnp.bfloat16) else s
    a = jax.nn.softmax(jnp.where(dead, jnp.zeros((), w.dtype), w), axis=-1)
    a = jnp.where(dead, jnp.zeros((), a.dtype), a).astype(dt)
    if mode is not None:
        keep = None if mode == 'zero' else _random.keep_mask(_random._key(seed, offset), a.shape, p, a.dtype)
        a = _dropout_op.fn(a, keep, p, feature=False, mode=mode)
    return jnp.matmul(a, value)


# the same op under torch's other grad_fn names (see _node_name); variants share its compiled programs
_SDPA_AS = {n: _variant(_sdpa, n, 'inputs') for n in ('MmBackward0', 'AddBackward0',
                                                       'ScaledDotProductFlashAttentionForCpuBackward0')}
_SDPA_AS['UnsafeViewBackward0'] = _sdpa


def _bshape(a, b):
    """Broadcast shape of two shapes, or None when they do not broadcast."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return tuple(out)


def _size_mismatch(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                                f"dimension {i}")
    return None


def _tn(dt):
    """ATen's dtype spelling in SDPA's messages (``float``, ``double``, ``c10::Half``, ...)."""
    return {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
            'int64': 'long int', 'int32': 'int', 'int16': 'short int', 'int8': 'signed char',
            'uint8': 'unsigned char', 'bool': 'bool'}.get(dt.name, dt.name)


def _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    fname = 'scaled_dot_product_attention'
    need_tensor(fname, query, 'query', 1)
    need_tensor(fname, key, 'key', 2)
    need_tensor(fname, value, 'value', 3)
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(f"{fname}(): argument 'attn_mask' (position 4) must be Tensor, not {type(attn_mask).__name__}")
    if not isinstance(dropout_p, numbers.Real) or isinstance(dropout_p, Tensor):
        raise TypeError(f"{fname}(): argument 'dropout_p' must be float, not {type(dropout_p).__name__}")
    for n, v in (('is_causal', is_causal), ('enable_gqa', enable_gqa)):
        if type(v) is not bool:
            raise TypeError(f"{fname}(): argument '{n}' must be bool, not {type(v).__name__}")
    if scale is not None and (not isinstance(scale, numbers.Real) or isinstance(scale, Tensor)):
        raise TypeError(f"{fname}(): argument 'scale' must be float, not {type(scale).__name__}")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_tn(query.dtype)} key.dtype: {_tn(key.dtype)} and value.dtype: {_tn(value.dtype)} "
                           "instead.")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if attn_mask is not None:
        md = attn_mask.dtype
        if not (md.name in ('bool', 'float32') or md is query.dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {_tn(md)} and  query.dtype: {_tn(query.dtype)} instead.")
        if query.ndim == 4 and attn_mask.ndim < 2:
            # the CPU kernel choice reads attn_mask.size(-2) for 4-D inputs
            raise IndexError("Dimension specified as -2 but tensor has no dimensions" if attn_mask.ndim == 0 else
                             "Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {_tn(query.dtype).capitalize()}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if dropout_p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    kshape, vshape = tuple(key.shape), tuple(value.shape)
    if enable_gqa:
        if query.ndim < 3 or key.ndim < 3 or value.ndim < 3:
            nd = min(query.ndim, key.ndim, value.ndim)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)")
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk == 0 or hv == 0 or hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        kshape = kshape[:-3] + (hq,) + kshape[-2:]
        vshape = vshape[:-3] + (hq,) + vshape[-2:]
    L, E = query.shape[-2:]
    S = kshape[-2]
    if kshape[-1] != E:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{math.prod(_bshape(query.shape[:-2], kshape[:-2]) or (0,))}, {E}] but got: "
                           f"[{math.prod(kshape[:-2])}, {kshape[-1]}].")
    batch = _bshape(query.shape[:-2], kshape[:-2])
    if batch is None:
        raise _size_mismatch(query.shape[:-2], kshape[:-2])
    if vshape[-2] != S:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{math.prod(batch)}, {S}] but got: [{math.prod(vshape[:-2])}, {vshape[-2]}].")
    scores = batch + (L, S)
    if attn_mask is not None:
        b = _bshape(scores, attn_mask.shape)
        if b is None:
            raise _size_mismatch(scores, attn_mask.shape)
        if b != scores:
            raise RuntimeError(f"output with shape {list(scores)} doesn't match the broadcast shape {list(b)}")
    if _bshape(batch, vshape[:-2]) is None:
        raise _size_mismatch(batch, vshape[:-2])


def _node_name(query, key, value, attn_mask, dropout_p, enable_gqa):
    """torch's grad_fn name: CPU takes its fused flash kernel for 4-D inputs with one head size, unbroadcast
    batch and heads (or GQA with equal key/value heads), no dropout and a 2-D/4-D mask without grad;
    otherwise the math kernel, which ends in matmul (mm for 2-D operands, else a bmm's _unsafe_view)."""
    if query.shape[-2] == 0 or key.shape[-2] == 0:
        return 'AddBackward0'
    if query.ndim == key.ndim == value.ndim == 4:
        hq, hk, hv = query.shape[1], key.shape[1], value.shape[1]
        heads = hq == hk == hv or (enable_gqa and hk == hv)
        flash = (heads and dropout_p <= 0 and query.shape[0] == key.shape[0] == value.shape[0]
                 and query.shape[-1] == key.shape[-1] == value.shape[-1]
                 and (attn_mask is None or (attn_mask.ndim in (2, 4) and not attn_mask.requires_grad)))
        if flash:
            return 'ScaledDotProductFlashAttentionForCpuBackward0'
    return 'MmBackward0' if max(query.ndim, key.ndim, value.ndim) == 2 else 'UnsafeViewBackward0'


@public('scaled_dot_product_attention', namespace=NN)
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dims; see the module docstring."""
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    sc = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    p = float(dropout_p)
    mode = None
    seed = off = 0
    if p > 0:
        mode = 'zero' if p == 1 else 'drop'
        if mode == 'drop':
            seed, off = next_key(query, 'scaled_dot_product_attention')
    gqa = enable_gqa and not (query.shape[-3] == key.shape[-3] == value.shape[-3])
    o = _SDPA_AS[_node_name(query, key, value, attn_mask, p, enable_gqa)]
    return call(o, (query, key, value, attn_mask, sc, p, seed, off), (is_causal, gqa, mode))


# ---- helpers torch.nn.functional exposes to the transformer modules ---------------------------------

@public('_canonical_mask', namespace=NN)
def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask -> an additive float mask (True -> -inf) of ``target_type``; float masks pass through."""
    if mask is not None:
        _mask_dtype = mask.dtype
        _mask_is_float = mask.dtype.is_floating_point
        if _mask_dtype.name != 'bool' and not _mask_is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None:
            if _mask_dtype is not other_type:
                warnings.warn(f"Support for mismatched {mask_name} and {other_name} "
                              "is deprecated. Use same type for both instead.", stacklevel=2)
        if not _mask_is_float:
            mask = _t('zeros_like')(mask, dtype=target_type).masked_fill_(mask, _NEG_INF)
    return mask


@public('_none_or_dtype', namespace=NN)
def _none_or_dtype(input):
    if input is None:
        return None
    elif isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


@public('_mha_shape_check', namespace=NN)
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched (3-D query) or not (2-D); AssertionError on other shapes, as torch."""
    if query.dim() == 3:
        is_batched = True
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.dim()}-D tensor instead")
    elif query.dim() == 2:
        is_batched = False
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected_shape:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but got "
                                         f"{attn_mask.shape}")
    else:
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                             "query tensor")
    return is_batched


def _qkv_split(proj, n, E):
    # torch unflattens to (n, E) (not (E, n)) and moves that axis first, keeping chunk()'s order.
    proj = proj.unflatten(-1, (n, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return tuple(proj[i] for i in range(n))


@public('_in_projection_packed', namespace=NN)
def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the packed (3E, E) weight; self- and encoder-decoder attention share one matmul."""
    linear = _f('linear')
    E = q.size(-1)
    if k is v:
        if q is k:
            return list(_qkv_split(linear(q, w, b), 3, E))
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        k_p, v_p = _qkv_split(linear(k, w_kv, b_kv), 2, E)
        return [linear(q, w_q, b_q), k_p, v_p]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)]


@public('_in_projection', namespace=NN)
def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k, v projected by separate weights (MultiheadAttention with kdim/vdim != embed_dim)."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (('query', w_q, (Eq, Eq)), ('key', w_k, (Eq, Ek)), ('value', w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (('query', b_q), ('key', b_k), ('value', b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {b.shape}")
    linear = _f('linear')
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


# ---- multi_head_attention_forward -------------------------------------------------------------------

@public('multi_head_attention_forward', namespace=NN)
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch.nn.functional.multi_head_attention_forward: inputs are (L, N, E) (or unbatched (L, E));
    returns (attn_output, attn_weights or None)."""
    F_pad, F_linear = _f('pad'), _f('linear')
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # run as a batch of one, squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape

    key_padding_mask = _canonical_mask(mask=key_padding_mask, mask_name="key_padding_mask",
                                       other_type=_none_or_dtype(attn_mask), other_name="attn_mask",
                                       target_type=query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # the is_causal hint alone drives SDPA; with a padding mask or weights the explicit mask is needed
        attn_mask = None
    else:
        attn_mask = _canonical_mask(mask=attn_mask, mask_name="attn_mask", other_type=None, other_name="",
                                    target_type=query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False        # the merged mask is no longer causal

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # in-projection
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for n, w in (('q', q_proj_weight), ('k', k_proj_weight), ('v', v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {n}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    # attention mask -> 3-D
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if tuple(attn_mask.shape) != correct_2d_size:
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_2d_size}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != correct_3d_size:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{correct_3d_size}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # bias_k / bias_v: one more key position, along the batch dim (still second)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _t('cat')([k, bias_k.repeat(1, bsz, 1)])
        v = _t('cat')([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F_pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F_pad(key_padding_mask, (0, 1))
    else:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")

    # heads -> batch first: (bsz * num_heads, len, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = _t('cat')([k, _t('zeros')(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = _t('cat')([v, _t('zeros')(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = F_pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F_pad(key_padding_mask, (0, 1))

    src_len = k.size(1)

    # merge the key padding mask into the attention mask
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        _B, _Nt, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            attn_output_weights = _t('baddbmm')(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = _t('bmm')(q_scaled, k.transpose(-2, -1))
        attn_output_weights = _f('softmax')(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = _f('dropout')(attn_output_weights, p=dropout_p)
        attn_output = _t('bmm')(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = F_linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    # attn_mask is (1, L, S) or (N * num_heads, L, S): make it 4-D for SDPA's (N, num_heads, L, S)
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = F_linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
