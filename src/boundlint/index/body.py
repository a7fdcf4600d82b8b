"""One walk of a function's body that feeds every question the project index asks of it but its
stateful reading (``reader.FunctionReader``): the index reads every function of a project on a
cold run, so each node is visited here once rather than once per question.

``walk(func, params)`` returns a ``Body`` (its fields are the answers the readers take):

- ``names``: every ``Name`` under the body with its parent node, in the order ``ast.walk`` yields
  them statement by statement (``checks.param_reads`` records hand-overs in that order);
- ``up``: the parent of each ``Attribute`` and ``keyword`` that holds a name of *params* directly;
- ``calls``: every call under the body (nested functions and classes too);
- ``hook_calls`` / ``classes``: the calls with arguments outside classes defined in the body and
  outside the parameters of nested functions, and those classes (outermost only), for ``hooks.links``;
- of the function's own code (nested functions, classes and lambdas left out): ``returns``,
  ``yields`` and ``bound`` (names it stores; ``returns``), ``absorbed`` (ids of the calls a
  catch-all ``try`` stops, see ``shapes.absorbs``) and ``awaits_other`` (``async with`` / ``async for``
  / an ``await`` of no call / an async comprehension; ``shapes.pool_facts``), ``whiles`` (a ``while``
  loop; ``service``), ``tries`` and ``loops`` (``for`` loops and comprehensions; ``effects``);
- ``defines``: a ``def`` anywhere under the body (``closures.closure_calls`` has nothing to read without).

``closures`` still walks the bodies of functions that define functions: it enters a ``def`` among
the statements it starts from, which this walk does not.

Pure ``ast``; never raises for a tree ``ast.parse`` made.
"""
from __future__ import annotations

import ast

from boundlint.index.shapes import absorbs

_NESTED, _ABSORBED, _IN_CLASS, _IN_ARG = 1, 2, 4, 8
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# fields that hold no ``Name`` nor call: contexts, operators, strings, import aliases (``name`` stays
# in: a string nearly everywhere, but the Name that a ``type X = ...`` statement binds on 3.12)
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "names", "id", "attr", "arg", "asname", "module", "level",
                           "kind", "type_comment", "is_async", "conversion", "lineno", "col_offset"})
_FIELDS: dict[type, tuple[str, ...]] = {}
# the node types ``walk`` notes something of, besides calls, attributes and keywords
_LOOPS = (ast.For, ast.AsyncFor, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SPECIAL = frozenset({ast.arg, *_SCOPES, *_LOOPS, ast.Return, ast.Yield, ast.YieldFrom, ast.Try, ast.AsyncWith,
                      ast.Await, ast.comprehension, ast.While})


def child_fields(kind: type) -> tuple[str, ...]:
    """The fields of the node type *kind* that may hold nodes with names or calls, in ``_fields`` order."""
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = tuple(f for f in kind._fields if f not in _NOT_CHILDREN)
    return found


class Body:
    """What ``walk`` found under one function's body (see the module doc)."""

    __slots__ = ("names", "up", "calls", "hook_calls", "classes", "returns", "yields", "bound", "absorbed",
                 "awaits_other", "defines", "whiles", "tries", "loops")

    def __init__(self) -> None:
        self.names: list[tuple[ast.Name, ast.AST | None]] = []
        self.up: dict[int, ast.AST | None] = {}
        self.calls: list[ast.Call] = []
        self.hook_calls: list[ast.Call] = []
        self.classes: list[ast.ClassDef] = []
        self.returns: list[ast.Return] = []
        self.yields = False
        self.bound: set[str] = set()
        self.absorbed: set[int] = set()
        self.awaits_other = False
        self.defines = False
        self.whiles = False
        self.tries: list[ast.Try] = []
        self.loops: list[ast.AST] = []


def walk(func: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str]) -> Body:
    """The ``Body`` of *func*, whose parameter names are *params*, from one breadth-first walk of
    each statement of its body (the order ``ast.walk`` visits, which ``names`` keeps)."""
    out = Body()
    names, up, calls, hook_calls = out.names, out.up, out.calls, out.hook_calls
    wanted = set(params)
    Name, Call, Attribute, keyword, AST = ast.Name, ast.Call, ast.Attribute, ast.keyword, ast.AST
    Constant, Store, bound = ast.Constant, ast.Store, out.bound
    queue: list[tuple[ast.AST, ast.AST | None, int]] = []
    i = 0
    for stmt in func.body:
        queue.append((stmt, None, 0))
        while i < len(queue):
            node, parent, state = queue[i]
            i += 1
            kind = type(node)
            special, special_state = None, state
            if kind is Call:
                calls.append(node)
                if not state & (_IN_CLASS | _IN_ARG) and (node.args or node.keywords):
                    hook_calls.append(node)
                if state & _ABSORBED and not state & _NESTED:
                    out.absorbed.add(id(node))
            elif kind is Attribute or kind is keyword:
                value = node.value
                if type(value) is Name and value.id in wanted:
                    up[id(node)] = parent
            elif kind not in _SPECIAL:  # most nodes: nothing to note but their children
                pass
            elif kind is ast.arg:
                state |= _IN_ARG  # hooks.links reads no parameter's annotation
            elif kind in _SCOPES:
                if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                    out.defines = True
                if kind is ast.ClassDef and not state & _IN_CLASS:
                    out.classes.append(node)
                    state |= _IN_CLASS
                state |= _NESTED
                special_state = state
            elif not state & _NESTED:
                if kind is ast.Return:
                    out.returns.append(node)
                elif kind is ast.Yield or kind is ast.YieldFrom:
                    out.yields = True
                elif kind is ast.Try:
                    out.tries.append(node)
                    if not state & _ABSORBED and absorbs(node):
                        special, special_state = "body", state | _ABSORBED
                elif kind in _LOOPS:
                    out.loops.append(node)
                    if kind is ast.AsyncFor:
                        out.awaits_other = True
                elif kind is ast.AsyncWith:
                    out.awaits_other = True
                elif kind is ast.Await:
                    if type(node.value) is not Call:
                        out.awaits_other = True
                elif kind is ast.comprehension and node.is_async:
                    out.awaits_other = True
                elif kind is ast.While:
                    out.whiles = True
            # a name is recorded as it is queued (the queue is first in, first out: the same order as
            # when dequeued), so names and constants, leaves, never enter the queue
            for field in _FIELDS.get(kind) or child_fields(kind):
                value = getattr(node, field, None)
                if value is None:
                    continue
                at = state if special is None or field != special else special_state
                for child in (value if type(value) is list else (value,)):
                    ck = type(child)
                    if ck is Name:
                        names.append((child, node))
                        if not at & _NESTED and type(child.ctx) is Store:
                            bound.add(child.id)
                    elif ck is not Constant and isinstance(child, AST):
                        queue.append((child, node, at))
    return out
