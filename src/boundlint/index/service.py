"""Functions that run until cancelled, for the project index: the ``ast`` twin of ``analysis.facts.runs_forever``.

A service loop (``while True:`` poll, sleep, poll again) ends only when its
task is cancelled or a failure is raised out of it.  The summary records,
for such a function, ``forever``: the conditions (``[[parameter, state],
...]``, ``index.flags``) each of its loop's guarded ``return`` statements
needs (``[]``: it never returns); functions that are no such loop get no
key.  The shape read is the one ``analysis.facts.runs_forever`` documents: an endless
``while`` among the body's statements (also in a ``try`` body or ``with``
block), or ``while self.FLAG:`` / ``while not self.FLAG:`` on a flag the class
sets to ``True`` / ``False``; no ``break`` of it (also none in an ``except``);
every ``return`` up to its end in a handler of cancellation or under an
``if`` on a parameter; a ``try`` around it that re-raises (or catches only
cancellation), no ``with suppress(...)``; no generator.

``runs_forever(index, ref, passed)`` answers for a call: does the function
*ref* run until cancelled when called with the constants *passed*
(``analysis.facts.flag_args.passed``).  Pure ``ast``; never raises for a tree
``ast.parse`` made.
"""
from __future__ import annotations

import ast

from boundlint.index import flags

# what a cancelled task raises in it: asyncio, trio, anyio
CANCELLATION = frozenset({"CancelledError", "Cancelled", "get_cancelled_exc_class"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_HANDLERS = (ast.ExceptHandler,)
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)  # the children that may hold a return or break


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _own(stmts: list[ast.stmt]):
    """Every node under *stmts*, nested functions, classes and lambdas left out."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _bool_flags(cls: ast.ClassDef | None) -> set[str]:
    """``self.X`` names the class *cls* assigns ``True`` or ``False`` to anywhere in its methods."""
    if cls is None:
        return set()
    found = set()
    for node in _statements(cls.body):  # an assignment is a statement: no expression is walked
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
            found.update(n for n in map(_dotted, node.targets) if n and n.startswith("self."))
    return found


def _statements(body: list[ast.stmt]):
    """Every statement under *body*, in nested blocks, functions and classes too (all ``ast.walk`` finds)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        fields = _STATEMENT_FIELDS.get(type(node))
        if fields is None:
            fields = _STATEMENT_FIELDS[type(node)] = tuple(
                f for f in ("body", "orelse", "finalbody", "handlers", "cases") if f in type(node)._fields)
        for name in fields:
            stack.extend(getattr(node, name))


_STATEMENT_FIELDS: dict[type, tuple[str, ...]] = {}  # statement type -> its fields that hold statements


def _endless(test: ast.AST, cls: ast.ClassDef | None, memo: dict) -> bool:
    """True for ``True``, ``1``, and ``self.FLAG`` / ``not self.FLAG`` with a flag *cls* sets to a bool."""
    if isinstance(test, ast.Constant) and test.value is not False and test.value in (True, 1):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    name = _dotted(test) if isinstance(test, ast.Attribute) else None
    if name is None or cls is None:
        return False
    if "flags" not in memo:
        memo["flags"] = _bool_flags(cls)
    return name in memo["flags"]


def _cancelled(handler: ast.ExceptHandler) -> bool:
    """True for an ``except`` that catches only cancellation (``CANCELLATION``)."""
    kind = handler.type
    parts = kind.elts if isinstance(kind, ast.Tuple) else [kind] if kind is not None else []
    names = [_dotted(p.func if isinstance(p, ast.Call) else p) for p in parts]
    return bool(names) and all(n and n.rsplit(".", 1)[-1] in CANCELLATION for n in names)


def swallows(name: str | None) -> bool:
    """True for a context manager that ends its block quietly on what it catches: ``suppress``, and
    ``raises`` / ``assertRaises`` of tests (the loop inside runs until that is raised)."""
    last = (name or "").rsplit(".", 1)[-1]
    return last == "suppress" or last.lower().endswith("raises")


def _goes_on(stmt: ast.stmt) -> bool:
    """True when the ``try`` or ``with`` *stmt* lets the function go on after a failure in its block:
    a handler that neither re-raises nor catches only cancellation, or ``with suppress(...)`` (``swallows``)."""
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return any(isinstance(i.context_expr, ast.Call) and swallows(_dotted(i.context_expr.func)) for i in stmt.items)
    return not all(_cancelled(h) or h.body and isinstance(h.body[-1], ast.Raise) for h in stmt.handlers)


def _top_loop(stmts: list[ast.stmt], cls, memo: dict, before: list) -> ast.While | None:
    for stmt in stmts:
        if isinstance(stmt, ast.While) and _endless(stmt.test, cls, memo):
            return stmt
        if isinstance(stmt, (ast.Try, ast.With, ast.AsyncWith)) or type(stmt).__name__ == "TryStar":
            found = _top_loop(stmt.body, cls, memo, before)
            if found is not None:
                return None if _goes_on(stmt) else found
        before.append(stmt)
    return None


def _exits(node: ast.AST, names: set[str], when: list, depth: int, out: list) -> bool:
    """As ``analysis.facts.runs_forever._exits``: append each ``return``'s conditions to *out*; False for a
    ``return`` under none (but in a handler of cancellation), or a ``break`` of the loop."""
    if isinstance(node, _SCOPES):
        return True
    if isinstance(node, ast.Return):
        if not when:
            return False
        out.append(list(when))
        return True
    if isinstance(node, ast.Break):
        return depth > 0
    if isinstance(node, _HANDLERS) and _cancelled(node):
        return True
    if isinstance(node, ast.If):
        then, other = flags.conditions(node.test, names)
        return (all(_exits(s, names, when + then, depth, out) for s in node.body)
                and all(_exits(s, names, when + other, depth, out) for s in node.orelse))
    inner = depth + 1 if isinstance(node, _LOOPS) else depth
    return all(_exits(child, names, when, inner, out) for child in ast.iter_child_nodes(node)
               if isinstance(child, _BLOCKS))


def forever(func: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.ClassDef | None, memo: dict | None = None) -> list | None:
    """The conditions under which *func* returns when it otherwise runs until cancelled (``[]``: never);
    None when it is no such loop.  *cls*: the class of a method, else None; *memo*: what is read of *cls*
    (its flags), shared by its methods."""
    memo = {} if memo is None else memo
    before: list = []
    loop = _top_loop(func.body, cls, memo, before)
    if loop is None:
        return None
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own(func.body)):
        return None  # a generator: it runs as far as its consumer pulls
    args = func.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    out: list = []
    if not all(_exits(s, names, [], 0, out) for s in before):
        return None
    if not all(_exits(s, names, [], 0, out) for s in loop.body):
        return None
    return out


