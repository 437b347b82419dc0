"""torch.autograd.profiler: the profiler's engine-level API (``profile``, ``record_function``, ...).

``torch.profiler.profile`` (torchlike/profiler/profiler.py) drives this ``profile`` once per recording
cycle, as PyTorch's does. Recording itself is torchlike/profiler/_collector.py (Note [Profiler
recording]); this module turns a finished recording into PyTorch's FunctionEvents and exports.
"""
import functools
import json
import os
import uuid
import warnings
from time import perf_counter_ns

from .profiler_util import (EventList, FunctionEvent, FunctionEventAvg, FormattedTimesMixin, Interval,  # noqa: F401
                            Kernel, StringTable, DeviceType, _rewrite_name)

__all__ = ['profile', 'record_function', 'emit_itt', 'emit_nvtx', 'load_nvprof', 'EnforceUnique', 'parse_nvprof_trace',
           'KinetoStepTracker', 'EventList', 'FunctionEvent', 'FunctionEventAvg', 'DeviceType']

_FILTERED_NAMES = ('profiler::_record_function_enter', 'profiler::_record_function_enter_new',
                   'profiler::_record_function_exit', 'aten::is_leaf', 'aten::output_nr', 'aten::_version')


def _filter_stack_entry(entry):
    # PyTorch drops the frames of its own backward() entry points from recorded stacks
    filtered = [('autograd/__init__', '_make_grads'), ('autograd/__init__', 'backward'), ('torch/tensor', 'backward')]
    return all(not (a in entry and b in entry) for a, b in filtered)


class _ProfilerStats:
    def __init__(self):
        self.profiling_window_duration_sec = 0
        self.number_of_events = 0
        self.profiler_prepare_call_duration_us = 0
        self.profiler_enable_call_duration_us = 0
        self.profiler_disable_call_duration_us = 0
        self.parse_kineto_call_duration_us = 0
        self.function_events_build_tree_call_duration_us = 0


def _cuda_available():
    from .. import cuda
    return cuda.is_available()


