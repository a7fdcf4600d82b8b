"""Collections the code itself caps before they are used, for the volume reader.

Two shapes, each read inside the function that binds the name:

- a length guard that leaves early: ``if len(markers) > 4: return ...`` (or ``raise``) as a
  statement of the function's body, after every binding of the name and before any other
  statement that names it: past the guard the collection holds at most 4 items;
- a buffer flushed at a constant size: a list built empty whose every ``append`` is followed by
  ``if len(window) >= SIZE:`` that empties it (``window.clear()``, or a call of a function nested
  here that does): it never holds more than ``SIZE`` items when it is handed on.

``cap(func, name)`` answers why, or ``""``.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import kids, leaf_types, mentions

_REBINDS = leaf_types(cst.AnnAssign, cst.AugAssign)
_LOOPS = leaf_types(cst.For, cst.CompFor)
_DECLARES = leaf_types(cst.Global, cst.Nonlocal)
# where one statement may add many items, or the block walk does not look (`_hidden_fill`)
_HIDDEN = leaf_types(cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp, cst.Lambda, cst.SimpleStatementSuite)

_ONE = frozenset({"append", "add", "appendleft", "insert"})
_CLEARS = frozenset({"clear"})


def _is(node: cst.CSTNode, name: str) -> bool:
    return type(node) is cst.Name and node.value == name


def _constant(expr: cst.BaseExpression) -> str:
    """The text of an integer literal or an UPPER_CASE constant (``_SCAN_WINDOW`` too), else ``""``."""
    if type(expr) is cst.Integer:
        return expr.value
    text = dotted(expr) or ""
    last = text.rsplit(".", 1)[-1]
    return text if last.lstrip("_").isupper() and len(last.lstrip("_")) > 1 else ""


def _length_test(test: cst.BaseExpression, name: str) -> tuple[str, str] | None:
    """``(operator, constant)`` for ``len(name) OP K`` (OP one of ``>``, ``>=``, ``==``) or its mirror
    ``K < len(name)``, else None."""
    if not (type(test) is cst.Comparison and len(test.comparisons) == 1):
        return None
    left, (target,) = test.left, test.comparisons
    right, op = target.comparator, target.operator
    mirror = {cst.LessThan: ">", cst.LessThanEqual: ">="}
    forward = {cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.Equal: "=="}
    if _len_of(left, name) and type(op) in forward and _constant(right):
        return forward[type(op)], _constant(right)
    if _len_of(right, name) and type(op) in mirror and _constant(left):
        return mirror[type(op)], _constant(left)
    return None


def _len_of(expr: cst.BaseExpression, name: str) -> bool:
    return (type(expr) is cst.Call and _is(expr.func, "len") and len(expr.args) == 1
            and _is(expr.args[0].value, name))


def _leaves(body: cst.BaseSuite) -> bool:
    """True when *body* ends by leaving the function: its last statement is a ``return`` or ``raise``."""
    statements = body.body if type(body) is cst.IndentedBlock else [body]
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and last.body:
        return isinstance(last.body[-1], (cst.Return, cst.Raise))
    return False


def _binds(node: cst.CSTNode, name: str) -> bool:
    """True when *node* (a statement) binds *name* anywhere inside it."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.AssignTarget and _is(current.target, name):
            return True
        if type(current) in _REBINDS and _is(current.target, name):
            return True
        if type(current) in _LOOPS and mentions(current.target, name):
            return True
        if type(current) is cst.NamedExpr and _is(current.target, name):
            return True
        if type(current) in _DECLARES:
            return True
        stack.extend(kids(current))
    return False


def guarded(func: cst.FunctionDef, name: str) -> str:
    """Why *name* holds at most K items wherever *func* uses it: a statement of *func*'s body is
    ``if len(name) > K:`` (or ``>=``) ending in ``return`` / ``raise``, every statement before it that
    names *name* binds it, and none after it binds it; else ``""``."""
    body = func.body.body if type(func.body) is cst.IndentedBlock else ()
    for i, stmt in enumerate(body):
        test = (_length_test(stmt.test, name) if type(stmt) is cst.If and stmt.orelse is None
                and _leaves(stmt.body) else None)
        if test and test[0] in (">", ">="):
            if any(_binds(later, name) for later in body[i + 1:]):
                return ""
            op, k = test
            most = f"at most {k}" if op == ">" else f"fewer than {k}"
            return f"{most} items: `len({name}) {op} {k}` leaves early"
        if mentions(stmt, name) and not _binds(stmt, name):
            return ""  # used before any guard
    return ""


def _nested(func: cst.FunctionDef) -> dict[str, cst.FunctionDef]:
    """The functions defined directly in *func*'s body, by name."""
    body = func.body.body if type(func.body) is cst.IndentedBlock else ()
    return {s.name.value: s for s in body if type(s) is cst.FunctionDef}


