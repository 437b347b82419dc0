"""Run PyTorch's own OpInfo database (``op_db``) against torchlike, with real torch as the oracle.

Shared by ``compat_tests/test_opinfo.py`` (one pytest per (entry, kind)) and ``scripts/opinfo_check.py``
(command-line report, ``--all`` summary, ``--json`` results, ``--write-xfail``).

Note [OpInfo check]
For an OpInfo entry ``op`` (keyed ``name`` or ``name.variant_test_name``) and each dtype in
``DTYPES`` = (float32, int64) that the entry supports on CPU, the first ``MAX_SAMPLES`` samples of
``op.sample_inputs('cpu', dtype, requires_grad=<dtype is float>)`` (torch seeded with 0, so the set is
stable) are converted to torchlike (tensors via numpy, keeping requires_grad and aliasing; torch dtypes
-> torchlike dtypes by name; torch.device -> 'cpu'; torch.Size -> tuple; the strided layout and the
contiguous/preserve memory formats by name; samples with other layouts or memory formats (channels_last,
sparse), which torchlike rejects by design, are skipped as unsupported).

* forward: run torch (a sample torch itself cannot run is skipped), run torchlike, compare the outputs
  (type, dtype, shape, values with atol=rtol=1e-4, equal_nan; looser bounds in ``TOLERANCES``; entries
  in ``VALUES_UNCHECKED`` (random / uninitialised results) compare type, dtype and shape only).
* gradient (float32 only, entries with ``supports_autograd`` and float32 in their backward dtypes):
  the differentiable outputs (after the sample's ``output_process_fn_grad``) are back-propagated with
  fixed random cotangents w_i, i.e. the gradient of the weighted sum sum_i (o_i * w_i).sum(), which
  catches permuted gradients (torch: autograd.grad(outs, leaves, grad_outputs=ws); torchlike:
  o.backward(w) for one output, no extra compiled programs; the explicit weighted-sum loss for several),
  and the gradient of every input tensor that requires grad is compared (a None gradient counts as
  zeros on both sides).
  The same converted sample is used for the forward and the gradient check.
* index outputs of ops with unspecified tie order (``TIE_INDICES``: topk, sort, kthvalue, median, mode...)
  may differ from torch's where they select equal input values; ops that read the input's storage
  (``STORAGE_DEPENDENT``: as_strided...) skip samples whose input is a view into a larger storage.
* an entry passes a kind if at least one sample ran and every sample that ran passed. Skipped samples
  (torch fails, unconvertible arguments, no differentiable output) never count as passes: an entry
  whose samples were all skipped fails with "no runnable samples".
"""
import functools
import itertools
import types
import warnings

import numpy as np

import torch
import torchlike

from _harness import (EntryTimeout, Mismatch, NotImplementedInTorchlike, Skip, exc_text, load_database, run_groups,
                      timed, verdict)
from _harness import short  # noqa: F401  (part of this module's interface: S.short in the tests and scripts)

DTYPES = (torch.float32, torch.int64)
MAX_SAMPLES = 12          # first N samples per dtype: bounds runtime (OpInfo generators can yield 100+)
ATOL = RTOL = 1e-4
ENTRY_TIMEOUT_S = 60      # per-entry limit in CPU seconds (_harness.time_limit)

# Looser bounds, with the reason: entry key -> (atol, rtol, reason). Only for differences seen to be float32
# rounding (a different but valid summation/algorithm order), never to hide a wrong result.
TOLERANCES = {
    # the float32 5x5x5 sample's squarings magnify rounding: against float64 truth torchlike's error is 4e-5,
    # torch's own 3.5e-4 (measured), so the comparison needs torch's error as its bound
    'matrix_exp': (1e-3, 1e-3, 'torch float32 rounding error ~3.5e-4 on the batched sample'),
}

