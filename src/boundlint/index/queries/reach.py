"""Whether a project function runs once per item: one fixpoint over the call graph.

A function runs per item when a caller runs it in an unbounded loop or fan-out
over that caller's input (``callers.per_item_callers``: the *seeds*), or when a
caller that itself runs per item calls it once per call, at any depth and across
any module.  Instead of following callers a fixed number of levels for each
question, ``_reach`` propagates that fact from every seed down the plain
(not looped) call edges of the whole project, breadth first, until nothing
changes; each function keeps the shortest chain that shows it.  It is computed
once per index and kind of loop, and every query reads it.

``REACH_STEPS`` caps the length of a chain (the loop step included), so that
evidence stays readable: a function reached only through a longer chain of plain
calls is not reported as run per item.
"""
from __future__ import annotations

from collections import deque

from boundlint.index.project import ProjectIndex
from boundlint.index.queries.callers import _per_item
from boundlint.index.shapes import test_module

REACH_STEPS = 6  # the longest chain, in steps, that makes a function run per item


def per_item_through(index: ProjectIndex, ref: str, passes: bool = False, fanout: bool | None = None,
                     own_module: bool = False, unawaited: bool = False) -> list[str] | None:
    """A chain when the project function *ref* runs once per item of input: a caller in another module
    runs it per item (``per_item_callers``), or it is called once per call, through any number of plain
    calls in any module (up to ``REACH_STEPS`` steps in all), by a function that runs per item.
    *passes* and *fanout* as for ``per_item_callers``, at every level; with *own_module*, a loop in
    *ref*'s own module that calls it directly counts too (for work its own module's judgement does not
    see from the loop; without it that loop is the module's own rule's to report).  With *unawaited*,
    only calls of *ref* whose result the caller does not await count (*ref* hands back a running task).

    Answer: the steps outermost first, e.g. ``["`resolve_many()` runs `resolve_one()` per item of
    `domains` through `asyncio.gather` (app/resolver.py:15)", "`resolve_one()` calls `new_client()`
    (app/resolver.py:8)"]``; None when not shown (also when *ref* is no project function).
    """
    found = index.function(ref)
    if found is None:
        return None
    direct = _per_item(index, ref, passes, fanout, own_module, unawaited)
    if direct:
        return direct
    entry, name, _facts = found
    key = f"{index.canonical(entry)}.{name}"
    reach = _reach(index, ("loop", passes, fanout))
    best: list[str] | None = None
    for caller_key, step in _plain_callers(index, key, name, unawaited):
        up = reach.get(caller_key)
        if up is None or key in up[1] or len(up[0]) >= REACH_STEPS:
            continue  # a chain through *ref* itself is recursion, not a caller's loop
        if best is None or len(up[0]) + 1 < len(best):
            best = [*up[0], step]
    return best


def _plain_callers(index: ProjectIndex, key: str, name: str, unawaited: bool = False) -> list[tuple[str, str]]:
    """``(caller key, evidence step)`` for each call of the function *key* (qualname *name*) outside a
    loop, by another function, in the order the index lists them (with *unawaited*, not awaited ones)."""
    out = []
    for caller_entry, caller, call in index.reverse()["callers"].get(key, ()):
        caller_key = f"{index.canonical(caller_entry)}.{caller}"
        if call["loop"] is not None or caller_key == key or (unawaited and call.get("awaited")) \
                or test_module(index.canonical(caller_entry)):
            continue  # a call in a loop is per_item_callers' to judge; recursion is no caller; tests run once
        out.append((caller_key, f"`{caller}()` calls `{name}()` "
                                f"({index.where(caller_entry, call['line'])})"))
    return out


