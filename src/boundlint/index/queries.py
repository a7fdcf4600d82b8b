"""The linked facts a rule may ask of the project: each a pure function of the index.

Every query takes the ``ProjectIndex`` and JSON-ready arguments (refs are
absolute dotted names) and returns a JSON-ready answer, so that the result
cache can re-ask it on a later run and compare (see ``view.ProjectView``).
Answers that carry evidence are chains: lists of ``"what (path:line)"``
steps, outermost first.
"""
from __future__ import annotations

from typing import Callable

from boundlint import tables
from boundlint.facts import calls
from boundlint.index.once import once_callers
from boundlint.index.project import ProjectIndex
from boundlint.index.shapes import test_module

_DEPTH = 4


def limiter(index: ProjectIndex, ref: str, depth: int = 0) -> str | None:
    """``"a limiter in `f` (path:line)"`` when calling *ref* (as a context manager or plainly) enters a shared limiter."""
    found = index.function(ref)
    if found is None or depth > _DEPTH:
        return None
    entry, name, facts = found
    if facts["limiter"]:
        return f"a limiter in `{name}` ({index.where(entry, facts['line'])})"
    for inner in facts["with_calls"]:
        hit = limiter(index, inner, depth + 1)
        if hit:
            return hit
    return _limiter_below(index, facts) if depth == 0 else None


def _limiter_below(index: ProjectIndex, facts: dict) -> str | None:
    """The limiter a function waits for one call further down: it awaits a project function that
    enters one, and no other call it makes reaches a dependency (every dependency call waits)."""
    if facts["dep"]:
        return None
    found = None
    for call in facts["calls"]:
        hit = limiter(index, call["ref"], 1) if call.get("awaited") else None
        if hit:
            found = found or hit
        elif dependency(index, call["ref"]):
            return None
    return found


def len_checked(index: ProjectIndex, ref: str) -> dict | None:
    """``{"params": [...], "keys": [...], "where": "path:line"}``: what the project function *ref* rejects when oversized."""
    found = index.function(ref)
    if found is None or not found[2]["len_checked"]:
        return None
    entry, name, facts = found
    params = facts["params"][1:] if facts["method"] else facts["params"]
    return {"params": params, "keys": facts["len_checked"], "where": f"`{name}` ({index.where(entry, facts['line'])})"}


def client_factory(index: ProjectIndex, ref: str, depth: int = 0) -> list | None:
    """``[client qualname, "`f` (path:line)"]`` when each call of *ref* builds and returns a new client."""
    found = index.function(ref)
    if found is None or depth > _DEPTH:
        return None
    entry, name, facts = found
    if facts["cached"]:
        return None
    if facts["client"]:
        return [facts["client"], f"`{name}` ({index.where(entry, facts['line'])})"]
    if facts["client_call"]:
        inner = client_factory(index, facts["client_call"], depth + 1)
        if inner:
            return [inner[0], f"`{name}` ({index.where(entry, facts['line'])})"]
    return None


def pauses(index: ProjectIndex, ref: str, depth: int = 0) -> str | None:
    """``"`f` (path:line)"`` when the project function *ref* sleeps or backs off on every call."""
    found = index.function(ref)
    if found is None or depth > _DEPTH:
        return None
    entry, name, facts = found
    if facts["pauses"]:
        return f"`{name}` ({index.where(entry, facts['line'])})"
    for call in facts["calls"]:
        if call["loop"] is None and pauses(index, call["ref"], depth + 1):
            return f"`{name}` ({index.where(entry, facts['line'])})"
    return None


def batches(index: ProjectIndex, ref: str) -> str | None:
    """``"fixed-size batches from `f` (path:line)"`` when *ref* splits its input into fixed-size batches."""
    found = index.function(ref)
    if found is None or not found[2]["batches"]:
        return None
    entry, name, facts = found
    return f"fixed-size batches from `{name}` ({index.where(entry, facts['line'])})"


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
        if found is None or found[0] != "class":
            continue
        cls = found[1].summary["classes"][found[2]]
        for r in (*cls["bases"], *cls.get("fields", ())):
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


_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag", "enum.ReprEnum"})


