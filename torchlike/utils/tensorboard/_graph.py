"""The GraphDef that SummaryWriter.add_graph writes, built from one recorded call of the model.

PyTorch traces the model with torch.jit and converts the inlined TorchScript graph. torchlike has no jit;
the model is run once (in eval mode, as torch does) with a dispatch mode pushed (Note [Dispatch modes] in
_engine/dispatch.py) that sees every op the call runs, and forward hooks on every submodule keep the
scope, so the graph reads as torch's does in TensorBoard:

* ``input/<arg>`` and ``output/output.<i>`` nodes of op ``IO Node`` with ``_output_shapes``;
* parameters and buffers as ``prim::GetAttr`` nodes under their module's scope, e.g.
  ``Net/Linear[fc1]/weight``;
* one node per op call, named ``<scope>/<op>.<k>`` (torch names it after the TorchScript value it makes),
  op type ``aten::<op>``, its inputs the nodes that made its tensor arguments, and ``_output_shapes``.

Differences from torch's graph, by construction: the ops are torchlike's registry ops, so a function
torchlike implements as several ops (or torch as several aten ops) shows a different number of nodes;
Python-number arguments are attributes of the op's call, not ``prim::Constant`` nodes; a tensor the model
creates itself (not an input, parameter or buffer) appears as a ``prim::Constant`` node; an in-place op
(``relu_``) is a node, but later uses of the modified tensor link to the node that made it before; and no
RunMetadata is written (torch's names only the device).
"""
import inspect
import warnings

from tensorboardX.proto.attr_value_pb2 import AttrValue
from tensorboardX.proto.graph_pb2 import GraphDef
from tensorboardX.proto.node_def_pb2 import NodeDef
from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboardX.proto.versions_pb2 import VersionDef

from ..._engine import dispatch
from ..._tensor import Tensor


def _attrs(shapes=None, s=''):
    attr = {'attr': AttrValue(s=s.encode('utf-8'))}
    if shapes is not None:
        attr['_output_shapes'] = AttrValue(list=AttrValue.ListValue(
            shape=[TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in sh]) for sh in shapes]))
    return attr


def _op_type(op):
    # registry keys carry a namespace ('nn.functional._linear') and a leading '_' on internal variants
    return 'aten::' + op.name.rsplit('.', 1)[-1].lstrip('_')


def _flat_tensors(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _flat_tensors(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _flat_tensors(v)]
    return []


class _Recorder:
    """Collects nodes while the model runs; ``made`` maps id(tensor) -> the node that produced it."""

    def __init__(self, model, args):
        self.nodes = []
        self.made = {}
        self.keep = []                 # every tensor seen, kept alive so an id is never reused
        self.scope = [type(model).__name__]
        self.counts = {}
        self.owned = {}                # id(param or buffer) -> node name, created on first use
        self.attrs = {}                # id(param or buffer) -> (module scope, attribute name)
        scopes = {'': type(model).__name__}
        for name, m in model.named_modules():
            if name:
                parent = scopes[name.rpartition('.')[0]]
                scopes[name] = f'{parent}/{type(m).__name__}[{name.rpartition(".")[2]}]'
            for pname, p in list(m.named_parameters(recurse=False)) + list(m.named_buffers(recurse=False)):
                if p is not None:
                    self.attrs.setdefault(id(p), (scopes[name], pname))
        self.module_scopes = {id(m): scopes[n] for n, m in model.named_modules()}

    def add(self, name, op, inputs, shapes=None, s=''):
        self.nodes.append(NodeDef(name=name, op=op, input=inputs, attr=_attrs(shapes, s)))

    def source(self, t):
        """The node name that provides tensor ``t`` to an op."""
        name = self.made.get(id(t))
        if name is not None:
            return name
        if id(t) in self.attrs:
            scope, pname = self.attrs[id(t)]
            name = f'{scope}/{pname}'
            self.add(name, 'prim::GetAttr', [], [tuple(t.shape)], f'{{ name :  {pname} }}')
        else:
            name = self._unique(f'{self.scope[-1]}/constant')
            self.add(name, 'prim::Constant', [], [tuple(t.shape)])
        self.made[id(t)] = name
        self.keep.append(t)
        return name

    def _unique(self, base):
        k = self.counts.get(base, 0)
        self.counts[base] = k + 1
        return f'{base}.{k}' if k else base

    def __call__(self, op, dyn, static, out, call):
        res = call(dyn, static, out)
        inputs = [self.source(t) for t in _flat_tensors(list(dyn))]
        outs = _flat_tensors(res)
        name = self._unique(f'{self.scope[-1]}/{op.name.rsplit(".", 1)[-1].lstrip("_")}')
        self.add(name, _op_type(op), inputs, [tuple(t.shape) for t in outs], '{}')
        for t in outs:
            self.made[id(t)] = name
        self.keep.extend(outs)
        self.keep.extend(_flat_tensors(list(dyn)))
        return res


def _arg_names(model, n):
    try:
        params = [p.name for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f'input.{i}' for i in range(n)]


def graph(model, args=None, verbose=False, use_strict_trace=True):
    """(GraphDef of one call ``model(*args)``): see the module docstring."""
    if args is None:
        args = ()
    elif isinstance(args, Tensor):
        args = (args,)
    else:
        args = tuple(args)
    rec = _Recorder(model, args)
    for name, t in zip(_arg_names(model, len(args)), args):
        for i, x in enumerate(_flat_tensors(t)):
            node = f'input/{name}' if i == 0 else f'input/{name}.{i}'
            rec.add(node, 'IO Node', [], [tuple(x.shape)])
            rec.made[id(x)] = node
            rec.keep.append(x)

    def pre(m, inp):
        rec.scope.append(rec.module_scopes[id(m)])

    def post(m, inp, out):
        rec.scope.pop()

    handles = []
    for _, m in model.named_modules():
        if m is not model:
            handles.append(m.register_forward_pre_hook(pre))
            handles.append(m.register_forward_hook(post))
    training = model.training
    model.train(False)
    dispatch.push_mode(rec)
    try:
        result = model(*args)
    finally:
        dispatch.pop_mode(rec)
        model.train(training)
        for h in handles:
            h.remove()
    if use_strict_trace:
        # torch.jit.trace(strict=True): a dict at the output is an error, a list a warning
        msg = ('Encountering a {} at the output of the tracer might cause the trace to be incorrect, this is only '
               'valid if the container structure does not change based on the module\'s inputs. Pass '
               'use_strict_trace=False to allow this behavior.')
        if _has(result, dict):
            print(msg.format('dict'))
            print('Error occurs, No graph saved')
            raise RuntimeError(msg.format('dict'))
        if _has(result, list):
            warnings.warn(msg.format('list'), UserWarning, stacklevel=3)
    for i, t in enumerate(_flat_tensors(result)):
        rec.add(f'output/output.{i + 1}', 'IO Node', [rec.source(t)], [tuple(t.shape)])
    if verbose:
        for n in rec.nodes:
            print(f'{n.name} = {n.op}({", ".join(n.input)})')
    return GraphDef(node=rec.nodes, versions=VersionDef(producer=22))


def _has(x, kind):
    if isinstance(x, kind):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has(v, kind) for v in x)
    if isinstance(x, dict):
        return any(_has(v, kind) for v in x.values())
    return False
