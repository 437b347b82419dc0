"""PyTorch's own ModuleInfo database (module_db) run against torchlike.nn: one test per entry.

Each entry's modules are built under torch and torchlike with torch's state_dict copied across, and the
forward outputs, buffers after forward, and gradients of inputs and parameters are compared with real
torch; the check is _module_db_support.check_entry (see its Note [ModuleInfo check]): at most MAX_SAMPLES
module inputs per training mode.

Entries that do not pass yet are listed in module_db_xfail.py and marked xfail (not strict: an entry
that starts passing shows as XPASS and the list is regenerated with `python scripts/module_db_check.py
--write-xfail`; the honest counts come from `scripts/module_db_check.py --all`). An entry that is not
listed and stops passing fails as a regression.
"""
import inspect

import pytest

import _module_db_support as S
from module_db_xfail import XFAIL


def _params():
    out = []
    for key in S.database():
        marks = []
        reason = XFAIL.get(key)
        if reason is not None:
            marks.append(pytest.mark.xfail(strict=False, reason=reason))  # see module docstring
        out.append(pytest.param(key, id=key, marks=marks))
    return out


@pytest.mark.parametrize('key', _params())
def test_module_db(key):
    r = S.check_entry(key)
    if r['status'] != 'PASS':
        pytest.fail(f'{key}: {S.short(r["reason"], 400)}', pytrace=False)


def test_xfail_list_names_real_entries():
    # a stale name in module_db_xfail.py (renamed or removed entry) is an error
    stale = [k for k in XFAIL if k not in S.database()]
    assert not stale, f'module_db_xfail.py lists entries that do not exist: {stale}'


# ---- the harness itself: it must catch wrong results, not only missing classes ---------------------------

def _linear_samples():
    info = S.database()['nn.Linear']
    return info, S.samples(info, True, 2)


def test_harness_passes_a_correct_module():
    import torchlike
    info, samples = _linear_samples()
    for s in samples:
        r = S.run_sample(info, 'nn.Linear', torchlike.nn.Linear, s, True)
        assert r == {'forward': ('PASS', ''), 'gradient': ('PASS', '')}, (S.describe(s), r)


def test_harness_catches_wrong_outputs_and_gradients():
    import torchlike
    info, samples = _linear_samples()
    s = samples[0]                        # Linear(10, 8) on (4, 10)

    class WrongValue(torchlike.nn.Linear):
        def forward(self, input):     # Linear's samples pass input= by keyword
            return super().forward(input) * 1.01

    class WrongDtype(torchlike.nn.Linear):
        def forward(self, input):     # Linear's samples pass input= by keyword
            return super().forward(input).double()

    class WrongWeightGrad(torchlike.nn.Linear):   # same forward, but the weight's gradient is doubled
        def forward(self, input):     # Linear's samples pass input= by keyword
            y = super().forward(input)
            w = self.weight
            return y + (torchlike.nn.functional.linear(input, w) - torchlike.nn.functional.linear(input, w.detach()))

    class WrongInputGrad(torchlike.nn.Linear):    # no gradient reaches the input
        def forward(self, input):     # Linear's samples pass input= by keyword
            return super().forward(input.detach())

    class WrongParamName(torchlike.nn.Linear):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.register_buffer('extra', torchlike.zeros(1))

    r = S.run_sample(info, 'nn.Linear', WrongValue, s, True)
    assert r['forward'][0] == 'FAIL' and 'values differ' in r['forward'][1]
    r = S.run_sample(info, 'nn.Linear', WrongDtype, s, True)
    assert r['forward'][0] == 'FAIL' and 'dtype' in r['forward'][1]
    r = S.run_sample(info, 'nn.Linear', WrongWeightGrad, s, True)
    assert r['forward'] == ('PASS', '') and r['gradient'][0] == 'FAIL' and 'grad of weight' in r['gradient'][1]
    r = S.run_sample(info, 'nn.Linear', WrongInputGrad, s, True)
    assert r['forward'] == ('PASS', '') and r['gradient'][0] == 'FAIL' and 'grad of input 0' in r['gradient'][1]
    r = S.run_sample(info, 'nn.Linear', WrongParamName, s, True)
    assert r['forward'][0] == 'FAIL' and 'load_state_dict' in r['forward'][1]


