"""Run PyTorch's own ModuleInfo database (``module_db``) against torchlike.nn, with real torch as the oracle.

Shared by ``compat_tests/test_module_db.py`` (one pytest per entry) and ``scripts/module_db_check.py``
(command-line report, ``--all`` summary, ``--json`` results, ``--write-xfail``). Tensor conversion, result
comparison and the gradient check are the OpInfo check's (``_opinfo_support``); running an entry's samples
under the CPU-time limit and the verdict are ``_harness``'s, shared with it.

Note [ModuleInfo check]
For a ModuleInfo entry (keyed by its name, e.g. ``nn.Linear``) and each training mode torch's own module
tests use (train only; train and eval for entries with ``train_and_eval_differ``), the first
``MAX_SAMPLES`` ModuleInputs of ``module_inputs_func(info, device='cpu', dtype=float32,
requires_grad=True, training=mode)`` (torch seeded with 0, so the set is stable) are run:

* construct: the torch module from the sample's constructor args (seeded), the torchlike class of the same
  name from the converted args (tensors via numpy, torch dtypes/functions/modules by name: a torch module
  passed as an argument, e.g. TransformerEncoder's layer, is rebuilt from the constructor call recorded
  while the samples were generated). torch's ``state_dict`` (parameters and persistent buffers) is loaded
  into the torchlike module with ``strict=True`` (so parameter and buffer names must be torch's), both are
  put in the sample's train/eval mode. Lazy modules get their state after torch's first forward (the
  forward materialises it); the torchlike lazy module receives it through load_state_dict.
* forward: run torch (a sample torch itself cannot run is skipped), run torchlike on the converted
  inputs, compare the outputs (type, dtype, shape, values with atol=rtol=1e-4; tuples / None / nested
  tuples as in the OpInfo check) and then the module's buffers (running statistics updated by the
  forward, num_batches_tracked).
* gradient: the differentiable outputs are back-propagated with fixed random cotangents (the OpInfo
  check's weighted sum), and the gradients of every input tensor that requires grad and of every
  parameter (matched by name) are compared; a None gradient counts as zeros on both sides.
* random modules: where the module draws random numbers in this mode (dropout with p > 0 in training,
  RReLU in training, FractionalMaxPool without ``_random_samples``), values cannot match torch's RNG
  stream: outputs and gradients compare type, dtype and shape only, buffers are not compared.
* an entry passes if, for both the forward and the gradient check, at least one sample ran and every
  sample that ran passed. Skipped samples (torch fails, unconvertible arguments) never count as passes:
  an entry whose samples were all skipped fails with "no runnable samples".
"""
import contextlib
import functools
import inspect
import itertools
import sys
import warnings

import torch
import torchlike
import torchlike.nn  # noqa: F401  (torchlike.nn may not be imported by torchlike itself yet)

import _opinfo_support as O
from _harness import (EntryTimeout, Mismatch, NotImplementedInTorchlike, Skip, exc_text, load_database, run_groups,
                      timed, verdict)
from _harness import short  # noqa: F401  (part of this module's interface: S.short in the tests and scripts)

DTYPE = torch.float32
# Entries whose samples only work in float64 under torch itself: FractionalMaxPool's sample functions build
# ``_random_samples`` in float64 whatever dtype they are asked for, and torch requires the input to match.
ENTRY_DTYPE = {'FractionalMaxPool2d': torch.float64, 'FractionalMaxPool3d': torch.float64}
MAX_SAMPLES = 2           # first N module inputs per training mode: bounds the suite's runtime (XLA compiles
                          # every new shape; some entries have 100+ inputs); the script's --max-samples goes further
ATOL = RTOL = 1e-4
ENTRY_TIMEOUT_S = 60      # per-entry limit in CPU seconds (_harness.time_limit)

# Looser bounds, with the reason: entry name -> (atol, rtol, reason). Only for differences seen to be float32
# rounding (a different but valid summation order), never to hide a wrong result.
TOLERANCES = {
}

KINDS = ('forward', 'gradient')


# ---- the database ------------------------------------------------------------------------------

@functools.cache
def database():
    """{entry name: ModuleInfo}, in module_db order."""
    return load_database('torch.testing._internal.common_modules', 'module_db', lambda m: m.name)


def training_modes(info):
    """As torch's @modules decorator: train only, unless train and eval differ for the entry."""
    return (True, False) if info.train_and_eval_differ else (True,)


