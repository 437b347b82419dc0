"""torch.utils.data.dataloader: the DataLoader and its single- and multi-process iterators.

Mirrors torch/utils/data/dataloader.py: the same arguments, validation (exception types and messages),
default samplers, ``len()``, automatic batching (``default_collate``) or not (``default_convert``), the
multi-process protocol (one index queue per worker, one result queue, ``prefetch_factor * num_workers``
tasks outstanding, round-robin assignment, a reordering buffer for ``in_order=True``, persistent workers
resumed each epoch), worker errors re-raised with the worker's traceback, and shutdown on exhaustion,
deletion and exit. torch's datapipes (IterDataPipe, MapDataPipe) are not provided by torchlike.

Note [DataLoader workers]
JAX cannot survive ``os.fork()`` once a backend has started (measured: a forked child that runs any op
deadlocks; clearing the backends in the child aborts in absl's mutex), and a torchlike program has
almost always started one before it iterates a DataLoader. So workers are not forked from the main
process. ``multiprocessing_context=None`` means the 'forkserver' start method ('spawn' where there is
none, e.g. Windows) rather than torch's platform default, with torchlike preloaded in the fork server.
Measured on a 2-core machine, starting 2 workers that import torchlike and run one op: 'spawn' 1.2-2.2 s
every time (each child imports torchlike and jax afresh); 'forkserver' with torchlike preloaded 1.0 s
the first time (the server starts and imports torchlike once) and 0.16 s afterwards; 'fork' 0.15 s. The
fork server imports torchlike, which does not start a backend, so forking from it is safe; it does not
preload ``__main__`` (the default preload), whose top-level code could start one there. As with torch
under spawn/forkserver (macOS, Windows, Python >= 3.14), the dataset, ``collate_fn`` and
``worker_init_fn`` must pickle (defined at module level) and the main script must be importable by
the children (the ``if __name__ == '__main__':`` guard). ``python -m torchlike`` aliases ``torch``
to torchlike in these children too (Note [The torch alias] in torchlike/_runner.py).

An explicit 'fork' context (the string or a context object) raises NotImplementedError when the
DataLoader is made, naming the option and the reason: forking would be safe only while no backend has
started in the main process, and the iterator itself starts one before any worker exists (it draws the
workers' ``base_seed`` from a torch Generator, a JAX op, as torch does), so a forked worker would
always inherit a started runtime.

In a worker, JAX is restricted to the CPU platform before anything is unpickled
(``_configure_worker_runtime`` and ``_WorkerPayload`` in _utils/worker.py), and the main process's
environment is applied first (fork-server children would otherwise see the server's, frozen when it
started). The main script's top-level code runs in each worker before that (the child re-imports it,
as under torch's spawn), so a top-level ``torch.cuda.is_available()`` or tensor op there starts JAX
with its default platform in every worker; such code belongs under the main guard. Batches reach the
main process by pickling (tensors pickle as numpy arrays). Measured cost per epoch without
persistent workers, 2 workers on 2 cores: about 0.4 s to the first batch (fork, re-import of the main
module, JAX CPU start-up and first compilations in each worker).
"""
import itertools
import multiprocessing as python_multiprocessing
import os
import queue
import time
import warnings
import weakref
from typing import Generic, TypeVar

import torchlike as torch  # attribute access happens at call time, after torchlike has finished importing

from ..._engine import lazy as _lazy
from ..._engine.state import state as _state
from . import _utils
from ._utils import ExceptionWrapper
from ._utils.worker import _WorkerPayload
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

_T_co = TypeVar("_T_co", covariant=True)

