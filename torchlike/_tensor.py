"""The Tensor handle: an array cell, autograd metadata and view link.

Its methods are generated from the op registry (``registry.METHODS``) and installed by
``install_methods``; what is written here is the handle's own state, the sync points that
read values (``item``, ``tolist``, ``numpy``, ``__bool__``, ``__repr__``...), and autograd's
user-facing API. Only the sync points call ``_materialize()`` (DESIGN invariant 3).
"""
import numpy as np

from . import _dtype as D
from . import _layout
from ._device import as_device, from_jax, jax_device, CPU
from ._engine import dispatch, autograd, views
from ._engine.state import state
from ._engine.jaxrt import jax, jnp
from ._engine import lazy
from ._engine.lazy import LazyArray


class Tensor:
    # Hot fields live in slots; rare ones (grad, hooks, view chain, ...) in __dict__ with class defaults.
    __slots__ = ('_v', '_base', '_grad_fn', 'requires_grad', '_vc', '__dict__', '__weakref__')
    _grad = None
    _output_nr = 0
    _view = ()
    _src = None
    _retains_grad = False
    is_sparse = False
    is_quantized = False
    is_meta = False
    is_nested = False
    layout = _layout.strided
    __array_priority__ = 1000

    def __new__(cls, *args, **kwargs):
        t = object.__new__(cls)
        t._base = None
        t._grad_fn = None
        t.requires_grad = False
        t._vc = None
        if args or kwargs or cls is not Tensor:
            from ._ops import creation
            t._v = creation._legacy_ctor_value(args, kwargs)
        else:
            t._v = jnp.zeros((0,), D.state.default_dtype.np)
        return t

    def __init__(self, *args, **kwargs):
        pass

    # -- the cell -------------------------------------------------------------------------
    def _value(self):
        """The concrete array (a sync point in lazy mode: Note [Lazy execution])."""
        if self._base is None:
            v = self._v
        else:
            if self._src is not self._base._v:
                self._refresh()
            v = self._v
        if type(v) is LazyArray:
            # keep the concrete array: code reading ``_v`` directly (traced/fused engines) never sees a
            # materialized LazyArray (views of this root refresh once from it)
            v = self._v = v.get()
        return v

    def _raw(self):
        """The array as it is: concrete, or pending (a LazyArray) in lazy mode."""
        if self._base is None:
            return self._v
        if self._src is not self._base._v:
            self._refresh()
        return self._v

    def _refresh(self):
        root = self._base
        chain = self._view
        detached = self.__dict__.get('_detached_view', False)
        if not detached and root.requires_grad and self.requires_grad:
            prev = state.grad_enabled
            state.grad_enabled = True
            try:
                r = dispatch.apply(views._view_replay, (root,), (chain,))
            finally:
                state.grad_enabled = prev
            self._grad_fn = r._grad_fn
            self._output_nr = 0
            self._v = r._v
        else:
            self._v = views.replay(root._v, chain)
        self._src = root._v

    def _vc_obj(self):
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    def _materialize(self):
        """The one sync point: the concrete array behind this tensor."""
        return self._value()

    def _check_inplace(self):
        if self._base is not None and self.__dict__.get('_may_overlap', False):
            from ._ops.shape import has_internal_overlap
            if has_internal_overlap(self):
                raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                                   "single memory location. Please clone() the tensor before performing the operation.")
        if not state.grad_enabled:
            return
        if self._base is None:
            if self.requires_grad and self._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        elif not self.__dict__.get('_detached_view', False):
            root = self._base
            if root.requires_grad and root._grad_fn is None:
                raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
            if self.__dict__.get('_multi_view', False) and self.requires_grad:
                o, _, i = self._view[-1]
                raise RuntimeError(f"Output {i or 0} of {o.node_name.replace('Backward0', '')} is a view and is being "
                                   "modified inplace. This view is the output of a function that returns multiple views. "
                                   "Such functions do not allow the output views to be modified inplace. You should "
                                   "replace the inplace operation by an out-of-place one.")

    def _commit_inplace(self, r):
        """Make ``self`` hold the values (and history) of tensor ``r`` computed out of place."""
        if self._base is None:
            lazy.replaced(self._v, r._v)
            self._v = r._v
            if r.requires_grad:
                self._grad_fn = r._grad_fn
                self._output_nr = r._output_nr
                self.requires_grad = True
        else:
            root, chain = self._base, self._view
            detached = self.__dict__.get('_detached_view', False)
            if detached or not state.grad_enabled or not (r.requires_grad or root.requires_grad):
                written = views.write(root._v, r._v, chain)
                lazy.replaced(root._v, written)
                root._v = written
            else:
                w = dispatch.apply(views._copy_slices, (root, r), (chain,))
                root._v = w._v
                root._grad_fn = w._grad_fn
                root._output_nr = 0
                root.requires_grad = True
                rvc = root._vc_obj()
                if rvc is not self._vc_obj():
                    rvc[0] += 1
            self._v = r._v
            self._src = root._v
            if r.requires_grad and not detached:
                self._grad_fn = r._grad_fn
                self._output_nr = r._output_nr
                self.requires_grad = True
        vc = self._vc_obj()
        vc[0] += 1
        if r._grad_fn is not None and type(r._grad_fn) is autograd.Node:
            autograd.saved_self_updated(r._grad_fn, vc)

    def _set_value_inplace(self, arr, resize=False):
        """Overwrite values without autograd (out=, .grad accumulation, optimizer updates under no_grad)."""
        if self._base is None:
            if not resize and arr.shape != self._v.shape:
                arr = _broadcast_cast(arr, self._v.shape, self._v.dtype)
            lazy.replaced(self._v, arr)
            self._v = arr
        else:
            root = self._base
            written = views.write(root._v, arr, self._view)
            lazy.replaced(root._v, written)
            root._v = written
            self._v = _broadcast_cast(arr, tuple(self.shape), self._v.dtype)
            self._src = root._v
        self._vc_obj()[0] += 1

    # -- metadata -------------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._raw().shape)

    def size(self, dim=None):
        s = self._raw().shape
        if dim is None:
            return Size(s)
        return s[_wrap_dim(dim, len(s))]

    @property
    def dtype(self):
        return D.from_np(self._raw().dtype)

    @property
    def ndim(self):
        return self._raw().ndim

    def dim(self):
        return self._raw().ndim

    ndimension = dim

    def numel(self):
        return self._raw().size

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    def stride(self, dim=None):
        s = self._raw().shape
        st = None
        if self._base is not None:     # a view: the strides of its positions in its root (shape.view_geometry)
            from ._ops.shape import view_geometry
            st = view_geometry(self)[0]
        if st is None:
            st, acc = [], 1
            for n in reversed(s):
                st.append(acc)
                acc *= max(n, 1)
            st = tuple(reversed(st))
        return st if dim is None else st[_wrap_dim(dim, len(s))]

    def storage_offset(self):
        if self._base is None:
            return 0
        from ._ops.shape import view_storage_offset
        return view_storage_offset(self)

    def is_contiguous(self, memory_format=None):
        if memory_format is not None and memory_format is not _layout.contiguous_format:
            return _layout.is_contiguous_as(tuple(self.shape), self.stride(), memory_format)
        if self._base is None:
            return True
        from ._ops.shape import view_is_contiguous
        return view_is_contiguous(self)

    def contiguous(self, memory_format=None):
        if memory_format is not None:
            if memory_format is _layout.preserve_format:
                raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
            _layout.check_memory_format(memory_format, 'contiguous')
        return self if self.is_contiguous() else self.clone()

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    @property
    def device(self):
        v = self._raw()
        try:
            return from_jax(next(iter(v.devices())))
        except Exception:
            return CPU

    @property
    def is_cuda(self):
        return self.device.type == 'cuda'

    @property
    def is_cpu(self):
        return self.device.type == 'cpu'

    def get_device(self):
        d = self.device
        return -1 if d.type == 'cpu' else (d.index or 0)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    # -- autograd -------------------------------------------------------------------------
    @property
    def grad_fn(self):
        if self._base is not None:
            self._raw()
        return self._grad_fn

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, g):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(g).__name__}")
            if g.shape != self.shape:
                raise RuntimeError("assigned grad has data of a different size")
            if g.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self.__dict__['_grad'] = g

    @grad.deleter
    def grad(self):
        self.__dict__['_grad'] = None

    @property
    def _version(self):
        return self._vc[0] if self._vc is not None else 0

    @property
    def retains_grad(self):
        return self._retains_grad

    def requires_grad_(self, requires_grad=True):
        if not self.is_leaf and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    def retain_grad(self):
        if self._grad_fn is None:
            if not self.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        self._retains_grad = True
        import weakref
        ref = weakref.ref(self)
        node, nr = self._grad_fn, self._output_nr

        def hook(g):
            t = ref()
            if t is None or not t._retains_grad:
                return
            if t._grad is None:
                t._grad = g.detach() if g.requires_grad and not state.grad_enabled else dispatch.wrap(g._raw()) \
                    if not state.grad_enabled else g
            else:
                t._grad = t._grad + g
        if node._retain_hooks is None:
            node._retain_hooks = {}
        node._retain_hooks[nr] = hook

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            lst = self.__dict__.setdefault('_leaf_hooks', [])
            lst.append(hook)
            return autograd._Handle(lst, hook)
        node = self._grad_fn
        if node._tensor_pre_hooks is None:
            node._tensor_pre_hooks = []
        entry = (self._output_nr, hook)
        node._tensor_pre_hooks.append(entry)
        return autograd._Handle(node._tensor_pre_hooks, entry)

    def register_post_accumulate_grad_hook(self, hook):
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        lst = self.__dict__.setdefault('_post_acc_hooks', [])
        lst.append(hook)
        return autograd._Handle(lst, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        _autograd_api().backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        from ._ops import core
        return core.detach(self)

    def detach_(self):
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self.requires_grad = False
        return self

    @property
    def data(self):
        t = self.detach()
        t._vc = [0]   # .data does not share the version counter (unlike detach())
        return t

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError("Tensor.data must be a Tensor")
        if self._base is not None:
            self._base, self._view = None, ()
        self._v = other._raw()
        self._vc = None     # earlier views keep the old values, as they keep the old storage in torch

    # -- sync points ----------------------------------------------------------------------
    def item(self):
        v = self._materialize()
        if v.size != 1:
            raise RuntimeError(f"a Tensor with {v.size} elements cannot be converted to Scalar")
        return np.asarray(v).reshape(()).item()

    def tolist(self):
        return np.asarray(self._materialize()).tolist()

    def numpy(self, *, force=False):
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if not force:
            self._check_no_bits()
        return np.asarray(self._materialize())

    def _check_no_bits(self):
        # numpy shares memory with the tensor, so torch refuses a tensor whose values are read conjugated/negated
        d = self.__dict__
        if d.get('_conj_bit', False):
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. "
                               "Use tensor.resolve_conj().numpy() instead.")
        if d.get('_neg_bit', False):
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. "
                               "Use tensor.resolve_neg().numpy() instead.")

    def __array__(self, dtype=None, copy=None):
        self._check_no_bits()
        a = np.asarray(self._materialize())
        return a if dtype is None else a.astype(dtype)

    def __bool__(self):
        v = self._materialize()
        if v.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(np.asarray(v).reshape(()))

    def __float__(self):
        return float(self._scalar('float'))

    def __int__(self):
        return int(self._scalar('int'))

    def __complex__(self):
        return complex(self._scalar('complex'))

    def __index__(self):
        if self.dtype._cat > 1 or self.dtype is D.bool and False:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if self.dtype._cat != 1 and self.dtype is not D.bool:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar('index'))

    def _scalar(self, what):
        v = self._materialize()
        if v.size != 1:
            if what == 'index':
                raise TypeError("only integer tensors of a single element can be converted to an index")
            raise ValueError("only one element tensors can be converted to Python scalars")
        return np.asarray(v).reshape(()).item()

    def __len__(self):
        s = self._raw().shape
        if not s:
            raise TypeError("len() of a 0-d tensor")
        return s[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        if self.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __repr__(self, *, tensor_contents=None):
        from . import _tensor_str
        return _tensor_str._str(self, tensor_contents=tensor_contents)

    def __reduce_ex__(self, proto):
        return (_rebuild, (np.asarray(self._materialize()), self.requires_grad, str(self.device)))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        t = type(self).__new__(type(self)) if type(self) is Tensor else None
        new = dispatch.wrap(self._materialize())
        if type(self) is not Tensor:
            new.__class__ = type(self)
        new.requires_grad = self.requires_grad
        for k, v in self.__dict__.items():
            if k in ('_accum_ref', '_leaf_hooks', '_post_acc_hooks', '_src', '_view', '_detached_view'):
                continue
            import copy
            new.__dict__[k] = copy.deepcopy(v, memo)
        memo[id(self)] = new
        return new

    # -- conversions ----------------------------------------------------------------------
    def to(self, *args, **kwargs):
        from ._ops import core
        return core.to(self, *args, **kwargs)

    def cpu(self, memory_format=None):
        _layout.check_memory_format(memory_format, 'cpu')
        return self.to('cpu')

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        _layout.check_memory_format(memory_format, 'cuda')
        from ._device import device as _dev
        return self.to('cuda' if device is None else _dev(device))

    def type(self, dtype=None, non_blocking=False, **kwargs):
        from ._ops import core
        return core.type_(self, dtype)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from ._ops import creation
        return creation.tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        from ._ops import creation      # torch.empty's fill under deterministic algorithms applies here too
        return creation.empty(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad, **kw)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        from ._ops import creation
        return creation.zeros(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad, **kw)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        from ._ops import creation
        return creation.ones(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad, **kw)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, **kw):
        from ._ops import creation
        return creation.full(size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad,
                             **kw)

    def share_memory_(self):
        return self

    def is_shared(self):
        return False

    def pin_memory(self, device=None):
        # page-locked host memory is a transfer optimisation JAX's runtime manages itself
        from ._device import gpus_known
        if not gpus_known():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self

    def is_pinned(self, device=None):
        return False

    def record_stream(self, stream):
        return None

    def untyped_storage(self):
        from .storage import tensor_untyped_storage      # Note [Byte storage]
        return tensor_untyped_storage(self)

    def data_ptr(self):
        from .storage import tensor_data_ptr
        return tensor_data_ptr(self)


