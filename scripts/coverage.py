#!/usr/bin/env python
"""How much of PyTorch's public API torchlike provides, and how much of it passes the OpInfo oracle.

    python scripts/coverage.py                       # runs the OpInfo check for every entry first (minutes)
    python scripts/coverage.py --results PATH        # reads `scripts/opinfo_check.py --all --json PATH` output
    python scripts/coverage.py --results PATH --missing [NAMESPACE]   # also list what is missing

Counted names: the public callables of torch, torch.special, torch.linalg, torch.fft and
torch.nn.functional (names not starting with '_'), and the public attributes of torch.Tensor (methods
and properties, names not starting with '_'). "provided" = the same path exists on torchlike.
"oracle" = names with at least one OpInfo entry (for Tensor methods: an entry with a method variant);
"pass" = every such entry passes every kind it is checked for (forward, and gradient where applicable).
"""
import argparse
import json
import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'compat_tests'))

import torch  # noqa: E402  (the oracle)
import torchlike  # noqa: E402

NAMESPACES = ('torch', 'torch.special', 'torch.linalg', 'torch.fft', 'torch.nn.functional', 'Tensor')


def _get(root, path):
    obj = root
    for p in path.split('.'):
        try:
            obj = getattr(obj, p)
        except Exception:
            return None
    return obj


def torch_names(ns):
    """Public names of namespace ``ns`` in real torch."""
    if ns == 'Tensor':
        return sorted(n for n in dir(torch.Tensor) if not n.startswith('_'))
    mod = _get(torch, ns[len('torch.'):]) if ns != 'torch' else torch
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for n in dir(mod):
            if n.startswith('_'):
                continue
            try:
                v = getattr(mod, n)
            except Exception:
                continue
            if callable(v) and not isinstance(v, type(torch)):
                out.append(n)
    return sorted(out)


def tl_has(ns, name):
    if ns == 'Tensor':
        return hasattr(torchlike.Tensor, name)
    sub = ns[len('torch.'):] if ns != 'torch' else ''
    return _get(torchlike, (sub + '.' if sub else '') + name) is not None


def oracle_status(results):
    """{(namespace, name): True (all entries pass) / False} from OpInfo results."""
    import _opinfo_support as S
    db = S.database()
    by = {}
    for r in results:
        if not r['kinds']:
            continue
        op = db.get(r['key'])
        if op is None:
            continue
        ok = all(r[k]['status'] == 'PASS' for k in r['kinds'])
        name = op.name
        if name.startswith('__') and name.endswith('__'):
            targets = [('Tensor', name)]
        elif '.' in name:
            head, tail = name.rsplit('.', 1)
            targets = [('torch.' + head, tail)]
        else:
            targets = [('torch', name)]
            if op.method_variant is not None:
                targets.append(('Tensor', getattr(op.method_variant, '__name__', name)))
        for t in targets:
            by[t] = by.get(t, True) and ok
    return by


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--results', metavar='PATH', help='JSON written by scripts/opinfo_check.py --all --json PATH')
    ap.add_argument('--missing', nargs='?', const='all', metavar='NAMESPACE',
                    help='list the names torchlike lacks (in one namespace, or all)')
    ap.add_argument('--failing', nargs='?', const='all', metavar='NAMESPACE',
                    help='list provided names whose OpInfo entries fail')
    a = ap.parse_args(argv)
    if a.results:
        with open(a.results) as f:
            results = json.load(f)['results']
    else:
        import _opinfo_support as S
        print('running the OpInfo check for every entry (use --results PATH to reuse a saved run)...',
              file=sys.stderr, flush=True)
        results = [S.check_entry(k) for k in S.database()]
    status = oracle_status(results)
    rows = []
    tot = [0, 0, 0, 0]
    print(f'{"namespace":<22}{"torch":>7}{"provided":>10}{"%":>7}{"oracle":>8}{"pass":>7}{"%prov":>7}')
    for ns in NAMESPACES:
        names = torch_names(ns)
        have = [n for n in names if tl_has(ns, n)]
        orc = [n for n in names if (ns, n) in status]
        ok = [n for n in orc if status[(ns, n)] and tl_has(ns, n)]
        rows.append((ns, names, have, orc, ok))
        for i, v in enumerate((names, have, orc, ok)):
            tot[i] += len(v)
        print(f'{ns:<22}{len(names):>7}{len(have):>10}{100.0 * len(have) / max(len(names), 1):>6.1f}%'
              f'{len(orc):>8}{len(ok):>7}{100.0 * len(ok) / max(len(have), 1):>6.1f}%')
    print(f'{"total":<22}{tot[0]:>7}{tot[1]:>10}{100.0 * tot[1] / max(tot[0], 1):>6.1f}%'
          f'{tot[2]:>8}{tot[3]:>7}{100.0 * tot[3] / max(tot[1], 1):>6.1f}%')
    print('\ncolumns: torch = public names in real torch; provided = present on torchlike; oracle = names with an\n'
          'OpInfo entry; pass = provided and all its OpInfo entries pass; %prov = pass / provided')
    lists = ((a.missing, lambda names, have, orc, ok: [n for n in names if n not in have], 'missing'),
             (a.failing, lambda names, have, orc, ok: [n for n in have if n in orc and n not in ok],
              'provided but failing OpInfo'))
    for flag, pick, title in lists:
        if not flag:
            continue
        for ns, names, have, orc, ok in rows:
            if flag != 'all' and flag != ns:
                continue
            lst = pick(names, have, orc, ok)
            print(f'\n{ns}: {title} ({len(lst)}):')
            print('  ' + ' '.join(lst))
    return 0


if __name__ == '__main__':
    sys.exit(main())
