"""torch.profiler / torch.autograd.profiler against real PyTorch.

Timings differ between the two by nature, so the layout tests feed torchlike's *recorded* events into
PyTorch's own profiler_util (FunctionEvent / EventList) and require byte-identical tables: aggregation,
sorting, columns and formatting are then compared on the same numbers.
"""
import json
import re
import warnings

import pytest
import torch
import torch.autograd.profiler_util as tpu

import torchlike
from torchlike._engine import fused as tl_fused
from torchlike.profiler import _collector


def _quiet():
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter('ignore')
    return w


def _model_step(T, steps=1):
    """A small CNN classifier step (conv2d, relu, flatten, linear, log_softmax, nll_loss, backward)."""
    T.manual_seed(0)
    nn = T.nn
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 5), nn.LogSoftmax(dim=1))
    x = T.randn(2, 3, 8, 8)
    y = T.tensor([1, 2])
    with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU]) as p:
        for _ in range(steps):
            loss = nn.functional.nll_loss(m(x), y)
            loss.backward()
    return p


# Rows both produce for the model above (the names a user greps for).
BOTH = {'aten::conv2d', 'aten::relu', 'aten::view', 'aten::linear', 'aten::log_softmax', 'aten::nll_loss',
        'ConvolutionBackward0', 'ReluBackward0', 'ViewBackward0', 'AddmmBackward0', 'LogSoftmaxBackward0',
        'NllLossBackward0', 'autograd::engine::evaluate_function: AddmmBackward0',
        'autograd::engine::evaluate_function: ConvolutionBackward0',
        'autograd::engine::evaluate_function: NllLossBackward0'}
# PyTorch-only rows: the ATen calls its ops decompose into (torchlike's op is one XLA program, so the
# row is the op the user called), the flatten composite (torchlike's flatten is a view op directly),
# and the gradient accumulation into .grad, which torchlike's engine does without dispatch.
TORCH_ONLY = {'aten::addmm', 'aten::t', 'aten::convolution', 'aten::_convolution', 'aten::_log_softmax',
              'aten::nll_loss_forward', 'aten::flatten', 'TBackward0', 'torch::autograd::AccumulateGrad'}


def test_model_row_names(eager_mode):
    names = {}
    for T in (torch, torchlike):
        p = _model_step(T)
        names[T] = {e.key for e in p.key_averages()}
    assert BOTH <= names[torch]
    assert BOTH <= names[torchlike], BOTH - names[torchlike]
    assert TORCH_ONLY <= names[torch]
    assert not (TORCH_ONLY & names[torchlike])
    # every torchlike row is a name PyTorch could print: aten::, autograd rows, or a grad_fn name
    for n in names[torchlike]:
        assert n.startswith(('aten::', 'autograd::engine::evaluate_function: ')) or n.endswith('Backward0'), n


def test_backward_rows_every_step_no_fusion_while_profiling(eager_mode):
    runs = tl_fused.stats['runs']
    counts = {}
    for T in (torch, torchlike):
        p = _model_step(T, steps=4)
        counts[T] = {e.key: e.count for e in p.key_averages()}
    assert tl_fused.stats['runs'] == runs          # no fused backward ran while recording
    for n in ('AddmmBackward0', 'ConvolutionBackward0', 'autograd::engine::evaluate_function: AddmmBackward0'):
        assert counts[torchlike][n] == counts[torch][n] == 4
    # after profiling, a hot graph is fused again
    w = torchlike.randn(3, 3, requires_grad=True)
    for _ in range(4):
        (w * 2).sum().backward()
    assert tl_fused.stats['runs'] > runs


def _to_torch_events(events, use_device=None, profile_memory=False, with_flops=False):
    """torchlike's recorded events as PyTorch FunctionEvents (same times, names, shapes, stacks)."""
    out = []
    for e in events:
        out.append(tpu.FunctionEvent(
            id=e.id, name=e.name, thread=e.thread, start_us=e.time_range.start, end_us=e.time_range.end,
            overload_name=e.overload_name, fwd_thread=e.fwd_thread, input_shapes=e.input_shapes,
            stack=list(e.stack), scope=e.scope, use_device=use_device, cpu_memory_usage=e.cpu_memory_usage,
            device_memory_usage=e.device_memory_usage, sequence_nr=e.sequence_nr, flops=e.flops,
            trace_name=e.trace_name, is_user_annotation=e.is_user_annotation))
    el = tpu.EventList(out, use_device=use_device, profile_memory=profile_memory, with_flops=with_flops)
    el._build_tree()
    return el


