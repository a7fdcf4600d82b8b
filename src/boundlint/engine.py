"""The one engine behind ``boundlint check``, the flake8 plugin, pre-commit and the audit.

``check_source`` runs every enabled rule over one file's text in a single
traversal and returns sorted findings (noqa applied).  ``check_files`` runs
many files in worker processes so that nothing a file does to the parser (a
native crash, a hang, a recursion overflow) can take the run down: a worker
that dies is replaced and the file it held is reported as BND001 or BND002.
The code under analysis is never imported or executed.
"""
from __future__ import annotations

import os
import re
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from boundlint.config import Settings
from boundlint.finding import Finding
from boundlint.noqa import suppressed
from boundlint.source import DecodeError, decode_source

RECURSION_LIMIT = 6000


@dataclass
class FileResult:
    """The outcome for one file: its findings (sorted) and its line count."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    lines: int = 0
    # What extra collectors gathered (collector name -> picklable facts); None when none ran.
    facts: dict | None = None


def _meta_finding(code: str, path: str, reason: str, line: int = 1, column: int = 1) -> Finding:
    from boundlint.rules.meta import InternalError, UnparseableFile

    rule = UnparseableFile if code == "BND001" else InternalError
    return Finding(path, max(line, 1), max(column, 1), code, rule.message.format(reason=reason),
                   max(line, 1), max(column, 1), rule.hint)


def enabled_rules(settings: Settings) -> list[type]:
    """Rule classes (with traversal hooks) that *settings* selects, by code."""
    from boundlint.rules.base import all_rules

    return [cls for code, cls in all_rules().items() if not code.startswith("BND0") and settings.enabled(code)]


def check_source(text: str, path: str, settings: Settings, rules: Sequence[type] | None = None,
                 apply_noqa: bool = True, prefilter: bool = True, collectors: Sequence = (),
                 facts: dict | None = None) -> list[Finding]:
    """Findings for one module's source *text* (already decoded), sorted, noqa applied.

    A parse failure becomes one BND001 finding; a failing rule becomes
    BND002 while the other rules still report.  ``apply_noqa=False`` leaves
    ``# noqa`` comments to the caller (flake8 owns noqa in plugin mode).
    Rules with a ``check_text(text, path)`` classmethod (comment checks)
    contribute its ``(line, column, message)`` findings.  With *prefilter*,
    rules whose text prefilter cannot match are skipped, and a file no rule
    can report on is not parsed with LibCST at all (CPython's parser checks its
    syntax so BND001 is still reported).  Raises nothing for bad input.

    ``collectors``: zero-argument factories (module-level, picklable) of
    objects with rule-style ``visit_`` / ``leave_`` hooks, a ``name`` and a
    ``facts(position)`` method; they run in the same traversal and their
    facts are stored in the *facts* dict under their ``name``.  ``position``
    maps a node to its 1-based ``(line, column, end_line)``.
    """
    import libcst as cst

    from boundlint.analysis.context import Context
    from boundlint.analysis.walk import Walker
    from boundlint.rules.base import Report

    if rules is None:
        rules = enabled_rules(settings)
    if prefilter:
        rules = [cls for cls in rules if cls.may_apply(text)]
        if not rules and not collectors and _compiles(text):
            return []  # nothing could report, and the syntax is fine: skip the LibCST parse
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        reason, line, column = _syntax_error(text, exc)
        return _filter([_meta_finding("BND001", path, reason, line, column)], text, settings, apply_noqa)
    except RecursionError:
        return _filter([_meta_finding("BND001", path, "too deeply nested to parse")], text, settings, apply_noqa)
    except MemoryError:
        return _filter([_meta_finding("BND001", path, "too large to parse")], text, settings, apply_noqa)
    except Exception as exc:  # the parser itself failed on odd input
        return _filter([_meta_finding("BND001", path, f"parser error: {type(exc).__name__}: {exc}")], text, settings,
                       apply_noqa)
    if not rules and not collectors:
        return []
    sink: list[Report] = []
    errors: list[Finding] = []

    def on_rule_error(rule: object, exc: BaseException) -> None:
        where = _where(exc)
        errors.append(_meta_finding("BND002", path, f"rule {rule.code} failed: {type(exc).__name__}: {exc}{where}"))

    ctx = Context(path, module, settings)
    extra = [factory() for factory in collectors]
    walker = Walker([cls(sink) for cls in rules] + extra, ctx, on_rule_error)
    try:
        walker.walk(module)
    except RecursionError:
        errors.append(_meta_finding("BND002", path, "file too deeply nested to analyse"))
    except MemoryError:
        errors.append(_meta_finding("BND002", path, "out of memory while analysing the file"))
    findings = _positions(module, sink, path) + errors
    if extra:
        _collect_facts(extra, module, facts, findings, path)
    for cls in rules:
        check_text = getattr(cls, "check_text", None)
        if check_text is None:
            continue
        try:
            for line, column, message in check_text(text, path):
                findings.append(Finding(path, line, column, cls.code, message, line, column, cls.hint))
        except Exception as exc:  # same isolation as a failing traversal hook
            findings.append(_meta_finding("BND002", path, f"rule {cls.code} failed: {type(exc).__name__}: {exc}{_where(exc)}"))
    return _filter(findings, text, settings, apply_noqa)


def _compiles(text: str) -> bool:
    """True when CPython's own parser accepts *text* (about a tenth of LibCST's cost)."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _collect_facts(extra: list, module, facts: dict | None, findings: list, path: str) -> None:
    """Store each collector's facts in *facts*; a failing collector becomes BND002 like a rule."""
    positions: dict = {}

    def position(node) -> tuple[int, int, int]:
        if not positions:
            from libcst.metadata import MetadataWrapper, PositionProvider

            positions.update(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))
        pos = positions[node]
        return pos.start.line, pos.start.column + 1, pos.end.line

    for collector in extra:
        try:
            value = collector.facts(position)
        except Exception as exc:  # same isolation as a failing rule
            findings.append(_meta_finding("BND002", path, f"collector {collector.name} failed: {type(exc).__name__}: {exc}{_where(exc)}"))
            continue
        if facts is not None:
            facts[collector.name] = value


