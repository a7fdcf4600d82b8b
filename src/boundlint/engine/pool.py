"""Worker processes: nothing a file does to the parser (a native crash, a hang) can take the run down."""
from __future__ import annotations

import os
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Sequence

from boundlint.config import Settings
from boundlint.orphans import die_with_parent
from boundlint.schedule import WALL_FACTOR, cpu_seconds, describe_limit
from boundlint.engine.check import check_file, enabled_rules
from boundlint.engine.result import FileResult, RECURSION_LIMIT, _filter, _meta_finding, _one_line, _where


# -- isolation: worker processes ------------------------------------------------------

def _worker_main(conn, collectors: Sequence = ()) -> None:
    """Worker loop: receive chunks of ``(index, path, settings)``, report ``start`` / ``done`` per file.

    Each file is checked with the settings it came with (its own config's);
    the rules each settings enables are looked up once.  Everything a file
    can raise becomes a BND002 result; only a native crash or the parent's
    kill ends the loop early.  SIGINT is ignored: the parent handles Ctrl-C
    and stops its workers.
    """
    parent = become_worker()
    known: dict[Settings, Sequence[type] | BaseException] = {}
    try:
        while True:
            chunk = receive(conn, parent)
            if chunk is None:
                return
            for _, _, settings in chunk:  # before any "start": loading rules is no file's fault
                if settings not in known:
                    try:
                        known[settings] = enabled_rules(settings)
                    except Exception as exc:  # every file then reports it, rather than the worker dying unexplained
                        known[settings] = exc
            for index, path, settings in chunk:
                conn.send(("start", index))
                result = _check_contained(path, settings, known[settings], collectors)
                try:
                    conn.send(("done", index, result))
                except OSError:
                    raise
                except Exception as exc:  # unpicklable facts: the findings alone still get through
                    conn.send(("done", index, _failed(path, settings, f"internal error: result not sent: {_one_line(exc)}")))
            conn.send(("idle",))
    except (EOFError, OSError):
        return


def become_worker() -> int:
    """Set up this freshly started worker process; returns the parent's process id (for ``receive``).

    SIGINT is ignored (the parent handles Ctrl-C); a native crash leaves no
    dump on stderr (the parent reports it); the recursion limit is the
    engine's; on Linux the kernel kills this process when its parent dies,
    so a ``kill -9`` of the run leaves no worker behind.
    """
    import faulthandler
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.disable()  # a native crash is reported by the parent as BND001; no dump on stderr
    sys.setrecursionlimit(RECURSION_LIMIT)
    parent = os.getppid()
    die_with_parent()
    if os.getppid() != parent:  # the parent died before the kernel was told
        os._exit(0)
    return parent


def receive(conn, parent: int, poll_seconds: float = 1.0):
    """The next message on *conn*; raises EOFError once the process *parent* is gone.

    A forked worker inherits the parent's end of its own pipe (and its
    siblings'), so the parent's death alone never reads as EOF here.
    """
    while not conn.poll(poll_seconds):
        if os.getppid() != parent:
            raise EOFError("the parent process is gone")
    return conn.recv()


def _check_contained(path: str, settings: Settings, rules, collectors: Sequence) -> FileResult:
    """``check_file`` that returns a BND002 result instead of raising anything."""
    if isinstance(rules, BaseException):
        return _failed(path, settings, f"internal error: cannot load the rules: {_one_line(rules)}")
    try:
        return check_file(path, settings, rules, collectors)
    except BaseException as exc:  # noqa: B036 - SystemExit from a rule must not end the worker either
        return _failed(path, settings, f"internal error: {_one_line(exc)}{_where(exc)}")


def _failed(path: str, settings: Settings, reason: str, code: str = "BND002") -> FileResult:
    return FileResult(path, _filter([_meta_finding(code, path, reason)], "", settings), failed=True)


@dataclass(eq=False)
class _Worker:
    process: object
    conn: object
    chunk: deque = field(default_factory=deque)  # indices sent and not yet done
    current: int | None = None  # the file between its "start" and "done"
    since: float = 0.0  # the last sign of progress: chunk sent, file started or finished
    busy: bool = False
    cpu: float | None = None  # the worker's CPU seconds when the current file started (None: unknown)
    grace: float = 0.0  # seconds added to the current file's deadline while the worker waited for a core


def _context():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _start_worker(mp, collectors: Sequence = ()) -> _Worker:
    parent, child = mp.Pipe(duplex=True)
    process = mp.Process(target=_worker_main, args=(child, tuple(collectors)), daemon=True)
    try:
        process.start()
    finally:
        child.close()
    return _Worker(process, parent)


