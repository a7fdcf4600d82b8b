"""The finding record every rule, formatter and adapter shares."""
from __future__ import annotations

from collections import namedtuple

# A named tuple, not a dataclass: ``dataclasses`` imports inspect, ast and tokenize, too much for a
# run served from the cache.  Fields in this order (a tuple compares them in order):
#   path: str, line: int, column: int, code: str, message: str, end_line: int, end_column: int,
#   hint: str = "",
#   evidence: tuple[str, ...] = ()  the chain of facts that makes it a hazard, outermost first,
#                                   each ``"what (path:line)"``,
#   severity: str = "medium"        ``high``, ``medium`` or ``low`` (analysis.severity), from the evidence,
#   severity_reason: str = ""       the evidence that set ``severity``, one phrase,
#   fix: str = ""                   the fix kind of the site (``request-field:pydantic``, ``query-parameter``
#                                   ...; ``boundlint.fixes``), "" when the hazard has no mechanical fix.
_FindingTuple = namedtuple(
    "Finding", "path line column code message end_line end_column hint evidence severity severity_reason fix",
    defaults=("", (), "medium", "", ""))


class Finding(_FindingTuple):
    """One reported hazard (immutable and hashable; ``_replace`` makes a changed copy).

    Positions are 1-based lines and 1-based columns (as printed); ``end_line`` /
    ``end_column`` close the flagged node (column exclusive).  Ordering is by
    path, line, column, then code, which is the output order.  ``fix`` names the
    codemod (``boundlint.fixes``) that turns the finding's span into edits.
    """

    __slots__ = ()

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