_AT = re.compile(r"error at (\d+):(\d+): (.*)")


def _syntax_error(text: str, exc: Exception) -> tuple[str, int, int]:
    """``(reason, line, column)`` for a parse failure, preferring CPython's own message."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as err:
        return f"syntax error: {err.msg}", err.lineno or 1, err.offset or 1
    except (ValueError, RecursionError, MemoryError) as err:  # NUL bytes, deep nesting
        return f"syntax error: {err}", 1, 1
    message = getattr(exc, "message", str(exc))
    match = _AT.search(message)
    if match:
        return f"syntax error: {match.group(3)}", int(match.group(1)), int(match.group(2)) + 1
    return f"syntax error: {message}", getattr(exc, "raw_line", 1), getattr(exc, "raw_column", 0) + 1


def _where(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"


def _positions(module, sink, path: str) -> list[Finding]:
    """Turn reports into findings; positions are computed only when something was found."""
    if not sink:
        return []
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    out = []
    seen = set()
    for report in sink:
        pos = positions[report.node]
        key = (report.rule.code, pos.start.line, pos.start.column)
        if key in seen:
            continue
        seen.add(key)
        out.append(Finding(path, pos.start.line, pos.start.column + 1, report.rule.code, report.message,
                           pos.end.line, pos.end.column + 1, report.rule.hint))
    return out


def _filter(findings: list[Finding], text: str, settings: Settings, apply_noqa: bool = True) -> list[Finding]:
    if not findings:
        return []
    lines = text.splitlines()
    kept = []
    for f in findings:
        if not settings.enabled(f.code):
            continue
        line_text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        if apply_noqa and suppressed(line_text, f.code):
            continue
        kept.append(f)
    return sorted(kept)


def check_file(path: str, settings: Settings, rules: Sequence[type] | None = None,
               collectors: Sequence = (), prefilter: bool = True) -> FileResult:
    """Read, decode and check one file; unreadable or undecodable input becomes BND001.

    With *collectors* (see ``check_source``) the result's ``facts`` holds their facts.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return FileResult(path, _filter([_meta_finding("BND001", path, f"cannot read: {exc.strerror or exc}")], "", settings))
    try:
        text = decode_source(data)
    except DecodeError as exc:
        return FileResult(path, _filter([_meta_finding("BND001", path, f"cannot decode: {exc}", exc.line, exc.column)], "", settings))
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if collectors:
        facts: dict = {}
        return FileResult(path, check_source(text, path, settings, rules, collectors=collectors, facts=facts), lines, facts)
    return FileResult(path, check_source(text, path, settings, rules, prefilter=prefilter), lines)