def _reach(index: ProjectIndex, mode: tuple) -> dict[str, tuple[list[str], frozenset]]:
    """``{function key: (chain, keys on it)}`` for every project function that runs per item (*mode*
    ``("loop", passes, fanout)``: seeded by ``per_item_callers``' loops) or per request or message
    (``("role",)``: seeded by the functions whose role says so), with the shortest chain (ties: the
    index's order); memoised in ``index.memo`` per mode."""
    memo_key = ("reach", *mode)
    cached = index.memo.get(memo_key)
    if cached is not None:
        return cached
    callers = index.reverse()["callers"]
    reach: dict[str, tuple[list[str], frozenset]] = {}
    queue: deque[str] = deque()
    names: dict[str, str] = {}
    for key in callers:
        found = index.function(key)
        if found is not None:  # not a class or an instance: a construction, not a run of a function
            names[key] = found[1]
    seeds = _role_seeds(index) if mode[0] == "role" else (
        (key, _per_item(index, key, mode[1], mode[2], True)) for key in names)
    for key, seed in seeds:
        if seed and key not in reach:
            reach[key] = (seed, frozenset((key,)))
            queue.append(key)
    down: dict[str, list[tuple[str, str]]] = {}  # caller key -> [(callee key, step)]
    for key, name in names.items():
        for caller_key, step in _plain_callers(index, key, name):
            down.setdefault(caller_key, []).append((key, step))
    while queue:  # breadth first: each function is reached first by its shortest chain
        key = queue.popleft()
        chain, on = reach[key]
        if len(chain) >= REACH_STEPS:
            continue
        for callee, step in down.get(key, ()):
            if callee not in reach:
                reach[callee] = ([*chain, step], on | {callee})
                queue.append(callee)
    index.memo[memo_key] = reach
    return reach


def _role_seeds(index: ProjectIndex):
    """``(key, [step])`` for each project function that runs once per request (a route, a handler
    class's method, a servicer method) or once per message (a task-queue actor, a consumer), by the
    role its own signs give it (``index.hooks.role``)."""
    for entry in {id(e): e for e in index.modules.values()}.values():
        for qual, facts in entry.summary["functions"].items():
            role = "request" if facts["route"] else facts.get("role")
            if role in _PER_RUN:
                yield (f"{index.canonical(entry)}.{qual}",
                       [f"`{qual}()` runs once per {_PER_RUN[role]} ({index.where(entry, facts['line'])})"])


_PER_RUN = {"request": "request", "worker": "message"}


def per_run_through(index: ProjectIndex, ref: str) -> list[str] | None:
    """A chain when the project function *ref* runs once per request or message: its own role says so
    (``index.hooks.role``: a route or handler, a servicer method, a task-queue actor or consumer), or
    it is called once per call, through any number of plain calls in any module (up to
    ``REACH_STEPS`` steps in all), by such a function.  Answer as ``per_item_through``, starting with
    the step that names the role (``"`ListingHandler.get()` runs once per request (app/handlers.py:12)"``);
    None when not shown."""
    found = index.function(ref)
    if found is None:
        return None
    entry, name, _facts = found
    hit = _reach(index, ("role",)).get(f"{index.canonical(entry)}.{name}")
    return list(hit[0]) if hit is not None else None


def per_item_wrapped(index: ProjectIndex, decorator: str, passes: bool = False,
                     fanout: bool | None = None, per_run: bool = False) -> list[str] | None:
    """A chain when the wrapper that the project decorator *decorator* puts around a function runs once
    per item: some project function decorated with it (``@decorator`` or ``@decorator(...)``) runs per
    item (``per_item_through``, its own module's loops included: the wrapper lives elsewhere), and every
    call of it runs the wrapper.  Answer as ``per_item_through``, ending with the decoration step
    (``"`upsert_price()` is wrapped by `@with_connection` (app/prices.py:11)"``); None when not shown.
    With *per_run*, the decorated function is asked ``per_run_through`` instead: once per request or message.
    """
    key = index.key(decorator)
    if key is None:
        return None
    best: list[str] | None = None
    for entry, qual, line in _decorated(index).get(key, ()):
        ref = f"{index.canonical(entry)}.{qual}"
        up = per_run_through(index, ref) if per_run else per_item_through(index, ref, passes, fanout, True)
        if up and len(up) < REACH_STEPS and (best is None or len(up) + 1 < len(best)):
            best = [*up, f"`{qual}()` is wrapped by `@{key.rsplit('.', 1)[-1]}` ({index.where(entry, line)})"]
    return best


def _decorated(index: ProjectIndex) -> dict[str, list[tuple]]:
    """``{decorator key: [(module, qualname, line), ...]}`` for the project functions each project
    decorator decorates; memoised in ``index.memo``."""
    found = index.memo.get("decorated")
    if found is not None:
        return found
    found = {}
    for entry in {id(e): e for e in index.modules.values()}.values():
        for qual, facts in entry.summary["functions"].items():
            for deco in facts.get("decorated", ()):
                key = index.key(deco["ref"])
                if key is not None:
                    found.setdefault(key, []).append((entry, qual, facts["line"]))
    index.memo["decorated"] = found
    return found