# Entries whose values are random or uninitialised: compare type/dtype/shape only (gradients likewise).
_RANDOM = ('bernoulli', 'multinomial', 'normal', 'normal.in_place', 'normal.number_mean', 'uniform', 'cauchy',
           'exponential', 'geometric', 'log_normal', 'randn', 'randn_like', 'rand_like', 'randint',
           'randint_like', 'nn.functional.dropout', 'nn.functional.dropout2d', 'nn.functional.dropout3d',
           'nn.functional.alpha_dropout', 'nn.functional.feature_alpha_dropout.with_train',
           'nn.functional.rrelu', 'nn.functional.fractional_max_pool2d', 'nn.functional.fractional_max_pool3d',
           'svd_lowrank', 'pca_lowrank', 'nn.functional.multi_head_attention_forward')
_UNINIT = ('empty', 'empty_like', 'new_empty', 'new_empty_strided', 'empty_strided', 'empty_permuted')
VALUES_UNCHECKED = dict([(k, 'random result: torchlike does not replay torch\'s RNG stream') for k in _RANDOM]
                        + [(k, 'uninitialised memory') for k in _UNINIT])


# Entries with some random samples (dropout inside the op): those compare type/dtype/shape only.
RANDOM_SAMPLES = {
    'nn.functional.scaled_dot_product_attention': lambda s: bool(s.kwargs.get('dropout_p', 0.0)),
}

# Entries whose index outputs are unspecified among equal values (torch documents no tie order): an index
# output that differs from torch's passes if it selects the same input values along the reduced dim.
# key -> (position of dim in args, kwarg name, default dim)
TIE_INDICES = {
    'topk': (1, 'dim', -1), 'kthvalue': (1, 'dim', -1), 'sort': (0, 'dim', -1), 'argsort': (0, 'dim', -1),
    'median': (0, 'dim', None), 'nanmedian': (0, 'dim', None), 'mode': (0, 'dim', -1),
}

# Entries whose vector outputs are defined up to a sign (a phase, for complex) per column: torch's CPU eigh is
# MKL's syevd, whose sign choice for small matrices no other LAPACK reproduces. An output that differs from
# torch's passes if, after each column of torchlike's is rotated onto torch's column (the phase of their inner
# product), they agree -- stricter than OpInfo's own criterion for these samples (abs of every element).
# key -> index of the eigenvector output
UP_TO_PHASE = {'linalg.eigh': 1}

# Entries whose result depends on the input's storage (as_strided reads the storage, not the tensor): samples
# whose input is a view into a larger storage cannot be reproduced from the tensor's values and are skipped.
STORAGE_DEPENDENT = ('as_strided', 'as_strided.partial_views', 'as_strided_scatter', 'as_strided_copy')


# ---- the database ------------------------------------------------------------------------------

def entry_key(op):
    return op.name + ('.' + op.variant_test_name if op.variant_test_name else '')


@functools.cache
def database():
    """{entry key: OpInfo}, in op_db order."""
    return load_database('torch.testing._internal.common_methods_invocations', 'op_db', entry_key)


def tested_dtypes(op):
    try:
        sup = op.supported_dtypes('cpu')
    except Exception:
        return ()
    return tuple(d for d in DTYPES if d in sup)


def gradient_applicable(op):
    if not getattr(op, 'supports_autograd', False) or torch.float32 not in tested_dtypes(op):
        return False
    try:
        return torch.float32 in op.supported_backward_dtypes('cpu')
    except Exception:
        return True


def kinds(op):
    """The kinds checked for this entry: () when it supports neither float32 nor int64 on CPU."""
    if not tested_dtypes(op):
        return ()
    return ('forward', 'gradient') if gradient_applicable(op) else ('forward',)


# ---- resolving the torchlike callable ------------------------------------------------------------

def _attr_path(root, path, label):
    obj = root
    for p in path.split('.'):
        try:
            obj = getattr(obj, p)
        except AttributeError:
            raise NotImplementedInTorchlike(f'not implemented: {label}') from None
    return obj


def _torch_attr(path):
    obj = torch
    for p in path.split('.'):
        obj = getattr(obj, p, None)
        if obj is None:
            return None
    return obj


def _tl_wrapper_set_seed(fn, *args, **kwargs):
    seed = getattr(torchlike, 'manual_seed', None)
    if seed is not None:
        seed(42)
    return fn(*args, **kwargs)


