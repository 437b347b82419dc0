"""The op registry: one record per op, from which every public variant is generated.

Note [Op records]
An op is a pure JAX function plus metadata, registered once with ``@op``::

    @op('add', promote='same', inplace=True)
    def add(input, other, *, alpha=1):
        return input + alpha * other

* The function's own signature is the public signature (``torch.add(input, other, *, alpha=1, out=None)``).
* ``static`` names the parameters that are hashable attributes (dims, sizes, flags, strings): they are
  baked into the compiled program and are part of its cache key. Every other parameter is *dynamic*:
  a Tensor, a Python number or None, or (``lists``) a sequence of Tensors; numbers stay data, so a
  changing learning rate never recompiles (DESIGN invariant 7).
* ``promote`` is the type-promotion rule applied to the dynamic ``promote_args`` before the function
  runs: 'same' (torch.result_type), 'float' (result_type, integers -> default float), None (the body
  decides). Casts happen inside the compiled program, so they fuse.
* ``diff`` names the differentiable dynamic parameters; the backward rule is the VJP of ``fn``
  compiled once per (op, attrs, shapes, dtypes) (see autograd.py). ``saves`` says which values
  PyTorch's backward saves, so in-place modification of them raises exactly when torch raises:
  'inputs' (every differentiable input), 'result', () (nothing: linear ops), a tuple of parameter
  names (always saved), or a dict ``{param: (params its gradient needs)}`` read like
  derivatives.yaml (mul: ``{'input': ('other',), 'other': ('input',)}``).
* ``node`` is torch's grad_fn name when it is not CamelCase(name)+'Backward0'; a callable of the static
  attributes gives overload-dependent names (``sum(x)`` -> SumBackward0, ``sum(x, dim)`` -> SumBackward1).
* ``residuals=True`` (ops whose forward is expensive: a recurrent scan, attention with dropout) makes the
  forward also return its VJP residuals when a gradient is recorded, and the backward applies the saved
  pullback instead of re-running the forward inside the VJP (Note [Saved residuals] in autograd.py).
* ``view=True`` marks an index-only op whose output aliases its input (see views.py).
* ``lazy_record`` (a function of the op's cache key and input arrays, giving ``(program, token, arguments)``
  or None) records another program in lazy mode: one that takes as data what the op's own program bakes in
  (``x[i]``'s start index, which a data loop changes every step: Note [Indexing]).
* ``variants`` chooses the generated forms: 'function' (torch.xxx), 'method' (Tensor.xxx),
  ``inplace=True`` adds Tensor.xxx_, ``out=True`` adds the out= keyword.
"""
import inspect

REGISTRY = {}                 # name -> Op
PUBLIC = {}                   # namespace -> {name: python function}
METHODS = {}                  # Tensor method name -> function


class Op:
    __slots__ = ('name', 'fn', 'static_names', 'dyn_names', 'lists', 'promote', 'promote_mask', 'diff_mask',
                 'saves', 'node_name', 'view', 'jit', 'ret', 'cache', 'bwd_cache', 'nondiff_outputs',
                 'inplace_node_name', 'signature', 'varargs', 'function', 'residuals', 'lazy_record', '__weakref__')

    def __init__(self, name, fn, static=(), lists=(), promote=None, promote_args=None, diff=None, saves='inputs',
                 node=None, view=False, jit=True, ret=None, nondiff_outputs=(), residuals=False, lazy_record=None):
        self.name = name
        self.fn = fn
        sig = inspect.signature(fn)
        self.signature = sig
        params = list(sig.parameters)
        for s in static:
            assert s in params, (name, s)
        self.varargs = any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values())
        self.static_names = tuple(p for p in params if p in static)
        self.dyn_names = tuple(p for p in params if p not in static)
        self.lists = tuple(self.dyn_names.index(p) for p in lists)
        self.promote = promote
        pa = self.dyn_names if promote_args is None else promote_args
        self.promote_mask = tuple(p in pa for p in self.dyn_names)
        d = self.dyn_names if diff is None else diff
        self.diff_mask = tuple(p in d for p in self.dyn_names)
        self.saves = saves
        self.node_name = node or (_camel(name) + 'Backward0')
        self.inplace_node_name = None
        self.view = view
        self.jit = jit
        self.ret = ret
        self.nondiff_outputs = nondiff_outputs
        self.residuals = residuals and jit
        self.lazy_record = lazy_record
        self.cache = {}
        self.bwd_cache = {}
        self.function = None

    def __repr__(self):
        return f'<op {self.name}>'

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)


def _camel(name):
    return ''.join(p[:1].upper() + p[1:] for p in name.strip('_').split('_'))