def resolve(info):
    """The torchlike class for a ModuleInfo (same class name in torchlike.nn)."""
    name = info.module_cls.__name__
    cls = getattr(torchlike.nn, name, None)
    if cls is None:
        raise NotImplementedInTorchlike(f'not implemented: torchlike.nn.{name}')
    return cls


# ---- torch modules passed as constructor arguments ----------------------------------------------

_CTOR = {}    # id(torch module) -> (module, args, kwargs): keeps the module alive so the id stays unique


@contextlib.contextmanager
def recording_constructors():
    """Record the constructor call of every torch.nn.Module built inside the block (module_inputs_func
    builds e.g. TransformerEncoder's layer), so that a module argument can be rebuilt in torchlike.
    A profile hook reads the arguments of the first ``__init__`` frame of each new module (the most derived
    class's, with defaults filled in); torch's classes are not patched."""
    def prof(frame, event, arg):
        if event != 'call' or frame.f_code.co_name != '__init__':
            return
        code = frame.f_code
        loc = frame.f_locals
        obj = loc.get(code.co_varnames[0]) if code.co_argcount else None
        if not isinstance(obj, torch.nn.Module) or id(obj) in _CTOR:
            return
        names = code.co_varnames
        npos, nkw = code.co_argcount, code.co_kwonlyargcount
        args = [loc[n] for n in names[1:npos]]
        kwargs = {n: loc[n] for n in names[npos:npos + nkw]}
        i = npos + nkw
        if code.co_flags & inspect.CO_VARARGS:
            args += list(loc[names[i]])
            i += 1
        if code.co_flags & inspect.CO_VARKEYWORDS:
            kwargs.update(loc[names[i]])
        _CTOR[id(obj)] = (obj, tuple(args), kwargs)
    old = sys.getprofile()
    sys.setprofile(prof)
    try:
        yield
    finally:
        sys.setprofile(old)


def _load_torch_state(tl_module, th_module):
    sd = {k: torchlike.tensor(O._np_of(v)) for k, v in th_module.state_dict().items()}
    tl_module.load_state_dict(sd, strict=True)


def _convert_module(m, memo):
    rec = _CTOR.get(id(m))
    if rec is None or rec[0] is not m:
        raise Skip(f'torch module argument {type(m).__name__} built outside the sample generator')
    cls = getattr(torchlike.nn, type(m).__name__, None)
    if cls is None:
        raise NotImplementedInTorchlike(f'not implemented: torchlike.nn.{type(m).__name__}')
    r = cls(*convert(rec[1], memo), **convert(rec[2], memo))
    _load_torch_state(r, m)
    r.train(m.training)
    return r


def _convert_callable(f):
    # torch functions passed as arguments (TransformerEncoderLayer(activation=F.gelu)) -> same name in torchlike
    name = getattr(f, '__name__', None)
    for tmod, path in ((torch.nn.functional, 'nn.functional'), (torch, '')):
        if name and getattr(tmod, name, None) is f:
            full = f'{path}.{name}' if path else name
            return O._attr_path(torchlike, full, f'torchlike.{full}')
    raise Skip(f'torch callable argument {f!r}')


def convert(x, memo):
    """torch sample value -> torchlike value: the OpInfo converter plus modules, functions, PackedSequence."""
    if isinstance(x, torch.nn.Module):
        return _convert_module(x, memo)
    if isinstance(x, torch.nn.utils.rnn.PackedSequence):
        from torchlike.nn.utils.rnn import PackedSequence
        return PackedSequence(*[convert(v, memo) for v in x])
    if isinstance(x, tuple) and not hasattr(x, '_fields'):
        return tuple(convert(v, memo) for v in x)
    if isinstance(x, list):
        return [convert(v, memo) for v in x]
    if isinstance(x, dict):
        return {k: convert(v, memo) for k, v in x.items()}
    if (callable(x) and not isinstance(x, (torch.Tensor, torch.dtype, type))
            and str(getattr(x, '__module__', '') or '').startswith('torch')):
        return _convert_callable(x)
    return O.convert(x, memo)


# ---- one sample -------------------------------------------------------------------------------------