class profile:
    """Context manager that records op timings and holds the results (PyTorch's legacy profiler API).

    ``use_device='cuda'`` on a JAX GPU backend also records an XLA device trace with
    ``jax.profiler`` into ``device_trace_dir`` (TensorBoard's profile-plugin layout, viewable in
    Perfetto / TensorBoard); per-op device times are not split out of it, so the table has no CUDA
    columns. Without a GPU it warns and profiles the CPU only, as PyTorch does.
    ``with_modules`` has effect only for TorchScript models in PyTorch, and torchlike has none.
    ``profile_memory`` counts the bytes of each op's outputs (allocations); frees are not tracked.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None, activity_filters=None):
        self.enabled = enabled
        if not enabled:
            return
        if experimental_config is not None:
            raise NotImplementedError('torchlike profiler: experimental_config (Kineto options) is not supported')
        if activity_filters:
            raise NotImplementedError('torchlike profiler: per-activity filters (activity_filters) are not supported')
        self.use_cuda = use_cuda
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` "
                          "instead.", FutureWarning, stacklevel=2)
            self.use_device = 'cuda'
        else:
            self.use_device = use_device
        self._function_events = None
        self._old_function_events = None
        self._needs_processing = False
        self.entered = False
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.experimental_config = None
        self.kineto_results = None
        self.profiling_start_time_ns = 0
        self.profiling_end_time_ns = 0
        self._stats = _ProfilerStats()
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.trace_id = ''
        self.device_trace_dir = None
        self._session = None
        self._device_tracing = False
        if not use_cpu:
            if not use_kineto:
                raise AssertionError('Device-only events supported only with Kineto (use_kineto=True)')
            raise NotImplementedError('torchlike profiler: use_cpu=False (device-only profiling) is not supported')
        if self.use_device is not None:
            if self.use_device not in ('cuda', 'xpu', 'mtia', 'hpu'):
                warnings.warn(f'The {self.use_device} is not a valid device option.', stacklevel=2)
                self.use_device = None
            if self.use_device == 'cuda' and not _cuda_available():
                warnings.warn('CUDA is not available, disabling CUDA profiling', stacklevel=2)
                self.use_cuda = False
                self.use_device = None
            if self.use_device in ('xpu', 'hpu'):
                warnings.warn(f'{self.use_device.upper()} is not available, disabling {self.use_device.upper()} '
                              'profiling', stacklevel=2)
                self.use_device = None
            if self.use_device == 'mtia':
                raise AssertionError('Legacy MTIA profiling is not supported. Requires use_kineto=True on MTIA '
                                     'devices.')
        if post_processing_timeout_s is not None and post_processing_timeout_s < 0:
            raise ValueError('post_processing_timeout_s must be non-negative')

    def default_trace_id(self):
        return f'{uuid.uuid4().int:032X}'

    def create_trace_id(self):
        if self.custom_trace_id_callback:
            return self.custom_trace_id_callback()
        return self.default_trace_id()

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError('Profiler context manager is not reentrant')
        self._prepare_trace()
        self._start_trace()
        return self

    def _prepare_trace(self):
        self.entered = True
        t0 = perf_counter_ns()
        self.trace_id = self.create_trace_id()
        self._session = _collector.Session(self.record_shapes, self.with_stack, self.with_flops,
                                           self.profile_memory)
        self._stats.profiler_prepare_call_duration_us = int((perf_counter_ns() - t0) / 1000)

    def _start_trace(self):
        self.entered = True
        t0 = perf_counter_ns()
        _collector.start(self._session)
        if self.use_device == 'cuda':
            self._start_device_trace()
        t1 = perf_counter_ns()
        self._stats.profiler_enable_call_duration_us = int((t1 - t0) / 1000)
        self.profiling_start_time_ns = t1

    def _start_device_trace(self):
        import tempfile
        from .._engine.jaxrt import jax
        self.device_trace_dir = tempfile.mkdtemp(prefix='torchlike_xla_trace_')
        jax.profiler.start_trace(self.device_trace_dir)
        self._device_tracing = True

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        if self._function_events and self.acc_events:
            self._old_function_events = self._function_events
        self._function_events = None
        self._needs_processing = True
        t0 = perf_counter_ns()
        if self._device_tracing:
            from .._engine.jaxrt import jax
            jax.profiler.stop_trace()
            self._device_tracing = False
        _collector.stop(self._session)
        self.kineto_results = self._session
        self._stats.profiler_disable_call_duration_us = int((perf_counter_ns() - t0) / 1000)
        self.profiling_end_time_ns = t0
        self._stats.profiling_window_duration_sec = (self.profiling_end_time_ns - self.profiling_start_time_ns) / 1e9
        if self.acc_events:
            self._ensure_function_events()
        return False

    def __repr__(self):
        if self._needs_processing:
            self._ensure_function_events()
        if self._function_events is None:
            return '<unfinished torch.autograd.profile>'
        return repr(self._function_events)

    def __str__(self):
        if self._needs_processing:
            self._ensure_function_events()
        if self._function_events is None:
            return '<unfinished torch.autograd.profile>'
        return str(self._function_events)

    def _ensure_function_events(self):
        if self._function_events is not None:
            return
        self._needs_processing = False
        t0 = perf_counter_ns()
        parsed = self._parse_results(self.kineto_results) if self.kineto_results else []
        self._stats.parse_kineto_call_duration_us = int((perf_counter_ns() - t0) / 1000)
        self._function_events = EventList(parsed, use_device=self.use_device, profile_memory=self.profile_memory,
                                          with_flops=self.with_flops)
        self._function_events._build_tree()
        self._stats.number_of_events = len(self._function_events)
        if self._old_function_events and self.acc_events:
            for evt in self._old_function_events:
                self._function_events.append(evt)
            self._old_function_events = None

    def _parse_results(self, session):
        """The session's raw events as FunctionEvents (times relative to the recording's start, in us);
        stops early, keeping what it has, after ``post_processing_timeout_s``."""
        deadline = None
        if self.post_processing_timeout_s is not None:
            deadline = perf_counter_ns() + int(self.post_processing_timeout_s * 1e9)
        base = session.start_ns
        out = []
        for i, r in enumerate(session.events, 1):
            if deadline is not None and perf_counter_ns() > deadline:
                warnings.warn('Profiler post-processing timed out; returning the events processed so far',
                              stacklevel=3)
                break
            if r.name in _FILTERED_NAMES:
                continue
            end = r.end_ns or session.end_ns        # a range still open when recording stopped ends there
            out.append(FunctionEvent(
                id=i, name=_rewrite_name(r.name, with_wildcard=True), overload_name='',
                trace_name=_rewrite_name(r.name), thread=r.thread, start_us=(r.start_ns - base) / 1000,
                end_us=(end - base) / 1000, fwd_thread=r.thread, input_shapes=r.input_shapes,
                concrete_inputs=r.concrete_inputs, kwinputs={},
                stack=[e for e in r.stack if _filter_stack_entry(e)], scope=r.scope, use_device=self.use_device,
                cpu_memory_usage=r.cpu_mem, device_memory_usage=r.dev_mem, sequence_nr=r.seq, flops=r.flops,
                is_user_annotation=r.user))
        return out

    @property
    def function_events(self):
        if self._function_events is None or self._needs_processing:
            self._ensure_function_events()
        return self._function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        self._ensure_function_events()
        return self._function_events.table(sort_by=sort_by, row_limit=row_limit,
                                           max_src_column_width=max_src_column_width,
                                           max_name_column_width=max_name_column_width,
                                           max_shapes_column_width=max_shapes_column_width, header=header,
                                           top_level_events_only=top_level_events_only)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path, metadata=None, use_python_export=False):
        """Write the recording as a Chrome / Perfetto trace (Kineto's JSON layout: an object whose
        ``traceEvents`` holds one complete 'X' event per row)."""
        self._ensure_function_events()
        _write_trace(self, path, metadata or {})

    def export_stacks(self, path, metric='self_cpu_time_total'):
        self._ensure_function_events()
        if not self.with_stack:
            raise AssertionError('export_stacks() requires with_stack=True')
        return self._function_events.export_stacks(path, metric)

    def toggle_collection_dynamic(self, enabled, activities):
        """Pause / resume recording of ops (CPU activity) without ending the session."""
        from ..profiler.profiler import ProfilerActivity
        acts = set(activities)
        if ProfilerActivity.CPU in acts and self._session is not None:
            self._session.collecting = bool(enabled)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._ensure_function_events()
        return self._function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    key_averages.__doc__ = EventList.key_averages.__doc__

    def total_average(self):
        self._ensure_function_events()
        return self._function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """Total CPU time: the sum of every event's self time."""
        self._ensure_function_events()
        return self._function_events.self_cpu_time_total


