"""Whether a function reaches an external dependency, fails into its caller, or pools its work."""
from __future__ import annotations

from boundlint.kinds import calls
from boundlint.index import flags
from boundlint.index.project import ProjectIndex
from boundlint.index.queries.common import _DEPTH

def dependency(index: ProjectIndex, ref: str, passed: list | None = None, *, depth: int = 0,
               seen: frozenset = frozenset()) -> str | None:
    """Whether calling the project function *ref* reaches an external dependency, following calls.

    ``"`client.get()` in `fetch` (path:line)"`` when it does; ``""`` when its
    body and every callee are shown to be local work; None when unknown (a
    callee outside the project, a call of unknown effect, too deep).
    *passed*: ``[[position or keyword, state], ...]``, the constants the call
    of *ref* passes (``index.flags.STATES``): the branches of *ref* a test
    of such a parameter rules out are not read, nor those of the functions
    it hands the parameter on to.
    """
    return _dependency(index, ref, depth, seen, False, _passed(passed))


def failing_dependency(index: ProjectIndex, ref: str, passed: list | None = None) -> str | None:
    """Whether a dependency's failure reaches the caller of the project function *ref*: as
    ``dependency``, but a call inside a ``try`` that catches every exception and does not raise
    (in *ref* or in a function it calls) does not count, its failure stops there."""
    return _dependency(index, ref, 0, frozenset(), True, _passed(passed))


def _passed(passed: list | None) -> dict:
    """``[[key, state], ...]`` (a query's JSON argument) as a dict; pairs of another shape are ignored."""
    out: dict = {}
    for pair in passed or ():
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], (int, str)) \
                and not isinstance(pair[0], bool) and pair[1] in flags.STATES:
            out[pair[0]] = pair[1]
    return out


def _dependency(index: ProjectIndex, ref: str, depth: int, seen: frozenset, failures: bool,
                passed: dict | None = None) -> str | None:
    found = _callable(index, ref)
    if found is None:
        kind = index.resolve(ref)
        if kind is not None and kind[0] == "class":
            init = index.function(f"{ref}.__init__")
            return "" if init is None else _dependency(index, f"{ref}.__init__", depth + 1, seen, failures, passed)
        if kind is not None and kind[0] == "instance" and kind[2].count(".") == 1:
            made = kind[1].summary["instances"][kind[2].split(".")[0]]
            method = kind[2].rsplit(".", 1)[1]
            if method in calls.LOCAL_METHODS and calls.classify(made, None, None, verbs=False) != calls.DEPENDENCY:
                return ""  # `log.exception(...)` on a module's logger: in-process work
        return None
    entry, name, facts = found
    if facts.get("stub"):
        return None  # a placeholder a subclass fills in: its body shows nothing
    given = flags.by_name(facts, passed)
    dep, opaque = flags.own(facts, given, failures)
    if dep:
        what, line = dep
        return f"{what} in `{name}` ({index.where(entry, line)})"
    if depth >= _DEPTH or ref in seen:
        return None
    answer: str | None = None if opaque else ""
    for call in facts["calls"]:
        if (failures and call.get("absorbed")) or flags.ruled_out(call.get("when"), given):
            continue
        inner = _dependency(index, call["ref"], depth + 1, seen | {ref}, failures, flags.passed_on(call, facts, given))
        if inner:
            return inner
        if inner is None:
            answer = None
    return answer


def _callable(index: ProjectIndex, ref: str) -> tuple | None:
    """``function``'s answer for *ref*, also for a method of a module-level instance
    (``CLIENT.get`` where ``CLIENT = AsyncClient()``): the class's method, and for a method a
    class inherits from a project base class (``Worker.send`` defined in its base ``Service``)."""
    found = index.function(ref)
    if found is not None:
        return found
    head, _, method = ref.rpartition(".")
    if not head:
        return None
    kind = index.resolve(head)
    if kind is not None and kind[0] == "instance" and "." not in kind[2]:
        kind = index.resolve(kind[1].summary["instances"].get(kind[2]))
    if kind is None or kind[0] != "class":
        return None
    return _inherited(index, kind[1], kind[2], method, 0)


def _inherited(index: ProjectIndex, entry, name: str, method: str, depth: int) -> tuple | None:
    """The method *method* of the class *name* of module *entry*, or of its project base classes."""
    found = index.function(f"{index.canonical(entry)}.{name}.{method}")
    if found is not None or depth > 4:
        return found
    for base in entry.summary["classes"].get(name, {}).get("bases", ()):
        cls = index.resolve(base)
        if cls is not None and cls[0] == "class":
            found = _inherited(index, cls[1], cls[2], method, depth + 1)
            if found is not None:
                return found
    return None


def defined(index: ProjectIndex, ref: str) -> list | None:
    """``["module.Class.method", whole]``: where the project defines the function or method *ref*
    calls (through a module instance or a base class too), and whether ``dependency`` read all of it
    (no call left unread for depth: what it left unknown is out of the project); None for code out of
    the project's sight, or a placeholder (``stub``: abstract, ``pass``, ``...``)."""
    found = _callable(index, ref)
    if found is None or found[2].get("stub"):
        return None
    return [f"{index.canonical(found[0])}.{found[1]}", _whole(index, ref, 0, frozenset())]


def _whole(index: ProjectIndex, ref: str, depth: int, seen: frozenset) -> bool:
    """False when ``dependency`` stops reading *ref* at its depth limit before an answer."""
    found = _callable(index, ref)
    if found is None or found[2].get("dep") or ref in seen:
        return True
    if depth >= _DEPTH:
        return False
    return all(_dependency(index, call["ref"], depth + 1, seen | {ref}, False) is not None
               or _whole(index, call["ref"], depth + 1, seen | {ref}) for call in found[2]["calls"])


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