def random_reason(m, training):
    """Why this torch module's results are random in this mode (None when they are deterministic)."""
    nn = torch.nn
    for sub in m.modules():
        if training and isinstance(sub, nn.modules.dropout._DropoutNd) and sub.p > 0:
            return f'{type(sub).__name__}(p={sub.p}) in training'
        if training and isinstance(sub, nn.RReLU):
            return 'RReLU in training'
        if training and isinstance(sub, nn.RNNBase) and sub.dropout > 0 and sub.num_layers > 1:
            return 'RNN dropout between layers in training'
        if training and isinstance(sub, nn.MultiheadAttention) and sub.dropout > 0:
            return 'attention dropout in training'
        if isinstance(sub, (nn.FractionalMaxPool2d, nn.FractionalMaxPool3d)) and sub._random_samples is None:
            return 'FractionalMaxPool without _random_samples'
    return None


def _d(x):
    if isinstance(x, torch.Tensor):
        return f'T{tuple(x.shape)}' + ('' if x.dtype == DTYPE else f':{str(x.dtype)[6:]}')
    if isinstance(x, (list, tuple)) and not isinstance(x, torch.Size):
        s = ', '.join(_d(v) for v in x)
        return f'[{s}]' if isinstance(x, list) else f'({s}{"," if len(x) == 1 else ""})'
    if isinstance(x, dict):
        return '{' + ', '.join(f'{k}={_d(v)}' for k, v in x.items()) + '}'
    if isinstance(x, torch.nn.Module):
        return type(x).__name__ + '(...)'
    return getattr(x, '__name__', None) or repr(x)


def _args(fi):
    return ', '.join([_d(a) for a in fi.args] + [f'{k}={_d(v)}' for k, v in fi.kwargs.items()])


def describe(sample, limit=160):
    f = sample.forward_input
    s = (f'{sample.desc + ": " if sample.desc else ""}({_args(sample.constructor_input)})'
         f'({_args(f) if f is not None else "-"})')
    return s if len(s) <= limit else s[:limit - 3] + '...'


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return fn(*args, **kwargs)


def run_sample(info, key, tl_cls, sample, training):
    """Check one ModuleInput. Returns {'forward': (status, msg), 'gradient': (status, msg)}; status is
    'PASS', 'FAIL' or 'SKIP'."""
    res = {}
    atol, rtol = TOLERANCES.get(key, (ATOL, RTOL, ''))[:2]

    def put(kind, status, msg=''):
        res.setdefault(kind, (status, msg))

    def both(status, msg):
        put('forward', status, msg)
        put('gradient', status, msg if status == 'SKIP' else 'forward failed: ' + msg)
        return res

    c, f = sample.constructor_input, sample.forward_input
    if f is None:
        return both('SKIP', 'sample has no forward input')
    # convert before torch runs (a module that writes its inputs must not change what torchlike sees)
    memo = {}
    try:
        tl_cargs, tl_ckwargs = convert(tuple(c.args), memo), convert(dict(c.kwargs), memo)
        tl_args, tl_kwargs = convert(tuple(f.args), memo), convert(dict(f.kwargs), memo)
    except Skip as e:
        return both('SKIP', f'unsupported sample: {e}')
    except NotImplementedInTorchlike as e:
        return both('FAIL', str(e))
    except EntryTimeout:
        raise
    except Exception as e:       # rebuilding a module argument in torchlike failed
        return both('FAIL', f'constructor argument: {exc_text(e)}')
    try:
        torch.manual_seed(0)
        th_m = _quiet(info.module_cls, *c.args, **c.kwargs)
        th_m.train(training)
        if info.is_lazy:
            th_out = _quiet(th_m, *f.args, **f.kwargs)
    except Exception as e:
        return both('SKIP', f'torch fails: {exc_text(e)}')
    rand = random_reason(th_m, training)
    values = rand is None
    try:
        tl_m = _quiet(tl_cls, *tl_cargs, **tl_ckwargs)
    except EntryTimeout:
        raise
    except Exception as e:
        return both('FAIL', f'constructor: {exc_text(e)}')
    try:
        _load_torch_state(tl_m, th_m)
        tl_m.train(training)
    except EntryTimeout:
        raise
    except Exception as e:
        return both('FAIL', f'load_state_dict of torch\'s state: {exc_text(e)}')
    if not info.is_lazy:
        try:
            th_out = _quiet(th_m, *f.args, **f.kwargs)
        except Exception as e:
            return both('SKIP', f'torch fails: {exc_text(e)}')
    try:
        tl_out = _quiet(tl_m, *tl_args, **tl_kwargs)
    except Skip as e:
        return both('SKIP', str(e))
    except EntryTimeout:
        raise
    except Exception as e:
        return both('FAIL', exc_text(e))
    try:
        _quiet(O.compare, tl_out, th_out, atol, rtol, values)
        if values:
            th_b = dict(th_m.named_buffers())
            tl_b = dict(tl_m.named_buffers())
            if sorted(th_b) != sorted(tl_b):
                raise Mismatch(f'buffers {sorted(tl_b)} != torch {sorted(th_b)}')
            for k, b in th_b.items():
                _quiet(O.compare, tl_b[k], b, atol, rtol, True, f"buffer {k} after forward")
        put('forward', 'PASS')
    except Skip as e:
        put('forward', 'SKIP', str(e))
    except Mismatch as e:
        put('forward', 'FAIL', str(e))
    except EntryTimeout:
        raise
    except Exception as e:
        put('forward', 'FAIL', 'reading the result: ' + exc_text(e))
    _gradient(th_m, tl_m, th_out, tl_out, memo, atol, rtol, values, put)
    return res


