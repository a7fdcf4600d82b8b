"""``concise``: one ``path:line:col: CODE message`` line per finding, no help line (flake8's shape)."""
from __future__ import annotations

from typing import Iterable

from boundlint.finding import Finding
from boundlint.report.color import PLAIN, Palette
from boundlint.report.text import finding_line


def format_concise(findings: Iterable[Finding], palette: Palette = PLAIN) -> str:
    """Exactly one line per finding; ends with a newline unless there are none."""
    out = [finding_line(f, palette) for f in findings]
    return "\n".join(out) + ("\n" if out else "")