@pytest.fixture(scope='module')
def recorded():
    T = torchlike
    with T.profiler.profile(record_shapes=True, with_stack=True, with_flops=True, profile_memory=True) as p:
        with T.profiler.record_function('block'):
            a = T.randn(8, 16)
            b = T.randn(16, 4)
            for _ in range(2):
                T.mm(a, b)
            T.mm(b.t(), a.t())
            c = T.nn.functional.conv2d(T.randn(1, 3, 6, 6), T.randn(2, 3, 3, 3))
            (c.relu() * 2).sum()
    return p


@pytest.mark.parametrize('kw', [
    {}, {'sort_by': 'cpu_time_total'}, {'sort_by': 'self_cpu_time_total', 'row_limit': 3}, {'sort_by': 'count'},
    {'header': 'HEADER'}, {'top_level_events_only': True}, {'max_name_column_width': 8}, {'time_unit': 'ms'},
    {'sort_by': 'cpu_memory_usage'}])
@pytest.mark.parametrize('group', [{}, {'group_by_input_shape': True}, {'group_by_stack_n': 2}])
def test_table_same_as_pytorch_on_same_events(recorded, kw, group):
    mine = recorded.key_averages(**group)
    ref = _to_torch_events(recorded.events(), profile_memory=True, with_flops=True)
    ref = ref.key_averages(group.get('group_by_input_shape', False), group.get('group_by_stack_n', 0))
    assert mine.table(**kw) == ref.table(**kw)
    assert [e.key for e in mine] == [e.key for e in ref]
    assert [e.count for e in mine] == [e.count for e in ref]


def test_event_tree_same_as_pytorch(recorded):
    ev = recorded.events()
    ref = _to_torch_events(ev, profile_memory=True, with_flops=True)
    assert [(e.name, e.cpu_parent and e.cpu_parent.id, [c.id for c in e.cpu_children]) for e in ev] == \
        [(e.name, e.cpu_parent and e.cpu_parent.id, [c.id for c in e.cpu_children]) for e in ref]
    assert ev.self_cpu_time_total == pytest.approx(ref.self_cpu_time_total)
    assert ev.table(sort_by='self_cpu_time_total') == ref.table(sort_by='self_cpu_time_total')
    t1, t2 = ev.total_average(), ref.total_average()
    assert (t1.key, t1.count, t1.cpu_time_total) == (t2.key, t2.count, pytest.approx(t2.cpu_time_total))


def test_table_header_layout():
    heads = {}
    for T in (torch, torchlike):
        x = T.randn(4, 4)
        with T.profiler.profile(record_shapes=True, with_flops=True, profile_memory=True) as p:
            T.mm(x, x)
        for grp in (False, True):
            lines = p.key_averages(group_by_input_shape=grp).table().splitlines()
            heads[(T, grp)] = re.split(r'\s{2,}', lines[1].strip())
    for grp in (False, True):
        assert heads[(torchlike, grp)] == heads[(torch, grp)]


def test_events_fields_and_input_shapes():
    got = {}
    for T in (torch, torchlike):
        x, y = T.randn(5, 3), T.randn(3, 2)
        with T.profiler.profile(record_shapes=True) as p:
            T.mm(x, y).relu()
            x + x
            x * x
        got[T] = {e.name: e for e in p.events()}
    for n in ('aten::mm', 'aten::relu', 'aten::add', 'aten::mul'):
        a, b = got[torchlike][n], got[torch][n]
        assert a.input_shapes == b.input_shapes, n
        assert a.count == b.count == 1
        assert a.cpu_time_total > 0 and a.self_cpu_time_total > 0
        assert str(a.device_type) == str(b.device_type) and int(a.device_type) == int(b.device_type)
        assert (a.scope, a.is_async, a.is_user_annotation) == (b.scope, b.is_async, b.is_user_annotation)
        assert a.time_range.end > a.time_range.start