default_collate = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _utils.fetch._MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _utils.fetch._IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: ``itertools.repeat(None)`` (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


def _start_method(context):
    """The start method of a multiprocessing context, refusing 'fork' (Note [DataLoader workers])."""
    if isinstance(context, python_multiprocessing.context.DefaultContext):
        # the global default context: what it would use now, without fixing it as get_start_method() does
        context = context._actual_context or context._default_context
    method = context.get_start_method()
    if method == 'fork':
        raise NotImplementedError(
            "DataLoader(multiprocessing_context='fork') is not supported by torchlike: a forked worker would "
            "inherit the JAX runtime of this process, which deadlocks after a fork (see Note [DataLoader "
            "workers]); use 'forkserver' (the default) or 'spawn'")
    return method


def _worker_context(context):
    """The multiprocessing context workers start from (Note [DataLoader workers])."""
    if context is None:
        methods = python_multiprocessing.get_all_start_methods()
        context = python_multiprocessing.get_context('forkserver' if 'forkserver' in methods else 'spawn')
    if _start_method(context) == 'forkserver':
        from multiprocessing import forkserver
        preload = getattr(forkserver._forkserver, '_preload_modules', None)
        if preload == ['__main__']:          # the default: replace it (see the Note)
            context.set_forkserver_preload(['torchlike'])
        elif preload is not None and 'torchlike' not in preload:   # the user's list: keep it, add ours
            context.set_forkserver_preload([*preload, 'torchlike'])
    return context


def _accelerator_available():
    return torch.cuda.is_available()


class DataLoader(Generic[_T_co]):
    """Combines a dataset and a sampler into an iterable over batches, loading in the main process or in
    ``num_workers`` worker processes (see Note [DataLoader workers] for how workers start).

    Args as torch.utils.data.DataLoader: dataset, batch_size=1, shuffle=None, sampler, batch_sampler,
    num_workers=0, collate_fn, pin_memory=False, drop_last=False, timeout=0, worker_init_fn,
    multiprocessing_context, generator, and keyword-only prefetch_factor, persistent_workers,
    pin_memory_device, in_order=True.
    """

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            elif batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified "
                    f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")

        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)

        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator

        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers

        self.__initialized = True
        # len(dataset) of an IterableDataset as len(self) last read it, to warn when more samples come
        self._IterableDataset_len_called = None
        self._iterator = None

        self.check_worker_number_rationality()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers > 0:
                if isinstance(multiprocessing_context, str):
                    valid_start_methods = python_multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in valid_start_methods:
                        raise ValueError(
                            "multiprocessing_context option "
                            f"should specify a valid start method in {valid_start_methods!r}, but got "
                            f"multiprocessing_context={multiprocessing_context!r}")
                    multiprocessing_context = python_multiprocessing.get_context(multiprocessing_context)
                if not isinstance(multiprocessing_context, python_multiprocessing.context.BaseContext):
                    raise TypeError(
                        "multiprocessing_context option should be a valid context "
                        "object or a string specifying the start method, but got "
                        f"multiprocessing_context={multiprocessing_context}")
                _start_method(multiprocessing_context)
            else:
                raise ValueError(
                    "multiprocessing_context can only be used with "
                    "multi-process loading (num_workers > 0), but got "
                    f"num_workers={self.num_workers}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        # Persistent workers: one iterator (and its processes) for the loader's lifetime, reset per epoch.
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what the fetchers receive: lists of indices with automatic batching, single indices without
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            # An estimate from len(dataset), as torch: the dataset's own sharding across workers decides
            # the true count. Remembered so that the iterator can warn when more batches arrive.
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                length = length // self.batch_size if self.drop_last else ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warn (as torch) when more workers are asked for than this process may use CPUs."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        max_num_worker_suggest = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if max_num_worker_suggest is None or self.num_workers > max_num_worker_suggest:
            if max_num_worker_suggest is not None:
                suggested = (f"Our suggested max number of worker in current system is {max_num_worker_suggest}"
                             f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}, which is "
                             "smaller than what this DataLoader is going to create.")
            else:
                suggested = "DataLoader is not able to compute a suggested max number of worker in current system."
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. {suggested} "
                "Please be aware that excessive worker creation might get DataLoader running slow or even freeze, "
                "lower the worker number to avoid potential slowness/freeze if necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers

        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as the device,"
                f"ignore pin_memory_device='{loader.pin_memory_device}'.", stacklevel=2)
        self._pin_memory = loader.pin_memory and _accelerator_available()
        if loader.pin_memory and not self._pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        self._pin_memory_device = 'cuda' if self._pin_memory else None

        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # drawn from the loader's generator (as torch) even without workers, so it advances the same way
        self._base_seed = torch.empty((), dtype=torch.int64).random_(generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        if _state.mode == 'lazy':      # a batch boundary is a step boundary (Note [Lazy execution])
            _lazy.sync()
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warn_msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                        f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                        f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                warn_msg += ("For multiprocessing data-loading, this could be caused by not properly configuring "
                             "the IterableDataset replica at each worker. Please see "
                             "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for "
                             "examples.")
            warnings.warn(warn_msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if self._num_workers != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires num_workers == 0")
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
        if self._pin_memory:
            data = _utils.pin_memory.pin_memory(data, self._pin_memory_device)
        return data


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Loads in worker processes (torch's protocol, described in its long comment of the same class).

    Each task is ``(send_idx, index)`` on one worker's index queue, assigned round-robin over the
    active workers; ``_task_info[idx]`` is ``(worker_id,)`` while outstanding and ``(worker_id, data)``
    once it arrived out of order (in_order=True). At most ``prefetch_factor * num_workers`` tasks are
    outstanding: a task is sent each time a batch is returned. An iterable dataset's worker that is
    exhausted is marked inactive and its remaining tasks are skipped. While waiting, the result queue is
    read in short slices and worker liveness checked between them, so a dead worker raises instead of
    hanging.
    """

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._num_workers <= 0:
            raise AssertionError("num_workers must be greater than 0 for MultiProcessingDataLoaderIter")
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")

        context = _worker_context(loader.multiprocessing_context)
        self._pool = _WorkerPool(context, self._num_workers, self._persistent_workers)
        # shut the workers down when this iterator is collected, even from a reference cycle (see _WorkerPool)
        self._finalizer = weakref.finalize(self, self._pool.shutdown)
        self._finalizer.atexit = False
        self._workers = self._pool.processes
        self._index_queues = self._pool.index_queues
        self._workers_status = self._pool.status        # the same list: reset in place
        self._data_queue = self._worker_result_queue = self._pool.result_queue
        self._workers_done_event = self._pool.done_event
        self._pool.start(_WorkerPayload((self._dataset, self._collate_fn, loader.worker_init_fn)),
                         self._dataset_kind, self._auto_collation, self._drop_last, self._base_seed)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the index of the next task to send
        self._rcvd_idx = 0  # the index of the next task to return from __next__
        self._task_info = {}
        self._tasks_outstanding = 0  # == count(v for v in _task_info.values() if len(v) == 1)
        self._workers_status[:] = [True] * self._num_workers
        self._workers_num_tasks = [0 for _ in range(self._num_workers)]
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # persistent workers: start a new epoch, dropping what an unfinished epoch left in the queue
            for idx in range(self._num_workers):
                self._index_queues[idx].put(_utils.worker._ResumeIteration())
            resume_iteration_cnt = self._num_workers
            while resume_iteration_cnt > 0:
                return_idx, return_data = self._get_data()
                if isinstance(return_idx, _utils.worker._ResumeIteration):
                    if return_data is not None:
                        raise AssertionError("Expected return_data to be None when resuming iteration")
                    resume_iteration_cnt -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout):
        """``(True, message)``, or ``(False, None)`` after ``timeout`` seconds with every worker alive."""
        try:
            return (True, self._data_queue.get(timeout=timeout))
        except Exception as e:
            failed_workers = []
            for worker_id, w in enumerate(self._workers):
                if self._workers_status[worker_id] and not w.is_alive():
                    failed_workers.append(w)
                    self._mark_worker_as_unavailable(worker_id)
            if failed_workers:
                pids_str = ", ".join(str(w.pid) for w in failed_workers)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids_str}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return (False, None)
            raise

    def _get_data(self):
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = _utils.WORKER_POLL_INTERVAL
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            success, data = self._try_get_data(wait)
            if success:
                return data

    def _next_data(self):
        while True:
            # skip tasks of workers that ended (an exhausted iterable dataset) and will never answer
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx, None)
                if info:
                    worker_id = info[0]
                    if len(info) == 2 or self._workers_status[worker_id]:  # has data or is still active
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:      # it arrived earlier, out of order
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding tasks when fetching next data")
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable:
                if isinstance(data, _utils.worker._IterableDatasetStopIteration):
                    if self._persistent_workers:
                        self._workers_status[data.worker_id] = False
                    else:
                        self._mark_worker_as_unavailable(data.worker_id)
                    self._try_put_index()
                    continue

            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)      # keep it until its turn
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker (with room, when out of order)
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(self._workers_status):
                    break
        else:
            return   # no active worker
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_idx):
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        if self._pin_memory:
            data = _utils.pin_memory.pin_memory(data, self._pin_memory_device)
        return data

    @property
    def _shutdown(self):
        return self._pool.shut_down

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        self._pool.mark_unavailable(worker_id, shutdown)

    def _shutdown_workers(self):
        self._finalizer()


class _WorkerPool:
    """The worker processes of one multi-process iterator and the queues and event shared with them.

    Kept apart from the iterator so that shutting the workers down never depends on the order in which
    a garbage collection tears objects down. An iterator that raised a worker's exception sits in a
    reference cycle with the exception's traceback; when such a cycle is collected, the weakref
    callbacks of everything in it (multiprocessing's finalizers, which stop a queue's feeder thread) run
    before any ``__del__``, so torch's ``__del__`` can no longer send its stop messages and waits 5 s
    per worker before terminating it (measured with torch 2.13). Here a ``weakref.finalize`` on the
    iterator holds this object, so its queues are still reachable, and intact, when the iterator goes.
    At interpreter exit nothing is done (as torch): multiprocessing terminates daemonic workers itself.
    """

    def __init__(self, context, num_workers, persistent_workers):
        self.context = context
        self.num_workers = num_workers
        self.persistent_workers = persistent_workers
        self.processes = []
        self.index_queues = []
        self.status = [True] * num_workers          # whether each worker still takes tasks
        self.result_queue = context.Queue()
        self.done_event = context.Event()
        self.shut_down = False

    def start(self, payload, dataset_kind, auto_collation, drop_last, base_seed):
        for i in range(self.num_workers):
            index_queue = self.context.Queue()
            # a worker may never read its last messages; do not block this process's exit flushing them
            index_queue.cancel_join_thread()
            w = self.context.Process(
                target=_utils.worker._worker_loop,
                args=(payload, dataset_kind, index_queue, self.result_queue, self.done_event, auto_collation,
                      drop_last, base_seed, i, self.num_workers, self.persistent_workers))
            w.daemon = True
            _start_pickled(w)
            self.index_queues.append(index_queue)
            self.processes.append(w)

    def mark_unavailable(self, worker_id, shutdown=False):
        """Tell a worker to exit (None on its index queue) and stop sending it tasks. Used when it ended
        its share of an iterable dataset, when it died, and at shutdown."""
        if not self.status[worker_id] and not self.persistent_workers and not shutdown:
            raise AssertionError("Worker status inconsistent when marking worker as unavailable")
        self.index_queues[worker_id].put(None)
        self.status[worker_id] = False
        if self.done_event.is_set() != shutdown:
            raise AssertionError("_workers_done_event state does not match shutdown flag")

    def shutdown(self):
        """Stop the workers: signal done, send each None, join them briefly, terminate stragglers."""
        if _utils is None or _utils.python_exit_status is True or _utils.python_exit_status is None:
            return
        if self.shut_down:
            return
        self.shut_down = True
        try:
            self.done_event.set()
            for worker_id in range(len(self.processes)):
                # a persistent worker marked inactive may still be waiting for a _ResumeIteration
                if self.persistent_workers or self.status[worker_id]:
                    self.mark_unavailable(worker_id, shutdown=True)
            for w in self.processes:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self.index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self.processes:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)


def _start_pickled(w):
    """Start a spawn / forkserver worker, warning as torch does when its arguments do not pickle."""
    from pickle import PicklingError
    try:
        w.start()
    except (TypeError, AttributeError, PicklingError):
        warnings.warn(
            "Got pickle error when attempting to start a worker Process. "
            "This might be because the worker Process arguments are not picklable. "
            "torchlike starts DataLoader workers with the 'forkserver' or 'spawn' method, which requires "
            "the dataset, collate_fn and worker_init_fn to be picklable (defined at module level).",
            stacklevel=3)
        raise