def _write_trace(prof, path, metadata):
    s = prof.kineto_results
    pid = os.getpid()
    wall0 = s.wall_start_ns if s is not None else 0
    meta = {'schemaVersion': 1, 'deviceProperties': [], 'trace_id': prof.trace_id}
    for k, v in metadata.items():
        meta[k] = json.loads(v) if isinstance(v, str) else v
    events = []
    if s is not None:
        tids = sorted({r.thread for r in s.events} | {s.thread})
        events.append({'ph': 'M', 'name': 'process_name', 'ts': wall0 / 1000, 'pid': pid, 'tid': 0,
                       'args': {'name': 'python'}})
        events.append({'ph': 'M', 'name': 'process_labels', 'ts': wall0 / 1000, 'pid': pid, 'tid': 0,
                       'args': {'labels': 'CPU'}})
        for t in tids:
            events.append({'ph': 'M', 'name': 'thread_name', 'ts': wall0 / 1000, 'pid': pid, 'tid': t,
                           'args': {'name': f'thread {t} (python)'}})
        for i, r in enumerate(s.events):
            end = r.end_ns or s.end_ns
            args = {'External id': i + 1, 'Ev Idx': i}
            if r.cat == 'cpu_op' and prof.record_shapes:
                args['Input Dims'] = r.input_shapes
                args['Concrete Inputs'] = ['' if c is None else str(c) for c in r.concrete_inputs]
            if prof.with_flops and r.flops:
                args['flops'] = r.flops
            events.append({'ph': 'X', 'cat': r.cat, 'name': r.name, 'pid': pid, 'tid': r.thread,
                           'ts': (wall0 + r.start_ns - s.start_ns) / 1000, 'dur': (end - r.start_ns) / 1000,
                           'args': args})
    doc = dict(meta)
    doc.update({'displayTimeUnit': 'ms', 'baseTimeNanoseconds': wall0 - wall0 % 1000000000,
                'traceEvents': events, 'traceName': path})
    if prof.device_trace_dir:
        doc['deviceTraceDir'] = prof.device_trace_dir
    with open(path, 'w') as f:
        json.dump(doc, f)


