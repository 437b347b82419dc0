"""Registry op -> the row name PyTorch's profiler prints for the same call (one table).

Note [Profiler names]
A forward op is named ``aten::<name>`` with the registry's leading underscores dropped
(``_sum`` -> ``aten::sum``), unless ``_ATEN`` below says otherwise; an op with a static ``fname``
attribute (convolutions, pools) is named after it (``aten::conv2d``, ``aten::max_pool2d``);
namespaced ops take torch's prefixed aten names (``special.ndtr`` -> ``aten::special_ndtr``,
``linalg`` ops already carry ``linalg_``). In-place calls get torch's trailing underscore
(``aten::add_``). A derived backward op is named after its autograd node, as PyTorch's engine
rows are: ``autograd::engine::evaluate_function: AddmmBackward0`` around ``AddmmBackward0``.

torchlike's ops are coarser than ATen's: one registry op is one compiled XLA program, so where
PyTorch prints a parent and the ATen calls it decomposes into (``aten::linear`` -> ``aten::t``,
``aten::addmm``; ``aten::conv2d`` -> ``aten::convolution`` -> ``aten::_convolution`` ...), torchlike
prints only the op the user called. Composite ``@public`` functions (``torch.matmul``,
``nn.Flatten``) are not ops: their inner ops are the rows (``aten::mm``, ``aten::view``).
"""
import re

from .._engine import registry

# registry name -> torch's name (without 'aten::') where dropping underscores is not it
_ATEN = {
    '_linear': 'linear', '_getitem_select': 'select', '_getitem_select_dyn': 'select',
    '_getitem_slice': 'slice', '_getitem_slice_dyn': 'slice', '_getitem_alias': 'alias',
    '_getitem_alias_dyn': 'alias', '_getitem_unsqueeze': 'unsqueeze', '_getitem_unsqueeze_dyn': 'unsqueeze',
    '_index': 'index', '_index_put': 'index_put_', '_index_put_masked': 'index_put_', '_setitem_basic': 'copy_',
    '_copy': 'copy_', '_copy_slices': 'copy_', '_copy_reshaped': 'copy_', '_to_dtype': 'to', '_to_device': 'to',
    '_sum_dim': 'sum', '_mean_dim': 'mean', '_max_all': 'max', '_max_dim': 'max', '_min_all': 'min',
    '_min_dim': 'min', '_median_all': 'median', '_median_dim': 'median', '_nanmedian_all': 'nanmedian',
    '_nanmedian_dim': 'nanmedian', '_prod_dim': 'prod', '_squeeze_dim': 'squeeze', '_squeeze_dims': 'squeeze',
    '_sort_stable': 'sort', '_split_with_sizes': 'split_with_sizes', '_matmul_batched': 'matmul',
    '_matmul_batched_t': 'matmul', '_matmul_dot': 'matmul', '_matmul_fold': 'matmul', '_matmul_mv': 'matmul',
    '_matmul_vm': 'matmul', '_fill_scalar': 'fill', '_fill_scalar_': 'fill_', '_fill_tensor': 'fill',
    '_fill_tensor_': 'fill_', '_zero': 'zero_', '_uniform_fill': 'uniform_', '_normal_fill': 'normal_',
    '_random_fill': 'random_', '_random_fill_to': 'random_', '_random_fill_from_to': 'random_',
    '_exponential_fill': 'exponential_', '_geometric_fill': 'geometric_', '_cauchy_fill': 'cauchy_',
    '_log_normal_fill': 'log_normal_', '_bernoulli_fill_float': 'bernoulli_', '_bernoulli_fill_tensor': 'bernoulli_',
    '_bernoulli_p': 'bernoulli', '_bernoulli_tensor': 'bernoulli', '_normal_float_tensor': 'normal',
    '_normal_tensor_float': 'normal', '_normal_tensor_tensor': 'normal', '_rand_perm': 'randperm',
    '_trunc_normal_fill': 'normal_', '_scatter_src': 'scatter', '_scatter_value': 'scatter',
    '_index_fill_scalar': 'index_fill', '_index_fill_tensor': 'index_fill', '_masked_fill_scalar': 'masked_fill',
    '_masked_fill_tensor': 'masked_fill', '_repeat_interleave_int': 'repeat_interleave',
    '_repeat_interleave_t': 'repeat_interleave', '_div_mode': 'div', '_pow_base': 'pow', '_maximum_of': 'maximum',
    '_minimum_of': 'minimum', '_pad_CopySlices': 'constant_pad_nd', '_view_dtype': 'view', '_view_replay': 'view',
    '_flat_nonzero': 'nonzero', '_nonzero_tuple': 'nonzero',
    '_rnn': 'rnn', '_rnn_cell': 'rnn_cell', '_scaled_dot_product_attention_math': 'scaled_dot_product_attention',
    '_prelu_kernel': '_prelu_kernel', '_cross_entropy_probs': 'cross_entropy_loss',
}
# _rand_draw's static ``sampler`` -> torch's factory name
_SAMPLER = {'uniform': 'rand', 'normal': 'randn', 'int': 'randint'}
_CAMEL = re.compile(r'(?<=[a-z0-9])(?=[A-Z])')
_ENGINE = 'autograd::engine::evaluate_function: '


