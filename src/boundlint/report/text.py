"""``full`` (the default): ``path:line:col: CODE message``, then indented ``evidence:`` and ``help:`` lines.

With ``--show-source`` the flagged line follows behind a line-number gutter
(``  40 | ...``), its indentation trimmed, underlined from the finding's column
to its end column (to the end of the line when the span goes on).
``evidence:`` shows the chain that makes the finding a hazard when other
modules hold part of it: ``step (path:line) -> step (path:line)``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from boundlint.finding import Finding
from boundlint.report.color import PLAIN, Palette, printable

TAB = 8


def format_text(findings: Iterable[Finding], show_source: bool = False,
                sources: Mapping[str, Sequence[str]] | None = None, palette: Palette = PLAIN) -> str:
    """One block per finding: the finding line, the source and its underline (with *show_source*,
    from *sources*: path -> lines), then ``    help: <hint>``.  Ends with a newline unless empty."""
    out = []
    for f in findings:
        out.append(finding_line(f, palette))
        if show_source and sources is not None:
            out += source_lines(f, sources.get(f.path, ()), palette)
        if f.evidence:
            out.append(f"    {palette.label('evidence:')} " + printable(" -> ".join(f.evidence)))
        if f.hint:
            out.append(f"    {palette.label('help:')} {printable(f.hint)}")
    return "\n".join(out) + ("\n" if out else "")


def finding_line(f: Finding, palette: Palette = PLAIN) -> str:
    """``path:line:col: CODE [severity] message``; files that went unchecked (BND0xx) and malformed
    suppressions (BND9xx) carry no severity tag."""
    return (f"{palette.path(printable(f.path))}:{f.line}:{f.column}: {palette.code(f.code)} "
            f"{severity_tag(f, palette)}{printable(f.message)}")


def severity_tag(f: Finding, palette: Palette = PLAIN) -> str:
    """``[high] `` for a hazard's severity (coloured by *palette*); ``""`` for meta findings."""
    return "" if f.code[3:4] in ("0", "9") else palette.severity(f"[{f.severity}]", f.severity) + " "


def source_lines(f: Finding, lines: Sequence[str], palette: Palette = PLAIN, indent: str = "    ") -> list[str]:
    """The flagged line behind a line-number gutter, its indentation trimmed (tabs expanded), and a
    ``^`` under each column of the span on it; [] when the line is not in *lines*.

    ``    40 | await asyncio.gather(*jobs)`` then ``       |       ^^^^^^^^^^^^^^^^^^^^^``.
    """
    if not 0 < f.line <= len(lines):
        return []
    text = lines[f.line - 1].rstrip("\r\n")
    start = f.column - 1
    end = f.end_column - 1 if f.end_line == f.line else len(text.rstrip())
    margin = _width(text[:len(text) - len(text.lstrip(" \t"))])  # the indentation, in columns
    before = _width(text[:start])
    span = max(_width(text[:max(end, start)]) - before, 1)  # an empty span still gets one caret
    if before < margin:  # a span that starts in the indentation keeps its carets on the code
        span, before = max(span - (margin - before), 1), margin
    number = str(f.line)
    code = printable(_expand(text)[margin:]) if margin else printable(_expand(text))
    gutter = palette.label(f"{number} |")
    blank = palette.label(f"{' ' * len(number)} |")
    return [f"{indent}{gutter} {code}".rstrip(), f"{indent}{blank} {' ' * (before - margin)}{palette.caret('^' * span)}"]


def _char_width(ch: str) -> int:
    import unicodedata

    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _width(text: str) -> int:
    """Terminal columns *text* takes: tabs to the next multiple of 8, wide characters 2."""
    col = 0
    for ch in text:
        col = (col // TAB + 1) * TAB if ch == "\t" else col + (1 if ch.isascii() else _char_width(ch))
    return col


def _expand(text: str) -> str:
    return text.expandtabs(TAB) if "\t" in text else text