def _empties(node: cst.CSTNode, name: str) -> bool:
    """True when *node* holds a ``name.clear()`` (or ``del name[:]``)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if (type(current) is cst.Call and type(current.func) is cst.Attribute
                and _is(current.func.value, name) and current.func.attr.value in _CLEARS):
            return True
        if (type(current) is cst.Del and type(current.target) is cst.Subscript
                and _is(current.target.value, name)):
            return True
        stack.extend(kids(current))
    return False


def _flushes(body: cst.BaseSuite, name: str, helpers: dict[str, cst.FunctionDef]) -> bool:
    """True when *body* empties *name*: directly, or by calling a function nested beside it that does."""
    if _empties(body, name):
        return True
    stack: list[cst.CSTNode] = [body]
    while stack:
        current = stack.pop()
        if type(current) is cst.Call and type(current.func) is cst.Name and current.func.value in helpers:
            if _empties(helpers[current.func.value].body, name):
                return True
        stack.extend(kids(current))
    return False


def flushed(func: cst.FunctionDef, name: str) -> str:
    """Why the list *name*, built empty in *func*, never holds more than K items: each statement that
    adds to it (``append`` / ``add``, anywhere in *func* or functions nested in it) is followed in its
    block by ``if len(name) >= K:`` (``==``, ``>``) whose body empties it; nothing else adds to it or
    rebinds it to anything but an empty literal.  ``""`` otherwise."""
    if _hidden_fill(func, name):
        return ""
    helpers = _nested(func)
    caps: set[tuple[str, str]] = set()
    blocks: list[cst.CSTNode] = [func.body]
    while blocks:
        block = blocks.pop()
        statements = list(getattr(block, "body", ())) if type(block) is cst.IndentedBlock else []
        for i, stmt in enumerate(statements):
            adds = _adds(stmt, name)
            if adds is None:
                return ""
            if adds:
                after = statements[i + 1] if i + 1 < len(statements) else None
                test = _length_test(after.test, name) if type(after) is cst.If else None
                if test is None or not _flushes(after.body, name, helpers):
                    return ""
                caps.add(test)
            for child in _blocks_of(stmt):
                blocks.append(child)
    if len(caps) != 1:
        return ""  # no fill, or fills flushed at different sizes
    ((op, k),) = caps
    return f"at most {k}{' + 1' if op == '>' else ''} items: emptied when `len({name}) {op} {k}`"


def _hidden_fill(func: cst.FunctionDef, name: str) -> bool:
    """True when *name* is named where one statement may add many items, or where the block walk does
    not look: a comprehension, a lambda, a one-line body (``for x in xs: name.append(x)``)."""
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        current = stack.pop()
        if type(current) in _HIDDEN and mentions(current, name):
            return any(type(n) is cst.Call and type(n.func) is cst.Attribute and _is(n.func.value, name)
                       for n in _walk(current)) or type(current) is cst.SimpleStatementSuite
        stack.extend(kids(current))
    return False


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(kids(current))


def _blocks_of(stmt: cst.CSTNode) -> list[cst.CSTNode]:
    """The indented blocks directly under the compound statement *stmt* (its bodies and else parts)."""
    out: list[cst.CSTNode] = []
    stack = list(kids(stmt))
    while stack:
        current = stack.pop()
        if type(current) is cst.IndentedBlock:
            out.append(current)
        elif not isinstance(current, cst.BaseSmallStatement) and not isinstance(current, cst.BaseExpression):
            stack.extend(kids(current))
    return out


def _adds(stmt: cst.CSTNode, name: str) -> bool | None:
    """For a simple statement: True when it adds one item to *name*, None when it changes *name* in a
    way this reader does not follow (``extend``, ``+=``, an item assignment, a rebinding to anything but
    an empty literal, handing it to a call), False otherwise.  A compound statement answers False here
    (its blocks are read on their own) unless its header changes *name*."""
    if type(stmt) is cst.SimpleStatementLine:
        parts = [stmt]
    elif type(stmt) is cst.FunctionDef:
        return False  # read on its own: its blocks are walked too
    else:
        parts = [c for c in kids(stmt) if not isinstance(c, (cst.IndentedBlock, cst.BaseSuite))
                 and not isinstance(c, (cst.Else, cst.ExceptHandler, cst.Finally, cst.If))]
    added = False
    for part in parts:
        stack = [part]
        while stack:
            node = stack.pop()
            if type(node) is cst.Call:
                func = node.func
                if type(func) is cst.Attribute and _is(func.value, name):
                    if func.attr.value in _ONE:
                        added = True
                    elif func.attr.value not in _CLEARS and func.attr.value not in ("copy", "count", "index"):
                        return None
                elif any(_is(a.value, name) for a in node.args) and not (
                        type(func) is cst.Name and func.value in ("len", "tuple", "list", "bool", "sorted")):
                    return None
            if type(node) is cst.AugAssign and _is(node.target, name):
                return None
            if type(node) is cst.AssignTarget and (
                    (type(node.target) is cst.Subscript and _is(node.target.value, name))):
                return None
            if type(node) is cst.Assign and any(_is(t.target, name) for t in node.targets):
                if not (type(node.value) is cst.List and not node.value.elements):
                    return None
            stack.extend(kids(node))
    return added


def cap(func: cst.FunctionDef, name: str) -> str:
    """Why *name*, bound in *func*, holds at most a constant number of items wherever *func* uses it: a
    length guard before every use, or a buffer flushed at a constant size; else ``""``."""
    return guarded(func, name) or flushed(func, name)
