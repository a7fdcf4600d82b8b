"""What a function's own body shows of code that runs once, for the "runs once" judgement (``index.once``).

- ``once_spans(func)``: the line spans that run only on the first call, guarded by a once-flag:
  ``if self._started: return`` followed by ``self._started = True``, an ``if not self.prepared:``
  block that sets ``self.prepared = True`` (a module global works the same), or a stop that runs
  once per start (``if not self.started: raise`` followed by ``self.started = False``);
- ``memoized(func, bases)``: a plain function without parameters behind ``@cache`` /
  ``@lru_cache``: its body runs once per process, however often it is called;
- ``closure_calls(func, read)``: the calls made by the nested functions *func* itself runs (calls by
  name, or hands over as a start-up or lifespan hook), attributed to *func*: a nested
  ``async def _migrate()`` started from a lifespan runs when the lifespan runs.

Pure ``ast`` (the index reads modules without LibCST).
"""
from __future__ import annotations

import ast
from typing import Callable, Iterator

from boundlint.index.body import _FIELDS, child_fields
from boundlint.index.shapes import dotted

_MEMO_DECORATORS = frozenset({"cache", "lru_cache"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = frozenset({*_FUNCS, ast.ClassDef, ast.Lambda})


def _own_nodes(stmts: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node under *stmts* that may hold a name, a call or a statement (``body.child_fields``: no
    contexts, operators or import aliases), not entering nested functions, classes or lambdas below
    *stmts* (a ``def`` among *stmts* itself is entered).  Children are visited last first, as they
    were when this walked ``ast.iter_child_nodes``."""
    stack: list[ast.AST] = list(reversed(stmts))
    fields, scopes, AST = _FIELDS, _SCOPES, ast.AST
    while stack:
        node = stack.pop()
        yield node
        kind = type(node)
        found = fields.get(kind)
        for field in found if found is not None else child_fields(kind):
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend([child for child in value if isinstance(child, AST) and type(child) not in scopes])
            elif isinstance(value, AST) and type(value) not in scopes:
                stack.append(value)


def _own_statements(stmts: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement under *stmts* (and the handlers and match cases that hold them), not entering
    nested functions or classes: what ``_own_nodes`` yields that a statement search can match, without
    walking expressions (the index reads every function, so this is on the cold path)."""
    stack: list[ast.AST] = list(reversed(stmts))
    blocks = _BLOCKS
    while stack:
        node = stack.pop()
        yield node
        kind = type(node)
        found = blocks.get(kind)
        if found is None:
            found = blocks[kind] = _block_fields(kind)
        for field in found:
            stack.extend(reversed(getattr(node, field)))


_BLOCKS: dict[type, tuple[str, ...]] = {}


def own_statements(stmts: list[ast.stmt], memo: dict | None = None) -> list[ast.AST]:
    """``_own_statements(stmts)`` as a list, remembered in *memo* by the block's identity when given (one
    module's readers ask for the same methods' statements: the block lives as long as its tree)."""
    if memo is None:
        return list(_own_statements(stmts))
    found = memo.get(id(stmts))
    if found is None:
        found = memo[id(stmts)] = list(_own_statements(stmts))
    return found


def _block_fields(kind: type) -> tuple[str, ...]:
    """The fields of the node type *kind* that hold statements (or handlers, match cases), in the order
    ``_own_statements`` stacks them; none for a function or class (not entered) and for expressions."""
    if issubclass(kind, (*_FUNCS, ast.ClassDef)) or not issubclass(kind, (ast.stmt, ast.excepthandler, ast.match_case)):
        return ()
    return tuple(f for f in ("cases", "handlers", "finalbody", "orelse", "body") if f in kind._fields)


def _sets(stmts: list[ast.stmt], flag: str, truth: bool) -> bool:
    """True when *stmts* assign a constant of that *truth* to the name or attribute *flag*."""
    for node in _own_statements(stmts):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and bool(node.value.value) is truth:
            if any(dotted(t) == flag for t in node.targets):
                return True
    return False


def _sets_true(stmts: list[ast.stmt], flag: str) -> bool:
    return _sets(stmts, flag, True)


def _ends(stmts: list[ast.stmt]) -> bool:
    return len(stmts) == 1 and isinstance(stmts[0], ast.Return) and stmts[0].value is None


def _stops(node: ast.If) -> bool:
    """``if not FLAG: return`` or ``if not FLAG: raise ...``: the rest runs only while FLAG is set."""
    test, body = node.test, node.body
    return (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and len(body) == 1
            and (isinstance(body[0], ast.Raise) or _ends(body)))


def once_spans(func: ast.FunctionDef | ast.AsyncFunctionDef, statements: list | None = None) -> list[list]:
    """``[[first line, last line, flag], ...]``: the statements of *func* that run only on its first call.

    Three shapes, the flag a name or attribute (``self._started``, a module global):
    ``if FLAG: return`` among the body's statements with ``FLAG = True`` after it (the statements after
    the guard), ``if not FLAG:`` whose body sets ``FLAG = True`` (that body), and the stop of a start,
    ``if not FLAG: raise`` (or ``return``) with ``FLAG = False`` after it (the statements after the
    guard: once per time something sets the flag; marked ``"stop"`` as a 4th element, and not when the
    function sets the flag true too).  A flag the function
    also sets false is a reentrancy guard, not a once-flag; one reset elsewhere lets the code run again,
    but once per reset, not per item.  *statements*: ``_own_statements`` of its body, when the caller has them.
    """
    spans = []
    body = func.body
    resets = lambda flag: _sets(body, flag, False)  # noqa: E731  # `busy = False` again: a reentrancy guard
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.If) and not stmt.orelse and _ends(stmt.body) and i + 1 < len(body):
            flag = dotted(stmt.test)
            if flag and _sets_true(body[i + 1:], flag) and not resets(flag):
                spans.append([body[i + 1].lineno, body[-1].end_lineno, flag])
        if isinstance(stmt, ast.If) and not stmt.orelse and _stops(stmt) and i + 1 < len(body):
            flag = dotted(stmt.test.operand)  # `if not self.started: raise` then `self.started = False`
            if flag and _sets(body[i + 1:], flag, False) and not _sets_true(body, flag):
                spans.append([body[i + 1].lineno, body[-1].end_lineno, flag, "stop"])
    for node in _own_statements(body) if statements is None else statements:
        if isinstance(node, ast.If) and isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):
            flag = dotted(node.test.operand)
            if flag and _sets_true(node.body, flag) and not resets(flag):
                spans.append([node.body[0].lineno, node.body[-1].end_lineno, flag])
    return sorted(spans)


def memoized(func: ast.FunctionDef | ast.AsyncFunctionDef, bases: list[str] | None) -> bool:
    """True for a plain function (not a method) without parameters decorated with ``@cache`` or
    ``@lru_cache(...)``: its one cached result is computed once per process."""
    args = func.args
    if bases is not None or args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg:
        return False
    names = {(dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] for d in func.decorator_list}
    return bool(names & _MEMO_DECORATORS)


def _nested(stmts: list[ast.stmt]) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions defined among *stmts* (also inside ``if`` / ``try`` / ``with`` blocks), by name."""
    out = {}
    stack = list(stmts)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, _FUNCS):
            out[stmt.name] = stmt
            continue
        if isinstance(stmt, ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(stmt, field, None) or ())
    return out


def _run_names(stmts: list[ast.stmt], hook_names: frozenset[str]) -> set[str]:
    """Names *stmts* call (``f()``, also ``start(f())``) or register as a hook (``FastAPI(lifespan=f)``);
    not names handed over otherwise (a scheduler would run those as often as it likes), nor names
    also called on the passes of a ``while`` loop."""
    out: set[str] = set()
    repeated: set[str] = set()
    for node in _own_nodes(stmts):
        if isinstance(node, ast.While):
            repeated |= {n.func.id for n in _own_nodes(node.body) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name):
            out.add(node.func.id)
        for kw in node.keywords:
            if kw.arg in hook_names and isinstance(kw.value, ast.Name):
                out.add(kw.value.id)
    return out - repeated


def closure_calls(func: ast.FunctionDef | ast.AsyncFunctionDef, read: Callable[[ast.AST], list[dict]],
                  role: Callable[[ast.AST], str | None], hook_names: frozenset[str]) -> list[dict]:
    """The call records (*read* of a nested ``def``) of every nested function *func* runs itself, directly
    or through other such nested functions, each with ``via`` (the nested function's name) and without
    argument provenance (its parameters are not *func*'s).  A nested function with a role of its own
    (*role*: a route, a task) runs on its own schedule and is left out."""
    nested = {name: f for name, f in _nested(func.body).items() if role(f) in (None, "once")}
    if not nested:
        return []
    todo = list(_run_names(func.body, hook_names) & nested.keys())
    run: list[str] = []
    while todo:
        name = todo.pop()
        if name in run:
            continue
        run.append(name)
        inner = nested[name]
        todo.extend(_run_names(inner.body, hook_names) & nested.keys())
    out = []
    for name in sorted(run):
        for call in read(nested[name]):
            out.append({**call, "args": [None] * len(call["args"]), "kwargs": {k: None for k in call["kwargs"]},
                        "via": name})
    return out
