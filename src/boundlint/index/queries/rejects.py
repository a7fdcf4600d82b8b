"""Which project functions reject an oversized argument, followed a few calls down."""
from __future__ import annotations

from boundlint.index.project import ProjectIndex
from boundlint.index.queries.common import _DEPTH

def _rejects(index: ProjectIndex, ref: str, at: int | str, depth: int = 0) -> str | None:
    """``"`f` (path:line)"`` when the project function *ref* rejects its argument *at* (a position not
    counting ``self``, or a keyword) once its length or serialised size is too large, itself or through
    functions it hands that argument to; else None."""
    found = _callee(index, ref)
    if found is None or depth > _DEPTH:
        return None
    entry, name, facts = found
    param = _param_at(facts, at)
    if param is None:
        return None
    if param in facts.get("size_checked", ()) or param in facts["len_checked"]:
        return f"`{name}` ({index.where(entry, facts['line'])})"
    for call in facts["calls"]:
        if call["loop"] is not None:
            continue
        for pos, prov in [*enumerate(call["args"]), *call["kwargs"].items()]:
            if prov == {"param": param} and _rejects(index, call["ref"], pos, depth + 1):
                return f"`{name}` ({index.where(entry, facts['line'])})"
    return None


def _callee(index: ProjectIndex, ref: str) -> tuple | None:
    """``index.function(ref)``, also for a method called on a module-level instance (``Users.update(...)``)."""
    found = index.function(ref)
    if found is not None:
        return found
    kind = index.resolve(ref)
    if kind is None or kind[0] != "instance":
        return None
    head, _, method = kind[2].partition(".")
    made = kind[1].summary["instances"].get(head)
    return index.function(f"{made}.{method}") if made and method and "." not in method else None


def _param_at(facts: dict, at: int | str) -> str | None:
    """The name of the parameter that receives argument *at* (a position not counting ``self``, or a keyword)."""
    params = facts["params"][1:] if facts["method"] else facts["params"]
    if isinstance(at, str):
        return at if at in params else None
    return params[at] if at < len(params) else None
