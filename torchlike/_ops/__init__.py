"""Op families. Each module registers its ops with ``@op``; importing this package loads them all.

Files by family (one job each): core (dtype/device moves, detach, clone), creation (factories);
elementwise: pointwise (the ``pw`` front end, unary math), arithmetic, comparison, special;
reductions: reduction, extrema, statistics, cumulative; shapes: shape (views), view_geometry,
joining, rearrange, tri_diag, inplace_views, view_scatter, view_dtype; indexing: indexing
(getitem/setitem), scatter_gather, index_masked; sorting; linalg (products); random (sampling ops
and Generator); torch.nn.functional: nn_activation, nn_loss, nn_ctc, nn_norm, nn_misc, nn_conv,
nn_pool, nn_sample, nn_attention, nn_rnn.
"""
import importlib
import pkgutil

from . import core, creation  # noqa: F401  (others import these)

for _m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _m.startswith('_'):
        importlib.import_module(f'{__name__}.{_m}')