def _signal_reason(code: int | None) -> str:
    if code is not None and code < 0:
        import signal

        try:
            return f"the parser crashed ({signal.Signals(-code).name})"
        except ValueError:
            return f"the parser crashed (signal {-code})"
    return f"the parser crashed (exit status {code})"


class _Pool:
    """The workers of one ``check_files`` run and the bookkeeping that keeps it honest.

    Invariants: every index is in exactly one of ``pending`` (a chunk not yet
    sent), a worker's ``chunk``, or ``results``; a worker is replaced, never
    reused, after it dies or overruns the time limit.
    """

    # A worker that dies between files this many times in a row (no file done
    # in between) is blamed on the next file of its chunk, so the run always ends.
    MAX_IDLE_DEATHS = 3

    def __init__(self, paths: Sequence[str], settings: Sequence[Settings], chunks: deque, collectors: Sequence,
                 progress, limits: Sequence[float | None]) -> None:
        self.paths = paths
        self.settings = settings  # per index
        self.limits = limits  # per index: seconds, or None for no limit
        self.pending = chunks
        self.collectors = collectors
        self.progress = progress
        self.results: dict[int, FileResult] = {}
        self.workers: list[_Worker] = []
        self.mp = _context()
        self.idle_deaths = 0

    def record(self, index: int, result: FileResult) -> None:
        if index in self.results:
            return
        self.results[index] = result
        if self.progress is not None:
            self.progress(len(self.results), len(self.paths))

    def start(self) -> bool:
        """Start one worker and give it work; False when no process can be started."""
        try:
            w = _start_worker(self.mp, self.collectors)
        except OSError:
            return False
        self.workers.append(w)
        self.feed(w)
        return True

    def feed(self, w: _Worker) -> None:
        w.current = None
        w.since = time.monotonic()
        if not self.pending:
            w.busy, w.chunk = False, deque()
            return
        chunk = self.pending.popleft()
        w.chunk, w.busy = deque(index for index, _, _ in chunk), True
        try:
            w.conn.send(chunk)
        except OSError:
            pass  # the worker is dead: its pipe reads as EOF next, and the chunk is requeued then

    def deadline(self, w: _Worker) -> float | None:
        """When *w* counts as stuck: a file over its time limit, or no sign of life for twice the next one's."""
        limit = self.limit(w)
        if limit is None:
            return None
        return w.since + (limit + w.grace if w.current is not None else 2 * limit)

    def starved(self, w: _Worker, now: float) -> bool:
        """True when *w* is past its deadline only for want of CPU: the limit then counts CPU time.

        A file is judged by the CPU time it used (so machine load never turns
        a finding into BND002), up to a wall-clock backstop of
        ``WALL_FACTOR`` times its limit for a worker that hangs without
        computing.  The deadline is pushed back by the CPU time still due.
        """
        limit = self.limit(w)
        if w.current is None or w.cpu is None or limit is None or now - w.since >= WALL_FACTOR * limit:
            return False
        used = cpu_seconds(w.process.pid)
        if used is None or used - w.cpu >= limit:
            return False
        due = limit - (used - w.cpu)  # the earliest the file can exhaust its CPU time is `due` seconds from now
        w.grace = max(w.grace + 0.25, now + due - w.since - limit)
        return True

    def limit(self, w: _Worker) -> float | None:
        """The time limit of the file *w* holds or starts next (the largest one between chunks)."""
        if w.current is not None:
            return self.limits[w.current]
        if w.chunk:
            return self.limits[w.chunk[0]]
        return max((x for x in self.limits if x is not None), default=None)

    def lose(self, w: _Worker, reason: str, code: str) -> None:
        """*w* died or hung: kill it, report the file it held, requeue the rest, start a fresh one."""
        if w.process.is_alive():
            w.process.kill()
        w.process.join()
        w.conn.close()
        self.workers.remove(w)
        blamed = w.current
        if blamed is None:
            self.idle_deaths += 1
            if self.idle_deaths >= self.MAX_IDLE_DEATHS and w.chunk:
                blamed = w.chunk[0]
        if blamed is not None:
            self.idle_deaths = 0
            self.record(blamed, _failed(self.paths[blamed], self.settings[blamed], reason, code))
        rest = [i for i in w.chunk if i not in self.results]
        if rest:
            self.pending.appendleft([(i, self.paths[i], self.settings[i]) for i in rest])
        if self.pending:
            self.start()

    def receive(self, w: _Worker) -> None:
        """Handle one message from *w*; its death shows here as EOF."""
        try:
            msg = w.conn.recv()
        except Exception:  # EOF, a reset pipe, or a message cut short by the crash
            w.process.join(1)
            self.lose(w, _signal_reason(w.process.exitcode), "BND001")
            return
        kind = msg[0]
        if kind == "start":
            w.current, w.since, w.grace = msg[1], time.monotonic(), 0.0
            w.cpu = cpu_seconds(w.process.pid)
        elif kind == "done":
            self.idle_deaths = 0
            self.record(msg[1], msg[2])
            w.current, w.since = None, time.monotonic()
            if msg[1] in w.chunk:
                w.chunk.remove(msg[1])
        elif kind == "idle":
            self.feed(w)

    def run(self, jobs: int) -> None:
        from multiprocessing.connection import wait

        for _ in range(min(jobs, len(self.pending))):
            if not self.start():
                break
        while len(self.results) < len(self.paths):
            live = [w for w in self.workers if w.busy]
            if not live:
                if self.pending and (self.workers or self.start()):
                    for w in self.workers:
                        self.feed(w)
                    continue
                break  # no worker can be started: the caller checks what is left in-process
            deadlines = [d for d in map(self.deadline, live) if d is not None]
            timeout = max(0.01, min(deadlines) - time.monotonic()) if deadlines else None
            ready = wait([w.conn for w in live], timeout=timeout)
            now = time.monotonic()
            for w in live:
                if w not in self.workers:
                    continue
                if w.conn in ready:
                    self.receive(w)
                    continue
                deadline = self.deadline(w)
                if deadline is not None and now >= deadline and not self.starved(w, now):
                    self.lose(w, f"skipped: checking took longer than {describe_limit(self.limit(w))} s "
                                 "(the per-file time limit)", "BND002")

    def stop(self, graceful: bool) -> None:
        """End every worker: ask politely after a normal run, kill at once after an error or Ctrl-C."""
        for w in self.workers:
            if graceful:
                try:
                    w.conn.send(None)
                except (OSError, ValueError):
                    pass
            elif w.process.is_alive():
                w.process.kill()
        end = time.monotonic() + 2
        for w in self.workers:
            w.process.join(max(0.0, end - time.monotonic()))
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.conn.close()
        self.workers.clear()