def _rebind(fn):
    """A copy of an OpInfo-defined lambda whose global ``torch`` is torchlike."""
    g = dict(fn.__globals__)
    g['torch'] = torchlike
    g['wrapper_set_seed'] = _tl_wrapper_set_seed
    for k, v in fn.__globals__.items():
        if isinstance(v, types.ModuleType) and v.__name__.startswith('torch.') and k != 'torch':
            sub = v.__name__[len('torch.'):]
            try:
                g[k] = _attr_path(torchlike, sub, 'torchlike.' + sub)
            except NotImplementedInTorchlike:
                g[k] = _Missing('torchlike.' + sub)
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


class _Missing:
    def __init__(self, label):
        self._label = label

    def __getattr__(self, name):
        raise NotImplementedInTorchlike(f'not implemented: {self._label}.{name}')


def _method_caller(name):
    def call(self, *args, **kwargs):
        if not isinstance(self, torchlike.Tensor):
            raise Skip(f'method {name} on non-tensor input')
        try:
            m = getattr(self, name)
        except AttributeError:
            raise NotImplementedInTorchlike(f'not implemented: Tensor.{name}') from None
        return m(*args, **kwargs)
    call.__name__ = name
    return call


def resolve(op):
    """(torchlike callable taking the converted sample as (input, *args, **kwargs), description)."""
    name = op.name
    f = op.op
    if name.startswith('__') and name.endswith('__'):
        return _method_caller(name), f'Tensor.{name}'
    t_attr = _torch_attr(name)
    if t_attr is not None and t_attr is f:
        return _attr_path(torchlike, name, f'torchlike.{name}'), f'torchlike.{name}'
    if isinstance(f, types.FunctionType) and (f.__module__ or '').startswith('torch.testing'):
        return _rebind(f), f'OpInfo lambda for {name} with torch=torchlike'
    mv = op.method_variant
    if mv is not None and (f is mv or t_attr is None):
        mname = getattr(mv, '__name__', name)
        return _method_caller(mname), f'Tensor.{mname}'
    return _attr_path(torchlike, name, f'torchlike.{name}'), f'torchlike.{name}'


# ---- converting samples --------------------------------------------------------------------------

def _tl_dtype(d):
    n = str(d).split('.')[-1]
    r = getattr(torchlike, n, None)
    if not isinstance(r, torchlike.dtype):
        raise Skip(f'unsupported dtype {d}')
    return r


def _np_of(t):
    t = t.detach()
    if getattr(t, '_is_zerotensor', None) is not None and t._is_zerotensor():
        return np.zeros(tuple(t.shape), _np_of(torch.zeros((), dtype=t.dtype)).dtype)
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    if t.dtype == torch.bfloat16:
        import ml_dtypes
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    if t.dtype in (torch.complex32,) or not t.dtype.is_floating_point and t.dtype not in _NP_OK:
        raise Skip(f'unsupported tensor dtype {t.dtype}')
    return t.numpy()


_NP_OK = {torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32,
          torch.uint64, torch.complex64, torch.complex128}


