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
from boundlint.noqa import noqa_lines, suppressed
from boundlint.schedule import WALL_FACTOR, cpu_seconds, describe_limit
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
    # The project questions the judgement asked, with a digest of each answer (for the exact cache).
    consulted: dict | None = None
    # The check did not complete (time limit, crash, a failing rule), whether or not BND001/BND002
    # is selected: such a result is never cached, so the next run tries again.
    failed: bool = False


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
                 facts: dict | None = None, project=None, failed: list | None = None) -> list[Finding]:
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
    maps a node to its 1-based ``(line, column, end_line)``.  With
    *prefilter*, a collector whose ``may_apply(text, settings)`` is False is
    skipped (its facts are then absent).

    ``project``: the ``index.view.ProjectView`` of the file's module (what
    other modules of its project say); by default the index of the project
    *path* belongs to, when *path* is a file on disk, else none.
    *failed*, when given, gets an entry when the analysis itself failed
    (BND002), even if BND002 is not selected.
    """
    import libcst as cst

    from boundlint.analysis.context import Context
    from boundlint.analysis.walk import Walker

    if rules is None:
        rules = enabled_rules(settings)
    if prefilter:
        rules = [cls for cls in rules if _may_apply(cls, text, settings)]
        # A collector may say from the text alone that it has nothing to gather.
        collectors = [c for c in collectors if not hasattr(c, "may_apply") or c.may_apply(text, settings)]
        if not collectors and all(hasattr(cls, "check_text") for cls in rules) and _compiles(text):
            # Only comment checks (or nothing) could report, and the syntax is fine: skip the LibCST parse.
            return _filter(_text_findings(rules, text, path), text, settings, apply_noqa)
    nesting = _nesting_error(text)
    if nesting is not None:  # CPython rejects it; LibCST's native parser would crash the process
        return _filter([_meta_finding("BND001", path, *nesting)], text, settings, apply_noqa)
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        module = _bridge_gaps(text)
        if module is None:
            reason, line, column = _syntax_error(text, exc)
            return _filter([_meta_finding("BND001", path, reason, line, column)], text, settings, apply_noqa)
    except RecursionError:
        return _filter([_meta_finding("BND001", path, "too deeply nested to parse")], text, settings, apply_noqa)
    except MemoryError:  # depends on what else the machine is doing: marked failed, so never cached
        if failed is not None:
            failed.append("BND001")
        return _filter([_meta_finding("BND001", path, "too large to parse")], text, settings, apply_noqa)
    except Exception as exc:  # the parser itself failed on odd input
        return _filter([_meta_finding("BND001", path, f"parser error: {type(exc).__name__}: {exc}")], text, settings,
                       apply_noqa)
    if not rules and not collectors:
        return []
    sink = _Sink()
    errors: list[Finding] = []

    def on_rule_error(rule: object, exc: BaseException) -> None:
        errors.append(_meta_finding("BND002", path, _rule_failed(rule, exc)))

    findings: list[Finding] = []
    # The same depth in-process (flake8 plugin, tests) as in a worker, so both give one answer.
    depth = sys.getrecursionlimit()
    if depth < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        ctx = Context(path, module, settings, project if project is not None else project_view(path))
        sink.ctx = ctx
        extra = [factory() for factory in collectors]
        walker = Walker([cls(sink) for cls in rules] + extra, ctx, on_rule_error)
        walker.walk(module)
        findings = _positions(module, sink, path)
        if extra:
            _collect_facts(extra, module, facts, findings, path)
    except RecursionError:
        errors.append(_meta_finding("BND002", path, "file too deeply nested to analyse"))
    except MemoryError:
        errors.append(_meta_finding("BND002", path, "out of memory while analysing the file"))
    except Exception as exc:  # a bug outside any one rule: report it, never a traceback
        errors.append(_meta_finding("BND002", path, f"internal error: {_one_line(exc)}{_where(exc)}"))
    finally:
        if depth < RECURSION_LIMIT:
            sys.setrecursionlimit(depth)
    if errors and sink and not findings:
        findings = _positions_or_nothing(module, sink, path)
    if errors and failed is not None:
        failed.append(errors[0])
    findings += errors
    findings += _text_findings(rules, text, path, failed)
    return _filter(findings, text, settings, apply_noqa)


def _text_findings(rules: Sequence[type], text: str, path: str, failed: list | None = None) -> list[Finding]:
    """Findings of the rules with a ``check_text(text, path)`` classmethod (comment checks)."""
    findings = []
    for cls in rules:
        check_text = getattr(cls, "check_text", None)
        if check_text is None:
            continue
        try:
            for line, column, message in check_text(text, path):
                findings.append(Finding(path, line, column, cls.code, message, line, column, cls.hint))
        except Exception as exc:  # same isolation as a failing traversal hook
            findings.append(_meta_finding("BND002", path, _rule_failed(cls, exc)))
            if failed is not None:
                failed.append(findings[-1])
    return findings


def _may_apply(cls: type, text: str, settings: Settings) -> bool:
    """A rule's text prefilter; one that raises counts as "may apply" (the rule's hooks are isolated)."""
    try:
        return cls.may_apply(text, settings)
    except Exception:
        return True


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


_MAX_NESTING = 200  # CPython's tokenizer rejects brackets nested deeper (MAXLEVEL)
_NOT_BRACKET = re.compile(r"[^()\[\]{}]+")
_STEP = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def _nesting_error(text: str) -> tuple[str, int, int] | None:
    """``(reason, line, column)`` when brackets nest deeper than CPython allows, else None.

    LibCST's native parser overflows the C stack on such input (the process
    dies with SIGSEGV), so it must not see it.  The bracket count includes
    strings and comments, so it is cheap and errs high; only then is CPython's
    parser asked, and its verdict decides.
    """
    from itertools import accumulate

    if text.count("(") + text.count("[") + text.count("{") <= _MAX_NESTING:
        return None
    running = list(accumulate(map(_STEP.__getitem__, _NOT_BRACKET.sub("", text))))
    lows = accumulate(running, min, initial=0)
    if max((r - low for r, low in zip(running, lows)), default=0) <= _MAX_NESTING:
        return None
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as err:
        return f"syntax error: {err.msg}", err.lineno or 1, err.offset or 1
    except (RecursionError, MemoryError):
        return "too deeply nested to parse", 1, 1
    except ValueError as err:  # NUL bytes
        return f"syntax error: {err}", 1, 1
    return None


def _one_line(exc: BaseException, limit: int = 160) -> str:
    """``Type: message`` on one line, shortened to *limit* characters."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rule_failed(rule: object, exc: BaseException) -> str:
    """The BND002 reason for a rule that raised: its code and slug, the error, where."""
    code, name = getattr(rule, "code", ""), getattr(rule, "name", "") or type(rule).__name__
    label = f"rule {code} ({name})" if code else f"collector {name}"
    return f"{label} failed: {_one_line(exc)}{_where(exc)}"


