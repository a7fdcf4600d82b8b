"""Does a function run once? Asked of its callers across the project (``once_callers``).

A function whose every known caller is a start-up, shutdown or lifespan
hook, directly or through a few levels of callers, runs once per process,
however large the collection it walks.  The hooks come from ``index.hooks``
(roles from the ``once-functions`` / ``once-decorators`` tables, and the
functions a module registers as hooks); the answer is a chain of steps for
the finding's reason, or None.  Pure functions of the index, so the result
cache can re-ask them (``view.ProjectView``).
"""
from __future__ import annotations

from boundlint.index.project import ProjectIndex
from boundlint.index.shapes import test_module

_ONCE_DEPTH = 3  # levels of callers followed up to a once-context
_ONCE_SITES = 8  # a function called from more places than this is shared code, not a start-up step


def once_callers(index: ProjectIndex, ref: str) -> list[str] | None:
    """Why the project function *ref* runs once: every known caller is a once-context, directly or
    through callers up to ``_ONCE_DEPTH`` levels; else None.

    A once-context is a function whose role is ``once`` (``index.hooks``: a
    start-up, shutdown or lifespan hook by the ``once-functions`` and
    ``once-decorators`` tables, entry points excepted) or one a module
    registers as such a hook, unless the project shows it running
    repeatedly (``_repeated``: an ``@asynccontextmanager`` a request handler
    enters); a memoized function without parameters (``@cache``) is one
    however often it is called; a call under a once-flag (``if not
    self.prepared: ... self.prepared = True``) or under a migrations flag
    (``if ENABLE_DB_MIGRATIONS:``, ``index.migrations``) is one whoever
    calls its function.  A function handed to an executor (``submit``,
    ``map``) is called there: the reader records that as a call.  A call made in a nested function that its enclosing function
    runs (calls, or registers as a hook) counts as the enclosing function's.  Callers in test modules do not count.  None when *ref* has no
    known caller (unknown), when it is handed over as a value (a scheduler
    may run it any number of times), when a caller is of another role or
    calls it on the passes of a ``while`` loop, or past the depth.

    Answer: one step per call site, sorted, e.g. ``["`shutdown()` (app/main.py:40)"]``
    or ``["`stop()` (a.py:9), only called from `lifespan()` (b.py:3)"]``.
    """
    return _once(index, ref, 0, frozenset()) or None


def _once(index: ProjectIndex, ref: str, depth: int, seen: frozenset) -> list[str] | None:
    """Steps showing *ref* runs once; [] when nothing calls it but functions already on the way up;
    None when not shown."""
    found = index.function(ref)
    if found is None or depth > _ONCE_DEPTH:
        return None
    entry, name, _facts = found
    key = f"{index.canonical(entry)}.{name}"
    marks = _hook_marks(index)
    if _handed_over(index, entry, name, marks):
        return None
    seen = seen | {key}  # a call from a function already on the way up runs only when that one runs
    sites = [site for site in _call_sites(index, entry, name) if not test_module(index.canonical(site[0]))]
    registered = depth == 0 and key in marks["hooks"]  # itself a hook: `app.before_server_start(f)`
    if not (sites or registered) or len(sites) > _ONCE_SITES:
        return None
    # [] below: called only from functions already on the way up, so it runs when they run
    sites = [(e, caller, call) for e, caller, call in sites if f"{index.canonical(e)}.{caller}" not in seen]
    steps = [f"its registration as a start-up or shutdown hook of `{name}()`"] if registered else []
    for caller_entry, caller, call in sites:
        loop = call["loop"]
        if loop is not None and loop["text"] == "while" and not loop["bounded"]:
            return None
        facts = caller_entry.summary["functions"][caller]
        caller_key = f"{index.canonical(caller_entry)}.{caller}"
        where = f"`{caller}()` ({index.where(caller_entry, call['line'])})"
        if call.get("via"):
            where = f"`{call['via']}()` in {where}"
        flag = _under_once_flag(facts, call["line"])
        if flag:
            steps.append(f"{where} under {flag}")
            continue
        if facts.get("role") == "once" or caller_key in marks["hooks"] and caller_key not in marks["passed"]:
            if not facts.get("memoized") and _repeated(index, caller_key, depth, seen):
                return None  # a once-context by its signs that requests reach: a context manager entered per request
            steps.append(where)
            continue
        if facts.get("role") is not None or facts["route"]:
            return None
        inner = _once(index, caller_key, depth + 1, seen)
        if inner is None:
            return None
        if inner:
            steps.append(f"{where}, only called from {', '.join(inner)}")
    return sorted(set(steps))


