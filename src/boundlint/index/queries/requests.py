"""Request shape: which classes endpoints take, nest or check, and which fields they read."""
from __future__ import annotations

from boundlint import tables
from boundlint.index.project import ProjectIndex
from boundlint.index.queries.rejects import _callee, _param_at, _rejects
from boundlint.index.shapes import test_module

def class_uses(index: ProjectIndex, ref: str) -> dict:
    """How the project uses the class *ref*: ``{"input": [chain...], "output": bool, "built": bool, "filled": bool}``.

    ``input``: one chain per endpoint that takes it as request input
    (``"body of `create()` POST /x (api.py:9)"``); ``output``: an endpoint
    sends it back; ``built``: a module builds and serialises it (outbound);
    ``filled``: a module outside test code fills it from keywords or a dict literal it writes.
    """
    key = index.key(ref)
    if key is None:
        return {"input": [], "output": False, "built": False, "filled": False}
    rev = index.reverse()
    chains = []
    for entry, func, param in rev["inputs"].get(key, ()):
        facts = entry.summary["functions"][func]
        chains.append(f"parameter `{param}` of `{func}()` {facts['route']} ({index.where(entry, facts['line'])})")
    return {"input": sorted(set(chains)), "output": key in rev["outputs"], "built": key in rev["built"],
            "filled": key in rev["filled"]}


def taken_as_input(index: ProjectIndex, ref: str) -> str:
    """Whether any endpoint of the project can take the class *ref* as request input: ``yes``, ``no`` or ``unknown``.

    ``yes`` when an endpoint takes it as a parameter, a route or a function
    given the ``request`` mentions it (it may read the body into it), or a
    class so taken nests it (a field's type) or derives from it.  ``no`` only
    where the answer can be known: the class lives in a package (or a folder below the root) of a project
    whose endpoints take some model as input, and none reaches it.  Else
    ``unknown`` (a loose module, test code, a project with no endpoint in sight
    outside its tests).
    """
    found = index.resolve(ref)
    if found is None or found[0] != "class":
        return "unknown"
    entry = found[1]
    if not (entry.is_package or any("." in name for name in entry.names)) or _in_tests(entry):
        return "unknown"  # a loose module, or test code: the project around it is not in sight
    if all(_in_tests(e) for takers in index.reverse()["inputs"].values() for e, _, _ in takers):
        return "unknown"
    return "yes" if index.key(ref) in _input_closure(index) else "no"


def _in_tests(entry) -> bool:
    """True for a module of test code, by any of its names (``tests.fixtures.models``)."""
    return any(test_module(name) for name in entry.names)


def _input_closure(index: ProjectIndex) -> frozenset[str]:
    """Keys of every class an endpoint may take as input, and of the classes they nest or derive from."""
    if index.memo.get("input_closure") is not None:
        return index.memo["input_closure"]
    rev = index.reverse()
    queue = list(rev["inputs"])
    for entry in {id(e): e for e in index.modules.values()}.values():
        if not _in_tests(entry):  # a test builds the requests it sends to the app
            queue.extend(k for k in map(index.key, entry.summary.get("request_refs", ())) if k is not None)
    seen: set[str] = set()
    while queue:
        key = queue.pop()
        if key in seen:
            continue
        seen.add(key)
        found = index.resolve(key)
        if found is None or found[0] not in ("class", "alias"):
            continue
        if found[0] == "alias":  # AnyConfig = Union[A, B]: a field typed with it takes A and B
            refs = found[1].summary["aliases"][found[2]]
        else:
            cls = found[1].summary["classes"][found[2]]
            refs = (*cls["bases"], *cls.get("fields", ()))
        for r in refs:
            k = index.key(r)
            if k is not None and k not in seen:
                queue.append(k)
    index.memo["input_closure"] = frozenset(seen)
    return index.memo["input_closure"]


def input_len_checks(index: ProjectIndex, ref: str) -> list[list[str]]:
    """Per endpoint that takes the class *ref* as input, the fields it rejects when oversized, sorted.

    ``[["ids"], []]``: one endpoint checks ``if len(body.ids) > N: raise ...``
    (also on an alias, ``ids = body.ids``, or on the field's serialised size)
    or hands ``body.ids`` (or ``body`` whole) to a project function that
    rejects it so, through up to two calls, before any other work with it;
    the other checks nothing.  ``[]`` when no endpoint takes it.
    """
    key = index.key(ref)
    if key is None:
        return []
    out = []
    for entry, func, param in index.reverse()["inputs"].get(key, ()):
        out.append(sorted(_checked_fields(index, entry.summary["functions"][func], param, 0)))
    return out