def _positions_or_nothing(module, sink, path: str) -> list[Finding]:
    """``_positions`` after an error elsewhere: what was found so far, if positions still resolve."""
    try:
        return _positions(module, sink, path)
    except (Exception, RecursionError):
        return []


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
    except (SyntaxError, ValueError) as err:
        msg = getattr(err, "msg", None) or str(err)
        if getattr(err, "lineno", None) is None and "\0" in text:  # NUL bytes: point at the first one
            nul = text.index("\0")
            return f"syntax error: {msg}", text.count("\n", 0, nul) + 1, nul - (text.rfind("\n", 0, nul) + 1) + 1
        return f"syntax error: {msg}", getattr(err, "lineno", None) or 1, getattr(err, "offset", None) or 1
    except (RecursionError, MemoryError):
        return "too deeply nested to parse", 1, 1
    # CPython accepts the file: the gap is LibCST's grammar, not the code (e.g. newer syntax).
    message = " ".join(getattr(exc, "message", str(exc)).split())
    match = _AT.search(message)
    if match:
        message, line, column = match.group(3), int(match.group(1)), int(match.group(2)) + 1
    else:
        line, column = getattr(exc, "raw_line", 1), getattr(exc, "raw_column", 0) + 1
    if len(message) > 100:
        message = message[:97] + "..."
    return f"syntax the parser (LibCST) does not support, though CPython accepts it: {message}", line, column


