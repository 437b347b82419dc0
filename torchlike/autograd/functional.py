"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp — built on the tape (reverse mode).

jvp uses the double-backward trick (as PyTorch's own implementation does); jacobian loops over
output elements (``vectorize=True`` is accepted as an equal-result strategy choice only in torch;
here it is rejected explicitly rather than ignored).
"""
from .. import _ops
from .._engine import dispatch
from . import grad as _grad
from .grad_mode import enable_grad


def _tuple(x):
    return (x,) if isinstance(x, dispatch.Tensor) else tuple(x)


def _prep(inputs, create_graph):
    out = []
    for x in inputs:
        y = x.detach() if not create_graph else x.view_as(x) if x.requires_grad else x.detach()
        y.requires_grad_(True)
        out.append(y)
    return tuple(out)


def _grads_or_zeros(outs, ins, gouts, create_graph):
    needs = [o for o in outs if o.requires_grad]
    if not needs:
        return tuple(_ops.creation.zeros_like(x) for x in ins)
    pairs = [(o, g) for o, g in zip(outs, gouts) if o.requires_grad]
    gs = _grad([p[0] for p in pairs], ins, [p[1] for p in pairs], create_graph=create_graph, retain_graph=True,
               allow_unused=True)
    return tuple(_ops.creation.zeros_like(x) if g is None else g for x, g in zip(ins, gs))


def _check_strict(strict):
    if strict:
        raise NotImplementedError("torch.autograd.functional(strict=True) is not supported by torchlike")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    _check_strict(strict)
    single_in = isinstance(inputs, dispatch.Tensor)
    with enable_grad():
        ins = _prep(_tuple(inputs), create_graph)
        out = func(*ins)
        single_out = isinstance(out, dispatch.Tensor)
        outs = _tuple(out)
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = (_ops.creation.ones_like(outs[0]),)
        else:
            vs = _tuple(v)
        g = _grads_or_zeros(outs, ins, vs, create_graph)
    o = tuple(x if create_graph else x.detach() for x in outs)
    g = tuple(x if create_graph else x.detach() for x in g)
    return (o[0] if single_out else o), (g[0] if single_in else g)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    _check_strict(strict)
    single_in = isinstance(inputs, dispatch.Tensor)
    with enable_grad():
        ins = _prep(_tuple(inputs), create_graph)
        out = func(*ins)
        single_out = isinstance(out, dispatch.Tensor)
        outs = _tuple(out)
        if v is None:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (_ops.creation.ones_like(ins[0]),)
        else:
            vs = _tuple(v)
        # double-backward trick: u -> J^T u is linear in u; its vjp with v gives J v
        us = tuple(_ops.creation.zeros_like(o).requires_grad_(True) for o in outs)
        gi = _grads_or_zeros(outs, ins, us, True)
        pairs = [(g, w) for g, w in zip(gi, vs) if g.requires_grad]
        if pairs:
            jv = _grad([p[0] for p in pairs], us, [p[1] for p in pairs], create_graph=create_graph,
                       retain_graph=True, allow_unused=True)
            jv = tuple(_ops.creation.zeros_like(o) if j is None else j for o, j in zip(outs, jv))
        else:
            jv = tuple(_ops.creation.zeros_like(o) for o in outs)
    o = tuple(x if create_graph else x.detach() for x in outs)
    jv = tuple(x if create_graph else x.detach() for x in jv)
    return (o[0] if single_out else o), (jv[0] if single_out else jv)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy='reverse-mode'):
    _check_strict(strict)
    if strategy != 'reverse-mode':
        raise NotImplementedError("torch.autograd.functional.jacobian(strategy='forward-mode') is not supported by torchlike")
    single_in = isinstance(inputs, dispatch.Tensor)
    with enable_grad():
        ins = _prep(_tuple(inputs), create_graph)
        out = func(*ins)
        single_out = isinstance(out, dispatch.Tensor)
        outs = _tuple(out)
        rows = []
        for o in outs:
            flat = o.reshape(-1)
            per_in = [[] for _ in ins]
            for k in range(flat.numel()):
                if flat.requires_grad:
                    gs = _grad([flat[k]], ins, None, create_graph=create_graph, retain_graph=True,
                               allow_unused=True)
                else:
                    gs = (None,) * len(ins)
                for j, (x, g) in enumerate(zip(ins, gs)):
                    per_in[j].append(_ops.creation.zeros_like(x) if g is None else g)
            blocks = []
            for j, x in enumerate(ins):
                if per_in[j]:
                    b = _ops.joining.stack(per_in[j]).reshape(tuple(o.shape) + tuple(x.shape))
                else:
                    b = _ops.creation.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                blocks.append(b if create_graph else b.detach())
            rows.append(tuple(blocks))
    if single_out and single_in:
        return rows[0][0]
    if single_out:
        return rows[0]
    if single_in:
        return tuple(r[0] for r in rows)
    return tuple(rows)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy='reverse-mode'):
    single_in = isinstance(inputs, dispatch.Tensor)

    def jac(*xs):
        j = jacobian(func, xs if not single_in else xs[0], create_graph=True)
        return j

    return jacobian(jac, inputs, create_graph=create_graph, strict=strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    _check_strict(strict)
    single_in = isinstance(inputs, dispatch.Tensor)
    with enable_grad():
        ins = _prep(_tuple(inputs), create_graph)
        out = func(*ins)
        if not isinstance(out, dispatch.Tensor) or out.numel() != 1:
            raise RuntimeError("The function given to vhp should return a single Tensor with a single element")
        g = _grads_or_zeros((out,), ins, (_ops.creation.ones_like(out),), True)
        vs = _tuple(v) if v is not None else tuple(_ops.creation.ones_like(x) for x in ins)
        pairs = [(a, w) for a, w in zip(g, vs) if a.requires_grad]
        if pairs:
            h = _grad([p[0] for p in pairs], ins, [p[1] for p in pairs], create_graph=create_graph,
                      retain_graph=True, allow_unused=True)
            h = tuple(_ops.creation.zeros_like(x) if r is None else r for x, r in zip(ins, h))
        else:
            h = tuple(_ops.creation.zeros_like(x) for x in ins)
    o = out if create_graph else out.detach()
    h = tuple(x if create_graph else x.detach() for x in h)
    return o, (h[0] if single_in else h)


hvp = vhp   # the Hessian of a scalar function is symmetric
