"""``path:line:col: CODE message`` with indented ``evidence:`` (the chain, when another module holds it) and ``help:`` lines."""
from __future__ import annotations

from typing import Iterable

from boundlint.finding import Finding


def format_text(findings: Iterable[Finding], show_source: bool = False, sources: dict[str, list[str]] | None = None) -> str:
    """One block per finding; with *show_source*, the source line and a caret under the column."""
    out = []
    for f in findings:
        out.append(f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}")
        if show_source and sources is not None:
            lines = sources.get(f.path, [])
            if 0 < f.line <= len(lines):
                src = lines[f.line - 1].rstrip("\n")
                out.append(f"    {src}")
                out.append("    " + " " * (f.column - 1) + "^")
        if f.evidence:
            out.append("    evidence: " + " -> ".join(f.evidence))
        if f.hint:
            out.append(f"    help: {f.hint}")
    return "\n".join(out) + ("\n" if out else "")
