"""What the project's overrides of a placeholder method do when a dependency fails.

A base class that leaves a method to its subclasses (``@abstractmethod``, a
body of only ``...`` or ``raise NotImplementedError``) and calls it from its
own loop (``await self._handle(item)``) runs whatever the subclasses put
there.  Its body shows nothing; the overrides, in any module of the project,
show what the call does.
"""
from __future__ import annotations

from boundlint.index.project import ModuleEntry, ProjectIndex
from boundlint.index.queries.dependency import dependency, failing_dependency
from boundlint.index.shapes import test_module

YES, NO = "yes", "no"
_MAX_CLASSES = 200  # descendants read at most: a base of a whole framework says nothing per call


def subclasses(index: ProjectIndex) -> dict[str, list[tuple[ModuleEntry, str]]]:
    """``{class key: [(module, class name), ...]}``: the project's direct subclasses of each project
    class (keys as ``ProjectIndex.key``), test modules left out; built once per index."""
    found = index.memo.get("subclasses")
    if found is not None:
        return found
    found = {}
    for entry in {id(e): e for e in index.modules.values()}.values():
        if any(test_module(name) for name in entry.names):
            continue  # a test double's override is not what runs in the service
        for name, facts in entry.summary["classes"].items():
            for base in facts.get("bases", ()):
                key = index.key(base)
                if key is not None:
                    found.setdefault(key, []).append((entry, name))
    index.memo["subclasses"] = found
    return found


def overrides(index: ProjectIndex, cls: str, method: str) -> list | None:
    """``["yes", why]`` when an override of *method* below the class *cls* (a ref) lets a dependency's
    failure out to its caller (``why``: ``"`client.post()` in `Worker._handle` (path:line)"``);
    ``["no", "`Worker._handle` (path:line), ..."]`` when every override is known and none does: each
    reaches no dependency, or makes every dependency call it is shown to make inside a ``try`` that
    catches everything and does not raise, and leaves out of such a ``try`` no call of unknown effect
    and no awaited call of the project whose effect is unknown; None when no override is known or
    one is of unknown effect.  Overrides that are placeholders themselves are passed through.
    """
    key = index.key(cls)
    if key is None:
        return None
    tree = subclasses(index)
    todo, seen, absorbed, unknown = list(tree.get(key, ())), {key}, [], False
    while todo and len(seen) <= _MAX_CLASSES:
        entry, name = todo.pop(0)
        here = f"{index.canonical(entry)}.{name}"
        if here in seen:
            continue
        seen.add(here)
        todo.extend(tree.get(here, ()))
        facts = entry.summary["functions"].get(f"{name}.{method}")
        if facts is None or facts.get("stub"):
            continue
        ref = f"{here}.{method}"
        out = failing_dependency(index, ref)
        if out:
            return [YES, out]
        if out is None and not _absorbs(index, ref, facts):
            unknown = True  # read on: another override may still let a failure out
            continue
        absorbed.append(f"`{name}.{method}` ({index.where(entry, facts['line'])})")
    if unknown or not absorbed or todo:
        return None  # an override of unknown effect, none in sight, or too many classes below to read
    return [NO, ", ".join(absorbed)]


def _absorbs(index: ProjectIndex, ref: str, facts: dict) -> bool:
    """An override whose failing-dependency answer was unknown still absorbs its dependency's failures
    when it is shown to reach one (``dependency``), every such call it makes fails inside a catch-all
    ``try`` (``failing_dependency`` found none outside), no call of unknown effect is left outside one
    (``opaque_out``), and no awaited call of the project outside one is of unknown effect."""
    if not dependency(index, ref) or facts.get("opaque_out"):
        return False
    return not any(call.get("awaited") and not call.get("absorbed") and failing_dependency(index, call["ref"]) is None
                   for call in facts["calls"])
