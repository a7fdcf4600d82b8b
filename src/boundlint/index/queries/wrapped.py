"""Limits a decorator brings across modules: a function wrapped by a decorator whose wrapper enters a shared limiter."""
from __future__ import annotations

from boundlint import tables
from boundlint.index.project import ProjectIndex
from boundlint.index.queries.dependency import instance_of


def wrapped_limiter(index: ProjectIndex, ref: str) -> dict | None:
    """``{"wrapper", "where", "sized_by", "param", "params"}`` when the project function *ref*, used as a
    decorator or a decorator factory, wraps what it decorates in a shared limiter (``index.wrapped``):
    ``sized_by`` / ``param`` name its parameters the decoration's arguments must keep bounded, ``params``
    its parameters in order, ``where`` is ``path:line`` of the wrapper; else None."""
    from boundlint.index.queries.limits import limiter  # it asks this module back

    found = index.function(ref)
    if found is None or not found[2].get("wraps_limiter"):
        return None
    entry, _name, facts = found
    fact = facts["wraps_limiter"]
    if fact["via"] and not any(limiter(index, via, 1) for via in fact["via"]):
        return None
    return {"wrapper": fact["wrapper"], "where": index.where(entry, fact["line"]), "sized_by": fact["sized_by"],
            "param": fact["param"], "params": facts["params"]}


def decorated_limiter(index: ProjectIndex, facts: dict) -> str | None:
    """``"a limiter in `wrapper` of decorator `limit` (path:line)"`` when one of the decorators in a
    function's *facts* wraps it in a shared limiter and its arguments keep that limiter bounded (no
    ``len()`` for the size, a limiter for the limiter the factory takes); else None."""
    for deco in facts.get("decorated", ()):
        found = wrapped_limiter(index, deco["ref"])
        if found is None:
            continue
        if any(_argument(deco, found["params"], p) == "len" for p in found["sized_by"]):
            continue  # one slot per item of what the decoration measures
        if found["param"] is not None and not _limiter_argument(index, _argument(deco, found["params"], found["param"])):
            continue
        name = deco["ref"].rsplit(".", 1)[-1]
        return f"a limiter in `{found['wrapper']}` of decorator `{name}` ({found['where']})"
    return None


def _argument(deco: dict, params: list[str], param: str) -> str | None:
    if param in deco["keywords"]:
        return deco["keywords"][param]
    index = params.index(param) if param in params else -1
    return deco["args"][index] if 0 <= index < len(deco["args"]) else None


def _limiter_argument(index: ProjectIndex, arg: str | None) -> bool:
    if arg is None or arg == "len":
        return False
    if arg == "limiter":
        return True
    made = instance_of(index, arg) or ""
    return made in tables.table("limiters") or made.rsplit(".", 1)[-1] in tables.table("limiter-class-names")
