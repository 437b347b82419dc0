"""PyTorch's own OpInfo database run against torchlike: one test per (entry, kind).

kind is 'forward' (float32 and int64 samples, outputs compared with real torch) or 'gradient' (float32,
weighted-sum backward, input gradients compared); the check is _opinfo_support.check_entry (see its
Note [OpInfo check]): at most MAX_SAMPLES (12) samples per dtype, one torchlike conversion per sample
shared by both kinds (the entry's result is computed once per process and cached).

Entries that do not pass yet are listed in opinfo_xfail.py and marked xfail (not strict: an entry that
starts passing shows as XPASS and the list is regenerated with `python scripts/opinfo_check.py
--write-xfail`; the honest counts come from `scripts/opinfo_check.py --all`). An entry that is not listed
and stops passing fails as a regression.
With pytest-xdist, `--dist loadgroup` keeps both kinds of an entry on one worker (no recomputation).
"""
import pytest

import _opinfo_support as S
from opinfo_xfail import XFAIL

# Op-level checks run in eager mode, the reference semantics: lazy mode is the default and every other test
# runs in it; `TORCHLIKE_MODE=lazy TORCHLIKE_RECOMPILE_LIMIT=1000000 python scripts/opinfo_check.py --all` gives
# the same per-entry results as eager (2026-11-27) at ~1.25x the time.
pytestmark = pytest.mark.usefixtures('eager_mode')

_RESULTS = {}


def _result(key):
    r = _RESULTS.get(key)
    if r is None:
        r = _RESULTS[key] = S.check_entry(key)
    return r


def _params():
    out = []
    for key, op in S.database().items():
        for kind in S.kinds(op):
            marks = [pytest.mark.xdist_group(key)]
            reason = XFAIL.get((key, kind))
            if reason is not None:
                marks.append(pytest.mark.xfail(strict=False, reason=reason))  # see module docstring
            out.append(pytest.param(key, kind, id=f'{key}-{kind}', marks=marks))
    return out


@pytest.mark.parametrize('key,kind', _params())
def test_opinfo(key, kind):
    r = _result(key)[kind]
    if r['status'] != 'PASS':
        pytest.fail(f'{key} {kind}: {S.short(r["reason"], 400)}', pytrace=False)


def test_xfail_list_names_real_checks():
    # a stale (entry, kind) in opinfo_xfail.py (renamed entry, kind no longer checked) is an error
    db = S.database()
    stale = [k for k in XFAIL if k[0] not in db or k[1] not in S.kinds(db[k[0]])]
    assert not stale, f'opinfo_xfail.py lists checks that do not exist: {stale[:10]}'


# ---- the harness itself: it must catch wrong results, not only missing ops ------------------------------

def _add_samples(dtype, n=4):
    import itertools
    import torch
    op = S.database()['add']
    torch.manual_seed(0)
    grad = dtype.is_floating_point
    return op, list(itertools.islice(op.sample_inputs('cpu', dtype, requires_grad=grad), n))


def test_harness_passes_a_correct_op():
    import torch
    import torchlike
    op, samples = _add_samples(torch.float32)
    for s in samples:
        r = S.run_sample(op, 'add', torchlike.add, s, torch.float32, True)
        assert r == {'forward': ('PASS', ''), 'gradient': ('PASS', '')}, (S.describe(s), r)


def test_harness_catches_wrong_values_dtypes_and_gradients():
    import numpy as np
    import torch
    import torchlike
    op, samples = _add_samples(torch.float32)
    s = samples[1]                        # tensor + tensor

    def wrong_value(a, b, **kw):
        return torchlike.sub(a, b, **kw)

    def wrong_dtype(a, b, **kw):
        return torchlike.tensor(np.asarray(torchlike.add(a, b, **kw).detach()._materialize(), np.float64))

    def wrong_grad(a, b, **kw):          # same forward, b gets no gradient
        return torchlike.add(a, b.detach(), **kw)

    r = S.run_sample(op, 'add', wrong_value, s, torch.float32, True)
    assert r['forward'][0] == 'FAIL' and 'values differ' in r['forward'][1]
    r = S.run_sample(op, 'add', wrong_dtype, s, torch.float32, False)
    assert r['forward'][0] == 'FAIL' and 'dtype' in r['forward'][1]
    r = S.run_sample(op, 'add', wrong_grad, s, torch.float32, True)
    assert r['forward'] == ('PASS', '') and r['gradient'][0] == 'FAIL' and 'grad[1]' in r['gradient'][1]


def test_harness_skips_what_torch_rejects_and_fails_all_skipped(monkeypatch):
    import torch
    import torchlike
    from torch.testing._internal.opinfo.core import SampleInput
    op = S.database()['add']
    bad = SampleInput(torch.ones(2, 3), args=(torch.ones(4, 5),))
    r = S.run_sample(op, 'add', torchlike.add, bad, torch.float32, True)
    assert r['forward'][0] == 'SKIP' and r['forward'][1].startswith('torch fails')

    def unconvertible(x, memo):
        raise S.Skip('test')
    monkeypatch.setattr(S, 'convert', unconvertible)
    r = S.check_entry('add', max_samples=2)
    assert r['forward']['status'] == 'FAIL' and r['forward']['reason'].startswith('no runnable samples')
    assert r['gradient']['status'] == 'FAIL'


def test_harness_reports_missing_ops(monkeypatch):
    import torchlike
    monkeypatch.delattr(torchlike, 'add')
    r = S.check_entry('add', max_samples=2)
    assert r['forward']['status'] == 'FAIL' and r['forward']['reason'] == 'not implemented: torchlike.add'


def test_harness_tie_tolerance_accepts_equal_values_only():
    import itertools
    import numpy as np
    import torch
    import torchlike
    op = S.database()['kthvalue']
    torch.manual_seed(0)
    s = next(itertools.islice(op.sample_inputs('cpu', torch.int64), 1))
    x = s.input                                  # (5, 5, 5) int64: plenty of ties along the last dim
    th = op(s.input, *s.args, **s.kwargs)
    xv = x.numpy()
    # an index choice that differs from torch's only among equal values: accepted
    alt = th.indices.clone()
    changed = 0
    for i in range(5):
        for j in range(5):
            eq = np.flatnonzero(xv[i, j] == th.values[i, j].item())
            other = [k for k in eq if k != th.indices[i, j].item()]
            if other:
                alt[i, j] = int(other[0])
                changed += 1
    assert changed
    ok = (torchlike.tensor(th.values.numpy()), torchlike.tensor(alt.numpy()))
    assert S._ties_ok('kthvalue', s, ok, th, 1e-4, 1e-4)
    # an index that selects a different value: rejected
    bad = alt.clone()
    bad[0, 0] = int(np.flatnonzero(xv[0, 0] != th.values[0, 0].item())[0])
    wrong = (torchlike.tensor(th.values.numpy()), torchlike.tensor(bad.numpy()))
    assert not S._ties_ok('kthvalue', s, wrong, th, 1e-4, 1e-4)