def is_enum(index: ProjectIndex, ref: str, depth: int = 0) -> bool:
    """True when *ref* names a project class that derives from ``enum.Enum`` (or a project enum): a closed set."""
    found = index.resolve(ref)
    if found is None or found[0] != "class" or depth > 8:
        return False
    bases = found[1].summary["classes"][found[2]]["bases"]
    return any(base in _ENUM_BASES or is_enum(index, base, depth + 1) for base in bases)


def _input_chain(index: ProjectIndex, entry, func: str, key: str, depth: int, seen: frozenset) -> list[str] | None:
    """A chain showing that parameter key *key* of function *func* carries request input, else None."""
    if depth > _DEPTH or (entry.path, func, key) in seen:
        return None
    seen = seen | {(entry.path, func, key)}
    facts = entry.summary["functions"][func]
    root = key.split(".", 1)[0]
    here = index.where(entry, facts["line"])
    if facts["route"] and any(param == root for param, _ in facts["inputs"]):
        return [f"request input `{key}` of `{func}()` {facts['route']} ({here})"]
    rev = index.reverse()
    target = f"{index.canonical(entry)}.{func}"
    params = facts["params"][1:] if facts["method"] else facts["params"]
    if root not in params:
        return None
    position = params.index(root)
    for caller_entry, caller, call in rev["callers"].get(target, ()):
        prov = call["args"][position] if position < len(call["args"]) else call["kwargs"].get(root)
        source = _param_of(prov)
        if source is None:
            continue
        rest = key[len(root):]
        chain = _input_chain(index, caller_entry, caller, source + rest, depth + 1, seen)
        if chain:
            return chain + [f"`{func}({root})` called by `{caller}()` ({index.where(caller_entry, call['line'])})"]
    return None


def _param_of(prov: dict | None) -> str | None:
    while prov is not None and "item" in prov:
        prov = prov["item"]
    return prov.get("param") if prov else None


def _passed_for(index: ProjectIndex, ref: str, param: str) -> tuple[str, list[tuple]]:
    """The project function *ref*'s qualname, and ``(caller module, caller, call record, provenance)``
    for each call of it, with the provenance of what the caller passes for its parameter *param*
    (None when not passed); ``("", [])`` when *ref* is no project function or has no such parameter."""
    found = index.function(ref)
    if found is None:
        return "", []
    entry, name, facts = found
    params = facts["params"][1:] if facts["method"] else facts["params"]
    if param not in params:
        return "", []
    position = params.index(param)
    out = []
    for caller_entry, caller, call in index.reverse()["callers"].get(f"{index.canonical(entry)}.{name}", ()):
        prov = call["args"][position] if position < len(call["args"]) else call["kwargs"].get(param)
        out.append((caller_entry, caller, call, prov))
    return name, out


def passed(index: ProjectIndex, ref: str, param: str) -> list[dict] | None:
    """What each call of the project function *ref* passes for its parameter *param*:
    ``{"text": "settings.repos" or None, "input": bool, "where": "path:line"}``, *text* when the caller
    passes one of its own parameters or an attribute of one, *input* when that carries request input;
    None when nothing in the project calls *ref*."""
    _name, calls_of = _passed_for(index, ref, param)
    out = []
    for caller_entry, caller, call, prov in calls_of:
        source = prov.get("param") if prov else None
        chain = _input_chain(index, caller_entry, caller, source, 0, frozenset()) if source else None
        out.append({"text": source, "input": bool(chain), "where": index.where(caller_entry, call["line"])})
    return out or None


def _spawned(index: ProjectIndex, ref: str, param: str) -> tuple | None:
    """``(chain, provenance, caller module, call record, name)`` for the first caller of *ref* that passes,
    as *param*, one new call per item of request input; else None."""
    name, passed = _passed_for(index, ref, param)
    for caller_entry, caller, call, prov in passed:
        if not prov or "each" not in prov:
            continue
        source = _param_of(prov["each"])
        if source is None or limiter(index, prov["call"]):
            continue
        chain = _input_chain(index, caller_entry, caller, source, 0, frozenset())
        if chain:
            return chain, prov, caller_entry, call, name
    return None


def spawn_sources(index: ProjectIndex, ref: str, param: str) -> list[str] | None:
    """A chain when callers of *ref* pass, as *param*, one new call per item of request input; else None."""
    found = _spawned(index, ref, param)
    if found is None:
        return None
    chain, prov, caller_entry, call, name = found
    made = prov["call"].rsplit(".", 1)[-1]
    return chain + [f"one `{made}()` per item of `{_param_of(prov['each'])}`, passed to `{name}()` "
                    f"({index.where(caller_entry, call['line'])})"]


