"""torch.utils.data._utils.worker: the loop a DataLoader worker process runs, and what a worker knows
about itself (``get_worker_info``).

Mirrors torch/utils/data/_utils/worker.py: seeding (``base_seed + worker_id`` for ``random`` and torch,
torch's SeedSequence-like hash of both for numpy), ``worker_init_fn`` after seeding, one fetch per index
message, ``_ResumeIteration`` for persistent workers, an exception wrapped with its traceback, the end of
an iterable dataset reported once, and a watchdog that stops the loop when the main process is gone.
What differs is start-up: see Note [DataLoader workers] in dataloader.py and ``_configure_worker_runtime``.
"""
import os
import pickle
import queue
import random
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler

from . import HAS_NUMPY, IS_WINDOWS, MP_STATUS_CHECK_INTERVAL, ExceptionWrapper

__all__ = ['WorkerInfo', 'get_worker_info']

if IS_WINDOWS:
    import ctypes
    from ctypes.wintypes import BOOL, DWORD, HANDLE

    class ManagerWatchdog:
        """Whether the main process is alive (a handle to it that is signalled when it exits)."""

        def __init__(self):
            self.manager_pid = os.getppid()
            self.kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
            self.kernel32.OpenProcess.argtypes = (DWORD, BOOL, DWORD)
            self.kernel32.OpenProcess.restype = HANDLE
            self.kernel32.WaitForSingleObject.argtypes = (HANDLE, DWORD)
            self.kernel32.WaitForSingleObject.restype = DWORD
            SYNCHRONIZE = 0x00100000
            self.manager_handle = self.kernel32.OpenProcess(SYNCHRONIZE, 0, self.manager_pid)
            if not self.manager_handle:
                raise ctypes.WinError(ctypes.get_last_error())
            self.manager_dead = False

        def is_alive(self):
            if not self.manager_dead:
                self.manager_dead = self.kernel32.WaitForSingleObject(self.manager_handle, 0) == 0
            return not self.manager_dead
else:
    class ManagerWatchdog:
        """Whether the main process is alive (an orphaned worker is re-parented, so its parent pid changes)."""

        def __init__(self):
            self.manager_pid = os.getppid()
            self.manager_dead = False

        def is_alive(self):
            if not self.manager_dead:
                self.manager_dead = os.getppid() != self.manager_pid
            return not self.manager_dead


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Information about the current DataLoader worker process: ``id`` (0 .. num_workers - 1),
    ``num_workers``, ``seed`` (this worker's seed) and ``dataset`` (this process's copy of the dataset)."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info():
    """The WorkerInfo of this DataLoader worker process, or None in the main process. Useful in a
    ``worker_init_fn`` or an IterableDataset's ``__iter__`` to give each worker its own shard."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose copy of an iterable dataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to (and echoed by) persistent workers to start a new epoch."""
    seed: int | None = None


def _configure_worker_runtime():
    """Make a worker's JAX use the CPU platform only, before anything in the worker starts a backend.

    A worker's batch travels to the main process by pickling anyway, and a GPU client started in every
    worker would claim accelerator memory per worker (JAX preallocates most of a GPU's memory per
    process); torch's forked workers cannot use CUDA at all. (torch also calls ``set_num_threads(1)`` in
    its workers; XLA's CPU thread settings showed no measurable effect on a 2-core machine, so none are
    changed here.)
    """
    from jax._src import xla_bridge

    from ...._engine.jaxrt import jax
    if not xla_bridge.backends_are_initialized():
        jax.config.update('jax_platforms', 'cpu')


class _WorkerPayload:
    """The user's objects a worker needs (dataset, collate_fn, worker_init_fn) and the main process's
    environment, applied in the worker before JAX is configured and the objects are unpickled.

    A worker process unpickles its arguments before its target runs, and unpickling a tensor (a
    TensorDataset's, say) starts a JAX backend; so the objects travel as one inner pickle, made while
    the Process is being pickled (so objects that pickle only when a process is spawned, such as a
    ``multiprocessing.Value`` held by a dataset, still can) and read by ``_load_payload`` after
    ``_configure_worker_runtime``. The environment travels because a fork server's children inherit
    the fork server's environment, fixed when it started; a worker of torch's (forked or spawned) sees
    the main process's environment as it is when the worker starts.
    """

    def __init__(self, objects):
        self.objects = objects

    def __reduce__(self):
        return (_load_payload, (dict(os.environ), bytes(ForkingPickler.dumps(self.objects))))


