"""What a function checks and reads of its parameters, for the project index (``ast``).

``_rejected_keys`` / ``_terminates``: the ``if len(x) > N: raise`` checks a
function makes; ``measured_key``: the parameter key a size check measures;
``param_reads``: which fields of each parameter a function reads, clears
first, or hands whole to another function.
"""
from __future__ import annotations

import ast
from typing import Callable

from boundlint import tables
from boundlint.index.body import Body, walk
from boundlint.index.shapes import dotted, present as _present


def _terminates(body: list[ast.stmt]) -> bool:
    """The block ends by raising or aborting (a rejecting check in a helper must stop the caller too)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Raise):
        return True
    if isinstance(last, ast.Expr):
        value = last.value.value if isinstance(last.value, ast.Await) else last.value
        if isinstance(value, ast.Call):
            name = (dotted(value.func) or "").rsplit(".", 1)[-1]
            return name in tables.table("abort-calls")
    return False


def _len_key(expr: ast.AST) -> str | None:
    if isinstance(expr, ast.Call) and dotted(expr.func) == "len" and len(expr.args) == 1:
        return dotted(expr.args[0])
    return None


def _rejected_keys(test: ast.AST, asserted: bool = False) -> list[str]:
    """Keys an ``if`` test rejects when oversized (``len(x) > N``, ``N < len(x)``, ``a or b``), or with
    *asserted*, keys an ``assert`` keeps small (``len(x) <= N``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and not asserted:
        return [k for v in test.values for k in _rejected_keys(v)]
    if isinstance(test, ast.BoolOp) and not asserted:  # x is not None and len(x) > N: rejects an oversized x
        keys = [k for v in test.values for k in _rejected_keys(v)]
        return [k for k in keys if all(_rejected_keys(v) == [k] or _present(v, k) for v in test.values)]
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        above, below = (ast.Lt, ast.LtE), (ast.Gt, ast.GtE)
        if isinstance(op, above if asserted else below) and _len_key(left):
            return [_len_key(left)]  # type: ignore[list-item]
        if isinstance(op, below if asserted else above) and _len_key(right):
            return [_len_key(right)]  # type: ignore[list-item]
    return []



def measured_key(expr: ast.AST, params: list[str], unalias: Callable[[str], str]) -> str | None:
    """The one parameter key (``body.meta``, ``variables``) *expr* is computed from, through local
    aliases (*unalias*), methods called on it not counted; None when it reads none or several."""
    called = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)}
    inner = {id(n.value) for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
    keys = set()
    for node in ast.walk(expr):
        if not isinstance(node, (ast.Name, ast.Attribute)) or id(node) in called or id(node) in inner:
            continue
        name = dotted(node)
        if name is None:
            continue
        name = unalias(name)
        root = name.split(".", 1)[0]
        if root in params and root not in ("self", "cls"):
            keys.add(name)
    return keys.pop() if len(keys) == 1 else None


def param_reads(func: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str],
                callee: Callable[[ast.Call], str | None], body: Body | None = None) -> dict:
    """What the body of *func* does with each parameter it names (``self`` / ``cls`` aside).

    ``{param: {"read": {field: line}, "cleared": {field: line}, "whole": line, "passed": [[ref, at, line]]}}``:
    ``read``, the first line each ``param.field`` is read (a method called on
    it, ``param.model_dump()``, is a use of the whole); ``cleared``, fields
    assigned by a statement that runs on every path (``param.meta = None``
    at the top of the body, or in its ``try`` / ``with`` blocks), at the
    statement's last line; ``whole``,
    the first line the parameter itself is used otherwise (0: never), but
    ``passed``: handed as argument *at* (a position not counting ``self``,
    or a keyword) to the project function *ref* (lines are 1-based).
    Nested functions count as the body's own uses.  *body*: the ``body.walk`` of *func*
    with these *params*, when the caller has it.
    """
    wanted = {p for p in params if p not in ("self", "cls")}
    if not wanted:
        return {}
    if body is None:
        body = walk(func, params)
    names = [(name, parent) for name, parent in body.names if name.id in wanted]
    if not names:
        return {}
    parents = body.up
    always = {id(s) for s in _straight_line(func.body)}
    out: dict[str, dict] = {}
    for name, parent in names:
        facts = out.setdefault(name.id, {"read": {}, "cleared": {}, "whole": 0, "passed": []})
        line = name.lineno
        if isinstance(name.ctx, (ast.Store, ast.Del)):
            _first(facts, "whole", line)
        elif isinstance(parent, ast.Attribute) and parent.value is name:
            above = parents.get(id(parent))
            if isinstance(above, ast.Call) and above.func is parent:
                _first(facts, "whole", line)  # param.model_dump(): a method may read every field
            elif isinstance(parent.ctx, ast.Store) and not isinstance(above, ast.AugAssign):
                if isinstance(above, ast.Assign) and id(above) in always:
                    # the statement's last line: a read on its right-hand side comes before the assignment
                    _first(facts["cleared"], parent.attr, above.end_lineno or line)
            elif not isinstance(parent.ctx, ast.Del):
                _first(facts["read"], parent.attr, line)
        elif isinstance(parent, ast.keyword) and parent.arg and isinstance(parents.get(id(parent)), ast.Call):
            ref = callee(parents[id(parent)])  # type: ignore[arg-type]
            if ref is None:
                _first(facts, "whole", line)
            else:
                facts["passed"].append([ref, parent.arg, line])
        elif isinstance(parent, ast.Call) and name in parent.args:
            at = parent.args.index(name)
            ref = callee(parent)
            if ref is None or any(isinstance(a, ast.Starred) for a in parent.args[:at]):
                _first(facts, "whole", line)
            else:
                facts["passed"].append([ref, at, line])
        else:
            _first(facts, "whole", line)
    return out


def _first(facts: dict, key: str, line: int) -> None:
    """Keep the earliest *line* under *key* (``ast.walk`` is not in source order)."""
    facts[key] = min(facts[key], line) if facts.get(key) else line


def _straight_line(body: list[ast.stmt]):
    """The statements of *body* that run on every path: its own, and those of its ``try`` / ``with`` blocks."""
    for stmt in body:
        if isinstance(stmt, (ast.Try, ast.With, ast.AsyncWith)):
            yield from _straight_line(stmt.body)
        else:
            yield stmt


_RAW_BODY = frozenset({"json", "body", "form", "stream"})


def reads_raw_body(func: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str], body: Body | None = None) -> bool:
    """The body reads the raw request a parameter holds (``await request.json()``): what a model
    parameter declares may reach the handler that way too.  *body*: the ``body.walk`` of *func*."""
    calls = (body or walk(func, params)).calls
    return any(isinstance(n.func, ast.Attribute) and n.func.attr in _RAW_BODY
               and isinstance(n.func.value, ast.Name) and n.func.value.id in params and not n.args
               for n in calls)