def spawned_dependency(index: ProjectIndex, ref: str, param: str) -> str | None:
    """What the per-item call that callers pass to *ref* as *param* reaches (``dependency``); None when
    no caller passes one per item of request input."""
    found = _spawned(index, ref, param)
    return dependency(index, found[1]["call"]) if found is not None else None


def sized_by_callers(index: ProjectIndex, ref: str, param: str) -> list[str] | None:
    """A chain when some caller of *ref*, in any module, passes for *param* the length of a collection
    (``refresh_all(accounts, threads=len(accounts))``); outermost first, else None."""
    name, passed = _passed_for(index, ref, param)
    for caller_entry, caller, call, prov in passed:
        if not prov or "len" not in prov:
            continue
        source = _param_of(prov["len"])
        chain = _input_chain(index, caller_entry, caller, source, 0, frozenset()) if source else None
        short = name.rsplit(".", 1)[-1]
        return (chain or []) + [f"`{prov['text']}` passed as `{param}` to `{short}()` by `{caller}()` "
                                f"({index.where(caller_entry, call['line'])})"]
    return None


def per_item_callers(index: ProjectIndex, ref: str, passes: bool = False, fanout: bool | None = None) -> list[str] | None:
    """A chain when a caller in another module runs *ref* once per item of an unbounded loop or fan-out; else None.

    Counts a call in a ``for`` loop or comprehension over the caller's input
    (a parameter), and a function handed to a pool per item
    (``pool.map(fetch, urls)``, ``executor.submit(fetch, u)`` in such a loop).
    With *passes*, also a call on every pass of a ``while`` loop that does not
    pause among its own statements (a consumer's loop: one pass per message).
    *fanout*: True keeps only concurrent runs (a pool, a gather), False only
    the others, None both.
    """
    found = index.function(ref)
    if found is None:
        return None
    entry, name, _facts = found
    for caller_entry, caller, call in index.reverse()["callers"].get(f"{index.canonical(entry)}.{name}", ()):
        if caller_entry is entry:
            continue  # the module's own loops are judged where they are, with all they show
        loop = call["loop"]
        if loop is None or loop["bounded"] or (fanout is not None and bool(loop.get("via")) != fanout):
            continue
        where = index.where(caller_entry, call["line"])
        if loop["text"] == "while":
            if passes and not loop.get("paced"):
                return [f"`{caller}()` calls `{name}()` on every pass of a `while` loop that does not pause ({where})"]
            continue
        if loop["src"] is None:
            continue  # volume must come from the caller's input: a loop over its own lookups is not evidence
        if loop.get("via"):
            return [f"`{caller}()` runs `{name}()` per item of `{loop['text']}` through `{loop['via']}` ({where})"]
        return [f"`{caller}()` calls `{name}()` per item of `{loop['text']}` ({where})"]
    return None


def size_checked(index: ProjectIndex, ref: str, position: int | str = 0, depth: int = 0) -> str | None:
    """``"`f` (path:line)"`` when the project function *ref* rejects its *position*-th argument (``self``
    not counted; or the argument passed by that keyword) once its length or serialised size is too large,
    itself or through a helper it passes that argument to (``validate(v)`` -> ``check_size(v, MAX)``); else None."""
    return _rejects(index, ref, position, depth)


def dependency(index: ProjectIndex, ref: str, depth: int = 0, seen: frozenset = frozenset()) -> str | None:
    """Whether calling the project function *ref* reaches an external dependency, following calls.

    ``"`client.get()` in `fetch` (path:line)"`` when it does; ``""`` when its
    body and every callee are shown to be local work; None when unknown (a
    callee outside the project, a call of unknown effect, too deep).
    """
    return _dependency(index, ref, depth, seen, False)


def failing_dependency(index: ProjectIndex, ref: str) -> str | None:
    """Whether a dependency's failure reaches the caller of the project function *ref*: as
    ``dependency``, but a call inside a ``try`` that catches every exception and does not raise
    (in *ref* or in a function it calls) does not count, its failure stops there."""
    return _dependency(index, ref, 0, frozenset(), True)


