"""One long-lived worker process for calls that must not take their caller down (the language server's checks).

The CLI checks files in the worker pool (``engine.pool``); an editor checks
one buffer at a time, as the buffer changes, and keeps what the engine
learnt between checks (the project index, the buffers it was told about).
So the server keeps one worker of the same kind (``pool.become_worker``:
no crash dump, dies with its parent) and sends it each call.  A native
crash or a call over its time limit kills that worker only; the caller gets
an ``Unfinished`` with the reason the CLI would print, and the next call
starts a fresh worker.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Callable


class Unfinished(Exception):
    """The call did not finish: ``code`` is BND001 (the worker crashed) or BND002 (over its time limit)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _serve(conn, function: Callable[..., Any]) -> None:
    """Worker loop: ``function(*args)`` for each message; ``("ok", value)`` or ``("error", one line)`` back."""
    from boundlint.engine.pool import become_worker, receive
    from boundlint.engine.result import _one_line

    parent = become_worker()
    # The parent's stdin and stdout may be a protocol stream (LSP over stdio): this process must not touch them.
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    try:
        while True:
            args = receive(conn, parent)
            if args is None:
                return
            try:
                reply = ("ok", function(*args))
            except BaseException as exc:  # noqa: B036 - a SystemExit in the engine must not end the worker
                reply = ("error", _one_line(exc))
            conn.send(reply)
    except (EOFError, OSError):
        return


class Isolated:
    """Runs the module-level (picklable) *function* in a worker process, one call at a time, from any thread."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self._lock = threading.Lock()
        self._process = None
        self._conn = None

    def start(self) -> None:
        """Start the worker now (before the caller starts threads, ideally), if none runs."""
        with self._lock:
            self._ensure()

    def call(self, *args: Any, limit: float | None = None) -> Any:
        """``function(*args)`` in the worker; waits at most *limit* seconds (None: no limit).

        Raises Unfinished when the worker dies (BND001, with the signal) or
        overruns *limit* (BND002; the worker is killed), and RuntimeError
        with the one-line reason when *function* raised.
        """
        from boundlint.engine.pool import _signal_reason
        from boundlint.schedule import describe_limit

        with self._lock:
            self._ensure()
            process, conn = self._process, self._conn
            try:
                conn.send(args)
                if not conn.poll(limit):
                    self._discard()
                    raise Unfinished("BND002", f"skipped: checking took longer than {describe_limit(limit)} s "
                                               "(the per-file time limit)")
                kind, value = conn.recv()
            except (EOFError, OSError):
                process.join(1)
                code = process.exitcode
                self._discard()
                raise Unfinished("BND001", _signal_reason(code)) from None
        if kind == "error":
            raise RuntimeError(value)
        return value

    def close(self) -> None:
        """Stop the worker (it also dies on its own when this process ends)."""
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.send(None)
                except (OSError, ValueError):
                    pass
            self._discard(wait=1.0)

    def _ensure(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._discard()
        from boundlint.engine.pool import _context

        mp = _context()
        parent, child = mp.Pipe(duplex=True)
        process = mp.Process(target=_serve, args=(child, self.function), daemon=True)
        try:
            process.start()
        finally:
            child.close()
        self._process, self._conn = process, parent

    def _discard(self, wait: float = 0.0) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is not None:
            if wait:
                process.join(wait)
            if process.is_alive():
                process.kill()
            process.join()
        if conn is not None:
            conn.close()
