"""``json-lines``: one compact JSON object per line, the fields of ``--output-format json``."""
from __future__ import annotations

import json
from typing import Iterable

from boundlint.finding import Finding


def format_json_lines(findings: Iterable[Finding]) -> str:
    """One ``{"code", "path", "line", "column", "end_line", "end_column", "message", "hint"}``
    object per line (positions 1-based); empty when there are no findings."""
    return "".join(json.dumps(f.as_dict()) + "\n" for f in findings)