_bc_cache = {}


def _broadcast_cast(arr, shape, dtype):
    key = (shape, np.dtype(dtype))
    f = _bc_cache.get(key)
    if f is None:
        f = _bc_cache[key] = jax.jit(lambda a: jnp.broadcast_to(a, shape).astype(dtype))
    return lazy.call(f, ('broadcast_cast',) + key, (arr,))


def _rebuild(arr, requires_grad, device='cpu'):
    # placed on the pickled device (not JAX's default one, which is a GPU on a GPU machine)
    from ._device import jax_device
    t = dispatch.wrap(jax.device_put(arr, jax_device(device)))
    t.requires_grad = requires_grad
    return t


def _wrap_dim(dim, ndim):
    if not isinstance(dim, int):
        dim = int(dim)
    n = max(ndim, 1)
    if dim < -n or dim >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


class Size(tuple):
    """torch.Size: a tuple subclass with PyTorch's repr."""
    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))


dispatch.Tensor = Tensor


def _autograd_api():
    from . import autograd as api      # torchlike.autograd imports this module
    return api
autograd_record = autograd.record
dispatch._record = autograd.record
dispatch._with_residuals = autograd.forward_with_residuals

# Python operators -> generated methods. Reflected forms swap the operands.
_BINARY = {'add': 'add', 'sub': 'sub', 'mul': 'mul', 'truediv': 'div', 'floordiv': 'floor_divide',
           'mod': 'remainder', 'pow': 'pow', 'matmul': 'matmul', 'and': 'bitwise_and', 'or': 'bitwise_or',
           'xor': 'bitwise_xor', 'lshift': 'bitwise_left_shift', 'rshift': 'bitwise_right_shift'}