def test_inplace_row_name():
    names = {}
    for T in (torch, torchlike):
        x = T.zeros(3)
        with T.profiler.profile() as p:
            x.add_(1)
            x.mul_(2)
        names[T] = {e.name for e in p.events()}
    assert {'aten::add_', 'aten::mul_'} <= names[torchlike]
    assert {'aten::add_', 'aten::mul_'} <= names[torch]


def test_record_function_rows():
    res = {}
    for T in (torch, torchlike):
        @T.profiler.record_function('decorated')
        def f(x):
            return x * 2

        with T.profiler.profile() as p:
            with T.profiler.record_function('outer'):
                f(T.ones(2))
                f(T.ones(2))
        avg = {e.key: e for e in p.key_averages()}
        ev = {e.name: e for e in p.events()}
        res[T] = (avg['outer'].count, avg['decorated'].count, ev['outer'].is_user_annotation, ev['outer'].scope,
                  ev['decorated'].cpu_parent.name)
        assert avg['outer'].cpu_time_total >= avg['decorated'].cpu_time_total > 0
    assert res[torchlike] == res[torch]
    # outside any profiler, record_function is a no-op context / decorator
    with torchlike.autograd.profiler.record_function('nothing'):
        assert torchlike.ones(1).item() == 1.0


@pytest.mark.parametrize('kw', [dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=2),
                                dict(wait=0, warmup=2, active=1, repeat=1, skip_first=3),
                                dict(wait=2, warmup=1, active=3, skip_first=1, skip_first_wait=1)])
def test_schedule_function_matches(kw):
    s1, s2 = torch.profiler.schedule(**kw), torchlike.profiler.schedule(**kw)
    assert [s2(i).name for i in range(30)] == [s1(i).name for i in range(30)]


@pytest.mark.parametrize('kw', [dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
                                dict(wait=0, warmup=1, active=1), dict(wait=2, warmup=0, active=2, repeat=1)])
def test_schedule_cycles_and_callbacks(kw):
    res = {}
    for T in (torch, torchlike):
        calls = []

        def ready(p):
            calls.append((p.step_num, sorted({e.name for e in p.events()
                                              if e.name.startswith(('it', 'ProfilerStep'))})))
        w = _quiet()
        try:
            with T.profiler.profile(schedule=T.profiler.schedule(**kw), on_trace_ready=ready) as p:
                for i in range(9):
                    with T.profiler.record_function(f'it{i}'):
                        T.ones(2) + i
                    p.step()
        finally:
            w.__exit__(None, None, None)
        res[T] = calls
    assert res[torchlike] == res[torch]
    assert len(res[torch]) > 0


def test_export_chrome_trace(tmp_path):
    names = {}
    for T in (torch, torchlike):
        x = T.randn(4, 4)
        with T.profiler.profile(record_shapes=True) as p:
            with T.profiler.record_function('label'):
                T.mm(x, x).relu()
        path = str(tmp_path / f'{T.__name__}.json')
        p.export_chrome_trace(path)
        with open(path) as f:
            d = json.load(f)
        assert isinstance(d, dict)
        xs = [e for e in d['traceEvents'] if e.get('ph') == 'X']
        names[T] = {(e['name'], e['cat']) for e in xs}
        mm = [e for e in xs if e['name'] == 'aten::mm'][0]
        assert mm['args']['Input Dims'] == [[4, 4], [4, 4]]
        assert mm['dur'] > 0 and isinstance(mm['ts'], (int, float))
        assert d['displayTimeUnit'] == 'ms' and d['record_shapes'] == 1
    want = {('label', 'user_annotation'), ('aten::mm', 'cpu_op'), ('aten::relu', 'cpu_op')}
    assert want <= names[torchlike] and want <= names[torch]
    # gzip and the tensorboard handler
    import gzip
    import os
    with torchlike.profiler.profile(on_trace_ready=torchlike.profiler.tensorboard_trace_handler(
            str(tmp_path / 'tb'), worker_name='w0', use_gzip=True)):
        torchlike.ones(3).sum()
    files = os.listdir(tmp_path / 'tb')
    assert len(files) == 1 and re.fullmatch(r'w0\.\d+\.pt\.trace\.json\.gz', files[0])
    with gzip.open(tmp_path / 'tb' / files[0]) as f:
        assert any(e.get('name') == 'aten::sum' for e in json.load(f)['traceEvents'])


