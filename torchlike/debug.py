"""torchlike.debug: what the lazy engine did (cf. torch_xla.debug.metrics).

``metrics()`` returns the counters of Note [Lazy execution] (torchlike/_engine/lazy.py): programs
compiled, cache hits, syncs, ops recorded, nodes run, seconds spent compiling and executing.
"""
from ._engine.lazy import metrics, reset_metrics

__all__ = ['metrics', 'metrics_report', 'reset_metrics']


def metrics_report():
    """The counters as a printable report, one per line."""
    m = metrics()
    return '\n'.join(f'{k}: {v:.4f}' if isinstance(v, float) else f'{k}: {v}' for k, v in m.items())
