"""Whether a project stores request input in an application's shared state (``app.state.<attr>``)."""
from __future__ import annotations

from boundlint.index.project import ProjectIndex


def state_input(index: ProjectIndex, attr: str) -> str | None:
    """``"`f()` stores `key` in `app.state.<attr>` (path:line)"`` when some function of the project
    assigns the application state attribute *attr* from request input: the request body it reads
    (``await request.json()``) or a parameter that carries input (``index.local_binds.state_set``);
    else None. The assignments are gathered once per index."""
    sets = index.memo.get("state_sets")
    if sets is None:
        sets = {}
        for entry in {id(e): e for e in index.modules.values()}.values():
            for func, facts in entry.summary["functions"].items():
                for name, kind, text, line in facts.get("state_sets", ()):
                    sets.setdefault(name, []).append((entry, func, kind, text, line))
        index.memo["state_sets"] = sets
    answers = index.memo.setdefault("state_input", {})
    if attr in answers:
        return answers[attr]
    answers[attr] = None  # while it is judged: a chain back through the same attribute adds nothing
    for entry, func, kind, text, line in sets.get(attr, ()):
        from boundlint.index.queries.callers import _input_chain  # here: callers asks shared_state

        if kind == "input" or _input_chain(index, entry, func, text, 0, frozenset()):
            answers[attr] = f"`{func}()` stores `{text}` in `app.state.{attr}` ({index.where(entry, line)})"
            break
    return answers[attr]


def shared_state(index: ProjectIndex, key: str) -> bool:
    """The parameter key *key* (``request.app.state.MODELS``) reads an application's shared state that
    the project never stores request input in (``state_input``)."""
    if ".app.state." not in f".{key}":
        return False
    parts = key.split(".")
    at = next(i for i in range(len(parts) - 1) if parts[i] == "app" and parts[i + 1] == "state")
    return at + 2 < len(parts) and state_input(index, parts[at + 2]) is None