def _checked_fields(index: ProjectIndex, facts: dict, param: str, depth: int) -> set[str]:
    """Fields of the parameter *param* that the function of *facts* rejects when oversized: itself, or
    by handing the field or the whole parameter to a project function that does, before other work with it."""
    keys = {*facts["len_checked"], *facts.get("size_checked", ())}
    found = {k[len(param) + 1:] for k in keys if k.startswith(param + ".") and k.count(".") == 1}
    if depth >= 2:
        return found
    for call in facts["calls"]:
        if call["loop"] is not None:
            continue
        for at, prov in [*enumerate(call["args"]), *call["kwargs"].items()]:
            passed = prov.get("param") if prov else None
            if passed == param:
                callee = _callee(index, call["ref"])
                name = _param_at(callee[2], at) if callee else None
                fields = _checked_fields(index, callee[2], name, depth + 1) if name else set()
                found |= {f for f in fields if _first_use(facts, call, f"{param}.{f}")}
            elif passed and passed.startswith(param + ".") and passed.count(".") == 1:
                if passed[len(param) + 1:] not in found and _first_use(facts, call, passed) and _rejects(
                        index, call["ref"], at, depth + 1):
                    found.add(passed[len(param) + 1:])
    return found


def _first_use(facts: dict, check: dict, key: str) -> bool:
    """No call before the call record *check* works with *key* or its items (passes them, runs per item)."""
    for call in facts["calls"]:
        if call is check or call["line"] > check["line"]:
            continue
        provs = [*call["args"], *call["kwargs"].values()]
        if call["loop"] is not None:
            provs.append(call["loop"].get("src"))
        if any(_holds(prov, key) for prov in provs):
            return False
    return True


def _holds(prov: dict | None, key: str) -> bool:
    """The provenance *prov* is *key*, a part of it, or made from its items (not its length)."""
    while prov is not None and ("item" in prov or "each" in prov):
        prov = prov.get("item", prov.get("each"))
    name = prov.get("param") if prov else None
    return name is not None and (name == key or name.startswith(key + "."))


def input_field_reads(index: ProjectIndex, ref: str) -> list[dict] | None:
    """What each endpoint taking the class *ref* as input reads of it: ``[{"where": "`f()` (path:line)",
    "func": "f", "read": [field, ...] or None, "cleared": [field, ...]}]``.

    ``read``: the fields it (or a project function it hands the parameter to,
    up to two calls deep) reads; None when some use may read any field
    (``body.model_dump()``, ``body`` passed outside the project, stored,
    returned, or the endpoint also reads the raw request, ``await request.json()``).  ``cleared``: fields it assigns before any use
    (``body.meta = None``).  None when a project class derives from *ref*
    (its endpoints read the same fields) or no endpoint takes it.
    """
    key = index.key(ref)
    if key is None or key in _base_keys(index):
        return None
    out = []
    for entry, func, param in index.reverse()["inputs"].get(key, ()):
        facts = entry.summary["functions"][func]
        uses = facts.get("reads", {}).get(param, {"read": {}, "cleared": {}, "whole": 0, "passed": []})
        stops = [line for line in (uses["whole"], *(p[2] for p in uses["passed"])) if line]
        cleared = sorted(f for f, line in uses["cleared"].items()
                         if line < uses["read"].get(f, line + 1) and all(line < stop for stop in stops))
        read = None if facts.get("raw_body") else _fields_read(index, uses, 0)  # await request.json() too
        out.append({"where": f"`{func}()` ({index.where(entry, facts['line'])})", "func": func,
                    "read": None if read is None else sorted(read), "cleared": cleared})
    return out or None


def _fields_read(index: ProjectIndex, uses: dict, depth: int) -> set[str] | None:
    """Fields a parameter's *uses* (a ``reads`` entry) read, following the functions it is handed to."""
    if uses["whole"]:
        return None
    read = set(uses["read"])
    for ref, at, _line in uses["passed"]:
        callee = _callee(index, ref) if depth < 2 else None
        name = _param_at(callee[2], at) if callee else None
        inner = callee[2].get("reads", {}).get(name) if name else None
        if name is not None and inner is None:
            continue  # the function never names what it is handed
        found = _fields_read(index, inner, depth + 1) if inner is not None else None
        if found is None:
            return None
        read |= found
    return read


def _base_keys(index: ProjectIndex) -> set[str]:
    """Definition keys of every project class some project class derives from (kept with the reverse maps)."""
    rev = index.reverse()
    found = rev.get("bases")
    if found is None:
        found = rev["bases"] = set()
        for entry in {id(e): e for e in index.modules.values()}.values():
            for cls in entry.summary["classes"].values():
                found.update(k for k in map(index.key, cls["bases"]) if k is not None)
    return found




def is_enum(index: ProjectIndex, ref: str, depth: int = 0) -> bool:
    """True when *ref* names a project class that derives from ``enum.Enum`` (or a project enum): a closed set."""
    found = index.resolve(ref)
    if found is None or found[0] != "class" or depth > 8:
        return False
    bases = found[1].summary["classes"][found[2]]["bases"]
    enums = tables.table("enum-bases")
    return any(base.rsplit(".", 1)[-1] in enums or is_enum(index, base, depth + 1) for base in bases)