# ``(name): int = 1`` -- a parenthesized annotation target CPython accepts and LibCST's grammar does not.
_PAREN_TARGET = re.compile(r"^([ \t]*)\(([ \t]*[A-Za-z_][\w.]*[ \t]*)\)(?=[ \t]*:)", re.MULTILINE)


def _bridge_gaps(text: str):
    """A LibCST module for *text* that CPython accepts but LibCST's grammar does not, else None.

    Known gaps are rewritten in place: ``(name):`` becomes ``name  :``, so
    every line keeps its length and only the target name moves one column;
    the rules see the same structure without the redundant parentheses.
    """
    import libcst as cst

    if not _PAREN_TARGET.search(text) or not _compiles(text):
        return None
    repaired = _PAREN_TARGET.sub(lambda m: f"{m.group(1)}{m.group(2)}  ", text)
    try:
        return cst.parse_module(repaired)
    except Exception:  # another gap, or a real error the rewrite did not reach
        return None


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
    positions = _Positions(module, getattr(sink, "tops", None))
    out = []
    seen = set()
    for report in sink:
        pos = positions.of(report)
        key = (report.rule.code, pos.start.line, pos.start.column)
        if key in seen:
            continue
        seen.add(key)
        out.append(Finding(path, pos.start.line, pos.start.column + 1, report.rule.code, report.message,
                           pos.end.line, pos.end.column + 1, report.hint or report.rule.hint, tuple(report.evidence)))
    return out


class _Sink(list):
    """The reports list handed to rules; remembers the top-level statement each report came from.

    A report's position is then resolved in that statement alone, not by a
    position pass over the whole module (which costs several parses on a
    large file).  ``ctx`` is set once the traversal's Context exists.
    """

    ctx = None

    def __init__(self) -> None:
        super().__init__()
        self.tops: dict[int, object] = {}

    def append(self, report) -> None:
        super().append(report)
        ancestors = self.ctx.ancestors if self.ctx is not None else ()
        if len(ancestors) > 1:
            self.tops[id(report)] = ancestors[1]
        elif len(ancestors) == 1:
            self.tops[id(report)] = report.node


class _Positions:
    """Positions of reported nodes, resolved in the top-level statements that hold reports.

    One position pass runs over a module made of just those statements; a
    node found there is shifted back to its line in the file.  A node the
    pass does not hold (a rule reported a node outside its statement) falls
    back to one module-wide pass.
    """

    def __init__(self, module, tops: dict | None) -> None:
        self.module = module
        self.tops = tops or {}
        self.full = None
        self.batch = None  # (positions, [(line in batch, shift)]) once resolved

    def of(self, report):
        """The ``CodeRange`` (1-based lines, 0-based columns) of *report*'s node."""
        if self.tops and self.full is None:
            found = self._in_batch(report.node)
            if found is not None:
                return found
        return self._module_wide()[report.node]

    def _module_wide(self):
        if self.full is None:
            from libcst.metadata import MetadataWrapper, PositionProvider

            self.full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self.full

    def _in_batch(self, node):
        from bisect import bisect_right

        from libcst.metadata import CodePosition, CodeRange

        if self.batch is None:
            self.batch = self._resolve_batch()
        positions, starts, shifts = self.batch
        pos = positions.get(node)
        if pos is None:
            return None
        shift = shifts[bisect_right(starts, pos.start.line) - 1]
        return CodeRange(CodePosition(pos.start.line + shift, pos.start.column),
                         CodePosition(pos.end.line + shift, pos.end.column))

    def _resolve_batch(self):
        """Positions over the wanted statements alone, their first lines there, and the shift to the file's."""
        import re as _re

        from libcst.metadata import MetadataWrapper, PositionProvider

        newline = _re.compile(r"\r\n?|\n")
        wanted = {id(t) for t in self.tops.values()}
        chosen, starts, shifts = [], [], []
        line, batch_line = 1 + len(self.module.header), 1
        for statement in self.module.body:
            if not wanted:
                break
            count = len(newline.findall(self.module.code_for_node(statement)))
            if id(statement) in wanted:
                wanted.discard(id(statement))
                chosen.append(statement)
                starts.append(batch_line)
                shifts.append(line - batch_line)
                batch_line += count
            line += count
        if not chosen:
            return {}, [1], [0]
        batch = self.module.with_changes(header=(), body=tuple(chosen), footer=(), has_trailing_newline=True)
        return MetadataWrapper(batch, unsafe_skip_copy=True).resolve(PositionProvider), starts, shifts