def test_harness_catches_wrong_buffers():
    import torchlike
    info = S.database()['nn.BatchNorm1d']
    s = S.samples(info, True, 1)[0]

    class NoRunningStats(torchlike.nn.BatchNorm1d):   # right output, running statistics never updated
        def forward(self, x):
            m = self.momentum
            self.momentum = 0.0
            try:
                return super().forward(x)
            finally:
                self.momentum = m
    assert S.run_sample(info, 'nn.BatchNorm1d', torchlike.nn.BatchNorm1d, s, True)['forward'] == ('PASS', '')
    r = S.run_sample(info, 'nn.BatchNorm1d', NoRunningStats, s, True)
    assert r['forward'][0] == 'FAIL' and 'buffer running_mean' in r['forward'][1]


def test_harness_skips_what_torch_rejects_and_fails_all_skipped(monkeypatch):
    import torch
    import torchlike
    from torch.testing._internal.common_modules import FunctionInput, ModuleInput
    info = S.database()['nn.Linear']
    bad = ModuleInput(constructor_input=FunctionInput(10, 8), forward_input=FunctionInput(torch.ones(4, 7)))
    r = S.run_sample(info, 'nn.Linear', torchlike.nn.Linear, bad, True)
    assert r['forward'][0] == 'SKIP' and r['forward'][1].startswith('torch fails')
    assert r['gradient'][0] == 'SKIP'

    def unconvertible(x, memo):
        raise S.Skip('test')
    monkeypatch.setattr(S, 'convert', unconvertible)
    r = S.check_entry('nn.Linear', max_samples=1)
    assert r['status'] == 'FAIL' and r['reason'].startswith('forward: no runnable samples')


def test_harness_reports_missing_classes(monkeypatch):
    import torchlike
    monkeypatch.delattr(torchlike.nn, 'Linear')
    r = S.check_entry('nn.Linear', max_samples=1)
    assert r['status'] == 'FAIL' and r['reason'] == 'not implemented: torchlike.nn.Linear'


def test_harness_rebuilds_module_arguments():
    # TransformerEncoder's samples pass a torch TransformerEncoderLayer: it is rebuilt in torchlike from its
    # recorded constructor call, with the same arguments (defaults included)
    import torch
    info = S.database()['nn.TransformerEncoder']
    s = S.samples(info, True, 1)[0]
    layer = s.constructor_input.args[0]
    assert isinstance(layer, torch.nn.TransformerEncoderLayer)
    rec = S._CTOR[id(layer)]
    bound = inspect.signature(torch.nn.TransformerEncoderLayer).bind(*rec[1], **rec[2])
    assert rec[0] is layer and bound.arguments['d_model'] == 4 and bound.arguments['nhead'] == 2
    assert bound.arguments['dropout'] == 0.0   # every parameter recorded, defaults included:
    assert len(bound.arguments) == len(inspect.signature(torch.nn.TransformerEncoderLayer).parameters)
    S._CTOR.clear()


def test_random_modules_compare_shapes_only():
    import torch
    assert S.random_reason(torch.nn.Dropout(0.5), True)
    assert S.random_reason(torch.nn.Dropout(0.5), False) is None
    assert S.random_reason(torch.nn.Dropout(0.0), True) is None
    assert S.random_reason(torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.1), True)
    assert S.random_reason(torch.nn.FractionalMaxPool2d(2, output_ratio=0.5), False)
    rs = torch.empty(1, 3, 2, dtype=torch.double).uniform_()
    assert S.random_reason(torch.nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=rs), True) is None