def test_export_stacks(tmp_path, recorded):
    mine, ref = str(tmp_path / 'a.txt'), str(tmp_path / 'b.txt')
    recorded.export_stacks(mine)
    _to_torch_events(recorded.events()).export_stacks(ref, 'self_cpu_time_total')
    text = open(mine).read()
    assert text == open(ref).read()
    lines = text.splitlines()
    assert lines and all(re.fullmatch(r'\S+ \d+', ln) for ln in lines)
    assert any('test_profiler.py' in ln for ln in lines)      # the user's frames, outermost first
    assert all('torchlike/_engine' not in ln for ln in lines)
    for T in (torch, torchlike):
        with T.profiler.profile() as p:
            T.ones(2)
        with pytest.raises(AssertionError):
            p.export_stacks(str(tmp_path / 'c.txt'))
        with pytest.raises(ValueError):
            recorded.events().export_stacks(str(tmp_path / 'c.txt'), 'cpu_time')


def test_group_by_input_shape():
    rows = {}
    for T in (torch, torchlike):
        with T.profiler.profile(record_shapes=True) as p:
            for n in (2, 3, 3):
                T.mm(T.ones(n, n), T.ones(n, n))
        rows[T] = sorted((e.count, str(e.input_shapes)) for e in p.key_averages(group_by_input_shape=True)
                         if e.key == 'aten::mm')
        assert [e.count for e in p.key_averages() if e.key == 'aten::mm'] == [3]
    assert rows[torchlike] == rows[torch]


def test_flops():
    res = {}
    for T in (torch, torchlike):
        a, b = T.randn(8, 16), T.randn(16, 4)
        with T.profiler.profile(with_flops=True) as p:
            T.mm(a, b)
            T.bmm(T.randn(2, 3, 4), T.randn(2, 4, 5))
            T.nn.functional.conv2d(T.randn(2, 4, 10, 10), T.randn(6, 2, 3, 3), groups=2, padding=1)
            a * a
            T.nn.functional.linear(a, b.t(), T.randn(4))
        fl = {}
        for e in p.events():
            fl[e.name] = fl.get(e.name, 0) + (e.flops or 0)
        res[T] = fl
    for n in ('aten::mm', 'aten::bmm', 'aten::conv2d', 'aten::mul'):
        assert res[torchlike][n] == res[torch][n], n
    assert res[torchlike]['aten::linear'] == res[torch]['aten::addmm']      # torch counts linear's addmm child


def test_profile_memory_counts_output_bytes():
    mem = {}
    for T in (torch, torchlike):
        a = T.ones(100, 100)
        with T.profiler.profile(profile_memory=True) as p:
            a * a
        mem[T] = [e.cpu_memory_usage for e in p.events() if e.name == 'aten::mul']
    assert mem[torchlike] == mem[torch] == [40000]


def test_legacy_autograd_profiler():
    res = {}
    for T in (torch, torchlike):
        x = T.randn(3, 3, requires_grad=True)
        prof = T.autograd.profiler.profile()
        assert repr(prof) == str(prof) == '<unfinished torch.autograd.profile>'
        with prof:
            with T.autograd.profiler.record_function('legacy_block'):
                (x * x).sum().backward()
        names = {e.key for e in prof.key_averages()}
        head = re.split(r'\s{2,}', prof.table().splitlines()[1].strip())
        res[T] = ({'legacy_block', 'aten::mul', 'aten::sum', 'MulBackward0', 'SumBackward0'} <= names, head,
                  prof.self_cpu_time_total > 0, isinstance(prof.function_events, list))
        with pytest.raises(RuntimeError, match='not reentrant'):
            with prof:
                pass
    assert res[torchlike] == res[torch]
    assert res[torch][0]


