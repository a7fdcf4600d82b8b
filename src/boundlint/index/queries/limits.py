"""Limits a callee shows: limiters entered or built, length checks, client factories, pauses, fixed-size batches."""
from __future__ import annotations

from boundlint import tables
from boundlint.index.project import ProjectIndex
from boundlint.index.queries.common import _DEPTH
from boundlint.index.queries.dependency import dependency
from boundlint.index.queries.wrapped import decorated_limiter

def limiter(index: ProjectIndex, ref: str, depth: int = 0) -> str | None:
    """``"a limiter in `f` (path:line)"`` when calling *ref* (as a context manager or plainly) enters a shared limiter.

    An instance counts by what entering it runs (``entered``): ``async with OPEN_FILES:`` where
    ``OPEN_FILES = LazySlots(...)`` (here or in another module) and ``LazySlots.__aenter__`` takes a
    semaphore's slot.
    """
    found = index.function(ref)
    kind = index.resolve(ref) if found is None and depth <= _DEPTH else None
    if kind is not None and kind[0] == "instance" and "." not in kind[2]:  # `with OPEN_FILES:` from another module
        return entered(index, kind[1].summary["instances"][kind[2]], depth + 1)
    if found is None or depth > _DEPTH:
        return None
    entry, name, facts = found
    if facts["limiter"]:
        return f"a limiter in `{name}` ({index.where(entry, facts['line'])})"
    if facts.get("decorated") and (hit := decorated_limiter(index, facts)):
        return hit
    for inner in facts["with_calls"]:
        hit = limiter(index, inner, depth + 1)
        if hit:
            return hit
    return _limiter_below(index, facts) if depth == 0 else None


def builds_limiter(index: ProjectIndex, ref: str) -> str | None:
    """``"`anyio.CapacityLimiter(...)` from `make_limiter` (path:line)"`` when the project function *ref*
    builds and returns a new limiter (``return anyio.CapacityLimiter(N)``: the ``limiters`` and
    ``limiter-class-names`` tables): what a caller keeps of it (``self._limiter = make_limiter()``
    in ``__init__``) is one limiter its tasks share; None otherwise."""
    found = index.function(ref)
    made = found[2].get("client_call") if found is not None else None
    if not made or not (made in tables.table("limiters") or made.rsplit(".", 1)[-1] in tables.table("limiter-class-names")):
        return None
    entry, name, facts = found
    return f"`{made.rsplit('.', 1)[-1]}(...)` from `{name}` ({index.where(entry, facts['line'])})"


def entered(index: ProjectIndex, ref: str, depth: int = 0) -> str | None:
    """``limiter`` of what entering an instance of the class *ref* runs (its ``__aenter__``, else its
    ``__enter__``): one instance shared by every caller is a limiter when that takes a slot.  A class
    built per call (``async with Gate(5):``) is never asked: each call would hold its own."""
    return limiter(index, f"{ref}.__aenter__", depth) or limiter(index, f"{ref}.__enter__", depth)


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
    """``"`f` (path:line)"`` when the project function *ref* sleeps or backs off on every call.

    Answers are kept in ``index.memo`` by ``(ref, depth)``: a call graph where many functions call
    the same helpers is walked once per function and depth, not once per path through it.
    """
    memo = index.memo.setdefault("pauses", {})
    key = (ref, depth)
    if key not in memo:
        memo[key] = _pauses(index, ref, depth)
    return memo[key]


def _pauses(index: ProjectIndex, ref: str, depth: int) -> str | None:
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


def fails_fast(index: ProjectIndex, ref: str, depth: int = 0) -> str | None:
    """``"`f` returns at once when a call in its `try` fails (path:line)"`` when the project function *ref*,
    or a project function it calls outside any loop, answers a failed call by returning with no pause
    (``index.effects.fails_fast``); None when it does not, or also pauses on every call (``pauses``).
    Kept in ``index.memo`` by ``(ref, depth)``, as ``pauses`` is."""
    memo = index.memo.setdefault("fails_fast", {})
    key = (ref, depth)
    if key not in memo:
        memo[key] = _fails_fast(index, ref, depth)
    return memo[key]


def _fails_fast(index: ProjectIndex, ref: str, depth: int) -> str | None:
    found = index.function(ref)
    if found is None or depth > _DEPTH or pauses(index, ref):
        return None
    entry, name, facts = found
    if facts.get("fails_fast"):
        return f"`{name.rsplit('.', 1)[-1]}()` returns at once when a call in its `try` fails " \
               f"({index.where(entry, facts['fails_fast'])})"
    for call in facts["calls"]:
        if call["loop"] is None:
            below = fails_fast(index, call["ref"], depth + 1)
            if below:
                return below
    return None


def paces_failure(index: ProjectIndex, ref: str) -> str | None:
    """``"`f` pauses before it re-raises (path:line)"`` when a handler of the project function *ref* that
    re-raises (``index.effects.raising_handlers``) calls a function that pauses (``pauses``): a
    failed call of *ref* has waited before its caller sees the error; else None."""
    found = index.function(ref)
    if found is None:
        return None
    entry, name, facts = found
    for first, last in facts.get("raising", ()):
        for call in facts["calls"]:
            if first <= call["line"] <= last and pauses(index, call["ref"]):
                return f"`{name.rsplit('.', 1)[-1]}()` pauses before it re-raises ({index.where(entry, call['line'])})"
    return None


def batches(index: ProjectIndex, ref: str) -> str | None:
    """``"fixed-size batches from `f` (path:line)"`` when *ref* splits its input into fixed-size batches."""
    found = index.function(ref)
    if found is None or not found[2]["batches"]:
        return None
    entry, name, facts = found
    return f"fixed-size batches from `{name}` ({index.where(entry, facts['line'])})"
