"""What callers pass: where an argument comes from, fan-outs and loops over a function's calls."""
from __future__ import annotations

from boundlint.index.project import ProjectIndex
from boundlint.index.queries.common import _DEPTH
from boundlint.index.queries.dependency import dependency
from boundlint.index.queries.limits import limiter
from boundlint.index.queries.rejects import _param_at, _rejects
from boundlint.index.queries.rows import gives_rows
from boundlint.index.shapes import test_module
from boundlint.index.queries.state import shared_state

def _input_chain(index: ProjectIndex, entry, func: str, key: str, depth: int, seen: frozenset) -> list[str] | None:
    """A chain showing that parameter key *key* of function *func* carries request input, else None
    (never for the application's shared state, ``request.app.state.X``, that no request fills: ``state.shared_state``)."""
    if depth > _DEPTH or (entry.path, func, key) in seen or shared_state(index, key):
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
    ``{"text": "settings.repos" or None, "input": bool, "where": "path:line", "caller": ref,
    "binds": [[kind, text], ...]}``, *text* when the caller passes one of its own parameters or an
    attribute of one, *binds* when it passes a local (``index.local_binds``: one pair per binding there),
    *input* when that parameter, or one a binding names, carries request input; *caller* the
    calling function's ref. None when nothing in the project calls *ref*."""
    _name, calls_of = _passed_for(index, ref, param)
    out = []
    for caller_entry, caller, call, prov in calls_of:
        source = prov.get("param") if prov else None
        binds = prov.get("binds") if prov else None
        keys = [text for k, text in binds if k == "param"] if binds else [source] if source else []
        chain = any(_input_chain(index, caller_entry, caller, key, 0, frozenset()) for key in keys)
        out.append({"text": source, "input": chain, "where": index.where(caller_entry, call["line"]),
                    "caller": f"{index.canonical(caller_entry)}.{caller}", **({"binds": binds} if binds else {})})
    return out or None


def given(index: ProjectIndex, ref: str, param: str) -> dict | None:
    """``{"caller": name, "where": "path:line"}`` for the first call of the project function *ref*, in
    any module, when every call of it passes its optional parameter *param* (by position or keyword);
    None when some call leaves it unset, nothing calls *ref*, or *ref* is no project function."""
    found = index.function(ref)
    if found is None:
        return None
    facts = found[2]
    params = facts["params"][1:] if facts["method"] else facts["params"]
    position = params.index(param) if param in params else len(params)
    first = None
    for caller_entry, caller, call, _prov in _passed_for(index, ref, param)[1]:
        if param not in call["kwargs"] and position >= len(call["args"]):
            return None
        first = first or {"caller": caller.rsplit(".", 1)[-1], "where": index.where(caller_entry, call["line"])}
    return first


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
    return _per_item(index, ref, passes, fanout, own_module=False)


def _per_item(index: ProjectIndex, ref: str, passes: bool, fanout: bool | None, own_module: bool,
              unawaited: bool = False) -> list[str] | None:
    """``per_item_callers``; with *own_module*, callers in *ref*'s own module count too; with *unawaited*,
    only calls whose result the caller does not await (a task the callee hands back stays running)."""
    found = index.function(ref)
    if found is None:
        return None
    entry, name, _facts = found
    for caller_entry, caller, call in index.reverse()["callers"].get(f"{index.canonical(entry)}.{name}", ()):
        if caller_entry is entry and (not own_module or caller == name):
            continue  # the module's own loops are judged where they are, with all they show; recursion is no loop
        if test_module(index.canonical(caller_entry)):
            continue  # a test's loop runs once per test run, not per item of a service's input
        loop = call["loop"]
        if loop is None or loop["bounded"] or (fanout is not None and bool(loop.get("via")) != fanout) \
                or (unawaited and call.get("awaited")):
            continue
        where = index.where(caller_entry, call["line"])
        if loop["text"] == "while":
            if passes and not loop.get("paced"):
                return [f"`{caller}()` calls `{name}()` on every pass of a `while` loop that does not pause ({where})"]
            continue
        src = loop["src"]
        data = gives_rows(index, src["returns"]) if src is not None and "returns" in src else None
        if src is None or ("returns" in src and not data):
            continue  # volume must come from the caller's input or data read at run time, not its own lookups
        origin = [f"`{src['text']}` returns data read at run time: {data}"] if data else []
        if loop.get("via"):
            return [*origin, f"`{caller}()` runs `{name}()` per item of `{loop['text']}` through `{loop['via']}` ({where})"]
        return [*origin, f"`{caller}()` calls `{name}()` per item of `{loop['text']}` ({where})"]
    return None


def size_checked(index: ProjectIndex, ref: str, position: int | str = 0, depth: int = 0) -> str | None:
    """``"`f` (path:line)"`` when the project function *ref* rejects its *position*-th argument (``self``
    not counted; or the argument passed by that keyword) once its length or serialised size is too large,
    itself or through a helper it passes that argument to (``validate(v)`` -> ``check_size(v, MAX)``); else None."""
    return _rejects(index, ref, position, depth)


def callee_at(index: ProjectIndex, ref: str, line: int, col: int) -> str | None:
    """The ref the index resolved for the call at *line* and 1-based *col* in the project function *ref*
    (``self._stream.consume(...)`` through the class of ``self._stream``, ``client.request(...)``
    through a parameter's annotation), else None: one reading of calls for the index and the rules."""
    found = index.function(ref)
    if found is None:
        return None
    for call in found[2]["calls"]:
        if call["line"] == line and call["col"] == col:
            return call["ref"]
    return None


def iterates(index: ProjectIndex, ref: str, at: int | str, depth: int = 0) -> list[list[str]]:
    """``[[path, step], ...]`` for what the project function *ref* loops over, with a call per item, of
    its argument *at* (a position not counting ``self``, or a keyword): *path* ``""`` for the argument
    itself, ``"ids"`` for its field ``ids``; itself (``index.effects.iterated``) or through the project functions
    it passes the value to, outside loops (*step* names the loop, ``"`f` loops over `ids` (path:line)"``).
    A path it rejects when too long (``len_checked``, ``size_checked``) is not listed."""
    found = index.function(ref)
    if found is None or depth > _DEPTH:
        return []
    entry, name, facts = found
    param = _param_at(facts, at)
    if param is None:
        return []
    checked = {*facts["len_checked"], *facts.get("size_checked", ())}
    out: list[list[str]] = []
    for path, line in facts.get("iterated", ()):
        if (path == param or path.startswith(param + ".")) and path not in checked:
            out.append([path[len(param) + 1:], f"`{name.rsplit('.', 1)[-1]}()` loops over `{path}` "
                                               f"({index.where(entry, line)})"])
    for call in facts["calls"]:
        if call["loop"] is not None:
            continue
        for pos, prov in [*enumerate(call["args"]), *call["kwargs"].items()]:
            held = prov.get("param") if isinstance(prov, dict) else None
            if held is None or not (held == param or held.startswith(param + ".")) or held in checked:
                continue
            prefix = held[len(param) + 1:]
            for sub, step in iterates(index, call["ref"], pos, depth + 1):
                out.append([".".join(p for p in (prefix, sub) if p), step])
    return out
