"""GitHub Actions workflow commands: one ``::warning``/``::error`` annotation per finding."""
from __future__ import annotations

import os
from typing import Iterable, Mapping

from boundlint.finding import Finding


_KIND = {"high": "error", "medium": "warning", "low": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(findings: Iterable[Finding], names: Mapping[str, str] | None = None) -> str:
    """``::warning file=P,line=L,col=C,endLine=..,endColumn=..,title=CODE name::message`` lines.

    BND0xx (a file that went unchecked) and high-severity hazards are ``::error``, medium ones
    ``::warning``, low ones ``::notice``; *names* maps code -> rule slug for the title.
    """
    names = names or {}
    out = []
    for f in findings:
        kind = _KIND.get(f.severity, "warning") if f.code[3:4] not in ("0", "9") else (
            "error" if f.code.startswith("BND0") else "warning")
        title = f"{f.code} {names[f.code]}" if f.code in names else f.code
        # GitHub matches annotations to repository paths: "./pkg/m.py" must be "pkg/m.py".
        path = os.path.normpath(f.path).replace(os.sep, "/")
        props = [f"file={_prop(path)}", f"line={f.line}", f"col={f.column}"]
        if (f.end_line, f.end_column) > (f.line, f.column):
            props += [f"endLine={f.end_line}", f"endColumn={f.end_column}"]
        props.append(f"title={_prop(title)}")
        message = f"{f.code} {f.message}" + (f"\n{f.hint}" if f.hint else "")
        out.append(f"::{kind} {','.join(props)}::{_data(message)}")
    return "\n".join(out) + ("\n" if out else "")
