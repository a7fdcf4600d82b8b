"""One file: parse once, run every enabled rule in one traversal, with the project index's view of the module."""
from __future__ import annotations

import gc
import os
import sys
from typing import Sequence

from boundlint.config import Settings
from boundlint.finding import Finding
from boundlint.source import DecodeError, decode_source
from boundlint.engine.parse import _bridge_gaps, _compiles, _nesting_error, _syntax_error, parse_module
from boundlint.engine.positions import _Sink, _positions, _positions_or_nothing
from boundlint.engine.result import FileResult, RECURSION_LIMIT, _filter, _meta_finding, _one_line, _rule_failed, _where
from boundlint.engine.run import set_index_cache  # noqa: F401  (its home before run.py; kept for importers)


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
    collecting = gc.isenabled()
    gc.disable()  # the tree makes no cycles, and each collection during the check would traverse it
    try:
        return _check_source(text, path, settings, rules, apply_noqa, prefilter, collectors, facts, project, failed)
    finally:
        if collecting:
            gc.enable()


def _check_source(text: str, path: str, settings: Settings, rules: Sequence[type] | None, apply_noqa: bool,
                  prefilter: bool, collectors: Sequence, facts: dict | None, project, failed: list | None) -> list[Finding]:
    import libcst as cst

    from boundlint.analysis.context import Context
    from boundlint.analysis.walk import Walker
    from boundlint.analysis.facts.walk import forget

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
        module = parse_module(text)
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
        ctx = Context(path, module, settings, project if project is not None else project_view(path), text)
        sink.ctx = ctx
        extra = [factory() for factory in collectors]
        walker = Walker([cls(sink) for cls in rules] + extra, ctx, on_rule_error)
        walker.walk(module)
        findings = _positions(module, sink, path, text)
        if extra:
            _collect_facts(extra, ctx.locator(), facts, findings, path)
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
        findings = _positions_or_nothing(module, sink, path, text)
    forget()  # the children the facts read of this module's nodes
    # Each report holds its rule, which holds the sink, which holds the report and (by ctx) the module: a
    # cycle that would keep the whole tree alive until the garbage collector traverses it.  Broken here,
    # the tree is freed as soon as this function returns.
    sink.clear()
    sink.ctx = None
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


def _collect_facts(extra: list, locator, facts: dict | None, findings: list, path: str) -> None:
    """Store each collector's facts in *facts*; a failing collector becomes BND002 like a rule.

    *locator*: the file's ``analysis.locate.Locator``, which places the nodes a collector asks about.
    """

    def position(node) -> tuple[int, int, int]:
        pos = locator.position(node)
        return pos.start.line, pos.start.column + 1, pos.end.line

    for collector in extra:
        try:
            value = collector.facts(position)
        except Exception as exc:  # same isolation as a failing rule
            findings.append(_meta_finding("BND002", path, f"collector {collector.name} failed: {type(exc).__name__}: {exc}{_where(exc)}"))
            continue
        if facts is not None:
            facts[collector.name] = value


def check_file(path: str, settings: Settings, rules: Sequence[type] | None = None,
               collectors: Sequence = (), prefilter: bool = True) -> FileResult:
    """Read, decode and check one file; unreadable or undecodable input becomes BND001.

    With *collectors* (see ``check_source``) the result's ``facts`` holds their facts.
    """
    try:
        data = _read(path)
    except OSError as exc:
        # failed: never cached, so a file that vanished or was locked for a moment is read again next run
        finding = _meta_finding("BND001", path, f"cannot read: {exc.strerror or exc}")
        why = _listing_error(path) if os.path.isdir(path) else None
        if why:  # a folder the walk could not list: say so, it is no file
            from boundlint.rules.meta import UnparseableFile

            finding = finding._replace(message=f"cannot list this directory: {why}",
                                       hint=UnparseableFile.hints["directory"])
        return FileResult(path, _filter([finding], "", settings), failed=True)
    from boundlint.cache import content_key

    result = check_bytes(data, path, settings, rules, collectors, prefilter)
    result.read_key = content_key(data)
    return result


def _listing_error(path: str) -> str | None:
    """Why the directory *path* cannot be listed (``Permission denied``); None when it can be."""
    try:
        with os.scandir(path):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def check_bytes(data: bytes, path: str, settings: Settings, rules: Sequence[type] | None = None,
                collectors: Sequence = (), prefilter: bool = True) -> FileResult:
    """Decode *data* (PEP 263) and check it as the file *path*, which need not exist.

    For input that is not read from *path* itself (standard input, an editor
    buffer); undecodable bytes become BND001.  Raises nothing for bad input.
    """
    nul = data.find(b"\x00")
    if nul >= 0:  # Python source holds no NUL byte: say what the file looks like, at the first one
        line, column = data.count(b"\n", 0, nul) + 1, nul - data.rfind(b"\n", 0, nul)
        return FileResult(path, _filter([_meta_finding("BND001", path, "the file looks binary: source code cannot "
                                                       "contain null bytes", line, column)], "", settings))
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
    from boundlint.index import build
    from boundlint.index.view import NO_PROJECT, ProjectView

    if not path.endswith((".py", ".pyi")) or not (os.path.isfile(path) or os.path.abspath(path) in build.OVERRIDES):
        return NO_PROJECT
    try:
        index = build.index_for(path, build.CACHE_DIR)
    except (OSError, ValueError, RecursionError):
        return NO_PROJECT
    return ProjectView(index, index.entry_for(path))


def _read(path: str) -> bytes:
    """The bytes of the regular file *path*; raises OSError for anything else (``filekeys.read_regular``)."""
    from boundlint.filekeys import read_regular

    return read_regular(path)[0]