def _filter(findings: list[Finding], text: str, settings: Settings, apply_noqa: bool = True) -> list[Finding]:
    if not findings:
        return []
    lines = noqa_lines(text) if apply_noqa and "noqa" in text.lower() else []
    kept = []
    for f in findings:
        if not settings.enabled(f.code):
            continue
        line_text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        if line_text and suppressed(line_text, f.code):
            continue
        kept.append(f)
    return sorted(kept)


def check_file(path: str, settings: Settings, rules: Sequence[type] | None = None,
               collectors: Sequence = (), prefilter: bool = True) -> FileResult:
    """Read, decode and check one file; unreadable or undecodable input becomes BND001.

    With *collectors* (see ``check_source``) the result's ``facts`` holds their facts.
    """
    try:
        data = _read(path)
    except OSError as exc:
        return FileResult(path, _filter([_meta_finding("BND001", path, f"cannot read: {exc.strerror or exc}")], "", settings))
    return check_bytes(data, path, settings, rules, collectors, prefilter)


def check_bytes(data: bytes, path: str, settings: Settings, rules: Sequence[type] | None = None,
                collectors: Sequence = (), prefilter: bool = True) -> FileResult:
    """Decode *data* (PEP 263) and check it as the file *path*, which need not exist.

    For input that is not read from *path* itself (standard input, an editor
    buffer); undecodable bytes become BND001.  Raises nothing for bad input.
    """
    try:
        text = decode_source(data)
    except DecodeError as exc:
        return FileResult(path, _filter([_meta_finding("BND001", path, f"cannot decode: {exc}", exc.line, exc.column)], "", settings))
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    view = project_view(path)
    failed: list = []
    if collectors:
        facts: dict = {}
        found = check_source(text, path, settings, rules, collectors=collectors, facts=facts, project=view, failed=failed)
        return FileResult(path, found, lines, facts, dict(view.consulted), failed=bool(failed))
    found = check_source(text, path, settings, rules, prefilter=prefilter, project=view, failed=failed)
    return FileResult(path, found, lines, consulted=dict(view.consulted), failed=bool(failed))


def project_view(path: str):
    """The ``ProjectView`` of the module at *path*: its project's index (built once per process), or none.

    A path that is not a file on disk (a test's made-up name) gets no project
    unless its text was registered in ``index.build.OVERRIDES`` (standard input,
    an editor's buffer).
    """
    from boundlint.index.build import OVERRIDES, index_for
    from boundlint.index.view import NO_PROJECT, ProjectView

    if not path.endswith((".py", ".pyi")) or not (os.path.isfile(path) or os.path.abspath(path) in OVERRIDES):
        return NO_PROJECT
    try:
        index = index_for(path, _INDEX_CACHE_DIR)
    except (OSError, ValueError, RecursionError):
        return NO_PROJECT
    return ProjectView(index, index.entry_for(path))


# Where module summaries are cached (set by the command line from --cache-dir / --no-cache); None: not cached.
_INDEX_CACHE_DIR: str | None = None


def set_index_cache(directory: str | None) -> None:
    """Cache module summaries under *directory* (None: build them afresh each process)."""
    global _INDEX_CACHE_DIR
    _INDEX_CACHE_DIR = directory


