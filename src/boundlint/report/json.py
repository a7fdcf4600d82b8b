"""A JSON array of finding objects (``code``, ``path``, ``line``, ``column``, ``end_line``, ``end_column``, ``message``, ``hint``)."""
from __future__ import annotations

import json
from typing import Iterable

from boundlint.finding import Finding


def format_json(findings: Iterable[Finding]) -> str:
    """Findings as a JSON array, in output order, positions 1-based."""
    return json.dumps([f.as_dict() for f in findings], indent=2) + "\n"
