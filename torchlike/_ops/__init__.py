"""Op families. Each module registers its ops with ``@op``; importing this package loads them all.

Files by family (one job each): core (dtype/device moves, detach, clone), creation (factories),
pointwise (unary/binary elementwise, comparisons, special functions), reduction, shape (views
and reshaping), indexing (getitem/setitem, gather/scatter family), sorting, linalg (products),
random (sampling ops and Generator).
"""
import importlib
import pkgutil

from . import core, creation  # noqa: F401  (others import these)

for _m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _m.startswith('_'):
        importlib.import_module(f'{__name__}.{_m}')
