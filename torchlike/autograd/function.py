"""torch.autograd.Function: user-defined forward/backward pairs recorded on the tape.

The ctx object *is* the graph node (as PyTorch's BackwardCFunction), so ``ctx.saved_tensors``,
``ctx.needs_input_grad`` and ``out.grad_fn`` are the same object's state.
"""
import functools

from .._engine import autograd as _ag
from .._engine import dispatch
from .._engine.state import state
from .._ops._util import inexact


class FunctionCtx:
    """Attributes shared by the ctx of forward/setup_context and backward."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, dispatch.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument 0 is of type "
                                f"{type(t).__name__}")
        self._saved = tuple((t, t._vc_obj()[0] if t is not None else None) for t in tensors)

    def save_for_forward(self, *tensors):
        self._saved_fwd = tensors

    @property
    def saved_tensors(self):
        if getattr(self, '_released', False):
            raise RuntimeError(_ag._FREED)
        out = []
        for t, v in getattr(self, '_saved', ()):
            if t is not None and t._vc_obj()[0] != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{_ag._type_str(t._value().dtype, t.shape)}] is at version {t._vc_obj()[0]}; "
                    f"expected version {v} instead. Hint: enable anomaly detection to find the operation that "
                    "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).")
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    def mark_dirty(self, *args):
        self._dirty = args

    def mark_non_differentiable(self, *args):
        self._non_diff = args

    def set_materialize_grads(self, value):
        self._materialize = bool(value)


class BackwardCFunction(_ag.Node, FunctionCtx):
    """The node (and ctx) of one autograd.Function call."""

    def apply(self, grads, create_graph=False):
        if self._released:
            raise RuntimeError(_ag._FREED)
        from .._ops.creation import zeros
        gs = []
        for i, (shape, dt, is_diff) in enumerate(self._out_info):
            g = grads[i] if i < len(grads) else None
            if g is None and self.__dict__.get('_materialize', True):
                g = dispatch.wrap(_ag.jnp.zeros(shape, dt))
            gs.append(g)
        fn = self._cls.backward
        if self.__dict__.get('_once', False) or getattr(fn, '_once_differentiable', False):
            prev = state.grad_enabled
            state.grad_enabled = False
            try:
                res = fn(self, *gs)
            finally:
                state.grad_enabled = prev
        else:
            res = fn(self, *gs)
        if not isinstance(res, tuple):
            res = (res,)
        n = self._n_args
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self._name} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(res)})")
        out = []
        for pos in self._tensor_pos:
            g = res[pos]
            t = self._inputs[pos]
            if g is not None and not isinstance(g, dispatch.Tensor):
                raise TypeError(f"function {self._name} returned a gradient of type {type(g).__name__} "
                                "where a Tensor was expected")
            if g is not None and t.requires_grad and tuple(g.shape) != tuple(t.shape):
                try:
                    g = g.sum_to_size(t.shape) if hasattr(g, 'sum_to_size') else g.expand(t.shape)
                except Exception:
                    raise RuntimeError(f"Function {self._name} returned an invalid gradient at index {pos} - got "
                                       f"{list(g.shape)} but expected shape compatible with {list(t.shape)}")
            if g is not None and t.requires_grad and g.dtype != t.dtype:
                g = g.to(t.dtype)          # the engine's validate_outputs: a gradient has its input's dtype
            out.append(g)
        return out

    def release(self):
        self._released = True
        self.__dict__.pop('_saved', None)


def _new_ctx(cls, args):
    n = _ag._new_node(cls._backward_cls, cls.__name__ + 'Backward')
    n.op = None
    n._cls = cls
    n._inputs = args
    n._n_args = len(args)
    T = dispatch.Tensor
    n._tensor_pos = tuple(i for i, a in enumerate(args) if isinstance(a, T))
    n.needs_input_grad = tuple(isinstance(a, T) and a.requires_grad and state.grad_enabled for a in args)
    n.next_functions = tuple(_ag.edge_of(args[i]) if args[i].requires_grad else (None, 0) for i in n._tensor_pos)
    return n


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        # as torch: each Function gets its own node class, e.g. ExpBackward for class Exp
        cls._backward_cls = type(name + 'Backward', (BackwardCFunction,), {'_forward_cls': cls, '__slots__': ()})


class Function(metaclass=_FunctionMeta):
    """Base class of user autograd functions (``MyFn.apply(*args)``)."""
    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                           "autograd function with static forward method.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not overridden.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        T = dispatch.Tensor
        ctx = _new_ctx(cls, args)
        record = state.grad_enabled and any(ctx.needs_input_grad)
        uses_setup = cls.setup_context is not Function.setup_context
        prev = state.grad_enabled
        state.grad_enabled = False
        try:
            if uses_setup:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        finally:
            state.grad_enabled = prev
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        non_diff = {id(t) for t in ctx.__dict__.get('_non_diff', ())}
        dirty = {id(t) for t in ctx.__dict__.get('_dirty', ())}
        inputs = {id(a) for a in args if isinstance(a, T)}
        info, result = [], []
        for i, o in enumerate(outs):
            if not isinstance(o, T):
                info.append(((), _ag.jnp.float32, False))
                result.append(o)
                continue
            if id(o) in inputs and id(o) not in dirty:
                o = o.view_as(o) if hasattr(o, 'view_as') else dispatch.wrap(o._value())  # torch returns a view
            v = o._raw()         # shape and dtype only: a pending (lazy) output stays pending
            diff = record and id(o) not in non_diff and inexact(v.dtype)
            info.append((v.shape, v.dtype, diff))
            if diff:
                o._grad_fn = ctx
                o._output_nr = i
                o.requires_grad = True
                if id(o) in dirty:
                    o._vc_obj()[0] += 1
            elif id(o) in non_diff:
                o.requires_grad = False
            result.append(o)
        ctx._out_info = info
        return result[0] if single else tuple(result)

    @classmethod
    def vmap(cls, *a, **k):
        raise NotImplementedError("torch.autograd.Function.vmap is not supported by torchlike")


def once_differentiable(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = state.grad_enabled
        state.grad_enabled = False
        try:
            return fn(ctx, *args)
        finally:
            state.grad_enabled = prev
    wrapper._once_differentiable = True
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
