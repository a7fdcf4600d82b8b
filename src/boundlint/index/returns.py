"""What a function hands back, for the volume of a collection a caller loops over.

``returned(func, params)`` reads the ``return`` statements of *func* (nested
definitions skipped) and answers, JSON-ready:

- ``{"fixed": n}``: every return is a handful of literal items (at most
  ``HANDFUL``), or a filter or copy of such a literal
  (``tuple(n for n in (a, b) if n)``); *n* is the largest count;
- ``{"param": name}``: every return is the same parameter, never rebound
  (``if v is None: raise ...; return v``);
- ``{"param": name, "subset": True}``: every return is (a copy of) one name
  built empty and filled only with items an enclosing ``if`` finds in the
  parameter *name* (``if n in types: found.add(n)``): no more items than it;
- None otherwise, and for a generator.
"""
from __future__ import annotations

import ast

from boundlint.index.body import _FIELDS, child_fields

HANDFUL = 8
_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
# Calls that hand back (a copy or filter of) their first argument, never more items than it has.
_COPIES = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "fromkeys", "filter"})


def _count(expr: ast.AST | None, depth: int = 0) -> int | None:
    """The most items *expr* can hold when the code fixes them as a handful of literals, else None."""
    if depth > 4:
        return None
    if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
        return 0
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        total = 0
        for elt in expr.elts:
            inner = _count(elt.value, depth + 1) if isinstance(elt, ast.Starred) else 1
            if inner is None:
                return None
            total += inner
        return total if total <= HANDFUL else None
    if isinstance(expr, ast.Dict):
        return len(expr.keys) if None not in expr.keys and len(expr.keys) <= HANDFUL else None
    if isinstance(expr, ast.IfExp):
        body, orelse = _count(expr.body, depth + 1), _count(expr.orelse, depth + 1)
        return None if body is None or orelse is None else max(body, orelse)
    if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and len(expr.generators) == 1:
        return _count(expr.generators[0].iter, depth + 1)
    if isinstance(expr, ast.Call) and expr.args and not expr.keywords:
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in _COPIES:
            return _count(expr.args[-1] if name == "filter" else expr.args[0], depth + 1)
    return None


def _returns(func: ast.AST, body=None) -> tuple[list[ast.Return], bool, set[str]]:
    """The return statements of *func*'s own body, whether it yields, and the names it binds;
    *body*: the ``body.walk`` of *func*, whose answers are taken for the statements of its body."""
    out: list[ast.Return] = []
    yields = False
    bound: set[str] = set()
    fields = child_fields(type(func))
    if body is not None:  # the body's statements were walked: only its decorators, arguments and annotation are left
        fields = tuple(f for f in fields if f != "body")
        out, yields, bound = list(body.returns), body.yields, set(body.bound)
    stack: list[ast.AST] = []
    for field in fields:
        value = getattr(func, field, None)
        if type(value) is list:
            stack.extend(child for child in value if isinstance(child, ast.AST))
        elif isinstance(value, ast.AST):
            stack.append(value)
    AST, Name, Store, Constant = ast.AST, ast.Name, ast.Store, ast.Constant
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Name:
            if type(node.ctx) is Store:
                bound.add(node.id)
            continue
        if kind in _SCOPES:
            continue
        if kind is ast.Return:
            out.append(node)
        elif kind is ast.Yield or kind is ast.YieldFrom:
            yields = True
        found = _FIELDS.get(kind)
        for field in found if found is not None else child_fields(kind):  # ast.iter_child_nodes, without its generators
            value = getattr(node, field, None)
            for child in value if type(value) is list else (value,):
                ck = type(child)
                if ck is Name:  # a leaf: read here rather than stacked
                    if type(child.ctx) is Store:
                        bound.add(child.id)
                elif ck is not Constant and isinstance(child, AST):
                    stack.append(child)
    return out, yields, bound


def _empty(value: ast.AST) -> bool:
    """``[]``, ``set()``, ``{}``, ``list()``: a collection built empty."""
    if isinstance(value, (ast.List, ast.Set, ast.Tuple)):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "set", "dict")
            and not value.args and not value.keywords)


def _member_of(tests: tuple, item: ast.AST, params: list[str]) -> str | None:
    """The parameter an enclosing ``if`` test (also one part of an ``and``) finds *item* in, else None."""
    want = ast.dump(item)
    for test in tests:
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        for part in parts:
            if (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.In)
                    and ast.dump(part.left) == want and isinstance(part.comparators[0], ast.Name)
                    and part.comparators[0].id in params):
                return part.comparators[0].id
    return None


def _subset(func: ast.AST, found: list[ast.Return], params: list[str]) -> str | None:
    """The parameter every return hands back a subset of (see the module doc), else None."""
    names = set()
    for r in found:
        value = r.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _COPIES
                and len(value.args) == 1 and not value.keywords):
            value = value.args[0]
        if not isinstance(value, ast.Name):
            return None
        names.add(value.id)
    if len(names) != 1:
        return None
    name, source, built = names.pop(), set(), 0
    stack: list[tuple[ast.AST, tuple]] = [(child, ()) for child in ast.iter_child_nodes(func)]
    while stack:
        node, tests = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.If):
            stack.extend((child, (*tests, node.test)) for child in node.body)
            stack.extend((child, tests) for child in node.orelse)
            continue
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return None  # bound by a loop, a `with` or a deletion
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                if isinstance(node, ast.AugAssign) or node.value is None or not _empty(node.value) or built:
                    return None
                built += 1
                continue
        if isinstance(node, ast.Call):
            func_ = node.func
            if isinstance(func_, ast.Attribute) and isinstance(func_.value, ast.Name) and func_.value.id == name:
                if func_.attr not in ("add", "append") or len(node.args) != 1:
                    return None
                param = _member_of(tests, node.args[0], params)
                if param is None:
                    return None
                source.add(param)
            elif any(isinstance(a, ast.Name) and a.id == name for a in node.args) and not (
                    isinstance(func_, ast.Name) and func_.id in ("len", *_COPIES)):
                return None  # handed to a call that may fill it
        stack.extend((child, tests) for child in ast.iter_child_nodes(node))
    return source.pop() if built == 1 and len(source) == 1 else None


def returned(func: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str], body=None) -> dict | None:
    """See the module doc: ``{"fixed": n}``, ``{"param": name}`` or None for the function *func*
    whose parameter names are *params* (*body*: its ``body.walk``, when the caller has it)."""
    if body is not None and not body.returns:
        return None  # a return is a statement: none in its decorators or arguments either
    found, yields, bound = _returns(func, body)
    if yields or not found:
        return None
    names = {r.value.id for r in found if isinstance(r.value, ast.Name)}
    if len(names) == 1 and all(isinstance(r.value, ast.Name) for r in found):
        name = names.pop()
        handed_back = name in params and name not in ("self", "cls") and name not in bound  # not rebound first
        return {"param": name} if handed_back else None
    counts = [_count(r.value) for r in found]
    if any(c is None for c in counts) or not any(r.value is not None for r in found):
        subset = _subset(func, found, [p for p in params if p not in ("self", "cls")])
        return {"param": subset, "subset": True} if subset else None
    return {"fixed": max(counts)}