def convert(x, memo):
    """torch sample value -> torchlike value. ``memo`` maps id(torch tensor) -> torchlike tensor (aliasing)."""
    if isinstance(x, torch.Tensor):
        r = memo.get(id(x))
        if r is not None:
            return r[1]
        if x.layout != torch.strided or x.is_quantized or x.is_nested:
            raise Skip(f'unsupported tensor layout {x.layout}')
        a = _np_of(x)
        rg = bool(x.requires_grad and (x.dtype.is_floating_point or x.dtype.is_complex))
        r = torchlike.tensor(a, requires_grad=rg)
        if str(r.dtype) != str(x.dtype):
            raise Skip(f'cannot build a torchlike {x.dtype} tensor')
        memo[id(x)] = (x, r)
        return r
    if isinstance(x, torch.Size):
        return tuple(x)
    if isinstance(x, torch.dtype):
        return _tl_dtype(x)
    if isinstance(x, torch.device):
        if x.type != 'cpu':
            raise Skip(f'device {x}')
        return 'cpu'
    if isinstance(x, (torch.memory_format, torch.layout)):
        n = str(x).split('.')[-1]
        r = getattr(torchlike, n, None)
        # torchlike tensors are dense and contiguous (torchlike/_layout.py): samples asking for another
        # layout or memory format test what torchlike deliberately rejects; they are skipped, not passed
        if r is None or n not in ('strided', 'contiguous_format', 'preserve_format'):
            raise Skip(f'unsupported {type(x).__name__} {x}')
        return r
    if isinstance(x, torch.Generator):
        raise Skip('torch.Generator argument')
    if isinstance(x, tuple) and hasattr(x, '_fields'):
        return type(x)(*[convert(v, memo) for v in x])
    if isinstance(x, tuple):
        return tuple(convert(v, memo) for v in x)
    if isinstance(x, list):
        return [convert(v, memo) for v in x]
    if isinstance(x, dict):
        return {k: convert(v, memo) for k, v in x.items()}
    if isinstance(x, slice):
        return slice(convert(x.start, memo), convert(x.stop, memo), convert(x.step, memo))
    if x is None or x is Ellipsis or isinstance(x, (bool, int, float, complex, str, np.ndarray, np.generic)):
        return x
    if callable(x) and getattr(x, '__module__', '') and str(getattr(x, '__module__', '')).startswith('torch'):
        raise Skip(f'torch callable argument {x!r}')
    if type(x).__module__.startswith('torch'):
        raise Skip(f'unsupported argument type {type(x).__name__}')
    return x


# ---- comparing -------------------------------------------------------------------------------------

def _is_torch_scalar_type(v):
    return isinstance(v, (bool, int, float, complex))


def compare(tl, th, atol, rtol, values=True, path='out'):
    """Raise Mismatch describing the first difference between a torchlike and a torch result."""
    if isinstance(th, torch.Tensor):
        if not isinstance(tl, torchlike.Tensor):
            raise Mismatch(f'{path}: expected a Tensor, got {type(tl).__name__}')
        if str(tl.dtype) != str(th.dtype):
            raise Mismatch(f'{path}: dtype {tl.dtype} != torch {th.dtype}')
        if tuple(tl.shape) != tuple(th.shape):
            raise Mismatch(f'{path}: shape {tuple(tl.shape)} != torch {tuple(th.shape)}')
        if not values:
            return
        a = np.asarray(tl._materialize())
        b = _np_of(th)
        if b.dtype.kind in 'biu' or b.dtype == np.bool_:
            if not np.array_equal(a, b):
                bad = np.argwhere(a != b)
                i = tuple(int(v) for v in bad[0])
                raise Mismatch(f'{path}: {len(bad)} of {b.size} values differ, e.g. at {i}: {a[i]} != torch {b[i]}')
            return
        a = a.astype(np.complex128 if b.dtype.kind == 'c' else np.float64)
        b = b.astype(a.dtype)
        ok = np.isclose(a, b, atol=atol, rtol=rtol, equal_nan=True)
        if not ok.all():
            bad = np.argwhere(~ok)
            i = tuple(int(v) for v in bad[0]) if bad.size else ()
            with np.errstate(invalid='ignore'):
                md = np.nanmax(np.abs(a - b)[~ok]) if (~ok).any() else float('nan')
            raise Mismatch(f'{path}: {len(bad)} of {b.size} values differ (max abs diff {md:.3g}), '
                           f'e.g. at {i}: {a[i]} != torch {b[i]}')
        return
    if isinstance(th, (tuple, list)):
        want = tuple if isinstance(th, tuple) else list
        if not isinstance(tl, want):
            raise Mismatch(f'{path}: expected a {want.__name__}, got {type(tl).__name__}')
        if len(tl) != len(th):
            raise Mismatch(f'{path}: {len(tl)} results != torch {len(th)}')
        if type(th).__module__ == 'torch.return_types':
            fields = getattr(type(th), '__match_args__', ())
            if type(tl).__name__ != type(th).__name__ or any(not hasattr(tl, f) for f in fields):
                raise Mismatch(f'{path}: expected a named tuple return_types.{type(th).__name__}{fields}, '
                               f'got {type(tl).__name__}')
        for i, (a, b) in enumerate(zip(tl, th)):
            compare(a, b, atol, rtol, values, f'{path}[{i}]')
        return
    if isinstance(th, torch.dtype):
        if str(tl) != str(th):
            raise Mismatch(f'{path}: {tl} != torch {th}')
        return
    if th is None:
        if tl is not None:
            raise Mismatch(f'{path}: expected None, got {type(tl).__name__}')
        return
    if _is_torch_scalar_type(th):
        if isinstance(tl, torchlike.Tensor) or type(tl) is not type(th):
            raise Mismatch(f'{path}: expected {type(th).__name__} {th!r}, got {type(tl).__name__} {tl!r}')
        if not values:
            return
        if isinstance(th, (float, complex)):
            if not (np.isclose(tl, th, atol=atol, rtol=rtol, equal_nan=True)):
                raise Mismatch(f'{path}: {tl!r} != torch {th!r}')
        elif tl != th:
            raise Mismatch(f'{path}: {tl!r} != torch {th!r}')
        return
    if isinstance(th, str):
        if tl != th:
            raise Mismatch(f'{path}: {tl!r} != torch {th!r}')
        return
    if isinstance(th, torch.device):
        if str(tl) != str(th):
            raise Mismatch(f'{path}: {tl} != torch {th}')
        return
    raise Skip(f'cannot compare torch result of type {type(th).__name__}')