_COMPARE = {'eq': 'eq', 'ne': 'ne', 'lt': 'lt', 'le': 'le', 'gt': 'gt', 'ge': 'ge'}
_UNARY = {'neg': 'neg', 'pos': 'positive', 'abs': 'abs', 'invert': 'bitwise_not'}


def _operand(x):
    """True when ``x`` can be the other operand of a Python operator (else NotImplemented, as torch)."""
    return isinstance(x, (Tensor, int, float, complex, np.number, np.bool_)) or (
        isinstance(x, np.ndarray) and False)


def _binop(f):
    def op(self, other):
        if not _operand(other):
            return NotImplemented
        return f(self, other)
    return op


def _rbinop(f):
    def op(self, other):
        if not _operand(other):
            return NotImplemented
        return f(other, self)
    return op


def install_methods():
    from ._engine.registry import METHODS, PUBLIC
    for name, fn in METHODS.items():
        if name not in Tensor.__dict__ or name in ('__dict__',):
            setattr(Tensor, name, fn)
    torch_ns = PUBLIC['torch']
    for dunder, name in _BINARY.items():
        f = torch_ns.get(name)
        if f is None:
            continue
        setattr(Tensor, f'__{dunder}__', _binop(f))
        setattr(Tensor, f'__r{dunder}__', _rbinop(f))
        inplace = METHODS.get(name + '_')
        if inplace is not None:
            setattr(Tensor, f'__i{dunder}__', _binop(inplace))
    for dunder, name in _COMPARE.items():
        f = torch_ns.get(name)
        if f is None:
            continue
        setattr(Tensor, f'__{dunder}__', _binop(f))
    for dunder, name in _UNARY.items():
        f = torch_ns.get(name)
        if f is None:
            continue
        setattr(Tensor, f'__{dunder}__', (lambda f: lambda self: f(self))(f))
    _bitwise_not = torch_ns['bitwise_not']

    def __invert__(self):
        # the operator (unlike torch.bitwise_not) raises TypeError for floating tensors, as torch does
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return _bitwise_not(self)
    Tensor.__invert__ = __invert__
    Tensor.__hash__ = lambda self: id(self)
