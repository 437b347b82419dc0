"""torch.compile: a callable or Module run as one traced XLA program per input signature.

The engine is ``torchlike/_engine/traced.py`` (Note [Traced execution]). This file is the user-facing
part: argument checking, the per-callable program cache, the eager fallback on a graph break
(a warning, or an error under ``fullgraph=True``), ``OptimizedModule`` and the recompile limit.

Options: every ``backend`` that compiles ('inductor', the default, 'aot_eager', 'openxla', 'cudagraphs'...)
means the same here, one XLA program; ``backend='eager'`` runs the function eagerly as dynamo's eager
backend does (no compilation). ``mode`` ('default', 'reduce-overhead', 'max-autotune', ...) and
``dynamic`` are inductor tuning choices with no effect on results. XLA compiles each shape signature
once, so a dynamic shape still costs a program per shape; what ``dynamic`` decides here is what torch's
users see of it: with ``dynamic=False`` every new shape counts towards ``config.cache_size_limit`` (past it
the function runs eagerly, as torch's), while ``dynamic=True`` and the default (torch marks a dimension
dynamic after it changes once) count signatures with their shapes left out. A callable backend (an
FX-graph compiler) and non-empty ``options`` raise NotImplementedError: there is no FX graph to hand over.
"""
import functools
import warnings
import weakref

from .._engine import lazy

from .._engine import traced
from .._engine.state import state
from ..nn.modules import module as module_mod
from ..nn.modules.module import Module
from . import config, exc

# torch 2.13's registered backends that compile (each means one XLA program here), with the tags by which
# list_backends() leaves the debugging ones out; 'eager' runs uncompiled
_BACKENDS = {'inductor': (), 'cudagraphs': (), 'openxla': (), 'tvm': (), 'openxla_eval': ('debug',),
             'aot_eager': ('debug',), 'aot_eager_decomp_partition': ('debug',),
             'aot_eager_default_partitioner': ('debug',), 'aot_ts': ('debug',), 'ts': ('debug',),
             'eager': ('debug',)}
_COMPILING_BACKENDS = tuple(b for b in _BACKENDS if b != 'eager')
_MODES = (None, 'default', 'lite', 'reduce-overhead', 'max-autotune', 'max-autotune-no-cudagraphs')
_all_compiled = []      # weak bookkeeping for torch._dynamo.reset()


_SIMPLE = frozenset({bool, int, float, complex, str, type(None)})


def _guard_value(v):
    """A Python value a program may have baked in, as part of a cache key: numbers, strings and tuples of them
    (other objects are not guarded: a tensor is a program input, and a rebound object is not looked at)."""
    t = type(v)
    if t in _SIMPLE:
        return v
    if t is tuple and all(type(e) in _SIMPLE for e in v):
        return v
    return _Unguarded


class _Unguarded:
    pass


def _attrs(m):
    """A module's plain attributes (training, Dropout.p, LeakyReLU.negative_slope, kernel sizes, ...)."""
    return tuple([(k, v) for k, v in m.__dict__.items() if _guard_value(v) is not _Unguarded])


