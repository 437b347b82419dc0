"""torch.autograd: backward, grad, grad modes, Function, Variable, functional."""
from .._engine import autograd as _engine
from .._engine import dispatch
from .._engine import fused as _fused
from .._engine.state import state
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled


def _tensors(x):
    from .._tensor import Tensor
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


_ONES = {}


def _ones(o):
    # The implicit root gradient of a scalar output; JAX arrays are immutable, so one per dtype is shared.
    v = o._raw()
    key = (v.shape, v.dtype)
    a = _ONES.get(key)
    if a is None:
        from .._engine.jaxrt import jnp
        a = _ONES[key] = jnp.ones(v.shape, v.dtype)
    return dispatch.wrap(a)


def _make_grads(outputs, grads):
    from .. import _ops
    res = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o.requires_grad and o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if o.requires_grad and not (o.dtype.is_floating_point or o.dtype.is_complex):
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {o.dtype}")
            g = _ones(o)
        elif not isinstance(g, dispatch.Tensor):
            from .._ops.creation import tensor
            g = tensor(g, dtype=o.dtype)
        if g.shape != o.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                               f"has a shape of {o.shape}.")
        res.append(g)
    return res


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    if (grad_tensors is None and grad_variables is None and inputs is None and not create_graph
            and type(tensors) is dispatch.Tensor):
        # the training-loop case, loss.backward(): skip the general argument handling
        t = tensors
        if t.requires_grad:
            v = t._raw()
            if v.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if v.dtype.kind == 'f':
                node = t._grad_fn
                if node is not None and not _engine.state.anomaly and _fused.try_run(
                        [((node, t._output_nr), None)], bool(retain_graph)):
                    return
                _engine.run_backward((t,), (_ones(t),), bool(retain_graph), False)
                return
    tensors = _tensors(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    gt = _tensors(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(gt) != len(tensors):
        raise RuntimeError(f"got {len(gt)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _tensors(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    gt = _make_grads(tensors, gt)
    _engine.run_backward(tensors, gt, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if is_grads_batched:
        raise NotImplementedError("torch.autograd.grad(is_grads_batched=True) is not supported by torchlike")
    outputs = _tensors(outputs)
    single = isinstance(inputs, dispatch.Tensor)
    inputs = _tensors(inputs)
    go = _tensors(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    go = _make_grads(outputs, go)
    res = _engine.run_backward(outputs, go, retain_graph, create_graph, inputs=inputs, accumulate=False,
                               allow_unused=allow_unused)
    if materialize_grads:
        from .._ops.creation import zeros_like
        res = [zeros_like(x) if r is None else r for x, r in zip(inputs, res)]
    return tuple(res)


from .function import Function, FunctionCtx, once_differentiable, InplaceFunction, NestedIOFunction  # noqa: E402
from .variable import Variable  # noqa: E402
from . import functional, grad_mode, function  # noqa: E402
from .grad_mode import is_inference_mode_enabled  # noqa: E402
from . import profiler, profiler_util  # noqa: E402  (torch.autograd.profiler)


class set_detect_anomaly:
    """Anomaly detection: with check_nan, a backward node that produces NaN raises naming the node."""
    def __init__(self, mode, check_nan=True):
        self.prev = (state.anomaly, state.anomaly_check_nan)
        state.anomaly, state.anomaly_check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        state.anomaly, state.anomaly_check_nan = self.prev
        return False


class detect_anomaly(set_detect_anomaly):
    def __init__(self, check_nan=True):
        self.prev = (state.anomaly, state.anomaly_check_nan)
        self.args = check_nan

    def __enter__(self):
        state.anomaly, state.anomaly_check_nan = True, self.args
        return self


def is_anomaly_enabled():
    return state.anomaly


def is_anomaly_check_nan_enabled():
    return state.anomaly_check_nan
