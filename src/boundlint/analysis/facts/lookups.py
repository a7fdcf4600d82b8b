"""A subset of a configured registry picked by lookups, for the volume reader (``analysis.facts.volume``).

A collection built only from the hits of lookups in a registry of a configured kind holds at most one
item per configured entry, however many keys were looked up (keys taken once each, as ids are):

- ``for sid in ids: server = manager.get_server_by_id(sid); if server: out.append(server)``: a list
  built empty whose every fill appends, under an ``if`` on it, a name bound only to a lookup in the
  registry (``analysis.facts.configured.registry_read``) or to a call handed that very name (a fixed copy of
  the entry);
- ``[sid for sid in ids if sid in registry]``: a comprehension that keeps only the keys a configured
  collection holds (the reader judges the collection).

The keys themselves, or rows a query returns per key, are no entries of a registry: they stay as
large as the keys.
"""
from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts import bindings, configured, fills
from boundlint.analysis.facts.walk import kids, mentions

_APPENDS = frozenset({"append", "add"})


def lookup(value: cst.BaseExpression, settings, owner: str | None) -> str:
    """Why *value* is one entry looked up in a configured registry (``manager.get_server_by_id(sid)``,
    awaited or not: a read method of such a registry given a key), else ``""``."""
    inner = value.expression if isinstance(value, cst.Await) else value
    if not (isinstance(inner, cst.Call) and inner.args):
        return ""
    return configured.registry_read(inner.func, settings, owner)


def registry_call(expr: cst.BaseExpression, chain: list[cst.CSTNode], settings) -> bool:
    """True when *expr* (an awaited expression, where *chain* leads to it) calls a read method of a
    registry of a configured kind (``configured.registry_read``, with the class *chain* is in): an
    async registry is read as the sync one is."""
    owner = next((n.name.value for n in reversed(chain) if isinstance(n, cst.ClassDef)), None)
    return isinstance(expr, cst.Call) and bool(configured.registry_read(expr.func, settings, owner))


def _entry(name: str, values: list[cst.BaseExpression], settings, owner: str | None) -> str:
    """Why every value bound to *name* is an entry of a configured registry: one lookup at least, the
    others calls made of *name* itself (``server = with_defaults(server)``, ``server.copy()``); else ``""``."""
    found = ""
    for value in values:
        why = lookup(value, settings, owner)
        if why:
            found = found or why
        elif not (isinstance(value, cst.Call) and mentions(value, name)):
            return ""
    return found


def filled(func: cst.FunctionDef, name: str, settings, owner: str | None) -> str:
    """Why the collection *name*, built empty in *func*, is a subset of a configured registry: every
    fill of it (``fills.fills``: all seen, inside a loop) appends or adds a name bound only to an entry
    of the registry (see ``_entry``) under an ``if`` that tests that name; else ``""``."""
    found = fills.fills(func, name)
    if not found or any(added is not None or not loops for loops, added in found):
        return ""
    bound = bindings.assignments(func)
    hits: list[str] = []
    stack: list[tuple[cst.CSTNode, tuple]] = [(func.body, ())]
    while stack:
        node, tests = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(node, cst.If):
            stack.append((node.test, tests))
            stack.append((node.body, (*tests, node.test)))
            if node.orelse is not None:
                stack.append((node.orelse, tests))
            continue
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _APPENDS
                and isinstance(node.func.value, cst.Name) and node.func.value.value == name):
            item = node.args[0].value if len(node.args) == 1 else None
            if not isinstance(item, cst.Name) or not any(mentions(t, item.value) for t in tests):
                return ""  # a miss would be appended too: one item per key
            why = _entry(item.value, bound.get(item.value, []), settings, owner)
            if not why:
                return ""
            hits.append(why)
        stack.extend((child, tests) for child in kids(node))
    if len(hits) != len(found):
        return ""  # a fill of another shape (`out[k] = v`, `out.insert(0, v)`)
    return f"the hits of {hits[0]}, one item per configured entry at most"


def kept(comp: cst.BaseExpression, judge: Callable[[cst.BaseExpression], tuple[str, str]]) -> str:
    """Why the comprehension *comp* (one ``for``, its item a single name) keeps only keys a configured
    collection holds: an ``if`` clause ``item in coll`` (one part of an ``and`` too) where *judge*
    (the volume reader) finds ``coll`` configured; else ``""``."""
    if not isinstance(comp, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return ""
    clause = comp.for_in
    if clause.inner_for_in is not None or not isinstance(clause.target, cst.Name):
        return ""
    item = clause.target.value
    for test in (i.test for i in clause.ifs):
        for part in _conjuncts(test):
            if not (isinstance(part, cst.Comparison) and len(part.comparisons) == 1
                    and isinstance(part.comparisons[0].operator, cst.In)
                    and isinstance(part.left, cst.Name) and part.left.value == item):
                continue
            coll = part.comparisons[0].comparator
            kind, why = judge(coll)
            if kind == "configured":
                return f"the keys found in `{dotted(coll) or 'a collection'}` ({why}), one per configured entry at most"
    return ""


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The parts of an ``and`` chain (*test* itself when it is none)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]
