"""What checking a file gives: ``FileResult``, the BND001/BND002 findings of a failed check, noqa and selection."""
from __future__ import annotations

import os

from boundlint.config import Settings
from boundlint.finding import Finding
from boundlint.records import Record


RECURSION_LIMIT = 6000


class FileResult(Record):
    """The outcome for one file: its findings (sorted) and its line count.

    A ``records.Record`` (not a dataclass, for a run served from the cache), with a dataclass's
    constructor, repr and equality by value.
    ``facts``: what extra collectors gathered (collector name -> picklable facts); None when none ran.
    ``consulted``: the project questions the judgement asked, with a digest of each answer (for the
    exact cache).  ``failed``: the check did not complete (time limit, crash, a failing rule), whether
    or not BND001/BND002 is selected: such a result is never cached, so the next run tries again.
    """

    _FIELDS = ("path", "findings", "lines", "facts", "consulted", "failed")
    # The content key (``cache.content_key``) of the bytes the check read from disk; None when none were read.
    # The result cache stores a result only under this key: the content judged, not the content seen before.
    read_key: str | None = None

    def __init__(self, path: str, findings: list[Finding] | None = None, lines: int = 0, facts: dict | None = None,
                 consulted: dict | None = None, failed: bool = False) -> None:
        self.path = path
        self.findings = [] if findings is None else findings
        self.lines = lines
        self.facts = facts
        self.consulted = consulted
        self.failed = failed


def _meta_finding(code: str, path: str, reason: str, line: int = 1, column: int = 1) -> Finding:
    from boundlint.rules.meta import InternalError, UnparseableFile

    rule = UnparseableFile if code == "BND001" else InternalError
    return Finding(path, max(line, 1), max(column, 1), code, rule.message.format(reason=reason),
                   max(line, 1), max(column, 1), rule.hint)


def _one_line(exc: BaseException, limit: int = 160) -> str:
    """``Type: message`` on one line, shortened to *limit* characters."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rule_failed(rule: object, exc: BaseException) -> str:
    """The BND002 reason for a rule that raised: its code and slug, the error, where."""
    code, name = getattr(rule, "code", ""), getattr(rule, "name", "") or type(rule).__name__
    label = f"rule {code} ({name})" if code else f"collector {name}"
    return f"{label} failed: {_one_line(exc)}{_where(exc)}"


def _where(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"


def _filter(findings: list[Finding], text: str, settings: Settings, apply_noqa: bool = True) -> list[Finding]:
    if not findings:
        return []
    from boundlint.noqa import noqa_lines, suppressed  # here: a run served from the cache never needs them
    from boundlint.analysis.severity import DEFAULT_MIN, reported

    lines = noqa_lines(text) if apply_noqa and "noqa" in text.lower() else []
    kept = []
    minimum = getattr(settings, "min_severity", DEFAULT_MIN)
    for f in findings:
        if not settings.enabled(f.code):
            continue
        if f.code[3] not in "09" and not reported(f.severity, minimum):
            continue
        line_text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        if line_text and suppressed(line_text, f.code):
            continue
        kept.append(f)
    return sorted(kept)
