"""torch.nn.utils.stateless: run a module with some of its parameters/buffers swapped for given tensors.

``_reparametrize_module`` puts the given tensors into the module's ``_parameters``/``_buffers`` dicts
(bypassing Module.__setattr__, so a plain Tensor may stand in for a Parameter) for the duration of
a ``with`` block and restores the originals after, even if the call raised. Gradients therefore flow
to the given tensors, not to the module's own parameters. ``torch.func.functional_call`` is this
file's ``_functional_call``; the lazy/compile engine lifts module state with it.
"""
import contextlib
import warnings

from ..._tensor import Tensor

__all__ = ['functional_call']

_MISSING = object()


def _get_submodule(module, name):
    prefix, _, attr = name.rpartition('.')
    return (module.get_submodule(prefix) if prefix else module), attr


def _swap_tensor(module, name, tensor, allow_missing=False):
    """Put ``tensor`` at attribute ``name`` of ``module`` (``_MISSING``: remove it); returns the previous one."""
    if tensor is not _MISSING and not isinstance(tensor, Tensor):
        raise TypeError(f'{tensor} is not an instance of torch.Tensor')
    if name in module._parameters:
        orig = module._parameters[name]
        if tensor is not _MISSING:
            module._parameters[name] = tensor
        else:
            del module._parameters[name]
    elif name in module._buffers:
        orig = module._buffers[name]
        if tensor is not _MISSING:
            module._buffers[name] = tensor
        else:
            del module._buffers[name]
    else:
        if hasattr(module, name):
            orig = getattr(module, name)
        else:
            if not allow_missing:
                raise AttributeError(f'{module._get_name()} has no attribute `{name}`')
            orig = _MISSING
        if orig is not _MISSING and not isinstance(orig, Tensor):
            raise TypeError(f'attribute `{name}`: {orig} is not an instance of torch.Tensor')
        if tensor is not _MISSING:
            setattr(module, name, tensor)
        elif hasattr(module, name):
            delattr(module, name)
    return orig


def _swap_tensors_dict(module, named_tensors, allow_missing=False):
    orig, missing = {}, []
    try:
        for name, tensor in named_tensors.items():
            sub, attr = _get_submodule(module, name)
            orig[name] = _swap_tensor(sub, attr, tensor, allow_missing=True)
            if orig[name] is _MISSING:
                missing.append(name)
    except Exception:
        for name, tensor in orig.items():   # put back what was already swapped
            sub, attr = _get_submodule(module, name)
            _swap_tensor(sub, attr, tensor, allow_missing=True)
        raise
    if missing and not allow_missing:
        raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing))}.")
    return orig, missing


def _untie_named_tensors_map(module, parameters_and_buffers):
    """Extend the given mapping to every name tied to a given name (a shared Parameter has several names)."""
    all_named = {}
    all_named.update(module.named_parameters(remove_duplicate=False))
    all_named.update(module.named_buffers(remove_duplicate=False))
    by_tensor = {}
    for name, tensor in all_named.items():
        by_tensor.setdefault(tensor, set()).add(name)
    tied_names_map = {}
    for names in by_tensor.values():
        if len(names) > 1:
            for n in names:
                tied_names_map[n] = names
    given_names = set(parameters_and_buffers.keys())
    given_tied = {n for n in given_names if n in tied_names_map}
    for given_name in given_tied:
        tied_names = tied_names_map[given_name]
        if (len(tied_names.intersection(given_tied)) > 1
                and len({id(parameters_and_buffers[n]) for n in tied_names if n in parameters_and_buffers}) != 1):
            raise ValueError(f'functional_call got multiple values for keys {sorted(tied_names)}, which are tied. '
                             'Consider using tie_weights=False')
    untied = parameters_and_buffers.copy()
    for given_name in given_tied:
        for tied_name in tied_names_map[given_name]:
            untied[tied_name] = parameters_and_buffers[given_name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False, stack_weights=False):
    untied = _untie_named_tensors_map(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        keys = set(untied)
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing_keys, unexpected_keys = sorted(valid - keys), sorted(keys - valid)
        error_msgs = []
        if unexpected_keys:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected_keys))}.")
        if missing_keys:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        if error_msgs:
            raise RuntimeError('Error(s) in reparametrizing for {}:\n\t{}'.format(
                module._get_name(), '\n\t'.join(error_msgs)))
    orig = {}
    try:
        orig, _ = _swap_tensors_dict(module, untied, allow_missing=True)
        yield
    finally:
        if stack_weights:
            orig = dict(reversed(orig.items()))
        new, _ = _swap_tensors_dict(module, orig, allow_missing=True)
        # what forward wrote into the module (e.g. a rebound buffer) is reported back to the caller's dict
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Deprecated: use ``torch.func.functional_call`` (same behaviour)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a "
                  "future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
