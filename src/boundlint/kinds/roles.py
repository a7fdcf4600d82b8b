"""Where code runs, by its own signs: the roles ``analysis.facts.placement`` and the project index share.

Kept free of LibCST: the index reads roles from ``ast`` on the warm path, where importing LibCST
would cost more than the whole run.
"""
from __future__ import annotations

from boundlint import tables

ONCE, TEST, REQUEST, WORKER, UNKNOWN = "once", "test", "request", "worker", "unknown"


def role_of(names: list[str], text: str, name: str, bases: set[str] | None) -> str | None:
    """The role a function's own signs give it: ONCE, REQUEST, WORKER or None.

    *names*: its decorators' dotted names (the call's function for ``@x(...)``);
    *text*: its decorators' source, joined; *name*: its own name; *bases*:
    the last parts of its class's bases, None for a plain function.  Shared
    by the CST analysis and the project index (``index.hooks``).
    """
    last = [n.rsplit(".", 1)[-1] for n in names]
    if any(n in tables.table("once-decorators") for n in last) or "startup" in text or "shutdown" in text:
        return ONCE
    if any(n in tables.table("endpoint-methods") for n in last) or any(n in ("route", "api_route", "websocket") for n in last):
        return REQUEST
    if any(n in tables.table("worker-decorators") for n in last):
        return WORKER
    if name in tables.table("once-functions"):
        return ONCE
    if bases is not None:
        if "BaseCommand" in bases or "Command" in bases and name == "handle":
            return ONCE
        if any(b.endswith("Servicer") for b in bases) or any(b.endswith(("View", "ViewSet", "APIView", "Handler", "Endpoint")) for b in bases):
            return REQUEST
        if any(b in ("Task", "Consumer", "AsyncConsumer", "Worker") for b in bases):
            return WORKER
    return None