def op(name, *, static=(), lists=(), promote=None, promote_args=None, diff=None, saves='inputs', node=None,
       view=False, jit=True, ret=None, nondiff_outputs=(), function=True, method=True, inplace=False, out=None,
       namespace='torch', aliases=(), method_aliases=(), differentiable=True, residuals=False, lazy_record=None):
    """Register ``fn`` as op ``name`` and generate its public variants (see Note [Op records])."""
    def deco(fn):
        o = Op(name, fn, static=static, lists=lists, promote=promote, promote_args=promote_args,
               diff=(() if not differentiable else diff), saves=saves, node=node, view=view, jit=jit, ret=ret,
               nondiff_outputs=nondiff_outputs, residuals=residuals, lazy_record=lazy_record)
        key = name if namespace == 'torch' else f'{namespace}.{name}'
        assert key not in REGISTRY, f'op {key} registered twice'
        REGISTRY[key] = o
        has_out = (not view) if out is None else out
        o.function = f = make_function(o, has_out)
        if function:
            for n in (name,) + tuple(aliases):
                PUBLIC.setdefault(namespace, {})[n] = f
        if method:
            m = make_method(o)
            for n in (name,) + tuple(method_aliases or aliases):
                METHODS.setdefault(n, m)
        if inplace:
            mi = make_method(o, inplace=True)
            for n in (name,) + tuple(method_aliases or aliases):
                METHODS.setdefault(n + '_', mi)
        return o
    return deco


def namespace_module(ns, g):
    """Make the module whose globals are ``g`` (a namespace package such as torchlike.fft) expose
    ``PUBLIC[ns]``: ``g`` gets the functions registered so far, and module-level ``__getattr__``/``__dir__``
    see ones registered later."""
    name = g['__name__']

    def __getattr__(attr):
        fns = PUBLIC.get(ns, {})
        if attr in fns:
            return fns[attr]
        raise AttributeError(f"module '{name}' has no attribute '{attr}'")

    def __dir__():
        return sorted(set(g) | set(PUBLIC.get(ns, {})))
    g.update(PUBLIC.get(ns, {}))
    g['__getattr__'] = __getattr__
    g['__dir__'] = __dir__


def public(name, *, namespace='torch', method=False, function=True, aliases=()):
    """Register a hand-written public function (a composite of ops, or an overload chooser)."""
    def deco(fn):
        for n in (name,) + tuple(aliases):
            if function:
                PUBLIC.setdefault(namespace, {})[n] = fn
            if method:
                METHODS.setdefault(n, fn)
        return fn
    return deco


def method(name, aliases=()):
    """Register a hand-written Tensor method."""
    def deco(fn):
        for n in (name,) + tuple(aliases):
            METHODS[n] = fn
        return fn
    return deco


# ---- variant generation ----------------------------------------------------------------
# Generated with exec so each variant has the op's real signature and costs one Python call:
# argument parsing is CPython's own.

def _param_src(sig, rename_first=None, extra_kw=()):
    parts = []
    star = False
    for i, p in enumerate(sig.parameters.values()):
        nm = rename_first if (i == 0 and rename_first) else p.name
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append('*')
            star = True
        if p.kind is p.VAR_POSITIONAL:
            parts.append('*' + nm)
            star = True
            continue
        parts.append(nm if p.default is p.empty else f'{nm}={_default_name(p.name)}')
    if extra_kw:
        if not star:
            parts.append('*')
        parts.extend(extra_kw)
    return ', '.join(parts)


def _default_name(pname):
    return f'_d_{pname}'


def _call_src(o, first=None):
    names = [first if (i == 0 and first) else n for i, n in enumerate(o.signature.parameters)]
    dyn = [names[i] for i, p in enumerate(o.signature.parameters) if p in o.dyn_names]
    st = [f'_st({names[i]})' for i, p in enumerate(o.signature.parameters) if p in o.static_names]
    return '(' + ''.join(d + ', ' for d in dyn) + ')', '(' + ''.join(s + ', ' for s in st) + ')'


def _globals(o):
    from . import dispatch
    g = {'_op': o, '_apply': dispatch.apply, '_apply_inplace': dispatch.apply_inplace, '_st': dispatch.static_arg}
    for p in o.signature.parameters.values():
        if p.default is not p.empty:
            g[_default_name(p.name)] = p.default
    return g


def make_function(o, has_out):
    params = _param_src(o.signature, extra_kw=('out=None',) if has_out else ())
    dyn, st = _call_src(o)
    src = f'def {o.name}({params}):\n    return _apply(_op, {dyn}, {st}{", out" if has_out else ""})\n'
    g = _globals(o)
    exec(src, g)
    f = g[o.name]
    f.__doc__ = o.fn.__doc__
    f.__module__ = 'torchlike'
    return f


def make_method(o, inplace=False):
    first = next(iter(o.signature.parameters))
    params = _param_src(o.signature, rename_first='self')
    dyn, st = _call_src(o, first='self')
    fname = o.name + ('_' if inplace else '')
    call = '_apply_inplace' if inplace else '_apply'
    src = f'def {fname}({params}):\n    return {call}(_op, {dyn}, {st})\n'
    g = _globals(o)
    exec(src, g)
    return g[fname]
