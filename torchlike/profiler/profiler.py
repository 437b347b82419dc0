"""torch.profiler.profile, schedule, tensorboard_trace_handler: PyTorch's profiler front end.

The step / schedule state machine is PyTorch's (torch/profiler/profiler.py): each cycle prepares a
fresh ``torch.autograd.profiler.profile``, records the RECORD steps, and calls ``on_trace_ready`` at
the end of a cycle. What is recorded and how is Note [Profiler recording] (_collector.py).
"""
import enum
import gzip
import os
import shutil
import tempfile
import warnings
from functools import partial

from ..autograd import profiler as prof
from ..autograd.profiler_util import DeviceType  # noqa: F401  (torch.profiler.DeviceType)

__all__ = ['supported_activities', 'ProfilerAction', 'schedule', 'tensorboard_trace_handler', 'profile',
           'ProfilerActivity', 'ExecutionTraceObserver']
PROFILER_STEP_NAME = 'ProfilerStep'
_WARNINGS_SHOWN = set()


def _warn_once(msg, category=UserWarning, stacklevel=2):
    if msg not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(msg)
        warnings.warn(msg, category=category, stacklevel=stacklevel)


class ProfilerActivity(enum.Enum):
    """torch.profiler.ProfilerActivity."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5

    def __str__(self):
        return f'ProfilerActivity.{self.name}'

    def __repr__(self):
        return f'<ProfilerActivity.{self.name}: {self.value}>'


def supported_activities():
    """CPU always; CUDA when JAX's backend has GPUs (the device trace is then XLA's, via jax.profiler)."""
    acts = {ProfilerActivity.CPU}
    if prof._cuda_available():
        acts.add(ProfilerActivity.CUDA)
    return acts


def kineto_available():
    # torchlike's recorder stands in for Kineto: the Kineto-level API (schedules, traces) is available
    return True


def _parse_activities(activities):
    parsed, filters = set(), {}
    for item in activities:
        if isinstance(item, ProfilerActivity):
            if item in parsed:
                raise ValueError(f'Activity {item} specified more than once')
            parsed.add(item)
        elif isinstance(item, dict):
            for key, val in item.items():
                if key in parsed:
                    raise ValueError(f'Activity {key} specified more than once')
                parsed.add(key)
                filters[key] = set(val)
        else:
            raise TypeError(f'Expected ProfilerActivity or dict, got {type(item)}')
    return parsed, filters


class _KinetoProfile:
    """The recording-window half of ``profile``: prepare / start / stop a cycle, and read its results."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None):
        if activities is not None:
            self.activities, self.activity_filters = _parse_activities(activities)
        else:
            self.activities, self.activity_filters = supported_activities(), {}
        if experimental_config is not None:
            raise NotImplementedError('torch.profiler.profile(experimental_config=...): Kineto options are not '
                                      'supported by torchlike')
        if execution_trace_observer is not None:
            raise NotImplementedError('torch.profiler.profile(execution_trace_observer=...): execution traces are '
                                      'not supported by torchlike')
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = None
        self.execution_trace_observer = None
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.post_processing_timeout_s = post_processing_timeout_s
        self.profiler = None
        self.use_device = None
        if ProfilerActivity.CUDA in self.activities:
            self.use_device = 'cuda'
        elif ProfilerActivity.XPU in self.activities:
            self.use_device = 'xpu'
        elif ProfilerActivity.MTIA in self.activities:
            self.use_device = 'mtia'
        elif ProfilerActivity.HPU in self.activities:
            self.use_device = 'hpu'
        elif ProfilerActivity.PrivateUse1 in self.activities:
            raise NotImplementedError('torchlike profiler: ProfilerActivity.PrivateUse1 is not supported')
        self.preset_metadata = {}
        self._trace_metadata = {}

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        if self.profiler is not None and not self.acc_events:
            _warn_once('Warning: Profiler clears events at the end of each cycle. Only events from the current '
                       'cycle will be reported. To keep events across cycles, set acc_events=True.')
        if self.profiler is None or not self.acc_events:
            self.profiler = prof.profile(
                use_cpu=ProfilerActivity.CPU in self.activities, use_device=self.use_device,
                record_shapes=self.record_shapes, with_flops=self.with_flops, profile_memory=self.profile_memory,
                with_stack=self.with_stack, with_modules=self.with_modules, use_kineto=True,
                acc_events=self.acc_events, custom_trace_id_callback=self.custom_trace_id_callback,
                post_processing_timeout_s=self.post_processing_timeout_s,
                activity_filters=self.activity_filters or None)
        self.profiler._prepare_trace()

    def start_trace(self):
        if self.profiler is None:
            raise AssertionError('Profiler must be initialized before starting trace')
        self.profiler._start_trace()
        for flag in ('profile_memory', 'with_stack', 'record_shapes', 'with_modules', 'with_flops'):
            if getattr(self, flag):
                self.add_metadata_json(flag, '1')
        for k, v in self.preset_metadata.items():
            self.add_metadata_json(k, v)

    def stop_trace(self):
        if self.profiler is None:
            raise AssertionError('Profiler must be initialized before stopping trace')
        self.profiler.__exit__(None, None, None)

    def export_chrome_trace(self, path, use_python_export=False):
        """Write the last cycle's trace as Chrome / Perfetto JSON (gzipped when ``path`` ends in .gz)."""
        if self.profiler is None:
            raise AssertionError('Profiler must be initialized before exporting chrome trace')
        if path.endswith('.gz'):
            with tempfile.NamedTemporaryFile('w+b', suffix='.json', delete=False) as fp:
                tmp = fp.name
            try:
                self.profiler.export_chrome_trace(tmp, self._trace_metadata)
                with open(tmp, 'rb') as fin, gzip.open(path, 'wb') as fout:
                    shutil.copyfileobj(fin, fout)
            finally:
                os.unlink(tmp)
        else:
            self.profiler.export_chrome_trace(path, self._trace_metadata)

    def export_stacks(self, path, metric='self_cpu_time_total'):
        """Save stacks ('frame;frame;... value' lines, flamegraph input) to ``path``."""
        if self.profiler is None:
            raise AssertionError('Profiler must be initialized before exporting stacks')
        return self.profiler.export_stacks(path, metric)

    def toggle_collection_dynamic(self, enable, activities):
        if self.profiler is None:
            return
        self.profiler.toggle_collection_dynamic(enable, activities)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """Averages events, grouping them by operator name and (optionally) input shapes, stack and
        overload name."""
        if self.profiler is None:
            raise AssertionError('Profiler must be initialized before getting key averages')
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def events(self):
        """The unaggregated FunctionEvents of the last cycle."""
        if self.profiler is None:
            raise AssertionError('Profiler must be initialized before accessing events')
        return self.profiler.function_events

    def add_metadata(self, key, value):
        self._trace_metadata[key] = '"' + value.replace('"', '\\"') + '"'

    def add_metadata_json(self, key, value):
        self._trace_metadata[key] = value

    def preset_metadata_json(self, key, value):
        self.preset_metadata[key] = value

    def export_memory_timeline(self, path, device=None):
        raise NotImplementedError('torch.profiler.profile.export_memory_timeline is not supported by torchlike')


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (returned by a schedule)."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle, ``warmup`` and ``active``
    recorded steps, ``repeat`` times (0: until profiling ends); ``skip_first_wait`` drops the first wait."""
    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f'Step must be non-negative. Got {step}.')
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f'Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), '
            f'active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).')
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An ``on_trace_ready`` that writes each cycle's trace to ``dir_name`` as
    ``<worker>.<time_ns>.pt.trace.json[.gz]`` (worker defaults to '<hostname>_<pid>')."""
    import socket
    import time

    def handler_fn(p):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f'{socket.gethostname()}_{os.getpid()}'
        file_name = f'{worker_name}.{time.time_ns()}.pt.trace.json'
        if use_gzip:
            file_name += '.gz'
        p.export_chrome_trace(os.path.join(dir_name, file_name), use_python_export=use_python_export)
    return handler_fn


