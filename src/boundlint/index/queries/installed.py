"""Rows only the service's operators create: what a read of a table object returns when every call in
the project that adds rows to it is made by an endpoint an operator guard protects.

A table object is a module-level instance of a project class (``Functions = FunctionsTable()``); its
row-creating methods start with a ``row-creating-verbs`` word (``insert_new_function``); an operator
guard is an injected dependency whose name has an ``operator-guards`` word (``Depends(get_admin_user)``,
``index.guards``).  Such rows are installed by an administrator, like configuration: a loop over them
runs once per installed plugin, function or server.
"""
from __future__ import annotations

import re

from boundlint import tables
from boundlint.index.project import ProjectIndex

# First words of the methods that read a table's rows.
_READS = frozenset({"get", "list", "all", "find", "fetch", "select", "query", "load", "iter"})


def _words(name: str) -> list[str]:
    """``"FunctionsTable"`` -> ``["functions", "table"]``; ``"get_functions_by_type"`` -> its parts."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)]


def _guard(facts: dict) -> str | None:
    """The first operator guard of an endpoint's facts, else None."""
    words = tables.table("operator-guards")
    return next((g for g in facts.get("guards", ()) if words & set(_words(g.rsplit(".", 1)[-1]))), None)


def operator_rows(index: ProjectIndex, ref: str, method: str) -> str | None:
    """``"rows only operators add: `create_new_function()` POST /create behind `get_admin_user` (path:line)"``
    when *method* of the table object *ref* reads its rows (its name reads the plural of the class's first
    word: ``get_functions_by_type`` of ``FunctionsTable``) and every project call of a row-creating method
    of it is made by an endpoint with an operator guard (or by another row-creating method of the class);
    None otherwise, also when nothing in the project adds rows."""
    found = index.resolve(ref)
    if found is None or found[0] != "instance" or "." in found[2]:
        return None
    entry, name = found[1], found[2]
    made = index.resolve(entry.summary["instances"][name])
    if made is None or made[0] != "class":
        return None
    _, home, cls = made
    kind = (_words(cls) or [""])[0]
    plural = kind if kind.endswith("s") else kind + "s"
    said = _words(method)
    if len(kind) < 3 or not said or said[0] not in _READS or plural not in said:
        return None
    verbs = tables.table("row-creating-verbs")
    creating = {q.split(".", 1)[1] for q in home.summary["functions"]
                if q.startswith(cls + ".") and (_words(q.split(".", 1)[1]) or [""])[0] in verbs}
    callers = index.reverse()["callers"]
    sites: list[str] = []
    for method_name in sorted(creating):
        for key in (f"{index.canonical(entry)}.{name}.{method_name}", f"{index.canonical(home)}.{cls}.{method_name}"):
            for caller_entry, qual, call in callers.get(key, ()):
                if caller_entry is home and qual.startswith(cls + "."):
                    if qual.split(".", 1)[1] in creating:
                        continue  # one creating method through another
                    return None
                facts = caller_entry.summary["functions"].get(qual, {})
                guard = _guard(facts) if facts.get("route") else None
                if guard is None:
                    return None
                sites.append(f"`{qual}()` {facts['route']} behind `{guard}` ({index.where(caller_entry, call['line'])})")
    return f"rows only operators add: {sites[0]}" if sites else None
