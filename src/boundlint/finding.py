"""The finding record every rule, formatter and adapter shares."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """One reported hazard.

    Positions are 1-based lines and 1-based columns (as printed); ``end_line`` /
    ``end_column`` close the flagged node (column exclusive).  Ordering is by
    path, line, column, then code, which is the output order.
    """

    path: str
    line: int
    column: int
    code: str
    message: str
    end_line: int
    end_column: int
    hint: str = ""
    # The chain of facts that makes it a hazard, outermost first, each ``"what (path:line)"``.
    evidence: tuple[str, ...] = ()
    # ``high``, ``medium`` or ``low`` (verdicts.severity), derived from the evidence.
    severity: str = "medium"
    severity_reason: str = ""  # the evidence that set ``severity``, one phrase

    def as_dict(self) -> dict[str, object]:
        """JSON-ready mapping with the public field names."""
        return {
            "code": self.code,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "hint": self.hint,
            "evidence": list(self.evidence),
            "severity": self.severity,
            "severity_reason": self.severity_reason,
        }