def check_files(paths: Sequence[str], settings: Settings, jobs: int | None = None, progress=None,
                collectors: Sequence = (), per_file: Sequence[Settings] | None = None) -> list[FileResult]:
    """Check *paths* in isolated worker processes; results sorted by path, one per path.

    ``per_file``: the settings of each path (same order; e.g. each file's
    own config), else *settings* for all.  ``jobs``: worker count (default:
    as many as the total size of the files warrants, up to every core; see
    ``boundlint.schedule``; an explicit count is honoured up to one worker
    per file).  ``progress``: optional callable ``(done, total)``.  A worker
    killed by a signal, or exceeding a file's time limit (its ``timeout``
    plus an allowance per MB, ``schedule.time_limit``; 0 or None: no limit),
    is replaced; that file is reported (BND001 crash, BND002 time limit) and
    the rest of its chunk goes on.  ``collectors``: see ``check_source``;
    each result's ``facts`` holds theirs.  When no worker process can be
    started at all, files are checked in this process instead.
    """
    from boundlint.schedule import plan, time_limit

    total = len(paths)
    if total == 0:
        return []
    each = list(per_file) if per_file is not None else [settings] * total
    sizes = [_size(p) for p in paths]
    jobs, order = plan(sizes, jobs, _cores())
    limits = [time_limit(s.timeout, size) for s, size in zip(each, sizes)]
    chunks = deque([(i, paths[i], each[i]) for i in chunk] for chunk in order)
    pool = _Pool(paths, each, chunks, collectors, progress, limits)
    graceful = False
    try:
        pool.run(jobs)
        graceful = True
    finally:
        pool.stop(graceful)
    if len(pool.results) < total:
        known: dict[Settings, list[type]] = {}
        for index in range(total):
            if index not in pool.results:
                if each[index] not in known:
                    known[each[index]] = enabled_rules(each[index])
                rules = known[each[index]]
                pool.record(index, _check_contained(paths[index], each[index], rules, collectors))
    return [pool.results[i] for i in sorted(pool.results, key=lambda i: paths[i])]


def _size(path: str) -> int:
    """*path*'s size in bytes (0 when it cannot be read: it fails fast)."""
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