def test_misuse_errors():
    for T in (torch, torchlike):
        P = T.profiler
        for f in (lambda: P.profile().key_averages(), lambda: P.profile().events(),
                  lambda: P.profile().export_stacks('x'), lambda: P.profile().export_chrome_trace('x'),
                  lambda: P.schedule(wait=0, warmup=1, active=0), lambda: P.schedule(wait=-1, warmup=1, active=1),
                  lambda: P.profile(activities=[])):
            with pytest.raises(AssertionError):
                f()
        with pytest.raises(ValueError, match='more than once'):
            P.profile(activities=[P.ProfilerActivity.CPU, P.ProfilerActivity.CPU])
        with pytest.raises(AssertionError, match='Step must be non-negative'):
            P.schedule(wait=1, warmup=1, active=1)(-1)
        with pytest.warns(UserWarning, match="won't be using warmup"):
            P.schedule(wait=1, warmup=0, active=1)


def test_cuda_activity_without_cuda():
    assert {a.name for a in torchlike.profiler.supported_activities()} == \
        {a.name for a in torch.profiler.supported_activities()}
    if torchlike.cuda.is_available() or torch.cuda.is_available():
        pytest.skip('the CPU-only behaviour needs a machine without CUDA')
    msgs = {}
    for T in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU,
                                                T.profiler.ProfilerActivity.CUDA]) as p:
                T.ones(3).sum()
        msgs[T] = [str(x.message) for x in w]
        assert 'aten::sum' in {e.key for e in p.key_averages()}
        assert 'CUDA' not in p.key_averages().table()
    assert msgs[torchlike] == msgs[torch] == ['CUDA is not available, disabling CUDA profiling']


def test_acc_events_and_clearing():
    res = {}
    for T in (torch, torchlike):
        out = {}
        for acc in (False, True):
            w = _quiet()
            try:
                with T.profiler.profile(schedule=T.profiler.schedule(wait=0, warmup=1, active=1), acc_events=acc,
                                        on_trace_ready=lambda p: None) as p:
                    for i in range(6):
                        with T.profiler.record_function('step_body'):
                            T.ones(1)
                        p.step()
            finally:
                w.__exit__(None, None, None)
            out[acc] = [e.count for e in p.key_averages() if e.key == 'step_body']
        res[T] = out
    assert res[torchlike] == res[torch]


def test_toggle_collection_dynamic():
    res = {}
    for T in (torch, torchlike):
        x = T.ones(3)
        with T.profiler.profile() as p:
            x * 2
            p.toggle_collection_dynamic(False, [T.profiler.ProfilerActivity.CPU])
            x - 1
            p.toggle_collection_dynamic(True, [T.profiler.ProfilerActivity.CPU])
            x / 2
        res[T] = {e.key for e in p.key_averages()} & {'aten::mul', 'aten::sub', 'aten::div'}
    assert res[torchlike] == res[torch]


def test_program_event_source():
    import time
    t0 = time.perf_counter_ns()
    _collector.record_program('lazy::graph_0', t0, t0 + 5000)          # not recording: ignored
    torchlike.ones(2)         # compiled before timing: the window below must contain the whole op
    with torchlike.profiler.profile() as p:
        t0 = time.perf_counter_ns()
        torchlike.ones(2)
        t1 = time.perf_counter_ns() + 1000
        _collector.record_program('lazy::graph_0', t0, t1)
    ev = [e for e in p.events() if e.name == 'lazy::graph_0']
    assert len(ev) == 1 and ev[0].cpu_time_total == pytest.approx((t1 - t0) / 1000, abs=0.01)
    assert [e.name for e in ev[0].cpu_children] == ['aten::full']     # events nest by time


def test_one_recording_at_a_time_and_modes_restored():
    from torchlike._engine.state import state
    before = state.modes
    with torchlike.profiler.profile():
        with pytest.raises(RuntimeError):
            with torchlike.profiler.profile():
                pass
    assert state.modes == before and tl_fused.enabled


def test_unsupported_options_raise():
    with pytest.raises(NotImplementedError):
        torchlike.profiler.profile(experimental_config=object())
    with pytest.raises(NotImplementedError):
        torchlike.autograd.profiler.emit_nvtx()
    with torchlike.autograd.profiler.emit_nvtx(enabled=False):
        torchlike.ones(1)