def _read(path: str) -> bytes:
    """The bytes of the regular file *path*; raises OSError for anything else.

    A FIFO or device named ``*.py`` would block or never end, and a
    directory cannot be read: each is refused before it is opened for data.
    """
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            os.listdir(path)  # an unlistable directory says why (permission denied)
            raise IsADirectoryError(21, "is a directory")
        if not stat.S_ISREG(mode):
            raise OSError(0, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


# -- isolation: worker processes ------------------------------------------------------

def _worker_main(conn, collectors: Sequence = ()) -> None:
    """Worker loop: receive chunks of ``(index, path, settings)``, report ``start`` / ``done`` per file.

    Each file is checked with the settings it came with (its own config's);
    the rules each settings enables are looked up once.  Everything a file
    can raise becomes a BND002 result; only a native crash or the parent's
    kill ends the loop early.  SIGINT is ignored: the parent handles Ctrl-C
    and stops its workers.
    """
    import faulthandler
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.disable()  # a native crash is reported by the parent as BND001; no dump on stderr
    sys.setrecursionlimit(RECURSION_LIMIT)
    known: dict[Settings, Sequence[type] | BaseException] = {}
    try:
        while True:
            chunk = conn.recv()
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


def check_paths(paths: Iterable[str], settings: Settings | None, jobs: int | None = None, progress=None,
                root: str | None = None, collectors: Sequence = (), cache=None, tree=None) -> list[FileResult]:
    """Discover files under *paths* and check them; raises files.PathError for a missing path.

    *tree* (a ``hierarchy.ConfigTree``) gives each file its own config's
    settings and each directory its own exclude patterns; *settings* and
    *root* are then unused (raises ConfigError for a broken config it
    reaches).  Without it, *settings* apply to every file and *root* (the
    config file's directory) anchors ``exclude`` patterns and turns on
    ``respect_gitignore``.  *cache* (a ``boundlint.cache.Cache``) serves
    unchanged files; it is not used with *collectors*, whose facts are not
    cached.
    """
    from boundlint.files import discover
    from boundlint.index.build import prime

    per_file = None
    if tree is not None:
        files = tree.discover(paths)
        per_file = [tree.for_path(f).settings for f in files]
        settings = per_file[0] if per_file else Settings()
    elif root is None:
        files = discover(paths, settings.exclude + settings.extend_exclude)
    else:
        files = discover(paths, settings.exclude + settings.extend_exclude, root=root,
                         respect_gitignore=settings.respect_gitignore)
    prime(files, _INDEX_CACHE_DIR)  # before workers fork, so they share the project indexes
    if cache is not None and not collectors:
        return check_files_cached(files, settings, cache, jobs, progress, per_file)
    return check_files(files, settings, jobs, progress, collectors, per_file)


def check_files_cached(paths: Sequence[str], settings: Settings, cache, jobs: int | None = None,
                       progress=None, per_file: Sequence[Settings] | None = None) -> list[FileResult]:
    """``check_files`` behind the result cache (a ``boundlint.cache.Cache``, or None for none).

    Each file's bytes are hashed; hits are served from the cache of the
    file's own settings (``per_file``, else *settings*), misses are checked
    in workers and stored, unless the check itself failed (a time limit, a
    crash, BND002, an unreadable file), whether or not that code is
    selected.  Results are sorted by path.
    """
    if cache is None:
        return check_files(paths, settings, jobs, progress, per_file=per_file)
    from boundlint.cache import content_key
    from boundlint.index.build import index_for
    from boundlint.index.view import still_valid

    each = dict(zip(paths, per_file)) if per_file is not None else {}
    results: list[FileResult] = []
    misses: list[str] = []
    keys: dict[str, str] = {}
    for path in paths:
        try:
            key = content_key(_read(path))  # a FIFO named *.py must not block the run
        except OSError:
            misses.append(path)
            continue
        hit = cache.variant(each.get(path, settings)).get(key, path)
        if hit is not None and hit[2] and not still_valid(index_for(path, _INDEX_CACHE_DIR), hit[2]):
            hit = None  # another module changed what this file's judgement asked of the project
        if hit is None:
            keys[path] = key
            misses.append(path)
        else:
            results.append(FileResult(path, hit[0], hit[1], consulted=hit[2]))
    done = len(results)
    if progress is not None and done:
        progress(done, len(paths))
    wrapped = None if progress is None else (lambda n, _total: progress(done + n, len(paths)))
    miss_settings = [each[p] for p in misses] if per_file is not None else None
    for result in check_files(misses, settings, jobs, wrapped, per_file=miss_settings):
        key = keys.get(result.path)
        if key is not None and not result.failed and not any(f.code == "BND002" for f in result.findings):
            cache.variant(each.get(result.path, settings)).put(key, result.findings, result.lines, result.consulted)
        results.append(result)
    cache.flush()
    results.sort(key=lambda r: r.path)
    return results