class profile(_KinetoProfile):
    """Profiler context manager (see torch.profiler.profile); ``schedule`` + ``step()`` choose the
    recorded steps and ``on_trace_ready`` receives the profiler at the end of each cycle."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        if activities is not None:
            acts = set()
            for item in activities:
                if isinstance(item, ProfilerActivity):
                    acts.add(item)
                elif isinstance(item, dict):
                    acts.update(item.keys())
        else:
            acts = supported_activities()
        if use_cuda is not None:
            warnings.warn('`use_cuda` is deprecated, use `activities` argument instead', FutureWarning,
                          stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            elif ProfilerActivity.CUDA in acts:
                acts.remove(ProfilerActivity.CUDA)
            activities = list(acts)
        if len(acts) == 0:
            raise AssertionError('No valid profiler activities found')
        super().__init__(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config, execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events, custom_trace_id_callback=custom_trace_id_callback,
                         post_processing_timeout_s=post_processing_timeout_s)
        if schedule:
            self.schedule = schedule
            self.record_steps = True        # ProfilerStep#N rows mark the steps
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        action = self.schedule(self.step_num)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError('ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be '
                             'returned by a user-provided schedule')
        self.current_action = action
        A = ProfilerAction
        # (previous action, current action) -> what to do; PyTorch's table (DEVICE_STOPPED never occurs:
        # torchlike's recorder cannot stop early)
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [partial(warnings.warn, 'Incorrect schedule: WARMUP followed by NONE'),
                                 self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial(warnings.warn, 'Incorrect schedule: RECORD followed by NONE'),
                                 self.stop_trace],
            (A.RECORD, A.WARMUP): [partial(warnings.warn, 'Incorrect schedule: RECORD followed by WARMUP'),
                                   self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                            self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                                     self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }
        prof.KinetoStepTracker.init_step_count(PROFILER_STEP_NAME)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        prof.KinetoStepTracker.erase_step_count(PROFILER_STEP_NAME)

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function('ProfilerStep#' + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Signals the profiler that the next profiling step has started."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        action = self.schedule(self.step_num + 1)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError('ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be '
                             'returned by a user-provided schedule')
        self.step_num += 1
        self.current_action = action
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = prof.record_function('ProfilerStep#' + str(self.step_num))
            self.step_rec_fn.__enter__()

    def set_custom_trace_id_callback(self, callback):
        self.custom_trace_id_callback = callback

    def get_trace_id(self):
        if self.profiler is None:
            return None
        return self.profiler.trace_id

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action)) or ():
            action()

    def _stats(self):
        if self.profiler is None:
            return None
        return self.profiler._stats


class ExecutionTraceObserver:
    """PyTorch's execution-trace (graph) observer: not supported by torchlike."""

    def __init__(self):
        raise NotImplementedError('torch.profiler.ExecutionTraceObserver is not supported by torchlike')
