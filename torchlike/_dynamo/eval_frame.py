"""torch.compile: a callable or Module run as one traced XLA program per input signature.

The engine is ``torchlike/_engine/traced.py`` (Note [Traced execution]). This file is the user-facing
part: argument checking, the per-callable program cache, the eager fallback on a graph break
(a warning, or an error under ``fullgraph=True``), ``OptimizedModule`` and the recompile limit.

Options: every ``backend`` that compiles ('inductor', the default, 'aot_eager', 'openxla', 'cudagraphs'...)
means the same here, one XLA program; ``backend='eager'`` runs the function eagerly as dynamo's eager
backend does (no compilation). ``mode`` ('default', 'reduce-overhead', 'max-autotune', ...) and
``dynamic`` are inductor tuning choices with no effect on results; XLA compiles each shape signature
once, so ``dynamic=True`` still compiles per shape. A callable backend (an FX-graph compiler) and
non-empty ``options`` raise NotImplementedError: there is no FX graph to hand over.
"""
import functools
import warnings
import weakref

from .._engine import lazy

from .._engine import traced
from .._engine.state import state
from ..nn.modules.module import Module
from . import config, exc

_COMPILING_BACKENDS = ('inductor', 'aot_eager', 'aot_eager_decomp_partition', 'openxla', 'cudagraphs', 'tvm',
                       'onnxrt', 'aot_ts', 'nvprims_nvfuser')
_MODES = (None, 'default', 'lite', 'reduce-overhead', 'max-autotune', 'max-autotune-no-cudagraphs')
_all_compiled = []      # weak bookkeeping for torch._dynamo.reset()


class _Compiled:
    """The program cache of one compiled callable."""

    def __init__(self, fn, fullgraph, backend, module=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.eager = backend == 'eager'
        self.module = module
        self.programs = {}
        self.broken = False
        self.touched = []           # weakrefs: modules called by the traces (beyond self.module's tree)
        _all_compiled.append(self)

    def _key(self, args, kwargs):
        # guarded, as dynamo guards, on the training flag of every module the trace called: train()/eval()
        # (Dropout, BatchNorm) selects another program; a module's tree is walked whole, since its forward
        # may read a submodule's flag without calling it
        key = traced.signature(args, kwargs)
        flags = tuple(m.training for m in self.module.modules()) if self.module is not None else ()
        if self.touched:
            flags += tuple(getattr(r(), 'training', None) for r in self.touched)
        return key + (flags,)

    def _trace(self, args, kwargs):
        """traced.trace, noting the modules that the function calls (``Module._call_impl`` swapped meanwhile:
        traces do not nest, and the class attribute costs the hot path nothing between traces)."""
        called = {}
        impl = Module._call_impl

        def call_impl(m, *a, **k):
            called[id(m)] = m
            return impl(m, *a, **k)
        Module._call_impl = call_impl
        try:
            prog = traced.trace(self.fn, args, kwargs)
        finally:
            Module._call_impl = impl
        known = {id(r()) for r in self.touched}
        if self.module is not None:
            known.update(id(m) for m in self.module.modules())
        new = [weakref.ref(m) for i, m in called.items() if i not in known]
        self.touched += new
        return prog, bool(new)

    def __call__(self, *args, **kwargs):
        if self.eager or _disabled[0] or traced.is_tracing():
            return self.fn(*args, **kwargs)
        if self.broken:
            return _run_lazy(self.fn, args, kwargs)
        try:
            key = self._key(args, kwargs)
            prog = self.programs.get(key)
            if prog is None or not prog.alive():
                if len(self.programs) >= config.cache_size_limit and prog is None:
                    warnings.warn(f"torch._dynamo hit config.cache_size_limit ({config.cache_size_limit}) for "
                                  f"{getattr(self.fn, '__qualname__', self.fn)}: running it eagerly from now on.")
                    self.broken = True
                    return self.fn(*args, **kwargs)
                prog, grew = self._trace(args, kwargs)
                if grew:            # the key gains the flags of the modules this trace found
                    key = self._key(args, kwargs)
                self.programs[key] = prog
        except traced.GraphBreak as e:
            if self.fullgraph:
                raise exc.Unsupported(f"torch.compile(fullgraph=True) could not capture one graph: {e}") from None
            if not config.suppress_errors:
                warnings.warn(f"torch.compile: graph break ({e}); running {getattr(self.fn, '__qualname__', 'it')} "
                              "in lazy mode (its ops recorded and run as one compiled program per call).")
            self.broken = True
            return _run_lazy(self.fn, args, kwargs)
        return traced.call(prog, args, kwargs)


def _run_lazy(fn, args, kwargs):
    """A call that cannot be one traced program runs in lazy mode (Note [Lazy execution]): a training step
    with backward() and optimizer.step() still becomes one cached XLA program, synced when the call returns."""
    with lazy.mode('lazy'):
        out = fn(*args, **kwargs)
    lazy.sync()
    return out


_disabled = [False]


def _check(backend, mode, options, dynamic):
    if callable(backend) and not isinstance(backend, str):
        raise NotImplementedError("torch.compile(backend=<callable>): torchlike has no FX graph to hand to a custom "
                                  "backend; use a backend name such as 'inductor' (one XLA program).")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(m for m in _MODES if m)}")
    if options:
        raise NotImplementedError(f"torch.compile(options={sorted(options)!r}): inductor options are not supported "
                                  "by torchlike's XLA backend")
    if dynamic not in (None, True, False):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")
    if backend != 'eager' and backend not in _COMPILING_BACKENDS:
        raise exc.InvalidBackend(backend)


def compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None, options=None,
            disable=False):
    """torch.compile: run ``model`` (a function or an nn.Module) as one XLA program per input signature."""
    _check(backend, mode, options, dynamic)
    if model is None:
        def deco(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           disable=disable)
        return deco
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph, backend)
    # a module's bound method (Module.compile compiles its _call_impl; scripts compile model.forward) is guarded,
    # like a module, on the training flags of the module tree: train()/eval() selects another program
    owner = getattr(model, '__self__', None)
    c = _Compiled(model, fullgraph, backend, module=owner if isinstance(owner, Module) else None)

    @functools.wraps(model)
    def compiled_fn(*args, **kwargs):
        return c(*args, **kwargs)
    compiled_fn._torchdynamo_orig_callable = model
    compiled_fn._torchlike_compiled = c
    return compiled_fn


class OptimizedModule(Module):
    """What torch.compile returns for a Module: ``_orig_mod`` is the module (so state_dict keys gain the
    ``_orig_mod.`` prefix, as in torch); calling it runs the module's forward as a compiled program."""

    def __init__(self, mod, fullgraph=False, backend='inductor'):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, '_compiled', _Compiled(mod.__call__, fullgraph, backend, module=mod))

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules['_orig_mod'], name)


def reset():
    """torch._dynamo.reset / torch.compiler.reset: forget every compiled program."""
    for c in _all_compiled:
        c.programs.clear()
        c.touched.clear()
        c.broken = False


def is_compiling():
    return traced.is_tracing() and state.mode == 'traced'


def disable(fn=None, recursive=True):
    """torch.compiler.disable: ``fn`` always runs eagerly, even when called from a compiled function."""
    if fn is None:
        return functools.partial(disable, recursive=recursive)

    @functools.wraps(fn)
    def run_eager(*args, **kwargs):
        if traced.is_tracing():
            raise traced.GraphBreak(f"{getattr(fn, '__qualname__', fn)} is marked torch.compiler.disable")
        return fn(*args, **kwargs)
    run_eager._torchdynamo_disable = True
    return run_eager
