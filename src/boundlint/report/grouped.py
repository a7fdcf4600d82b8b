"""``grouped``: each file's path once, then its findings as indented ``line:col CODE message`` lines."""
from __future__ import annotations

from typing import Iterable

from boundlint.finding import Finding
from boundlint.report.color import PLAIN, Palette, printable
from boundlint.report.text import severity_tag


def format_grouped(findings: Iterable[Finding], palette: Palette = PLAIN) -> str:
    """``path:`` then ``  line:col CODE message`` per finding (lines right-aligned, columns
    left-aligned within the file, as ruff's grouped format), a blank line after each file.

    Files keep the order of their first finding; findings keep their order within a file.
    """
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.path, []).append(f)
    out = []
    for path, group in groups.items():
        out.append(f"{palette.path(printable(path))}:")
        lw = max(len(str(f.line)) for f in group)
        cw = max(len(str(f.column)) for f in group)
        for f in group:
            out.append(f"  {f.line:>{lw}}:{f.column:<{cw}} {palette.code(f.code)} {severity_tag(f, palette)}{printable(f.message)}")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
