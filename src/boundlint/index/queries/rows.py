"""Which project functions hand back data read at run time: a fixpoint over what they return."""
from __future__ import annotations

from boundlint.index.project import ProjectIndex


def gives_rows(index: ProjectIndex, ref: str | None) -> str | None:
    """``"`fetch_all()` in `changed_orders` (path:line)"``-like evidence when the project function *ref*
    returns data read at run time (query rows, a remote listing, a message batch: ``index.sources``),
    itself or by handing back what another such project function returns, through any chain of them;
    None when it does not, when that is not shown, or when *ref* is no project function."""
    found = index.function(ref)
    if found is None:
        return None
    entry, name, _facts = found
    return _rows(index).get(f"{index.canonical(entry)}.{name}")


def _rows(index: ProjectIndex) -> dict[str, str]:
    """``{function key: evidence}`` for every project function that returns data read at run time,
    propagated from the functions that return it themselves until nothing changes; in ``index.memo``."""
    cached = index.memo.get("rows")
    if cached is not None:
        return cached
    found: dict[str, str] = {}
    pending: list[tuple[str, list[str]]] = []  # (key, the keys of the project functions it hands back)
    for entry in {id(e): e for e in index.modules.values()}.values():
        for qual, facts in entry.summary["functions"].items():
            rows = facts.get("rows")
            if not rows:
                continue
            key = f"{index.canonical(entry)}.{qual}"
            if "data" in rows:
                found[key] = f"`{rows['data']}` in `{qual}()` ({index.where(entry, rows.get('line', facts['line']))})"
            else:
                inner = [k for k in map(index.key, rows["from"]) if k is not None]
                if inner:
                    pending.append((key, inner))
    while pending:  # each pass settles at least one more function, or ends
        waiting = []
        for key, inner in pending:
            given = next((k for k in inner if k in found), None)
            if given is not None:
                found[key] = found[given]
            else:
                waiting.append((key, inner))
        if len(waiting) == len(pending):
            break
        pending = waiting
    index.memo["rows"] = found
    return found