# -- isolation: worker processes ------------------------------------------------------

def _worker_main(conn, settings: Settings, collectors: Sequence = ()) -> None:
    """Worker loop: receive chunks of ``(index, path)``, report ``start`` / ``done`` per file."""
    sys.setrecursionlimit(RECURSION_LIMIT)
    rules = enabled_rules(settings)
    try:
        while True:
            chunk = conn.recv()
            if chunk is None:
                return
            for index, path in chunk:
                conn.send(("start", index))
                conn.send(("done", index, check_file(path, settings, rules, collectors)))
            conn.send(("idle",))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return


@dataclass
class _Worker:
    process: object
    conn: object
    chunk: deque = field(default_factory=deque)
    current: int | None = None
    started: float = 0.0
    busy: bool = False


def _context():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _start_worker(mp, settings: Settings, collectors: Sequence = ()) -> _Worker:
    parent, child = mp.Pipe(duplex=True)
    process = mp.Process(target=_worker_main, args=(child, settings, tuple(collectors)), daemon=True)
    process.start()
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


def check_files(paths: Sequence[str], settings: Settings, jobs: int | None = None, progress=None,
                collectors: Sequence = ()) -> list[FileResult]:
    """Check *paths* in isolated worker processes; results sorted by path.

    ``jobs``: worker count (default: all cores; a handful of files uses one).
    ``progress``: optional callable ``(done, total)`` for progress display.
    A worker killed by a signal or exceeding ``settings.timeout`` on one file
    is replaced; that file is reported (BND001 crash, BND002 time limit).
    ``collectors``: see ``check_source``; each result's ``facts`` holds theirs.
    """
    from multiprocessing.connection import wait

    total = len(paths)
    if total == 0:
        return []
    cores = os.cpu_count() or 1
    jobs = max(1, min(jobs or cores, cores * 4))
    jobs = min(jobs, max(1, total // 8) if total < 64 else jobs, total)
    chunk_size = max(1, min(32, total // (jobs * 8) or 1))
    pending: deque[list[tuple[int, str]]] = deque()
    indexed = list(enumerate(paths))
    for start in range(0, total, chunk_size):
        pending.append(indexed[start:start + chunk_size])
    results: dict[int, FileResult] = {}
    mp = _context()
    workers: list[_Worker] = []

    def feed(worker: _Worker) -> bool:
        if pending:
            chunk = pending.popleft()
            worker.chunk = deque(index for index, _ in chunk)
            worker.busy = True
            worker.conn.send(chunk)
            return True
        return False

    try:
        for _ in range(min(jobs, len(pending))):
            w = _start_worker(mp, settings, collectors)
            workers.append(w)
            feed(w)
        while len(results) < total:
            live = [w for w in workers if w.busy]
            if not live:
                if not pending or not any(feed(w) for w in workers):
                    break
                continue
            now = time.monotonic()
            timeouts = [settings.timeout - (now - w.started) for w in live if w.current is not None]
            ready = wait([w.conn for w in live], timeout=max(0.05, min(timeouts)) if timeouts else None)
            for w in live:
                if w.conn not in ready:
                    if w.current is not None and time.monotonic() - w.started > settings.timeout:
                        _replace(w, workers, results, paths, settings, mp, pending,
                                 f"skipped: checking took longer than {settings.timeout:g} s", "BND002", collectors)
                    continue
                try:
                    msg = w.conn.recv()
                except (EOFError, OSError):
                    w.process.join(1)
                    _replace(w, workers, results, paths, settings, mp, pending,
                             _signal_reason(w.process.exitcode), "BND001", collectors)
                    continue
                if msg[0] == "start":
                    w.current, w.started = msg[1], time.monotonic()
                elif msg[0] == "done":
                    results[msg[1]] = msg[2]
                    w.current = None
                    if w.chunk and w.chunk[0] == msg[1]:
                        w.chunk.popleft()
                    if progress is not None:
                        progress(len(results), total)
                elif msg[0] == "idle":
                    w.chunk.clear()
                    w.busy = False
                    feed(w)
    finally:
        for w in workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        for w in workers:
            w.process.join(2)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
    return [results[i] for i in sorted(results, key=lambda i: paths[i])]


def _replace(w: _Worker, workers: list, results: dict, paths, settings, mp, pending: deque, reason: str, code: str,
             collectors: Sequence = ()) -> None:
    """Record the file *w* was on as failed, requeue the rest of its chunk, start a fresh worker."""
    if w.process.is_alive():
        w.process.kill()
    w.process.join()
    w.conn.close()
    index = w.current if w.current is not None else (w.chunk[0] if w.chunk else None)
    if index is not None:
        results[index] = FileResult(paths[index], _filter([_meta_finding(code, paths[index], reason)], "", settings))
    rest = [i for i in w.chunk if i not in results]
    workers.remove(w)
    if rest:
        pending.appendleft([(i, paths[i]) for i in rest])
    fresh = _start_worker(mp, settings, collectors)
    workers.append(fresh)
    if not pending:
        return
    chunk = pending.popleft()
    fresh.chunk = deque(i for i, _ in chunk)
    fresh.busy = True
    fresh.conn.send(chunk)


def check_paths(paths: Iterable[str], settings: Settings, jobs: int | None = None, progress=None,
                root: str | None = None, collectors: Sequence = (), cache=None) -> list[FileResult]:
    """Discover files under *paths* and check them; raises files.PathError for a missing path.

    *root* (the config file's directory) anchors ``exclude`` patterns and
    turns on ``respect_gitignore``; without it discovery behaves as before.
    *cache* (a ``boundlint.cache.Cache``) serves unchanged files; it is not
    used with *collectors*, whose facts are not cached.
    """
    from boundlint.files import discover

    if root is None:
        files = discover(paths, settings.exclude + settings.extend_exclude)
    else:
        files = discover(paths, settings.exclude + settings.extend_exclude, root=root,
                         respect_gitignore=settings.respect_gitignore)
    if cache is not None and not collectors:
        return check_files_cached(files, settings, cache, jobs, progress)
    return check_files(files, settings, jobs, progress, collectors)


def check_files_cached(paths: Sequence[str], settings: Settings, cache, jobs: int | None = None,
                       progress=None) -> list[FileResult]:
    """``check_files`` behind the result cache (a ``boundlint.cache.Cache``, or None for none).

    Each file's bytes are hashed; hits are served from the cache, misses are
    checked in workers and stored, unless the result says the check itself
    failed (BND002, or an unreadable file).  Results are sorted by path.
    """
    if cache is None:
        return check_files(paths, settings, jobs, progress)
    from boundlint.cache import content_key

    results: list[FileResult] = []
    misses: list[str] = []
    keys: dict[str, str] = {}
    for path in paths:
        try:
            with open(path, "rb") as fh:
                key = content_key(fh.read())
        except OSError:
            misses.append(path)
            continue
        hit = cache.get(key, path)
        if hit is None:
            keys[path] = key
            misses.append(path)
        else:
            results.append(FileResult(path, hit[0], hit[1]))
    done = len(results)
    if progress is not None and done:
        progress(done, len(paths))
    wrapped = None if progress is None else (lambda n, _total: progress(done + n, len(paths)))
    for result in check_files(misses, settings, jobs, wrapped):
        key = keys.get(result.path)
        if key is not None and not any(f.code == "BND002" for f in result.findings):
            cache.put(key, result.findings, result.lines)
        results.append(result)
    cache.flush()
    results.sort(key=lambda r: r.path)
    return results
