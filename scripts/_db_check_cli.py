"""The command line shared by scripts/opinfo_check.py and scripts/module_db_check.py.

Both run one torch test database (OpInfo's op_db, ModuleInfo's module_db) through a check in compat_tests/
(``_opinfo_support`` / ``_module_db_support``) and offer the same options: entries by name, ``--all`` with a
summary, ``--json``, ``--write-xfail`` (optionally ``--from-json``), ``--list``, ``-j``. What differs per
database (how names select entries, the report and summary lines, the xfail file's keys) is a ``Db``.
"""
import argparse
import concurrent.futures
import dataclasses
import functools
import json
import multiprocessing
import os
import sys
import time
import types
from typing import Callable, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'compat_tests'))


@dataclasses.dataclass
class Db:
    doc: str                      # the script's docstring (its --help)
    support: types.ModuleType     # database(), check_entry(), short(), MAX_SAMPLES, ENTRY_TIMEOUT_S
    xfail_path: str
    xfail_doc: list               # the generated file's docstring lines (without the closing quotes)
    select: Callable              # names -> entry keys
    report: Callable              # (result, verbose, width): print one result
    summary: Callable             # (results, elapsed): print the --all summary
    failures: Callable            # result -> [(xfail key, reason)]; empty when the result passes
    list_line: Callable           # (key, entry) -> the --list line
    chunksize: int = 2            # entries per worker task with -j
    all_width: Optional[int] = None   # key column width with --all (None: the longest key)
    list_help: str = 'print the entry names'
    max_samples_help: Optional[str] = None


def counts(d):
    """'group pass/total ...' for a result's per-dtype or per-mode counts."""
    return ' '.join(f'{g} {s["pass"]}/{s["pass"] + s["fail"] + s["skip"]}' for g, s in d.items())


def write_xfail(db, results, path=None):
    path = path or db.xfail_path
    lines = list(db.xfail_doc) + [f'Run with MAX_SAMPLES={db.support.MAX_SAMPLES}.', '"""', '', 'XFAIL = {']
    n = 0
    for r in results:
        for key, reason in db.failures(r):
            lines.append(f'    {key!r}: {db.support.short(reason, 160)!r},')
            n += 1
    lines.append('}')
    src = '\n'.join(lines) + '\n'
    compile(src, path, 'exec')
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(src)
    os.replace(tmp, path)
    print(f'wrote {n} xfail entries to {os.path.relpath(path, ROOT)}')


def _run(db, keys, max_samples, timeout, jobs):
    check = functools.partial(db.support.check_entry, max_samples=max_samples, timeout=timeout)
    if jobs <= 1 or len(keys) < 2:
        yield from map(check, keys)
        return
    # spawn, not fork: the parent has JAX's threads running
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context('spawn')) as ex:
        yield from ex.map(check, keys, chunksize=db.chunksize)


def main(db, argv=None):
    S = db.support
    rel_xfail = os.path.relpath(db.xfail_path, ROOT)
    ap = argparse.ArgumentParser(description=db.doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('names', nargs='*')
    ap.add_argument('--all', action='store_true', help='run every entry and print a summary')
    ap.add_argument('--json', metavar='PATH', help='write the results as JSON')
    ap.add_argument('--write-xfail', action='store_true', help=f'regenerate {rel_xfail} (implies --all)')
    ap.add_argument('--max-samples', type=int, default=S.MAX_SAMPLES, help=db.max_samples_help)
    ap.add_argument('--timeout', type=float, default=S.ENTRY_TIMEOUT_S, help='CPU seconds per entry')
    ap.add_argument('--from-json', metavar='PATH',
                    help='with --write-xfail: use the results of an earlier --all --json run')
    ap.add_argument('-j', '--jobs', type=int, default=1, help='worker processes (the machine is shared: 2 at most)')
    ap.add_argument('--list', action='store_true', help=db.list_help)
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('-q', '--quiet', action='store_true', help='with --all: only failures and the summary')
    a = ap.parse_args(argv)
    if a.list:
        for k, entry in S.database().items():
            print(db.list_line(k, entry))
        return 0
    if a.write_xfail:
        a.all = True    # the file lists every failing entry: it needs a full run
    if a.write_xfail and a.max_samples != S.MAX_SAMPLES:
        ap.error('--write-xfail must use the test suite\'s MAX_SAMPLES')
    if a.from_json:
        with open(a.from_json) as f:
            d = json.load(f)
        if not a.write_xfail or d['max_samples'] != S.MAX_SAMPLES or len(d['results']) != len(S.database()):
            ap.error('--from-json needs --write-xfail and a full --all run made with the default --max-samples')
        write_xfail(db, d['results'])
        return 0
    keys = list(S.database()) if a.all else db.select(a.names)
    if not keys:
        ap.error('no entries selected (give names or --all)')
    width = db.all_width if a.all and db.all_width else max(len(k) for k in keys) + 1
    results = []
    t0 = time.time()
    for r in _run(db, keys, a.max_samples, a.timeout, a.jobs):
        results.append(r)
        if not (a.quiet and not db.failures(r)):
            db.report(r, a.verbose, width)
    if a.all or len(keys) > 1:
        db.summary(results, time.time() - t0)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'max_samples': a.max_samples, 'time': time.time(), 'results': results}, f, indent=1)
        print(f'wrote {a.json}')
    if a.write_xfail:
        write_xfail(db, results)
    return 0
