"""torch.utils.data._utils: the pieces of data loading that run in worker processes as well as in the main
process (collation, fetching, the worker loop, memory pinning).

They live in importable modules, not in dataloader.py's classes, because a worker process is started with
a reference to its target function and arguments that it must be able to import by name (see Note
[DataLoader workers] in dataloader.py).
"""
import atexit
import sys
import traceback

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds a worker waits on its index queue before checking that the main process is still alive, and
that the main process waits for a worker to exit at shutdown before terminating it (as in torch)."""

WORKER_POLL_INTERVAL = 0.1
"""Seconds the main process waits on the result queue before checking that its workers are alive. torch
polls every MP_STATUS_CHECK_INTERVAL and relies on a SIGCHLD handler to notice a dead worker at once; we
have no such handler, so we poll often instead (a blocked queue read costs nothing while it waits)."""

python_exit_status = False
"""Whether Python is shutting down: iterators then leave their workers alone (the interpreter is tearing
down the modules they need; daemonic workers are terminated by multiprocessing's own exit handler)."""

try:
    import numpy  # noqa: F401
    HAS_NUMPY = True
except ModuleNotFoundError:
    HAS_NUMPY = False


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)


class KeyErrorMessage(str):
    """A str whose repr is itself, so that a re-raised KeyError prints its (multi-line) message readably
    (KeyError calls repr() on its argument)."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, carried across threads or processes (torch._utils'
    ExceptionWrapper; torch also keeps it importable from here)."""

    def __init__(self, exc_info=None, where="in background"):
        # Keep only the type and the text: holding exc_info would keep every frame alive.
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the wrapped exception type here, its message naming where it was caught and carrying the
        original traceback ("Caught ValueError in DataLoader worker process 0.\\nOriginal Traceback ...")."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            # exceptions whose first argument is not a str but which take an explicit ``message``
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # the type needs other constructor arguments: we cannot rebuild it
            raise RuntimeError(msg) from None
        raise exception


from . import collate, fetch, pin_memory, worker  # noqa: E402,F401 - after the names they import from here
