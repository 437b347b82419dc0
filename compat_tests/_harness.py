"""The runner shared by the database checks (``_opinfo_support``, ``_module_db_support``): how one entry's samples
are run under a CPU-time limit, counted, and turned into a verdict.

An entry's samples come in groups (OpInfo: one per dtype; ModuleInfo: one per training mode); each sample's check
returns ``{kind: (status, message)}`` with kind 'forward' or 'gradient' and status 'PASS', 'FAIL' or 'SKIP'.
The counts per (kind, group) keep the first failure and the first skip, and a kind passes if at least one sample
ran and every sample that ran passed (Note [OpInfo check], Note [ModuleInfo check]).
"""
import contextlib
import importlib
import signal
import threading
import time
import warnings


class Skip(Exception):
    """The sample cannot be run (torch fails, or it uses something the converter cannot express)."""


class Mismatch(AssertionError):
    pass


class EntryTimeout(BaseException):
    # BaseException: no `except Exception` around a torch or torchlike call may swallow it
    pass


class NotImplementedInTorchlike(Exception):
    pass


def load_database(module, name, key):
    """torch's test database ``module.name`` as {key(entry): entry} in its order (the first entry of a key wins);
    the warnings torch's test modules raise on import are silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        entries = getattr(importlib.import_module(module), name)
    db = {}
    for e in entries:
        db.setdefault(key(e), e)
    return db


def exc_text(e):
    """One line naming an exception raised by torch or torchlike; a missing torchlike name reads as such."""
    if isinstance(e, NotImplementedInTorchlike):
        return str(e)
    if isinstance(e, AttributeError):
        m = str(e)
        if m.startswith("module 'torchlike' has no attribute") or m.startswith("'Tensor' object has no attribute"):
            return f'not implemented: {m}'
    msg = str(e).strip().splitlines()[0] if str(e).strip() else ''
    return f'{type(e).__name__}: {msg}'


def short(reason, n=200):
    reason = ' '.join(str(reason).split())
    return reason if len(reason) <= n else reason[:n - 3] + '...'


@contextlib.contextmanager
def time_limit(seconds):
    """Raise EntryTimeout after ``seconds`` of this process's CPU time (ITIMER_PROF: user+system time of
    all its threads, XLA's compiler threads included), so that a loaded shared machine does not turn
    slow-but-correct entries into failures. Main thread only; elsewhere no limit."""
    if not seconds or threading.current_thread() is not threading.main_thread() or not hasattr(signal, 'SIGPROF'):
        yield
        return

    def handler(signum, frame):
        raise EntryTimeout(f'entry used more than {seconds}s of CPU time')
    old = signal.signal(signal.SIGPROF, handler)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def timed(check, *args):
    """``check(*args)`` (a result dict) with its wall and CPU seconds added."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = check(*args)
    out['seconds'] = round(time.perf_counter() - t0, 3)
    out['cpu_seconds'] = round(time.process_time() - c0, 3)
    return out


def run_groups(groups, kinds, timeout, label):
    """Run an entry's sample groups under ``time_limit(timeout)`` and count the results.

    ``groups`` yields ``(name, kinds checked in it, samples(), check(sample))``; it is consumed inside the time
    limit, so building a group counts too. A ``samples()`` that raises leaves the group with no samples and its
    error as the first skip. ``label(i, sample)`` names a sample in the first failure/skip messages.
    Returns ``({kind: {group: counts}}, entry error or None)``; the error is the timeout's message.
    """
    stats = {k: {} for k in kinds}
    try:
        with time_limit(timeout):
            for name, group_kinds, samples, check in groups:
                for k in group_kinds:
                    stats[k][name] = {'pass': 0, 'fail': 0, 'skip': 0, 'first_fail': '', 'first_skip': ''}
                try:
                    sams = samples()
                except Exception as e:
                    for k in group_kinds:
                        stats[k][name]['first_skip'] = f'sample generation fails: {exc_text(e)}'
                    continue
                for si, sample in enumerate(sams):
                    for k, (st, msg) in check(sample).items():
                        s = stats[k][name]
                        s[st.lower()] += 1
                        slot = 'first_fail' if st == 'FAIL' else 'first_skip' if st == 'SKIP' else None
                        if slot and not s[slot]:
                            s[slot] = f'{label(si, sample)}: {msg}'
    except EntryTimeout as e:
        return stats, str(e)
    return stats, None


def verdict(group_stats, entry_error):
    """(status, reason) of one kind from its per-group counts: the first failure, else 'no runnable samples'
    when no sample passed, else PASS; an entry error (missing callable, timeout) fails every kind."""
    if entry_error:
        return 'FAIL', entry_error
    fails = [(g, s) for g, s in group_stats.items() if s['fail']]
    if fails:
        g, s = fails[0]
        return 'FAIL', f'{g} {s["first_fail"]}'
    if not sum(s['pass'] for s in group_stats.values()):
        skips = [f'{g}: {s["first_skip"]}' for g, s in group_stats.items() if s['first_skip']]
        return 'FAIL', 'no runnable samples' + (f' ({skips[0]})' if skips else '')
    return 'PASS', ''
