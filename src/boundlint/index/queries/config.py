"""Configured state: settings objects, what functions return, what constructions pass."""
from __future__ import annotations

from boundlint import tables
from boundlint.index.project import ProjectIndex
from boundlint.index.queries.common import _DEPTH

def configured(index: ProjectIndex, ref: str) -> str | None:
    """``"settings object `x` (path:line)"`` when *ref* is (an attribute of) an instance of a settings class."""
    found = index.resolve(ref)
    if found is None or found[0] != "instance":
        return None
    _, entry, name = found
    head = name.split(".", 1)[0]
    made = entry.summary["instances"][head]
    if _settings_class(index, made, 0):
        return f"settings object `{head}` ({index.where(entry, entry.summary.get('lines', {}).get(head, 1))})"
    return None


def signal(index: ProjectIndex, ref: str) -> str | None:
    """``"signal `x` (path:line)"`` when *ref* is an instance of a signal class (its bases reach a
    ``signal-classes`` entry): its ``send(...)`` returns one result per connected receiver."""
    found = index.resolve(ref)
    if found is None or found[0] != "instance" or "." in found[2]:
        return None
    _, entry, name = found
    if _class_reaches(index, entry.summary["instances"][name], "signal-classes", 0):
        return f"signal `{name}` ({index.where(entry, entry.summary.get('lines', {}).get(name, 1))})"
    return None


def calls_of(index: ProjectIndex, ref: str) -> dict | None:
    """``{"modules": [module, ...], "count": n}``: the modules that call the project function *ref*
    (a method too, or a class: its constructions) and how many calls the project makes of it; None
    when it is no project function or class."""
    found = index.resolve(ref)
    if found is None or found[0] not in ("function", "class"):
        return None
    _kind, entry, name = found
    calls = index.reverse()["callers"].get(f"{index.canonical(entry)}.{name}", ())
    return {"modules": sorted({index.canonical(e) for e, _caller, _call in calls}), "count": len(calls)}


def _class_reaches(index: ProjectIndex, ref: str, table: str, depth: int) -> bool:
    """True when the class *ref* is an entry of *table* or has a base, in any module, that reaches one."""
    if depth > _DEPTH:
        return False
    if ref in tables.table(table):
        return True
    found = index.resolve(ref)
    if found is None or found[0] != "class":
        return False
    _, entry, name = found
    return any(_class_reaches(index, base, table, depth + 1) for base in entry.summary["classes"][name]["bases"])


def returns(index: ProjectIndex, ref: str) -> dict | None:
    """What the project function *ref* hands back (``index.returns``) with where it is defined:
    ``{"fixed": n, "where": "`f` (path:line)"}`` (a handful of literal items),
    ``{"param": name, "position": i, "where": ...}`` (its parameter *name*, unchanged; *i* counts
    the parameters a caller passes, without ``self``), else None."""
    found = index.function(ref)
    if found is None or not found[2].get("returns"):
        return None
    entry, name, facts = found
    answer = {**facts["returns"], "where": f"`{name}` ({index.where(entry, facts['line'])})"}
    if "param" in answer:
        params = facts["params"][1:] if facts["method"] else facts["params"]
        if answer["param"] not in params:
            return None
        answer["position"] = params.index(answer["param"])
    return answer


def constructed(index: ProjectIndex, ref: str, param: str) -> dict | None:
    """How the project builds the class *ref* with respect to its ``__init__`` parameter *param*:
    ``{"built": n, "passing": ["path:line", ...]}`` (*n* constructions found, those that pass *param*),
    else None when *ref* is no project class whose ``__init__`` takes *param*."""
    found = index.resolve(ref)
    if found is None or found[0] != "class":
        return None
    _, entry, name = found
    init = entry.summary["functions"].get(f"{name}.__init__")
    if init is None or param not in init["params"][1:]:
        return None
    position = init["params"][1:].index(param)
    built, passing = 0, []
    for caller_entry, _caller, call in index.reverse()["callers"].get(f"{index.canonical(entry)}.{name}", ()):
        built += 1
        if position < len(call["args"]) or param in call["kwargs"]:
            passing.append(index.where(caller_entry, call["line"]))
    return {"built": built, "passing": sorted(passing)}


def _settings_class(index: ProjectIndex, ref: str, depth: int) -> bool:
    if depth > _DEPTH:
        return False
    if ref in tables.table("settings-bases"):
        return True
    found = index.resolve(ref)
    if found is None or found[0] != "class":
        return ref.rsplit(".", 1)[-1] in ("BaseSettings",)
    _, entry, name = found
    return any(_settings_class(index, base, depth + 1) for base in entry.summary["classes"][name]["bases"])
