"""A call of a placeholder method on ``self``, judged by what the project's subclasses put there.

``await self._handle(item)`` in a base class whose ``_handle`` is abstract
(``@abstractmethod``, or a body of only ``...`` / ``pass`` / ``raise
NotImplementedError``) runs a subclass's override.  Whether a dependency's
failure comes out of the call is what the overrides show, in any module of
the project (``index.queries.overrides``).
"""
from __future__ import annotations

YES, NO, UNKNOWN = "yes", "no", "unknown"
READ = "read"  # as ``dependency._READ``: the project's own code, read, of unknown effect


def overridden(owner: str | None, method: str, ctx) -> tuple[str, str]:
    """``(YES, why)`` when an override of *method* below the class *owner* (a class of the module being
    checked) lets a dependency's failure out to its caller, ``why`` naming the call and where
    (``"`client.post()` in `Worker._handle` (path:line)"``); ``(NO, "")`` when every override is
    known and absorbs its dependency's failures or reaches none; ``(UNKNOWN, READ)`` otherwise (no
    project index, no override known, one of unknown effect): the project's own code, so awaiting
    it is not taken for waiting on I/O."""
    project = ctx.project
    ref = project.ref(None, owner) if project and owner else None
    answer = project.ask("overrides", ref, method) if ref else None
    if answer and answer[0] == YES:
        return YES, answer[1]
    if answer and answer[0] == NO:
        return NO, ""
    return UNKNOWN, READ
