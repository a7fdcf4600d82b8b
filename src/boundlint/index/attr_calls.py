"""Calls a method makes through an attribute of its own object: ``self._manager.cancel_all()``.

The reader resolves a call by its dotted name (``self.m``, imports, module instances); a call through an
attribute the class itself sets to an instance of a project class (``self._manager = Manager(...)`` in
one of its methods) is left out.  The "runs once" judgement (``index.once``) needs those call sites: a
function whose only caller reaches it that way would show no caller at all.  Pure ``ast``.

- ``attr_types(cls, ref)``: ``{attribute: class ref}`` for the attributes the class's methods set to a
  call of one project class (an attribute set to two different classes is left out);
- ``attr_calls(func, types)``: one call record per ``self.ATTR.method(...)`` in *func*, shaped like the
  reader's (``ref``, ``line``, ``col``, ``loop``; ``loop`` only for a call under a ``while``).
"""
from __future__ import annotations

import ast
from typing import Callable

from boundlint.index.body import child_fields
from boundlint.index.closures import own_statements

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SKIP = frozenset({*_FUNCS, ast.ClassDef, ast.Lambda, ast.Name, ast.Constant})  # other scopes, and leaves


def _self_attr(expr: ast.AST) -> str | None:
    """``X`` of ``self.X``, else None."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None


def attr_types(cls: ast.ClassDef, ref: Callable[[ast.AST], str | None], memo: dict | None = None) -> dict[str, str]:
    """``{attribute: class ref}``: what the methods of *cls* set ``self.ATTR`` to, when it is always a call of
    the same resolvable callee (*ref* resolves a dotted name to a ref, or None; *memo*: see
    ``closures.own_statements``)."""
    found: dict[str, set[str]] = {}
    for method in cls.body:
        if not isinstance(method, _FUNCS):
            continue
        # assignments are statements: no expression walk; a def or class among the method's own
        # statements is read too (a closure that sets `self.X` when it runs)
        inner = [s.body for s in method.body if isinstance(s, (*_FUNCS, ast.ClassDef))]
        for node in (n for body in (method.body, *inner) for n in own_statements(body, memo)):
            kind = type(node)
            if kind is ast.Assign:
                targets, value = node.targets, node.value
            elif kind is ast.AnnAssign and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for target in targets:
                attr = _self_attr(target)
                if attr is None:
                    continue
                made = ref(value.func) if isinstance(value, ast.Call) else None
                found.setdefault(attr, set()).add(made or "")
    return {attr: next(iter(made)) for attr, made in found.items() if len(made) == 1 and "" not in made}


def attr_calls(func: ast.FunctionDef | ast.AsyncFunctionDef, types: dict[str, str],
               calls: list[ast.Call] | None = None) -> list[dict]:
    """Call records of ``self.ATTR.method(...)`` in *func* (nested functions aside) for the attributes of
    *types*; ``loop`` is ``{"text": "while", "bounded": False}`` for a call on the passes of a ``while``.
    *calls*, every call under *func* (``body.walk``), spares the walk when none is such a call."""
    if not types or calls is not None and not any(
            isinstance(c.func, ast.Attribute) and _self_attr(c.func.value) in types for c in calls):
        return []
    out = []
    stack: list[tuple[ast.AST, bool]] = [(stmt, False) for stmt in func.body]
    AST, skip = ast.AST, _SKIP
    while stack:
        node, in_while = stack.pop()
        kind = type(node)
        if kind in skip:
            continue
        if kind is ast.Call and isinstance(node.func, ast.Attribute):
            attr = _self_attr(node.func.value)
            if attr in types:
                out.append({"ref": f"{types[attr]}.{node.func.attr}", "line": node.lineno, "col": node.col_offset + 1,
                            "loop": {"text": "while", "bounded": False} if in_while else None})
        inner = in_while or kind is ast.While
        for field in child_fields(kind):  # no contexts, operators nor import aliases: they hold no call
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend([(child, inner) for child in value if isinstance(child, AST)])
            elif isinstance(value, AST):
                stack.append((value, inner))
    return sorted(out, key=lambda c: (c["line"], c["col"]))
