"""Items that are positions in a configured collection, for the volume reader (``analysis.facts.volume``).

A loop whose items are only ever used to pick an entry of a configured
collection (``for idx in url_indices: url = base_urls[idx]``) walks at most
as many distinct items as that collection has entries: a list of indices into
the configured backends, or keys of the configured servers, is configured too.
The reader asks this only when it could not tell where the items come from;
items from a request or read at run time stay input.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import kids


def loop_over(expr: cst.BaseExpression, chain: list[cst.CSTNode]) -> cst.For | None:
    """The ``for`` statement of *chain* that walks *expr* (its ``iter`` is that very node), else None."""
    return next((n for n in reversed(chain) if isinstance(n, cst.For) and n.iter is expr), None)


def picked(loop: cst.For) -> list[cst.BaseExpression]:
    """The collections the body of *loop* indexes with its item: ``X`` of each ``X[item]`` (``item`` the
    loop's single name target, used as the whole index), in source order; ``[]`` when the target is
    not a single name, or the body rebinds it."""
    target = loop.target
    if not isinstance(target, cst.Name):
        return []
    name, out, stack = target.value, [], [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                return []  # the name means something else further on
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name) and node.target.value == name:
            return []
        if (isinstance(node, cst.Subscript) and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.Name) and node.slice[0].slice.value.value == name):
            out.append(node.value)
        stack.extend(reversed(kids(node)))
    return out


def label(table: cst.BaseExpression) -> str:
    """How a reason names *table*: its dotted name, ``Config.get(...)`` for a (awaited) call."""
    inner = table.expression if isinstance(table, cst.Await) else table
    if isinstance(inner, cst.Call):
        return f"{dotted(inner.func) or 'a call'}(...)"
    return dotted(inner) or "a collection"
