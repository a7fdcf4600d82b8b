"""Worker processes end with the run that started them, even when it is killed with SIGKILL."""
from __future__ import annotations

import sys


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent ends (``prctl(PR_SET_PDEATHSIG)``); elsewhere nothing.

    Call it first thing in a freshly started worker.  A ``kill -9`` of the
    run then leaves no worker behind, busy or waiting on a pipe (a forked
    worker holds the parent's end of its own pipe, so it never reads EOF).
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # the pool's own workers still notice an orphaned state within a second (pool.receive)


def index_worker_start() -> None:
    """Initializer of the project index's summary workers: collect garbage again, die with the parent."""
    import gc

    gc.enable()
    die_with_parent()