def _under_once_flag(facts: dict, line: int) -> str:
    """What guards *line* of the function of *facts* so that it runs once, else "": ``the once-flag
    `self.prepared```, a stop's start flag, or ``the migrations flag `ENABLE_MIGRATIONS``` (``index.migrations``)."""
    for first, last, flag, *kind in facts.get("once_spans", ()):
        if first <= line <= last:
            if kind == ["stop"]:
                return f"the flag `{flag}`, which it clears: once per start"
            return f"the migrations flag `{flag}`" if kind else f"the once-flag `{flag}`"
    return ""


def _repeated(index: ProjectIndex, ref: str, depth: int, seen: frozenset) -> bool:
    """True when the project shows *ref* running repeatedly: a request handler or worker calls it
    (directly or up to ``_ONCE_DEPTH`` levels of callers), a ``while`` loop does, it has more callers than
    ``_ONCE_SITES``, or it is handed over as a value.  No callers, or none shown so, is False."""
    found = index.function(ref)
    if found is None or depth > _ONCE_DEPTH:
        return False
    entry, name, _facts = found
    if _handed_over(index, entry, name, _hook_marks(index)):
        return True
    seen = seen | {f"{index.canonical(entry)}.{name}"}
    sites = [site for site in _call_sites(index, entry, name) if not test_module(index.canonical(site[0]))]
    if len(sites) > _ONCE_SITES:
        return True
    for caller_entry, caller, call in sites:
        caller_key = f"{index.canonical(caller_entry)}.{caller}"
        if caller_key in seen:
            continue
        loop = call["loop"]
        facts = caller_entry.summary["functions"][caller]
        if (loop is not None and loop["text"] == "while" and not loop["bounded"]
                or facts.get("role") in ("request", "worker") or facts["route"]
                or _repeated(index, caller_key, depth + 1, seen)):
            return True
    return False


def _handed_over(index: ProjectIndex, entry, name: str, marks: dict) -> bool:
    """True when the function *name* of *entry* is handed over as a value somewhere (also through a
    module-level instance of its class): whoever receives it runs it as often as it likes."""
    owner, _, method = name.rpartition(".")
    through = [f"{i}.{method}" for i in marks["instances"].get(f"{index.canonical(entry)}.{owner}", ())] if owner else []
    return any(k in marks["passed"] for k in (f"{index.canonical(entry)}.{name}", *through))


def _call_sites(index: ProjectIndex, entry, name: str) -> list[tuple]:
    """``(module, caller, call record)`` of every known call of the function *name* of *entry*; for a method,
    also the calls through module-level instances of its class (``pool.remove_all()``)."""
    callers = index.reverse()["callers"]
    closures = _hook_marks(index)["closures"]
    module = index.canonical(entry)
    keys = [f"{module}.{name}"]
    if "." in name:
        owner, method = name.split(".", 1)
        keys.extend(f"{instance}.{method}" for instance in _hook_marks(index)["instances"].get(f"{module}.{owner}", ()))
    through = _hook_marks(index)["attr_calls"]  # self._manager.cancel_all(): index.attr_calls
    return [site for key in keys for site in (*callers.get(key, ()), *closures.get(key, ()), *through.get(key, ()))]


def _hook_marks(index: ProjectIndex) -> dict:
    """``{"hooks": keys registered as once hooks, "passed": keys handed over as values, "instances":
    class key -> keys of its module-level instances, "closures": key -> call sites in nested functions
    (``index.closures``), "attr_calls": key -> calls through an attribute of the caller's own object
    (``index.attr_calls``)}``, built once per index (kept in ``reverse()``,
    which a changed index drops)."""
    rev = index.reverse()
    marks = rev.get("once-marks")
    if marks is None:
        modules = {id(e): e for e in index.modules.values()}.values()
        hooks = {index.key(r) for e in modules for r in e.summary.get("hooks", ())}
        passed = {index.key(r) for e in modules for r in e.summary.get("passed", ())}
        instances: dict[str, list[str]] = {}
        for e in modules:
            for local, made in e.summary["instances"].items():
                made_key = index.key(made)
                if made_key is not None:
                    instances.setdefault(made_key, []).append(f"{index.canonical(e)}.{local}")
        closures: dict[str, list] = {}  # calls made in nested functions a function runs, as its own
        through: dict[str, list] = {}  # calls through an attribute of the caller's own object
        for e in modules:
            for qual, facts in e.summary["functions"].items():
                for field, into in (("closure_calls", closures), ("attr_calls", through)):
                    for call in facts.get(field, ()):
                        key = index.key(call["ref"])
                        if key is not None:
                            into.setdefault(key, []).append((e, qual, call))
        marks = rev["once-marks"] = {"hooks": hooks - {None}, "passed": passed - {None}, "instances": instances,
                                     "closures": closures, "attr_calls": through}
    return marks
