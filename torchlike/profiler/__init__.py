"""torch.profiler: per-op timing tables, schedules, Chrome traces and stacks (PyTorch's API).

Eager ops are timed one by one through the dispatch seam (Note [Profiler recording], _collector.py)
and named as PyTorch names them (Note [Profiler names], _names.py); compiled programs that bypass
dispatch (the lazy executor's graphs) report themselves through ``_collector.record_program``.
On a JAX GPU backend, ``ProfilerActivity.CUDA`` also records XLA's device trace with jax.profiler.
"""
from ..autograd.profiler import record_function, KinetoStepTracker  # noqa: F401
from ..autograd.profiler_util import DeviceType
from .profiler import (_KinetoProfile, ExecutionTraceObserver, profile, ProfilerAction, ProfilerActivity,  # noqa: F401
                       schedule, supported_activities, tensorboard_trace_handler, kineto_available)

__all__ = ['profile', 'schedule', 'supported_activities', 'tensorboard_trace_handler', 'ProfilerAction',
           'ProfilerActivity', 'kineto_available', 'DeviceType', 'record_function', 'ExecutionTraceObserver']
