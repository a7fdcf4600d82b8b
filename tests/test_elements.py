"""The element type of an annotated container shows the class of what is taken out of it or looped over:
``analysis.facts.elements`` / ``analysis.facts.receivers`` (LibCST) and ``index.elements`` (the project index, ``ast``)."""
from __future__ import annotations

import ast
import textwrap

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.config import Settings
from boundlint.analysis.facts import elements, receivers
from boundlint.index import elements as index_elements
from boundlint.index.summary import summarize

_MANAGER = """
    from typing import Hashable, Optional, Sequence

    class Group:
        async def stop(self):
            self.task.cancel()

    class Manager:
        def __init__(self):
            self._groups: dict[Hashable, Group] = {}
            self._plain = {}

        async def unsubscribe(self, key, layers: Sequence[Group], raw, mixed: "list[Group]"):
            group = self._groups.get(key)
            other = self._plain.get(key)
            fallback = self._groups.get(key, other)
            if (named := self._groups[key]) is None:
                pass
            for g in self._groups.values():
                pass
            for k in self._groups:
                pass
            for layer in reversed(layers):
                pass
            for r in raw:
                pass
            for m in mixed:
                pass
            copied = list(self._groups.values())
            for c in copied:
                pass
            rebound = self._groups.get(key)
            rebound = make()
"""


def _annotation(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def _code(node) -> str | None:
    return None if node is None else cst.Module([]).code_for_node(node)


def test_the_element_type_a_container_annotation_names():
    assert _code(elements.element(_annotation("dict[str, Group]"), elements.VALUE)) == "Group"
    assert _code(elements.element(_annotation("dict[str, Group]"), elements.KEY)) == "str"
    assert _code(elements.element(_annotation("Optional[typing.Mapping[str, Group]]"), elements.VALUE)) == "Group"
    assert _code(elements.element(_annotation("list[Group] | None"), elements.KEY)) == "Group"
    assert _code(elements.element(_annotation("tuple[Group, ...]"), elements.VALUE)) == "Group"
    assert elements.element(_annotation("tuple[Group, Feed]"), elements.VALUE) is None  # mixed items
    assert elements.element(_annotation("dict"), elements.VALUE) is None  # nothing says what it holds
    assert elements.element(_annotation("Group"), elements.VALUE) is None  # no container
    assert elements.element(_annotation("list[Group] | dict[str, Group]"), elements.VALUE) is None


def test_what_taking_and_looping_read():
    taken = elements.taken(cst.parse_expression("self._groups.get(key)"))
    assert (_code(taken[0]), taken[1]) == ("self._groups", "value")
    assert elements.taken(cst.parse_expression("self._groups.get(key, fallback)")) is None  # may be another object
    assert elements.taken(cst.parse_expression("self._groups.get()")) is None
    assert _code(elements.taken(cst.parse_expression("jobs.pop()"))[0]) == "jobs"
    looped = elements.iterated(cst.parse_expression("self._groups.values()"))
    assert (_code(looped[0]), looped[1]) == ("self._groups", "value")
    assert elements.iterated(cst.parse_expression("self._groups.items()")) is None  # pairs, not one element
    assert elements.iterated(cst.parse_expression("self._groups"))[1] == "key"


def _context(source: str) -> Context:
    module = cst.parse_module(textwrap.dedent(source))
    ctx = Context("svc/manager.py", module, Settings())
    for stmt in module.body:
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom):
                ctx.names.add_import_from(small)
    return ctx


def test_receivers_show_the_element_class_of_an_annotated_container():
    ctx = _context(_MANAGER)
    func = ctx.index.methods["Manager"]["unsubscribe"]

    def shown(name):
        found = receivers.shown(name, [func], ctx, "Manager")
        return None if found is None else (found[0], _code(found[1]))

    assert shown("group") == ("class", "Group")  # self._groups.get(key), the dict annotated in __init__
    assert shown("named") == ("class", "Group")  # (named := self._groups[key])
    assert shown("g") == ("class", "Group")  # for g in self._groups.values()
    assert shown("layer") == ("class", "Group")  # for layer in reversed(layers), layers: Sequence[Group]
    assert shown("c") == ("class", "Group")  # a list copied from the values
    assert shown("k") is None  # the keys are `Hashable`: a typing class shows nothing
    assert shown("other") is None  # the dict is not annotated
    assert shown("fallback") is None  # a default that is another object
    assert shown("r") is None  # an unannotated parameter
    assert shown("m") is None  # a string annotation is not read
    assert shown("rebound") is None  # a second binding shows nothing: they do not agree


def test_the_index_resolves_a_method_on_an_element_of_an_annotated_container():
    tree = ast.parse(textwrap.dedent(_MANAGER))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Manager")
    annotations = index_elements.attr_annotations(cls)
    assert sorted(annotations) == ["_groups"]
    func = next(n for n in cls.body if isinstance(n, ast.AsyncFunctionDef))

    def ref(expr):
        name = index_elements._dotted(expr)
        return None if name is None else {"Group": "svc.manager.Group", "Sequence": "typing.Sequence"}.get(name)

    found = index_elements.Elements(func, annotations, ref, "svc.manager")

    def method(text):
        return found.method(ast.parse(text).body[0].value)

    assert method("group.stop") == "svc.manager.Group.stop"
    assert method("named.stop") == "svc.manager.Group.stop"
    assert method("g.stop") == "svc.manager.Group.stop"
    assert method("c.stop") == "svc.manager.Group.stop"
    assert method("layer.stop") == "svc.manager.Group.stop"
    assert method("other.stop") is None
    assert method("fallback.stop") is None
    assert method("k.stop") is None
    assert method("rebound.stop") is None
    assert method("self.stop") is None
    # a class outside this project's package is not read as the project's (its method is out of sight)
    assert index_elements.Elements(func, annotations, ref, "other.manager").method(
        ast.parse("group.stop").body[0].value) is None


def test_the_summary_follows_the_element_class_instead_of_taking_the_await_for_io():
    loose = summarize(textwrap.dedent("""
        class Manager:
            def __init__(self):
                self._groups = {}

            async def release(self, key):
                group = self._groups.get(key)
                await group.stop()
    """), "svc.manager", False)["functions"]["Manager.release"]
    assert loose["dep"] == ["`group.stop()`", 8]  # awaited out of sight: taken for I/O
    typed = summarize(textwrap.dedent("""
        from .groups import Group

        class Manager:
            def __init__(self):
                self._groups: dict[str, Group] = {}

            async def release(self, key):
                group = self._groups.get(key)
                await group.stop()
    """), "svc.manager", False)["functions"]["Manager.release"]
    assert typed["dep"] is None  # the project's `Group.stop`, which `queries.dependency` reads
    assert [(c["ref"], c["line"], c.get("awaited")) for c in typed["calls"]] == [("svc.groups.Group.stop", 10, True)]


def test_an_element_class_of_another_package_stays_out_of_sight():
    """``vendor.Group`` is no class of the ``svc`` project: awaiting its method is still taken for I/O."""
    facts = summarize(textwrap.dedent("""
        from vendor.groups import Group

        class Manager:
            def __init__(self):
                self._groups: dict[str, Group] = {}

            async def release(self, key):
                group = self._groups.get(key)
                await group.stop()
    """), "svc.manager", False)["functions"]["Manager.release"]
    assert facts["dep"] == ["`group.stop()`", 10]
    assert facts["calls"] == []