def _phase_ok(key, tl_out, th_out, atol, rtol):
    """True if tl_out equals th_out once each eigenvector column is given torch's phase (UP_TO_PHASE)."""
    i = UP_TO_PHASE[key]
    if not isinstance(th_out, tuple) or not isinstance(tl_out, tuple) or len(tl_out) != len(th_out):
        return False
    a = np.asarray(tl_out[i].detach()._materialize())
    b = th_out[i].detach().resolve_conj().numpy()
    if a.shape != b.shape:
        return False
    d = np.sum(np.conj(b) * a, axis=-2, keepdims=True)
    ph = np.where(np.abs(d) > 0, d / np.where(np.abs(d) > 0, np.abs(d), 1), 1)
    rest = [o for k, o in enumerate(tl_out) if k != i]
    try:
        compare(tuple(rest), tuple(o for k, o in enumerate(th_out) if k != i), atol, rtol, True)
        compare(torchlike.tensor((a * np.conj(ph)).astype(a.dtype)), th_out[i].detach().resolve_conj(), atol, rtol,
                True)
    except Mismatch:
        return False
    return True


def _ties_ok(key, sample, tl_out, th_out, atol, rtol):
    """True if tl_out equals th_out except for index outputs that pick other, equal, input values."""
    x = sample.input
    if not isinstance(x, torch.Tensor) or sample.kwargs.get('stable'):
        return False
    pos, kw, default = TIE_INDICES[key]
    dim = sample.args[pos] if len(sample.args) > pos else sample.kwargs.get(kw, default)
    if not isinstance(dim, int) or isinstance(dim, bool):
        return False
    single = isinstance(th_out, torch.Tensor)
    tls, ths = ((tl_out,), (th_out,)) if single else (tl_out, th_out)
    if not isinstance(tls, (tuple, list)) or len(tls) != len(ths):
        return False
    fields = ('indices',) if single else getattr(type(th_out), '__match_args__', ())
    is_index = [f == 'indices' for f in fields]
    nd = max(x.dim(), 1)
    d = dim % nd
    xx = x.detach().reshape(1) if x.dim() == 0 else x.detach()
    for i, (a, b) in enumerate(zip(tls, ths)):
        if i < len(is_index) and is_index[i] and isinstance(b, torch.Tensor) and isinstance(a, torchlike.Tensor):
            if str(a.dtype) != 'torch.int64' or tuple(a.shape) != tuple(b.shape):
                return False
            ia = torch.from_numpy(np.array(a._materialize()))
            ib = b
            if ia.numel() and (ia.min() < 0 or ia.max() >= xx.shape[d]):
                return False
            if ia.dim() < xx.dim():
                ia, ib = ia.unsqueeze(d), ib.unsqueeze(d)
            ga, gb = torch.take_along_dim(xx, ia, d), torch.take_along_dim(xx, ib, d)
            if not torch.equal(ga.isnan(), gb.isnan()) or not torch.equal(ga.nan_to_num(), gb.nan_to_num()):
                return False
        else:
            try:
                compare(a, b, atol, rtol)
            except Mismatch:
                return False
    return True


