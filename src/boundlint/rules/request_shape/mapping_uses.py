"""BND201: how an endpoint uses a free-form mapping field of its request model.

A free-form JSON object (``meta: dict[str, Any]``) that the handler only reads
by fixed keys (``body.meta["kind"]``, ``body.meta.get("kind")``) is a record:
its extra keys are never touched.  One it walks key by key (``for k, v in
body.meta.items()``, ``[... for k in body.meta]``, ``f(**body.meta)``) does
work per key; one it passes on whole (stored, forwarded) holds the bytes.
"""
from __future__ import annotations

from typing import Iterator

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import kids

RECORD, WALKED, WHOLE = "record", "walked", "whole"
_WALKERS = frozenset({"items", "keys", "values", "update", "copy"})


def _children(node: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """``(child, parent)`` pairs under *node*, nested functions included (handlers define small closures)."""
    stack = [node]
    while stack:
        parent = stack.pop()
        for child in kids(parent):
            yield child, parent
            stack.append(child)


def _string_index(sub: cst.Subscript) -> bool:
    return len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) and isinstance(
        sub.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString))


def mapping_uses(func: cst.FunctionDef, key: str) -> list[tuple[str, cst.CSTNode]]:
    """Each use of the dotted *key* (``body.meta``) in *func*, as ``(kind, node)``, in source order.

    kind is ``record`` (a fixed-key read: ``key["k"]``, ``key.get("k")``),
    ``walked`` (iterated, ``.items()`` / ``.keys()`` / ``.values()``,
    unpacked with ``**``), or ``whole`` (anything else: stored, passed on,
    returned).  A plain alias (``meta = body.meta``) is followed one step.
    """
    names = {key}
    pairs = list(_children(func.body))
    for child, parent in pairs:  # meta = body.meta: the alias's uses are the field's
        if (isinstance(parent, cst.Assign) and child is parent.value and dotted(child) == key
                and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
            names.add(parent.targets[0].target.value)
    grand: dict[int, cst.CSTNode] = {id(child): parent for child, parent in pairs}
    out: list[tuple[str, cst.CSTNode]] = []
    for child, parent in pairs:
        if not isinstance(child, (cst.Name, cst.Attribute)) or dotted(child) not in names:
            continue
        if isinstance(child, cst.Name) and (
                (isinstance(parent, cst.Attribute) and child is parent.attr)
                or (isinstance(parent, cst.Arg) and child is parent.keyword)
                or isinstance(parent, (cst.Param, cst.AssignTarget, cst.ImportAlias, cst.AsName))):
            continue  # `x.meta`'s attribute, `f(meta=...)`'s keyword, a parameter or target named so
        if isinstance(parent, cst.Attribute) and child is parent.value:
            owner = grand.get(id(parent))
            if isinstance(owner, cst.Call) and owner.func is parent:
                if parent.attr.value == "get" and owner.args and isinstance(owner.args[0].value, cst.SimpleString):
                    out.append((RECORD, owner))
                elif parent.attr.value in _WALKERS:
                    out.append((WALKED, owner))
                else:
                    out.append((WHOLE, owner))
            continue  # body.meta as the head of a longer name is that name's use
        if isinstance(parent, cst.Assign) and child is parent.value and len(parent.targets) == 1 and isinstance(
                parent.targets[0].target, cst.Name) and parent.targets[0].target.value in names:
            continue  # the alias itself
        if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and child is not parent.value:
            continue  # written, not read
        if isinstance(parent, cst.Subscript) and child is parent.value:
            out.append((RECORD if _string_index(parent) else WHOLE, parent))
        elif isinstance(parent, (cst.For, cst.CompFor)) and child is parent.iter:
            out.append((WALKED, parent))
        elif isinstance(parent, cst.Arg) and parent.star == "**":
            out.append((WALKED, parent))
        elif isinstance(parent, cst.DictElement) or type(parent).__name__ == "StarredDictElement":
            out.append((WALKED if type(parent).__name__ == "StarredDictElement" else WHOLE, parent))
        else:
            out.append((WHOLE, child))
    return out