def _gradient(th_m, tl_m, th_out, tl_out, memo, atol, rtol, values, put):
    leaves = [(f'grad of input {i}', t, tl) for i, (t, tl) in enumerate(
        (t, tl) for t, tl in memo.values() if O._differentiable(t))]
    tl_params = dict(tl_m.named_parameters())
    for name, p in th_m.named_parameters():
        if p.requires_grad:
            if name not in tl_params:
                put('gradient', 'FAIL', f'torchlike module has no parameter {name}')
                return
            leaves.append((f'grad of {name}', p, tl_params[name]))
    if not leaves:
        put('gradient', 'SKIP', 'nothing requires grad')
        return
    O.compare_gradients(th_out, tl_out, leaves, atol, rtol, values, put)


# ---- one entry ----------------------------------------------------------------------------------------

def samples(info, training, max_samples=MAX_SAMPLES):
    """The first ``max_samples`` ModuleInputs for a mode (torch seeded with 0; module arguments recorded)."""
    torch.manual_seed(0)
    with recording_constructors():
        mis = _quiet(info.module_inputs_func, info, device='cpu',
                     dtype=ENTRY_DTYPE.get(info.module_cls.__name__, DTYPE), requires_grad=True,
                     training=training)
    return list(itertools.islice(mis, max_samples))


def check_entry(key, max_samples=MAX_SAMPLES, timeout=ENTRY_TIMEOUT_S):
    """Run the check for one entry. Returns a JSON-able dict::

        {'key': ..., 'status': 'PASS'|'FAIL', 'reason': str,
         'forward':  {'status': ..., 'reason': str,
                      'modes': {'train': {'pass': n, 'fail': n, 'skip': n, 'first_fail': str,
                                          'first_skip': str}, 'eval': {...}}},
         'gradient': {...}, 'seconds': s, 'cpu_seconds': s}
    """
    try:
        return timed(_check_entry, key, max_samples, timeout)
    finally:
        _CTOR.clear()


def _mode_groups(info, key, tl_cls, max_samples):
    """_harness.run_groups's groups: one per training mode."""
    for training in training_modes(info):
        yield ('train' if training else 'eval', KINDS,
               lambda training=training: samples(info, training, max_samples),
               lambda sample, training=training: run_sample(info, key, tl_cls, sample, training))


def _check_entry(key, max_samples, timeout):
    info = database()[key]
    out = {'key': key}
    try:
        tl_cls = resolve(info)
    except NotImplementedInTorchlike as e:
        stats, entry_error = {k: {} for k in KINDS}, str(e)
    else:
        stats, entry_error = run_groups(_mode_groups(info, key, tl_cls, max_samples), KINDS, timeout,
                                        lambda si, sample: f'sample {si} {describe(sample)}')
    for k in KINDS:
        out[k] = {'modes': stats[k]}
        out[k]['status'], out[k]['reason'] = verdict(stats[k], entry_error)
    bad = [k for k in KINDS if out[k]['status'] != 'PASS']
    out['status'] = 'FAIL' if bad else 'PASS'
    out['reason'] = f'{bad[0]}: {out[bad[0]]["reason"]}' if bad else ''
    if entry_error:
        out['reason'] = entry_error
    return out
