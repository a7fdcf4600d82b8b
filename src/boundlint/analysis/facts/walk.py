"""One walk of a function's own code, shared by the facts that read it, and what they read of a
node remembered for the file being checked (``kids``, ``per_node``)."""
from __future__ import annotations

import functools
from typing import Callable, Iterator, TypeVar

import libcst as cst


def leaf_types(*classes: type) -> frozenset[type]:
    """*classes* for an exact test, ``type(node) in leaf_types(...)``: the same answer as
    ``isinstance(node, classes)`` for LibCST's concrete node classes, none of which has a subclass,
    without ``ABCMeta.__instancecheck__`` (a Python call per test on LibCST's abstract node classes).
    Raises TypeError for a class that has subclasses, for which the two tests differ."""
    for cls in classes:
        if cls.__subclasses__():
            raise TypeError(f"{cls.__name__} has subclasses: an exact type test would miss them")
    return frozenset(classes)


_SCOPES = leaf_types(cst.FunctionDef, cst.ClassDef, cst.Lambda)
# id(node) -> (node, its children): LibCST's ``children`` rebuilds the node on every read, and the
# facts read the same few thousand nodes of a file some five times each.  The node is held, so its
# id cannot be reused while its entry lives; the engine empties this after each file (``forget``).
_KIDS: dict[int, tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = {}
_MEMOS: list[dict] = []  # one per ``per_node`` function, emptied with _KIDS
T = TypeVar("T")


def kids(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """``node.children`` (every child node, whitespace included, in source order), read once per file."""
    entry = _KIDS.get(id(node))
    if entry is None or entry[0] is not node:
        entry = _KIDS[id(node)] = (node, tuple(node.children))
    return entry[1]


def per_node(fn: Callable[[cst.CSTNode], T]) -> Callable[[cst.CSTNode], T]:
    """*fn* (a pure function of a node's subtree) memoised for the file being checked, like ``kids``."""
    memo: dict[int, tuple[cst.CSTNode, T]] = {}
    _MEMOS.append(memo)

    @functools.wraps(fn)
    def once(node: cst.CSTNode) -> T:
        entry = memo.get(id(node))
        if entry is None or entry[0] is not node:
            entry = memo[id(node)] = (node, fn(node))
        return entry[1]

    return once


def forget() -> None:
    """Drop what ``kids`` and the ``per_node`` functions remember (the engine calls it when a file is done)."""
    _KIDS.clear()
    for memo in _MEMOS:
        memo.clear()


def mentions(node: cst.CSTNode, name: str) -> bool:
    """True when the bare name *name* occurs anywhere under *node* (itself included, nested scopes too)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name and current.value == name:
            return True
        stack.extend(kids(current))
    return False


def own_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under *node* (itself included), in source order.  A nested ``def``, class or
    lambda is yielded but not entered: its body runs when it is called, not here."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if type(n) in _SCOPES and n is not node:
            continue
        stack.extend(reversed(kids(n)))


def binding_targets(node: cst.CSTNode, loops: bool = False) -> list[cst.BaseExpression]:
    """The targets *node* binds when it is an assignment (``=``, annotated, augmented, ``:=``) or an
    ``as`` name; with *loops*, also a ``for`` loop's or comprehension's target; else []."""
    if type(node) is cst.Assign:
        return [t.target for t in node.targets]
    if isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)) or loops and isinstance(node, (cst.For, cst.CompFor)):
        return [node.target]
    if type(node) is cst.AsName:
        return [node.name]
    return []