def _load_payload(environ, data):
    for key in [k for k in os.environ if k not in environ]:
        del os.environ[key]
    os.environ.update(environ)
    _configure_worker_runtime()
    return _WorkerPayload(pickle.loads(data))


def _generate_state(base_seed, worker_id):
    """The numpy seed of a worker: four 32-bit words mixing ``base_seed`` and ``worker_id`` (torch's
    SeedSequence-like hash, so numpy streams differ between workers and epochs as in torch)."""
    INIT_A = 0x43B0D7E5
    MULT_A = 0x931E8875
    INIT_B = 0x8B51F9DD
    MULT_B = 0x58F38DED
    MIX_MULT_L = 0xCA01F9DD
    MIX_MULT_R = 0x4973F715
    XSHIFT = 4 * 8 // 2
    MASK32 = 0xFFFFFFFF

    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_A = INIT_A

    def hash(value):
        nonlocal hash_const_A
        value = (value ^ hash_const_A) & MASK32
        hash_const_A = (hash_const_A * MULT_A) & MASK32
        value = (value * hash_const_A) & MASK32
        value = (value ^ (value >> XSHIFT)) & MASK32
        return value

    def mix(x, y):
        result_x = (MIX_MULT_L * x) & MASK32
        result_y = (MIX_MULT_R * y) & MASK32
        result = (result_x - result_y) & MASK32
        result = (result ^ (result >> XSHIFT)) & MASK32
        return result

    for i in range(len(pool)):
        pool[i] = hash(entropy[i])
    for i_src in range(len(pool)):
        for i_dst in range(len(pool)):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash(pool[i_src]))

    hash_const_B = INIT_B
    state = []
    for i_dst in range(4):
        data_val = pool[i_dst]
        data_val = (data_val ^ hash_const_B) & MASK32
        hash_const_B = (hash_const_B * MULT_B) & MASK32
        data_val = (data_val * hash_const_B) & MASK32
        data_val = (data_val ^ (data_val >> XSHIFT)) & MASK32
        state.append(data_val)
    return state


def _worker_loop(payload, dataset_kind, index_queue, data_queue, done_event, auto_collation, drop_last,
                 base_seed, worker_id, num_workers, persistent_workers):
    """Serve ``(task_idx, index)`` messages from ``index_queue`` with ``(task_idx, batch)`` on
    ``data_queue`` until told to stop (None) or the main process is gone.

    Protocol (torch's): an exception while fetching is sent as an ExceptionWrapper in place of the batch;
    the end of an iterable dataset as ``_IterableDatasetStopIteration`` (after which requests are
    skipped until a ``_ResumeIteration``, which is echoed back, or None); an exception in
    ``worker_init_fn`` or in building the fetcher is sent for the first request.
    """
    try:
        _configure_worker_runtime()      # done already if the payload was unpickled here; cheap to repeat
        dataset, collate_fn, init_fn = payload.objects
        import torchlike

        from ..dataloader import _DatasetKind

        seed = base_seed + worker_id
        random.seed(seed)
        torchlike.manual_seed(seed)
        if HAS_NUMPY:
            import numpy as np
            np.random.seed(_generate_state(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # iteration_end: an iterable dataset is exhausted; skip requests until the next epoch or the end.
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                                      drop_last)
                continue
            if r is None:
                if not done_event.is_set() and not iteration_end:
                    raise AssertionError("Received final signal but neither done_event nor iteration_end is set")
                break
            if done_event.is_set() or iteration_end:
                continue      # shutting down or exhausted: drain the remaining requests without work
            idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r  # drop the batch before blocking on the next request
    except KeyboardInterrupt:
        pass      # the main process got the same SIGINT and reports it
    if done_event.is_set():
        # the main process no longer reads: do not block exit on flushing unread results
        data_queue.cancel_join_thread()
        data_queue.close()
