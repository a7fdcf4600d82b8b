"""The audit report as JSON (schema ``boundlint-audit/1``, documented in docs/audit.md)."""
from __future__ import annotations

import json

from boundlint.audit.model import AuditReport


def render_json(report: AuditReport) -> str:
    """``report.to_dict()`` as indented JSON with a trailing newline."""
    return json.dumps(report.to_dict(), indent=2, sort_keys=False) + "\n"
