"""Typed verdicts: the answers every family's questions get, as values rules and the audit can inspect.

``Limit(kind, why, where)`` says that something is bounded and by what.
``kind`` is one of the constants below (what kind of limit), ``why`` the
prose a message or the audit shows (``str(limit)`` is ``why``, so a limit
reads as its explanation), ``where`` the ``path:line`` of a limit that lives
in another module ("" when it is in the module being checked).  Code that
decides on a limit compares ``kind``, never the prose.

``Provenance(kind, chain)`` says where a collection's volume comes from
(``input``, ``configured``, ``fixed``, ``unknown``) with the evidence chain.
"""
from __future__ import annotations

from dataclasses import dataclass

# What bounds a source: fixed by the code ...
LITERAL, CONSTANT, ENUM, CONSTANT_RANGE, FIELDS = "literal", "constant", "enum", "constant-range", "fields"
# ... sized by configuration or by the caller's fixed arguments ...
CONFIGURED, CALLER_ARGS, COMMAND_LINE, WORKER_COUNT = "configured", "caller-args", "command-line", "worker-count"
# ... cut to a size: batches, slices, counters, a rejecting length check ...
BATCHES, SLICE, COUNTER, GUARD = "batches", "slice", "counter", "guard"
# ... or a concurrency limit on the work itself.
LIMITER, LOOP_LIMITER, LOOP_SLOT, INFLIGHT = "limiter", "loop-limiter", "loop-slot", "inflight"
# What keeps a repeated action from repeating per item: a guard on it, a loop it leaves or ends,
# a retry that stops at success, a pause per failure; a spawn awaited, one at a time, or a teardown.
SAMPLED, ONCE_FLAG, EXITS, RETRY, PACED = "sampled", "once-flag", "exits", "retry", "paced"
BOUNDED_LOOPS, TEARDOWN, AWAITED, SINGLE_FLIGHT = "bounded-loops", "teardown", "awaited", "single-flight"

# Sources whose size the code itself fixes (not configuration, not input).
FIXED_BY_CODE = frozenset({LITERAL, CONSTANT, ENUM, CONSTANT_RANGE})


class Limit(str):
    """A verdict that something is bounded: ``kind`` (a constant above), ``why`` (the prose), ``where``.

    A ``str`` subclass so that messages, facts and JSON that show the prose
    keep working; decisions read ``kind``.
    """

    kind: str
    where: str

    def __new__(cls, kind: str, why: str, where: str = "") -> "Limit":
        obj = super().__new__(cls, why)
        obj.kind = kind
        obj.where = where
        return obj

    @property
    def why(self) -> str:
        """The explanation, as messages and the audit show it."""
        return str.__str__(self)

    def __reduce__(self):  # pickled into worker results and audit facts
        return (Limit, (self.kind, self.why, self.where))

    def __repr__(self) -> str:
        return f"Limit({self.kind!r}, {self.why!r}" + (f", {self.where!r})" if self.where else ")")


def kind_of(verdict: object) -> str | None:
    """The ``kind`` of a Limit, or None for no verdict (or a bare string from older code)."""
    return getattr(verdict, "kind", None)


@dataclass(frozen=True)
class Provenance:
    """Where a collection's volume comes from: ``kind`` (input, configured, fixed, unknown) and the chain."""

    kind: str
    chain: tuple[str, ...] = ()