def _snake(camel):
    # 'ReflectionPad2D' -> 'reflection_pad2d' (digits stay glued to the word before them)
    return _CAMEL.sub('_', camel).lower().replace('_2d', '2d').replace('_1d', '1d').replace('_3d', '3d')


def _key_of(op):
    for k, o in registry.REGISTRY.items():
        if o is op:
            return k
    return op.name


_FORWARD_OF = {}     # backward op -> forward op, found through each forward op's bwd_cache


def is_backward(op):
    """True for the VJP ops autograd derives (autograd.backward_op), which run a node's backward."""
    return op.static_names == ('key', 'diff_idx', 'out_idx') and op.name.endswith('_backward')


def node_name(bop, static):
    """The grad_fn name of the node whose backward ``bop`` runs with ``static`` (as autograd.record names
    it). Variants of an op (pointwise._variant) are not in the registry; their derived op's own name
    (``XBackwardBackward0``, derived from the node name) gives the node's."""
    f = _FORWARD_OF.get(bop, False)
    if f is False:
        f = None
        for o in registry.REGISTRY.values():
            if o.bwd_cache.get('op') is bop or o.bwd_cache.get('residual_op') is bop:
                f = o
                break
        _FORWARD_OF[bop] = f
    if f is not None:
        n = f.node_name
        if type(n) is not str:
            key = getattr(static[0], 'key', static[0])      # (a saved-residuals entry carries the forward's key)
            n = n(**dict(zip(f.static_names, key[0])))
        return n
    return bop.node_name.replace('BackwardBackward0', 'Backward0')


_FIXED = {}          # op -> name, for ops whose name does not depend on their static attributes


def forward_name(op, static):
    n = _FIXED.get(op)
    if n is not None:
        return n
    names = op.static_names
    if 'fname' in names:
        return 'aten::' + static[names.index('fname')]
    if op.name == '_rand_draw':
        return 'aten::' + _SAMPLER.get(static[names.index('sampler')], 'rand')
    key = _key_of(op)
    ns, _, base = key.rpartition('.')
    if base in _ATEN:
        n = _ATEN[base]
    elif base.startswith(('_pad_', '_upsample_', '_grid_sampler_')):
        # named after the node they record, e.g. _pad_ReflectionPad2DBackward0 -> reflection_pad2d
        n = _snake(base.split('_')[-1].replace('Backward0', ''))
        if n.startswith('grid_sampler'):
            n = n.replace('sampler', 'sampler_')
    else:
        n = base.lstrip('_')
        if ns in ('special', 'fft') and not n.startswith(ns + '_'):
            n = ns + '_' + n
    n = 'aten::' + n
    _FIXED[op] = n
    return n