def _flat(x, out):
    if isinstance(x, (torch.Tensor, torchlike.Tensor)):
        out.append(x)
    elif isinstance(x, (tuple, list)):
        for v in x:
            _flat(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _flat(v, out)
    return out


# ---- one sample -------------------------------------------------------------------------------------

def describe(sample, limit=160):
    def d(x):
        if isinstance(x, torch.Tensor):
            return f'T{tuple(x.shape)}' + ('' if x.dtype in (torch.float32,) else f':{str(x.dtype)[6:]}')
        if isinstance(x, (list, tuple)):
            s = ', '.join(d(v) for v in x)
            return f'[{s}]' if isinstance(x, list) else f'({s}{"," if len(x) == 1 else ""})'
        if isinstance(x, dict):
            return '{' + ', '.join(f'{k}={d(v)}' for k, v in x.items()) + '}'
        return repr(x)
    parts = [d(sample.input)] + [d(a) for a in sample.args] + [f'{k}={d(v)}' for k, v in sample.kwargs.items()]
    s = ', '.join(parts)
    return s if len(s) <= limit else s[:limit - 3] + '...'


def _weights(outs, seed=1234):
    """Fixed random cotangents in [0.5, 1.5]: backward with these is the gradient of the weighted sum
    sum_i (o_i * w_i).sum() (for complex outputs, of sum(re(o) * re(w) + im(o) * im(w))), which catches
    permuted or mis-scattered gradients that a plain sum would not."""
    rs = np.random.RandomState(seed)
    ws = []
    for o in outs:
        w = rs.uniform(0.5, 1.5, size=tuple(o.shape))
        if o.is_complex():
            w = w + 1j * rs.uniform(0.5, 1.5, size=tuple(o.shape))
        ws.append(w)                     # float64 / complex128; cast to each output's dtype by the callers
    return ws


def _tl_backward(outs, ws, dtypes):
    """torchlike backward of the weighted sum. One output: ``o.backward(w)`` (no extra compiled programs).
    Several outputs: an explicit scalar loss (torchlike's multi-root ``autograd.backward`` is not relied on,
    so that a failure here is the op's)."""
    if len(outs) == 1:
        outs[0].backward(torchlike.tensor(ws[0], dtype=_tl_dtype(dtypes[0])))
        return
    loss = None
    for o, w, d in zip(outs, ws, dtypes):
        if o.dtype.is_complex:
            rd = o.real.dtype
            term = ((o.real * torchlike.tensor(w.real, dtype=rd)).sum()
                    + (o.imag * torchlike.tensor(w.imag, dtype=rd)).sum())
        else:
            term = (o * torchlike.tensor(w, dtype=_tl_dtype(d))).sum()
        loss = term if loss is None else loss + term
    loss.backward()


def _differentiable(x):
    return isinstance(x, torch.Tensor) and x.requires_grad and (x.dtype.is_floating_point or x.dtype.is_complex)


def run_sample(op, key, fn, sample, dtype, grad):
    """Check one sample. Returns {'forward': (status, msg), 'gradient': (status, msg)} where status is
    'PASS', 'FAIL' or 'SKIP'; 'gradient' is present only when ``grad``."""
    res = {}
    atol, rtol = TOLERANCES.get(key, (ATOL, RTOL, ''))[:2]
    values = key not in VALUES_UNCHECKED and not (key in RANDOM_SAMPLES and RANDOM_SAMPLES[key](sample))

    def put(kind, status, msg=''):
        res.setdefault(kind, (status, msg))

    if key in STORAGE_DEPENDENT and isinstance(sample.input, torch.Tensor):
        x = sample.input
        if (x.storage_offset() != 0 or not x.is_contiguous()
                or x.untyped_storage().nbytes() != x.numel() * x.element_size()):
            msg = 'unsupported sample: input is a view into a larger storage'
            put('forward', 'SKIP', msg)
            if grad:
                put('gradient', 'SKIP', msg)
            return res
    # convert before torch runs (an op that writes its inputs must not change what torchlike sees)
    memo = {}
    try:
        tl_in = convert(sample.input, memo)
        tl_args = convert(tuple(sample.args), memo)
        tl_kwargs = convert(dict(sample.kwargs), memo)
    except Skip as e:
        put('forward', 'SKIP', f'unsupported sample: {e}')
        if grad:
            put('gradient', 'SKIP', f'unsupported sample: {e}')
        return res
    # a sample torch itself cannot run is skipped
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            th_out = op(sample.input, *sample.args, **sample.kwargs)
    except Exception as e:
        msg = f'torch fails: {exc_text(e)}'
        put('forward', 'SKIP', msg)
        if grad:
            put('gradient', 'SKIP', msg)
        return res
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            tl_out = fn(tl_in, *tl_args, **tl_kwargs)
    except Skip as e:
        put('forward', 'SKIP', str(e))
        if grad:
            put('gradient', 'SKIP', str(e))
        return res
    except EntryTimeout:
        raise
    except Exception as e:
        put('forward', 'FAIL', exc_text(e))
        if grad:
            put('gradient', 'FAIL', 'forward failed: ' + exc_text(e))
        return res
    try:
        try:
            compare(tl_out, th_out, atol, rtol, values)
        except Mismatch:
            if not ((key in TIE_INDICES and _ties_ok(key, sample, tl_out, th_out, atol, rtol))
                    or (key in UP_TO_PHASE and _phase_ok(key, tl_out, th_out, atol, rtol))):
                raise
        put('forward', 'PASS')
    except Skip as e:
        put('forward', 'SKIP', str(e))
    except Mismatch as e:
        put('forward', 'FAIL', str(e))
    except EntryTimeout:
        raise
    except Exception as e:
        put('forward', 'FAIL', 'reading the result: ' + exc_text(e))
    if grad:
        _gradient(sample, th_out, tl_out, memo, atol, rtol, values, put)
    return res


def _gradient(sample, th_out, tl_out, memo, atol, rtol, values, put):
    leaves = [(t, tl) for t, tl in memo.values() if _differentiable(t)]
    if not leaves:
        put('gradient', 'SKIP', 'no input requires grad')
        return
    th_o, tl_o = th_out, tl_out
    proc = sample.output_process_fn_grad
    if proc is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                th_p = proc(th_out)
                tl_p = proc(tl_out)
            th_o, tl_o = th_p, tl_p
        except EntryTimeout:
            raise
        except Exception:
            pass   # the processing function only works on torch tensors: use the raw outputs on both sides
    compare_gradients(th_o, tl_o, [(f'grad[{i}]', t, tl) for i, (t, tl) in enumerate(leaves)],
                      atol, rtol, values, put)


def compare_gradients(th_out, tl_out, leaves, atol, rtol, values, put):
    """Back-propagate the weighted sum of the differentiable outputs (``_weights``) under torch and torchlike and
    compare the gradients of ``leaves``, ``[(label, torch leaf, torchlike leaf)]``; the result goes to
    ``put('gradient', status, message)``. Shared with _module_db_support (whose leaves include parameters)."""
    th_flat = _flat(th_out, [])
    tl_flat = _flat(tl_out, [])
    if len(th_flat) != len(tl_flat):
        put('gradient', 'FAIL', f'{len(tl_flat)} output tensors != torch {len(th_flat)}')
        return
    pairs = [(a, b) for a, b in zip(th_flat, tl_flat) if _differentiable(a)]
    if not pairs:
        put('gradient', 'SKIP', 'no differentiable output')
        return
    for i, (a, b) in enumerate(pairs):
        if not isinstance(b, torchlike.Tensor):
            put('gradient', 'FAIL', f'output {i} is a {type(b).__name__}')
            return
        if not b.requires_grad:
            put('gradient', 'FAIL', f'output {i} does not require grad')
            return
        if tuple(a.shape) != tuple(b.shape) or str(a.dtype) != str(b.dtype):
            put('gradient', 'FAIL', f'output {i}: {b.dtype}{tuple(b.shape)} != torch {a.dtype}{tuple(a.shape)}')
            return
    ws = _weights([a for a, _ in pairs])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            cot = [torch.tensor(w, dtype=a.dtype) for w, (a, _) in zip(ws, pairs)]
            th_grads = torch.autograd.grad([a for a, _ in pairs], [t for _, t, _ in leaves], grad_outputs=cot,
                                           allow_unused=True)
    except Exception as e:
        put('gradient', 'SKIP', f'torch backward fails: {exc_text(e)}')
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            _tl_backward([b for _, b in pairs], ws, [a.dtype for a, _ in pairs])
    except EntryTimeout:
        raise
    except Exception as e:
        put('gradient', 'FAIL', 'backward: ' + exc_text(e))
        return
    try:
        for (label, t, tl), g in zip(leaves, th_grads):
            if g is None:
                g = torch.zeros_like(t)
            tg = tl.grad
            if tg is None:
                tg = torchlike.tensor(np.zeros(tuple(t.shape), _np_of(t).dtype))
            compare(tg, g, atol, rtol, values, label)
        put('gradient', 'PASS')
    except Mismatch as e:
        put('gradient', 'FAIL', str(e))
    except EntryTimeout:
        raise
    except Exception as e:
        put('gradient', 'FAIL', 'reading the gradient: ' + exc_text(e))


# ---- one entry ----------------------------------------------------------------------------------------

def check_entry(key, max_samples=MAX_SAMPLES, timeout=ENTRY_TIMEOUT_S):
    """Run the check for one entry. Returns a JSON-able dict::

        {'key': ..., 'kinds': [...],
         'forward':  {'status': 'PASS'|'FAIL', 'reason': str,
                      'dtypes': {'float32': {'pass': n, 'fail': n, 'skip': n, 'first_fail': str,
                                             'first_skip': str}, ...}},
         'gradient': {...}}            # only for entries in the gradient domain
    """
    return timed(_check_entry, key, max_samples, timeout)


def _samples(op, dtype, grad, max_samples):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return list(itertools.islice(op.sample_inputs('cpu', dtype, requires_grad=grad), max_samples))


def _dtype_groups(op, key, fn, ks, max_samples):
    """_harness.run_groups's groups: one per tested dtype; the gradient is checked in float32 only."""
    for dtype in tested_dtypes(op):
        grad = 'gradient' in ks and dtype == torch.float32
        yield (str(dtype)[6:], [k for k in ks if k == 'forward' or grad],
               lambda dtype=dtype, grad=grad: _samples(op, dtype, grad, max_samples),
               lambda sample, dtype=dtype, grad=grad: run_sample(op, key, fn, sample, dtype, grad))


def _check_entry(key, max_samples, timeout):
    op = database()[key]
    ks = kinds(op)
    out = {'key': key, 'kinds': list(ks)}
    if not ks:
        out['note'] = 'supports neither float32 nor int64 on CPU'
        return out
    try:
        fn, _ = resolve(op)
    except NotImplementedInTorchlike as e:
        stats, entry_error = {k: {} for k in ks}, str(e)
    else:
        stats, entry_error = run_groups(_dtype_groups(op, key, fn, ks, max_samples), ks, timeout,
                                        lambda si, sample: f'sample {si} ({describe(sample)})')
    for k in ks:
        out[k] = {'dtypes': stats[k]}
        out[k]['status'], out[k]['reason'] = verdict(stats[k], entry_error)
    return out
