"""What a function does with a failure, its parameters and its result: facts of the project index.

Read from the ``body.Body`` the reader's one walk already made (its ``tries``, ``loops`` and
``returns``), so no fact here walks the whole body again; only handler and loop bodies are read.

- ``fails_fast(body, sleeps, ref)``: the line of the first ``except`` handler (of the function's own
  ``try``, around a method call) that catches only errors of a dependency (the ``dependency-errors``
  table, or a ``dependency-modules`` package's; not a timeout, which waited) and returns with no
  pause and no raise (``except ResponseError: log...; return []``), else None.  A caller's ``while`` loop that calls
  such a function and does not pause goes straight back to the failing dependency on every pass
  (``queries.limits.fails_fast``);
- ``raising_handlers(body)``: ``[[first, last], ...]`` line spans of the handlers whose last statement
  is a ``raise``: a pause among their calls (``await self._pacer.pause()``) runs before the failure
  reaches the caller, so the caller's retry loop is paced (``queries.limits.paces_failure``);
- ``iterated(func, body)``: ``[[path, line], ...]`` for each ``for`` loop or comprehension over a
  parameter or a field of one (``uris``, ``req.uris``; through ``list()``, ``sorted()``, ``set()``,
  ``enumerate()``, ``.items()`` / ``.values()``) whose body calls something: work per item
  (``queries.callers.iterates``: the hop a gRPC servicer's ``request.ids`` takes to a helper);
- ``given_class(func, body, ref)``: the class the function gives back, by its return annotation
  (``-> Mailer``) or the one class every ``return`` constructs, for ``x = make_mailer(); x.send()``.

Pure ``ast`` (the index reads modules without LibCST).
"""
from __future__ import annotations

import ast

from boundlint import tables
from boundlint.index.body import Body
from boundlint.index.elements import direct
from boundlint.index.shapes import dotted

# A timeout has already waited, and these are as often local file I/O: no fast failure of a dependency.
_NOT_FAST = frozenset({"TimeoutError", "asyncio.TimeoutError", "socket.timeout", "OSError", "IOError",
                       "EnvironmentError"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COPIES = frozenset({"list", "tuple", "set", "sorted", "enumerate", "reversed", "frozenset"})
_VIEWS = frozenset({"items", "values", "keys"})


def _own(nodes: list[ast.AST]):
    """Every node under *nodes*, not entering nested functions, lambdas or classes."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES))


def _pauses(nodes: list[ast.AST], sleeps: frozenset[str]) -> bool:
    for node in nodes:
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if name in sleeps or name.rsplit(".", 1)[-1] in ("sleep", "backoff", "wait"):
                return True
    return False


def _dependency_error(expr: ast.AST, ref) -> bool:
    """True when the caught class *expr* only a failing dependency raises: the ``dependency-errors`` table,
    or an exception of a ``dependency-modules`` package (``redis.exceptions.ResponseError``)."""
    text = dotted(expr) or ""
    qual = (ref(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None) or text
    if qual in _NOT_FAST or text in _NOT_FAST:
        return False
    errors = tables.table("dependency-errors")
    return qual in errors or text in errors or ("." in qual and qual.split(".", 1)[0] in tables.table("dependency-modules"))


def fails_fast(body: Body, sleeps: frozenset[str], ref) -> int | None:
    """The line of the first handler that returns at once on a failed call (see the module doc); *ref*
    resolves a dotted name (the summary's)."""
    for node in body.tries:
        if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) for n in _own(node.body)):
            continue
        for handler in node.handlers:
            types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type] if handler.type else []
            if not types or not all(_dependency_error(t, ref) for t in types):
                continue  # `except Exception`, or the function's own parsing: not (only) a dependency's failure
            own = list(_own(handler.body))
            if any(isinstance(n, ast.Return) for n in own) and not any(isinstance(n, ast.Raise) for n in own) \
                    and not _pauses(own, sleeps):
                return handler.lineno
    return None


def raising_handlers(body: Body) -> list[list[int]]:
    """``[[first line, last line], ...]`` of the handlers whose last statement is a ``raise``."""
    return sorted([h.lineno, h.end_lineno or h.lineno] for node in body.tries for h in node.handlers
                  if h.body and isinstance(h.body[-1], ast.Raise))


def _path(expr: ast.AST) -> str | None:
    for _ in range(3):
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in _COPIES and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _VIEWS \
                and not expr.args:
            expr = expr.func.value
        else:
            break
    return dotted(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None


def iterated(func: ast.FunctionDef | ast.AsyncFunctionDef, body: Body) -> list[list]:
    """``[[path, line], ...]`` of the loops over the parameters with a call per item (module doc)."""
    if not body.loops:
        return []
    args = func.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - {"self", "cls"}
    out: list[list] = []
    for node in body.loops:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            found, work = _path(node.iter), node.body
        else:
            found = _path(node.generators[0].iter)
            work = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        if found is not None and found.split(".", 1)[0] in params \
                and any(isinstance(n, ast.Call) for n in _own(work)):
            out.append([found, node.lineno])
    return sorted(out, key=lambda item: item[1])


def given_class(func: ast.FunctionDef | ast.AsyncFunctionDef, body: Body, ref) -> str | None:
    """The ref of the class *func* gives back (module doc); *ref* resolves a dotted name (the summary's)."""
    note = direct(func.returns) if func.returns is not None else None
    if note is not None:
        made = ref(note)
        return made if made and made.rsplit(".", 1)[-1][:1].isupper() else None
    found = set()
    for node in body.returns:
        value = node.value
        made = ref(value.func) if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) \
            else None
        if made is None or not made.rsplit(".", 1)[-1][:1].isupper():
            return None
        found.add(made)
    return found.pop() if len(found) == 1 else None


def record(facts: dict, func: ast.FunctionDef | ast.AsyncFunctionDef, body: Body, ref, sleeps: frozenset[str]) -> None:
    """Add ``fails_fast``, ``raising``, ``iterated`` and ``gives`` to a function's *facts*."""
    facts["fails_fast"] = fails_fast(body, sleeps, ref) if body.tries else None
    facts["raising"] = raising_handlers(body) if body.tries else []
    facts["iterated"] = iterated(func, body)
    facts["gives"] = given_class(func, body, ref)