class _Compiled:
    """The program cache of one compiled callable.

    Guards, as dynamo's: a program is reused only for a call whose tensor arguments have its shapes and dtypes,
    whose other arguments are equal, and under which the modules involved have the same plain attributes
    (training flags, ``Dropout.p``, ...: those the trace baked in). The modules are the compiled module's tree
    (or the tree of a compiled bound method's module), every module a trace called, and the modules and
    plain values (numbers, strings) that a compiled function reads from its closure or its globals. A value
    read by a function that the compiled one calls is not guarded (dynamo follows those too)."""

    def __init__(self, fn, fullgraph, backend, module=None, dynamic=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.shapeless = set()      # the program keys with tensor shapes left out (see the module docstring)
        self.eager = backend == 'eager'
        self.module = module
        self.programs = {}
        self.broken = False
        self.touched = []           # weakrefs: modules called by the traces (beyond self.module's tree)
        self._snap = (None, None)   # (module ids and attr_epoch, their attributes) of the last call
        f = getattr(fn, '__func__', fn)
        code = getattr(f, '__code__', None)
        if module is None and code is not None:
            self._cells = f.__closure__ or ()
            self._globals = f.__globals__
            self._names = code.co_names         # (a global defined after torch.compile() is guarded too)
        else:
            self._cells, self._globals, self._names = (), {}, ()
        _all_compiled.append(self)

    def _key(self, args, kwargs):
        key = traced.signature(args, kwargs)
        mods = list(self.module.modules()) if self.module is not None else []
        free = []
        for v in [_cell(c) for c in self._cells] + [self._globals.get(n, _Unguarded) for n in self._names]:
            if isinstance(v, Module):
                mods.append(v)
            else:
                free.append(_guard_value(v))
        for r in self.touched:
            m = r()
            if m is not None:
                mods.append(m)
        ids = tuple(map(id, mods))
        if self._snap[0] != (module_mod.attr_epoch[0], ids):    # a module attribute was set since the last call
            self._snap = ((module_mod.attr_epoch[0], ids), tuple(map(_attrs, mods)))
        return key + (ids, self._snap[1], tuple(free))

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
        known = {id(r()) for r in self.touched} | {id(_cell(c)) for c in self._cells}
        known.update(id(self._globals.get(n, _Unguarded)) for n in self._names)
        if self.module is not None:
            known.update(id(m) for m in self.module.modules())
        new = [weakref.ref(m) for i, m in called.items() if i not in known]
        self.touched += new
        if new:
            self._snap = (None, None)
        return prog, bool(new)

    def _over_limit(self, key):
        if self.dynamic is False:
            return len(self.programs) >= config.cache_size_limit
        k = tuple(('T', None, *x[2:]) if type(x) is tuple and x[:1] == ('T',) else x for x in key)
        if k in self.shapeless:
            return False
        if len(self.shapeless) >= config.cache_size_limit:
            return True
        self.shapeless.add(k)
        return False

    def __call__(self, *args, **kwargs):
        if self.eager or _disabled[0] or traced.is_tracing():
            return self.fn(*args, **kwargs)
        if self.broken:
            return _run_lazy(self.fn, args, kwargs)
        try:
            key = self._key(args, kwargs)
            prog = self.programs.get(key)
            if prog is None or not prog.alive():
                if prog is None and self._over_limit(key):
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


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:          # a closure variable not yet bound
        return _Unguarded


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
        return OptimizedModule(model, fullgraph, backend, dynamic)
    # a module's bound method (Module.compile compiles its _call_impl; scripts compile model.forward) is guarded,
    # like a module, on the attributes of the module tree: train()/eval() selects another program
    owner = getattr(model, '__self__', None)
    c = _Compiled(model, fullgraph, backend, module=owner if isinstance(owner, Module) else None, dynamic=dynamic)

    @functools.wraps(model)
    def compiled_fn(*args, **kwargs):
        return c(*args, **kwargs)
    compiled_fn._torchdynamo_orig_callable = model
    compiled_fn._torchlike_compiled = c
    return compiled_fn


class OptimizedModule(Module):
    """What torch.compile returns for a Module: ``_orig_mod`` is the module (so state_dict keys gain the
    ``_orig_mod.`` prefix, as in torch); calling it runs the module's forward as a compiled program."""

    def __init__(self, mod, fullgraph=False, backend='inductor', dynamic=None):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, '_compiled', _Compiled(mod.__call__, fullgraph, backend, module=mod, dynamic=dynamic))

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules['_orig_mod'], name)


def list_backends(exclude_tags=('debug', 'experimental')):
    """torch._dynamo.list_backends / torch.compiler.list_backends: the backend names torch.compile accepts."""
    exclude = set(exclude_tags or ())
    return sorted(b for b, tags in _BACKENDS.items() if not exclude.intersection(tags))


def reset():
    """torch._dynamo.reset / torch.compiler.reset: forget every compiled program."""
    for c in _all_compiled:
        c.programs.clear()
        c.shapeless.clear()
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
