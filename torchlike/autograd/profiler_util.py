"""Profiler results: events, their aggregation and PyTorch's table / trace / stack formats.

These classes are PyTorch's (torch/autograd/profiler_util.py) re-implemented field for field, so code
that reads ``prof.events()`` or ``prof.key_averages()`` (``evt.key``, ``evt.count``, ``evt.cpu_time_total``,
``evt.input_shapes``, ``evt.cpu_children`` ...) and the printed table behave as under PyTorch. The
recording side lives in torchlike/profiler/_collector.py; this file only interprets finished events.
Times are microseconds (floats), as in PyTorch.
"""
import enum
import itertools
import math
from collections import defaultdict, namedtuple
from operator import attrgetter

__all__ = ['EventList', 'FormattedTimesMixin', 'Interval', 'Kernel', 'FunctionEvent', 'FunctionEventAvg',
           'StringTable', 'DeviceType']


class DeviceType(enum.IntEnum):
    """torch.autograd.DeviceType (c10::DeviceType values)."""
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20

    def __str__(self):
        return f'DeviceType.{self.name}'


_DEVICE_TYPES = (DeviceType.CUDA, DeviceType.PrivateUse1, DeviceType.MTIA, DeviceType.HPU, DeviceType.XPU)


class EventList(list):
    """A list of FunctionEvent / FunctionEventAvg with PyTorch's analysis helpers."""

    def __init__(self, *args, **kwargs):
        use_device = kwargs.pop('use_device', None)
        profile_memory = kwargs.pop('profile_memory', False)
        with_flops = kwargs.pop('with_flops', False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._tree_built = False
        self._with_flops = with_flops

    def _build_tree(self):
        self._populate_cpu_children()
        self._remove_dup_nodes()
        self._tree_built = True

    def __str__(self):
        return self.table()

    def _remove_dup_nodes(self):
        # an event whose only child has its own name is the same call seen twice: keep the parent
        while True:
            to_delete = set()
            for idx in range(len(self)):
                e = self[idx]
                if e.cpu_parent is not None and e.cpu_parent.name == e.name and len(e.cpu_parent.cpu_children) == 1:
                    e.cpu_parent.cpu_children = e.cpu_children
                    e.cpu_parent.kernels = e.kernels
                    for ch in e.cpu_children:
                        ch.cpu_parent = e.cpu_parent
                    to_delete.add(idx)
            if not to_delete:
                break
            new = [ev for i, ev in enumerate(self) if i not in to_delete]
            self.clear()
            self.extend(new)

    def _populate_cpu_children(self):
        """One event is a child of another if its [start, end) lies inside the other's, per thread."""
        sync = [e for e in self if not e.is_async and e.device_type == DeviceType.CPU]
        events = sorted(sync, key=attrgetter('thread'))
        for _, thread_events in itertools.groupby(events, key=lambda e: (e.thread, e.node_id)):
            ordered = sorted(thread_events, key=lambda e: [e.time_range.start, -e.time_range.end])
            current = []
            for event in ordered:
                while current:
                    parent = current[-1]
                    if event.time_range.start >= parent.time_range.end or event.time_range.end > parent.time_range.end:
                        current.pop()
                    else:
                        parent.append_cpu_child(event)
                        event.set_cpu_parent(parent)
                        break
                current.append(event)

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The events as PyTorch's text table (same columns, widths and footer)."""
        return _build_table(self, sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, header=header,
                           profile_memory=self._profile_memory, with_flops=self._with_flops,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (a JSON array of complete 'X' events), as EventList does."""
        import json
        out = []
        for evt in self:
            if evt.trace_name is None:
                continue
            out.append({'name': evt.trace_name, 'ph': 'X', 'ts': evt.time_range.start,
                        'dur': evt.time_range.elapsed_us(), 'tid': evt.thread, 'pid': 'CPU functions', 'args': {}})
        with open(path, 'w') as f:
            json.dump(out, f)

    def supported_export_stacks_metrics(self):
        return ['self_cpu_time_total', 'self_cuda_time_total', 'self_xpu_time_total',
                'self_privateuse1_time_total']

    def export_stacks(self, path, metric):
        """One line per event with a stack: frames outermost first joined by ';', then the metric (us)."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError('metric should be one of: ' + str(self.supported_export_stacks_metrics()))
        translate = str.maketrans(' ;\t\n', '____')
        attr = metric.replace('cuda', 'device').replace('xpu', 'device').replace('privateuse1', 'device')
        with open(path, 'w') as f:
            for evt in self:
                if evt.stack and len(evt.stack) > 0:
                    value = getattr(evt, attr)
                    if int(value) > 0:
                        s = ';'.join(entry.translate(translate) for entry in reversed(evt.stack))
                        f.write(s + ' ' + str(int(value)) + '\n')

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """Average the events over (name[, input shapes][, top stack frames][, overload name])."""
        if not self._tree_built:
            raise AssertionError('Expected tree to be built before calling key_averages')
        stats = defaultdict(FunctionEventAvg)
        for evt in self:
            key = [str(evt.key), str(evt.node_id), str(evt.device_type), str(evt.is_legacy),
                   str(evt.is_user_annotation)]
            if group_by_overload_name:
                key.append(evt.overload_name)
            if group_by_input_shapes:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key += evt.stack[:group_by_stack_n]
            stats[tuple(key)].add(evt)
        avg = EventList(stats.values(), use_device=self._use_device, profile_memory=self._profile_memory,
                        with_flops=self._with_flops)
        for evt in avg:
            evt.stack = evt.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                evt.input_shapes = ''
            if not group_by_overload_name:
                evt.overload_name = ''
        return avg

    def total_average(self):
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = 'Total'
        return total


def _format_time(time_us):
    if time_us >= 1e6:
        return f'{time_us / 1e6:.3f}s'
    if time_us >= 1e3:
        return f'{time_us / 1e3:.3f}ms'
    return f'{time_us:.3f}us'


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        if time_us != 0:
            raise AssertionError(f'Expected time_us == 0 but got {time_us}')
        return 'NaN'
    return f'{time_us * 100.0 / total_time_us:.2f}%'


def _format_memory(nbytes):
    KB, MB, GB = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= GB:
        return f'{nbytes * 1.0 / GB:.2f} GB'
    if abs(nbytes) >= MB:
        return f'{nbytes * 1.0 / MB:.2f} MB'
    if abs(nbytes) >= KB:
        return f'{nbytes * 1.0 / KB:.2f} KB'
    return str(nbytes) + ' B'


def _attr_formatter(name):
    return property(lambda self: _format_time(getattr(self, name)))


class FormattedTimesMixin:
    """``*_str`` formatted times and per-call averages; the subclass defines ``*_time_total`` and ``count``."""
    cpu_time_str = _attr_formatter('cpu_time')
    device_time_str = _attr_formatter('device_time')
    cpu_time_total_str = _attr_formatter('cpu_time_total')
    device_time_total_str = _attr_formatter('device_time_total')
    self_cpu_time_total_str = _attr_formatter('self_cpu_time_total')
    self_device_time_total_str = _attr_formatter('self_device_time_total')

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count

    @property
    def cuda_time(self):
        import warnings
        warnings.warn('`cuda_time` is deprecated, please use `device_time` instead.', FutureWarning, stacklevel=2)
        return self.device_time


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


Kernel = namedtuple('Kernel', ['name', 'device', 'duration'])


class FunctionEvent(FormattedTimesMixin):
    """One recorded call (an op, a record_function range, a backward node, a compiled program)."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None, fwd_thread=None, input_shapes=None,
                 stack=None, scope=0, use_device=None, cpu_memory_usage=0, device_memory_usage=0, is_async=False,
                 is_remote=False, sequence_nr=-1, node_id=-1, device_type=DeviceType.CPU, device_index=0,
                 device_resource_id=None, is_legacy=False, flops=None, trace_name=None, concrete_inputs=None,
                 kwinputs=None, is_user_annotation=False, is_python_function=False):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = thread if device_resource_id is None else device_resource_id
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.is_python_function = is_python_function
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        """Append a direct child (only direct children, so self times are right)."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self):
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us() if self.device_type == DeviceType.CPU else 0

    @property
    def self_cpu_time_total(self):
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        if self.is_async or not self.use_device:
            return 0
        if self.device_type == DeviceType.CPU:
            if not self.is_legacy:
                return sum(k.duration for k in self.kernels) + sum(c.device_time_total for c in self.cpu_children)
            return sum(k.duration for k in self.kernels)
        return self.time_range.elapsed_us()

    @property
    def self_device_time_total(self):
        if self.is_async or not self.use_device:
            return 0
        if self.device_type == DeviceType.CPU:
            return self.device_time_total - sum(c.device_time_total for c in self.cpu_children)
        return self.device_time_total

    @property
    def key(self):
        return self.name

    def __repr__(self):
        d = self.use_device
        return (f'<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} '
                f'device_type={self.device_type} node_id={self.node_id} cpu_time={self.cpu_time_str} '
                f'start_us={self.time_range.start} end_us={self.time_range.end} '
                f'cpu_children={str([c.id for c in self.cpu_children])} {d}_time={self.device_time_str} '
                f'name={self.name} thread={self.thread} input_shapes={str(self.input_shapes)} '
                f'cpu_memory_usage={self.cpu_memory_usage} {d}_memory_usage={self.device_memory_usage} '
                f'is_async={self.is_async} is_remote={self.is_remote} seq_nr={self.sequence_nr} '
                f'is_legacy={self.is_legacy}>')


class FunctionEventAvg(FormattedTimesMixin):
    """Statistics summed over the events sharing a key (see EventList.key_averages)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0

    def add(self, other):
        if self.key is None:      # the first event added fixes the descriptive fields
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError('Expected other to be a FunctionEvent or FunctionEventAvg')
        if other.key != self.key:
            raise AssertionError(f'Expected keys to match, but got {other.key} vs {self.key}')
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        d = 'cuda' if not self.use_device else self.use_device
        return (f'<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} '
                f'cpu_time={self.cpu_time_str}  self_{d}_time={self.self_device_time_total_str} '
                f'{d}_time={self.device_time_str} input_shapes={str(self.input_shapes)} '
                f'cpu_memory_usage={self.cpu_memory_usage} {d}_memory_usage={self.device_memory_usage}>')


class StringTable(defaultdict):
    """Name interning (PyTorch demangles C++ names here; torchlike's names are already readable)."""
    def __missing__(self, key):
        self[key] = key
        return key


def _rewrite_name(name, with_wildcard=False):
    # every ProfilerStep#N aggregates into one 'ProfilerStep*' row, as in PyTorch
    if with_wildcard and name.startswith('ProfilerStep#'):
        return 'ProfilerStep*'
    return name



def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    """PyTorch's summary table of ``events`` (FunctionEvent or FunctionEventAvg), column for column."""
    if len(events) == 0:
        return ''
    has_device_time = any(e.self_device_time_total > 0 for e in events)
    has_device_mem = any(e.self_device_memory_usage > 0 for e in events)
    use_device = events[0].use_device
    if not use_device and has_device_time:
        raise RuntimeError('use_device is None, but there is device performance data.')
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    has_overload_names = any(e.overload_name is not None and len(e.overload_name) > 0 for e in events)
    if sort_by is not None:
        attr = sort_by.replace('cuda', 'device').replace('xpu', 'device').replace('privateuse1', 'device')
        events = EventList(sorted(events, key=lambda e: getattr(e, attr), reverse=True), use_device=use_device,
                           profile_memory=profile_memory, with_flops=with_flops)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    W = 12
    stacks = [e.stack for e in events if e.stack is not None and len(e.stack) > 0]
    has_stack = len(stacks) > 0
    src_w = None
    if has_stack:
        src_w = max(max(len(x) for x in st) for st in stacks) + 4
        if max_src_column_width is not None:
            src_w = min(src_w, max_src_column_width)
    headers = ['Name']
    if has_overload_names:
        headers.append('Overload Name')
    headers += ['Self CPU %', 'Self CPU', 'CPU total %', 'CPU total', 'CPU time avg']
    dev = use_device.upper() if use_device is not None else 'None'
    if has_device_time:
        headers += [f'Self {dev}', f'Self {dev} %', f'{dev} total', f'{dev} time avg']
    if profile_memory:
        headers += ['CPU Mem', 'Self CPU Mem']
        if use_device and has_device_mem:
            headers += [f'{dev} Mem', f'Self {dev} Mem']
    headers.append('# of Calls')
    append_node_id = any(e.node_id != -1 for e in events)
    if append_node_id:
        headers.append('Node ID')
    SP = 2
    fmt, sep, line_length = [''], [''], [-SP]

    def add_column(padding, text_dir='>'):
        fmt[0] += '{: ' + text_dir + str(padding) + '}' + ' ' * SP
        sep[0] += '-' * padding + ' ' * SP
        line_length[0] += padding + SP

    add_column(name_w)
    if has_overload_names:
        add_column(name_w)
    for _ in headers[1 + has_overload_names:]:
        add_column(W)
    if has_input_shapes:
        headers.append('Input Shapes')
        add_column(shapes_w)
    if has_stack:
        headers.append('Source Location')
        add_column(src_w, text_dir='<')
    flops_scale = 1.0
    if with_flops:
        raw = [e.flops for e in events if e.flops]
        if raw:
            names = ['FLOPs', 'KFLOPs', 'MFLOPs', 'GFLOPs', 'TFLOPs', 'PFLOPs']
            lg = max(0, min(math.log10(min(raw)) / 3, float(len(names) - 1)))
            flops_scale = pow(10, math.floor(lg) * -3.0)
            headers.append(f'Total {names[int(lg)]}')
            add_column(W)
        else:
            with_flops = False
    row_format, header_sep, line_length = fmt[0], sep[0], line_length[0]
    result = []

    def append(s):
        result.append(s)
        result.append('\n')

    sum_self_cpu = 0
    sum_self_dev = 0
    for e in events:
        sum_self_cpu += e.self_cpu_time_total
        if e.device_type == DeviceType.CPU and e.is_legacy:
            sum_self_dev += e.self_device_time_total
        elif e.device_type in _DEVICE_TYPES and not e.is_user_annotation:
            sum_self_dev += e.self_device_time_total
    if header is not None:
        append('=' * line_length)
        append(header)
    if top_level_events_only:
        append('=' * line_length)
        append('This report only display top-level ops statistics')
    append(header_sep)
    append(row_format.format(*headers))
    append(header_sep)

    def trim_path(path, width):
        if len(path) > width:
            path = path[len(path) - width:]
            if len(path) > 3:
                path = '...' + path[3:]
        return path

    def unit(time_us, default):
        if time_unit == 's':
            return f'{time_us / 1e6:.3f}s'
        if time_unit == 'ms':
            return f'{time_us / 1e3:.3f}ms'
        if time_unit == 'us':
            return f'{time_us:.3f}us'
        return default

    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + '...'
        e.self_cpu_percent = _format_time_share(e.self_cpu_time_total, sum_self_cpu)
        e.total_cpu_percent = _format_time_share(e.cpu_time_total, sum_self_cpu) if not e.is_async else 0
        row = [name]
        if has_overload_names:
            ov = e.overload_name
            if max_name_column_width is not None and len(ov) >= max_name_column_width - 3:
                ov = ov[:max_name_column_width - 3] + '...'
            row.append(ov)
        row += [e.self_cpu_percent, unit(e.self_cpu_time_total, e.self_cpu_time_total_str), e.total_cpu_percent,
                unit(e.cpu_time_total, e.cpu_time_total_str), unit(e.cpu_time, e.cpu_time_str)]
        if has_device_time:
            e.total_device_percent = _format_time_share(e.self_device_time_total, sum_self_dev)
            row += [unit(e.self_device_time_total, e.self_device_time_total_str), e.total_device_percent,
                    unit(e.device_time_total, e.device_time_total_str), unit(e.device_time, e.device_time_str)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if use_device and has_device_mem:
                row += [_format_memory(e.device_memory_usage), _format_memory(e.self_device_memory_usage)]
        row.append(e.count)
        if append_node_id:
            row.append(e.node_id)
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        if with_flops:
            row.append('--' if e.flops <= 0 else f'{e.flops * flops_scale:8.3f}')
        if has_stack:
            row.append(trim_path(e.stack[0], src_w) if len(e.stack) > 0 else '')
        append(row_format.format(*row))
        if has_stack:
            empty = [''] * (len(headers) - 1)
            for entry in e.stack[1:]:
                append(row_format.format(*(empty + [trim_path(entry, src_w)])))
            empty.append('')
            append(row_format.format(*empty))
    append(header_sep)
    append(f'Self CPU time total: {unit(sum_self_cpu, _format_time(sum_self_cpu))}')
    if has_device_time:
        append(f'Self {dev} time total: {unit(sum_self_dev, _format_time(sum_self_dev))}')
    return ''.join(result)
