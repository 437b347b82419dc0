"""In-place view ops: ``t_``, ``transpose_``/``swapdims_``/``swapaxes_``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``.

They change a tensor's shape, not its values: the tensor takes on the metadata (array, view chain,
grad_fn) of the corresponding out-of-place view of itself, and its version counter moves, as in torch.
A root tensor that already has views cannot be reshaped in place here: its views are defined by
index chains from the root's array (Note [Views]), so they would silently change meaning; that case
raises NotImplementedError instead.
"""
from .._engine.registry import method
from . import shape


def _become(self, name, view_fn, *args):
    self._check_inplace()
    d = self.__dict__
    had_views = d.get('_has_views', False)
    if self._base is None and had_views:
        raise NotImplementedError(f"{name}() on a tensor that has views is not supported by torchlike; "
                                  f"use the out-of-place {name[:-1]}() instead")
    r = view_fn(self, *args)
    if self._base is None:
        d['_has_views'] = had_views     # r is not kept: it does not count as a view of self
        self._v = r._v
    else:
        self._view = r._view
        self._src = r._src
        self._v = r._v
    node = r._grad_fn
    if node is not None:
        # torch's in-place overloads have their own node names: TBackward0 -> TBackward1, SqueezeBackward1 ->
        # SqueezeBackward4 (squeeze's three out-of-place overloads come first)
        stem = node._name.rstrip('0123456789')
        node._name = stem + str(int(node._name[len(stem):]) + (3 if name == 'squeeze_' else 1))
        self._grad_fn = node
        self._output_nr = r._output_nr
        self.requires_grad = True
    self._vc_obj()[0] += 1
    return self


@method('t_')
def t_(self):
    return _become(self, 't_', shape.t)


@method('transpose_', aliases=('swapdims_',))
def transpose_(self, dim0, dim1):
    return _become(self, 'transpose_', shape.transpose, dim0, dim1)


@method('swapaxes_')
def swapaxes_(self, axis0, axis1):
    return _become(self, 'swapaxes_', shape.transpose, axis0, axis1)


@method('squeeze_')
def squeeze_(self, dim=None):
    return _become(self, 'squeeze_', shape.squeeze, dim)


@method('unsqueeze_')
def unsqueeze_(self, dim):
    return _become(self, 'unsqueeze_', shape.unsqueeze, dim)


@method('as_strided_')
def as_strided_(self, size, stride, storage_offset=None):
    return _become(self, 'as_strided_', shape.as_strided, size, stride, storage_offset)