def record(facts: dict, func: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.ClassDef | None, body=None,
           memo: dict | None = None) -> None:
    """Add ``forever`` to the summary *facts* of *func* when it runs until cancelled (see the module doc);
    *body*: the ``body.walk`` of *func*, when the caller has it (no ``while`` of its own: no such loop);
    *memo*: one dict per class, for ``forever``."""
    if body is not None and not body.whiles:
        return
    found = forever(func, cls, memo)
    if found is not None:
        facts["forever"] = found


def runs_forever(index, ref: str, passed: list) -> str | None:
    """``"`name()` (path:line)"`` when the project function *ref* runs until cancelled as a call passing
    *passed* (``[[position or keyword, state], ...]``) calls it: every guarded ``return`` of its loop is
    ruled out by those states; else None (also when *ref* is no project function)."""
    found = index.function(ref)
    if found is None:
        return None
    entry, name, facts = found
    guards = facts.get("forever")
    if guards is None:
        return None
    if guards:
        rebound = set(facts.get("rebound") or ())
        given = {k: v for k, v in flags.by_name(facts, {k: s for k, s in passed}).items() if k not in rebound}
        if not all(flags.ruled_out(when, given) for when in guards):
            return None
    return f"`{name.rsplit('.', 1)[-1]}()` ({index.where(entry, facts['line'])})"