class record_function:
    """Label a block (context manager) or every call of a function (decorator) as a profiler row.

    ``args`` is an optional string PyTorch attaches to the range; torchlike keeps it as the event's
    ``concrete_inputs``."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self.record = None

    def __enter__(self):
        self.record = _collector.begin_range(self.name)
        if self.record is not None and self.args is not None:
            self.record[1].concrete_inputs = [self.args]
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return
        rec, self.record = self.record, None
        _collector.end_range(rec)

    def __call__(self, func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return func(*args, **kwargs)
        return wrapped

    def _call_end_callbacks_on_future(self, fut):
        raise NotImplementedError('record_function._call_end_callbacks_on_future: torchlike has no torch.futures')


class emit_nvtx:
    """NVTX ranges for every op (for nvprof / Nsight). XLA launches fused programs, not ATen kernels,
    so there are no per-op CUDA ranges to emit: only ``enabled=False`` (a no-op) is supported."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes
        if enabled:
            raise NotImplementedError('torch.autograd.profiler.emit_nvtx: NVTX ranges are not supported by '
                                      'torchlike (use torch.profiler.profile; on a GPU it records an XLA trace)')

    def __enter__(self):
        if self.entered:
            raise RuntimeError('NVTX annotation context manager is not reentrant')
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.entered = False
        return False


class emit_itt(emit_nvtx):
    """ITT ranges for VTune: as emit_nvtx, only ``enabled=False`` is supported."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes
        if enabled:
            raise NotImplementedError('torch.autograd.profiler.emit_itt: ITT ranges are not supported by torchlike')

    def __enter__(self):
        if self.entered:
            raise RuntimeError('ITT annotation context manager is not reentrant')
        self.entered = True
        return self


def load_nvprof(path):
    raise NotImplementedError('torch.autograd.profiler.load_nvprof: nvprof traces are not supported by torchlike')


def parse_nvprof_trace(path):
    raise NotImplementedError('torch.autograd.profiler.parse_nvprof_trace: nvprof traces are not supported by '
                              'torchlike')


class EnforceUnique:
    """Raises if a key is seen twice."""

    def __init__(self):
        self.seen = set()

    def see(self, *key):
        if key in self.seen:
            raise RuntimeError('duplicate key: ' + str(key))
        self.seen.add(key)


class KinetoStepTracker:
    """Global step count shared by requesters (the profiler's step(), optimizer hooks): the count is the
    maximum any requester reached, as in PyTorch."""
    _current_step = 0
    _step_dict = {}

    @classmethod
    def init_step_count(cls, requester):
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester):
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester):
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls):
        return cls._current_step


# last: torchlike.profiler imports this module's names while it initialises
from ..profiler import _collector  # noqa: E402