def _dependency(index: ProjectIndex, ref: str, depth: int, seen: frozenset, failures: bool) -> str | None:
    found = _callable(index, ref)
    if found is None:
        kind = index.resolve(ref)
        if kind is not None and kind[0] == "class":
            init = index.function(f"{ref}.__init__")
            return "" if init is None else _dependency(index, f"{ref}.__init__", depth + 1, seen, failures)
        if kind is not None and kind[0] == "instance" and kind[2].count(".") == 1:
            made = kind[1].summary["instances"][kind[2].split(".")[0]]
            method = kind[2].rsplit(".", 1)[1]
            if method in calls.LOCAL_METHODS and calls.classify(made, None, None, verbs=False) != calls.DEPENDENCY:
                return ""  # `log.exception(...)` on a module's logger: in-process work
        return None
    entry, name, facts = found
    dep, opaque = (facts.get("dep_out"), facts.get("opaque_out")) if failures else (facts.get("dep"), facts.get("opaque"))
    if dep:
        what, line = dep
        return f"{what} in `{name}` ({index.where(entry, line)})"
    if depth >= _DEPTH or ref in seen:
        return None
    answer: str | None = None if opaque else ""
    for call in facts["calls"]:
        if failures and call.get("absorbed"):
            continue
        inner = _dependency(index, call["ref"], depth + 1, seen | {ref}, failures)
        if inner:
            return inner
        if inner is None:
            answer = None
    return answer


def _callable(index: ProjectIndex, ref: str) -> tuple | None:
    """``function``'s answer for *ref*, also for a method of a module-level instance
    (``CLIENT.get`` where ``CLIENT = AsyncClient()``): the class's method."""
    found = index.function(ref)
    if found is not None:
        return found
    kind = index.resolve(ref)
    if kind is None or kind[0] != "instance" or kind[2].count(".") != 1:
        return None
    head, method = kind[2].split(".")
    made = kind[1].summary["instances"].get(head)
    cls = index.resolve(made)
    if cls is None or cls[0] != "class":
        return None
    return index.function(f"{index.canonical(cls[1])}.{cls[2]}.{method}")


def pooled(index: ProjectIndex, ref: str, depth: int = 0) -> str | None:
    """``"`asyncio.to_thread()` in `f` (path:line)"`` when the project coroutine *ref* awaits only work
    handed to a thread pool of fixed size, itself or through project coroutines it awaits (two calls
    down at most), and local work; a call that reaches a dependency outside the pool, or an awaited
    call of unknown effect, makes it None."""
    found = _callable(index, ref)
    if found is None or depth > 1:
        return None
    entry, name, facts = found
    if not facts.get("async") or facts.get("pool_other"):
        return None
    hit = f"{facts['pool'][0]} in `{name}` ({index.where(entry, facts['pool'][1])})" if facts.get("pool") else None
    for call in facts["calls"]:
        if call["loop"] and call["loop"].get("via"):
            continue  # a function handed to a pool per item: the pool runs it
        inner = pooled(index, call["ref"], depth + 1) if call.get("awaited") else None
        if inner:
            hit = hit or inner
        elif call.get("awaited") and _dependency(index, call["ref"], 0, frozenset(), False) != "":
            return None  # awaited work of its own, or of unknown effect
        elif not call.get("awaited") and _dependency(index, call["ref"], 0, frozenset(), False):
            return None
    return hit


def instance_of(index: ProjectIndex, ref: str) -> str | None:
    """The ref of the class or factory a module-level name *ref* was built by (``SLOTS = asyncio.Semaphore(8)``)."""
    found = index.resolve(ref)
    if found is None or found[0] != "instance" or "." in found[2]:
        return None
    return found[1].summary["instances"][found[2]]


QUERIES: dict[str, Callable] = {
    "instance_of": instance_of,
    "limiter": limiter, "len_checked": len_checked, "client_factory": client_factory, "pauses": pauses,
    "batches": batches, "configured": configured, "class_uses": class_uses, "spawn_sources": spawn_sources,
    "per_item_callers": per_item_callers, "sized_by_callers": sized_by_callers, "dependency": dependency,
    "spawned_dependency": spawned_dependency, "failing_dependency": failing_dependency, "pooled": pooled,
    "size_checked": size_checked, "input_len_checks": input_len_checks, "input_field_reads": input_field_reads,
    "is_enum": is_enum, "taken_as_input": taken_as_input, "returns": returns, "constructed": constructed,
    "passed": passed,
    "once_callers": once_callers,
}
