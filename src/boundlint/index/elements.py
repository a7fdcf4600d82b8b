"""The class of a local receiver taken out of an annotated container, for the project index's reader.

The reader resolves a call by its dotted name (imports, module instances, ``self.m``); a call on a local
that holds one element of a container (``group = self._groups.get(key)`` then ``await group.stop()``) is
out of its sight, and an awaited call out of sight is taken for I/O.  When the container's annotation
names the element type (``self._groups: dict[str, Group]`` in the class, ``jobs: Sequence[Job]``), the
call is that class's method, which ``queries.dependency`` reads like any other.  Same kind as
``analysis.facts.receivers`` / ``analysis.facts.elements`` (the LibCST judgement), read with ``ast``.

- ``attr_annotations(cls)``: ``{attribute: annotation}`` of the class's annotated attributes;
- ``Elements(func, annotations, ref, module).method(call_func)``: ``"pkg.mod.Group.stop"`` for
  ``group.stop`` when every binding of ``group`` in *func* is an element of such a container and the
  element type is a class of this project (this module's package), else None.
"""
from __future__ import annotations

import ast
from typing import Callable

from boundlint.kinds.containers import KEY, MAPPINGS, SEQUENCES, UNWRAP as _UNWRAP, VALUE, WRAPPERS as _WRAPPERS
from boundlint.index.closures import _own_nodes, own_statements
from boundlint.index.shapes import dotted as _dotted

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def attr_annotations(cls: ast.ClassDef, memo: dict | None = None) -> dict[str, ast.AST]:
    """``{attribute: annotation}`` for ``self.attr: T`` in the methods of *cls* and ``attr: T`` in its
    body; for an attribute annotated nowhere, what every plain assignment stores shows its class
    (``self.s = stream`` of a parameter ``stream: Stream``, ``self.db = Database(...)``); an attribute
    annotated (or assigned) two ways is left out (*memo*: see ``closures.own_statements``)."""
    found: dict[str, dict[str, ast.AST]] = {}
    assigned: dict[str, dict[str, ast.AST]] = {}  # from plain assignments: only where nothing is annotated
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            found.setdefault(stmt.target.id, {})[ast.dump(stmt.annotation)] = stmt.annotation
        elif isinstance(stmt, _FUNCS):
            # statements only (an annotation is one), as `_own_nodes` reads them: a def among the
            # method's own statements is entered too
            starts = [stmt.body, *(d.body for d in stmt.body if isinstance(d, _FUNCS))]
            params = {a.arg: a.annotation for a in (*stmt.args.posonlyargs, *stmt.args.args, *stmt.args.kwonlyargs)}
            for node in (n for body in starts for n in own_statements(body, memo)):
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute) \
                        and _dotted(node.target) == f"self.{node.target.attr}":
                    found.setdefault(node.target.attr, {})[ast.dump(node.annotation)] = node.annotation
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                        and _dotted(node.targets[0]) == f"self.{node.targets[0].attr}":
                    # `self._stream = stream` (a parameter annotated with a class), `self._db = Database(...)`
                    value = node.value
                    if isinstance(value, ast.Constant) and value.value is None:
                        continue
                    note = _stored_class(value, params)  # None: this store shows no class, so none is known
                    assigned.setdefault(node.targets[0].attr, {})[ast.dump(note) if note is not None else "?"] = note
    for attr, notes in assigned.items():
        if "?" not in notes:
            found.setdefault(attr, notes)
    return {attr: next(iter(notes.values())) for attr, notes in found.items() if len(notes) == 1}


def _stored_class(value: ast.AST, params: dict) -> ast.AST | None:
    """The class expression an assigned *value* shows: a parameter's annotation (*params*), a
    constructor call's callee, or the one class both sides of ``pacer or RetryPacer()`` show."""
    if isinstance(value, ast.Name):
        return direct(params.get(value.id))
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
        return value.func
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        sides = [_stored_class(v, params) for v in value.values]
        if all(sides) and len({ast.dump(side) for side in sides}) == 1:
            return sides[0]
    return None


def element(annotation: ast.AST | None, part: str) -> ast.AST | None:
    """The element annotation of the container *annotation* names (``analysis.facts.elements.element``)."""
    expr = annotation
    for _ in range(4):
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            parts = [p for p in (expr.left, expr.right) if not (isinstance(p, ast.Constant) and p.value is None)]
            if len(parts) != 1:
                return None
            expr = parts[0]
        elif isinstance(expr, ast.Subscript) and (_dotted(expr.value) or "").rsplit(".", 1)[-1] in _UNWRAP:
            expr = expr.slice.elts[0] if isinstance(expr.slice, ast.Tuple) else expr.slice
        else:
            break
    if not isinstance(expr, ast.Subscript):
        return None
    name = (_dotted(expr.value) or "").rsplit(".", 1)[-1]
    params = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    if name in MAPPINGS and len(params) == 2:
        return params[1] if part == VALUE else params[0]
    if name in ("tuple", "Tuple"):
        return params[0] if len(params) == 2 and isinstance(params[1], ast.Constant) \
            and params[1].value is Ellipsis else None
    return params[0] if name in SEQUENCES and len(params) == 1 else None


def direct(annotation: ast.AST | None) -> ast.AST | None:
    """The one class *annotation* names itself: ``X``, ``X | None``, ``Optional[X]``, ``"pkg.X"``; else None."""
    expr = annotation
    for _ in range(3):
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            parts = expr.value.strip().split(".")
            if not all(p.isidentifier() for p in parts):
                return None
            expr = ast.Name(parts[0])
            for part in parts[1:]:
                expr = ast.Attribute(expr, part)
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            sides = [p for p in (expr.left, expr.right) if not (isinstance(p, ast.Constant) and p.value is None)]
            expr = sides[0] if len(sides) == 1 else None
        elif isinstance(expr, ast.Subscript) and (_dotted(expr.value) or "").rsplit(".", 1)[-1] == "Optional":
            expr = expr.slice
        else:
            break
    return expr if isinstance(expr, (ast.Name, ast.Attribute)) else None


def _taken(expr: ast.AST) -> tuple[ast.AST, str] | None:
    """``(container, VALUE)`` for ``c.get(k)``, ``c.pop(k)``, ``c.pop()`` (no default but ``None``), ``c[k]``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("get", "pop"):
        args = expr.args
        if expr.keywords or len(args) > 2 or any(isinstance(a, ast.Starred) for a in args) or (
                len(args) == 2 and not (isinstance(args[1], ast.Constant) and args[1].value is None)):
            return None
        if expr.func.attr == "get" and not args:
            return None
        return expr.func.value, VALUE
    if isinstance(expr, ast.Subscript) and not isinstance(expr.slice, (ast.Slice, ast.Tuple)):
        return expr.value, VALUE
    return None


def _iterated(expr: ast.AST) -> tuple[ast.AST, str] | None:
    """``(container, part)`` for what a loop over *expr* gives (``c.values()``, ``c.keys()``, ``c``)."""
    if isinstance(expr, ast.Call) and _dotted(expr.func) in _WRAPPERS and len(expr.args) == 1:
        expr = expr.args[0]
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args \
            and expr.func.attr in ("values", "keys"):
        return expr.func.value, VALUE if expr.func.attr == "values" else KEY
    return (expr, KEY) if isinstance(expr, (ast.Name, ast.Attribute)) else None


_TAKEN, _ITERATED, _OTHER = "taken", "iterated", "other"


def _binds_by_name(func) -> dict[str, list[tuple[str, ast.AST]]]:
    """``{name: [(kind, node), ...]}``: every binding of every local name in *func*'s own code, in one walk
    and in source order.  *kind* is ``_TAKEN`` (``x = c.get(k)``, ``x := c[k]``: judged by what is
    taken), ``_ITERATED`` (``for x in c.values()``, not ``async for``) or ``_OTHER`` (an annotated or
    augmented assignment, ``with ... as x``, or *x* unpacked among several targets: no one element)."""
    out: dict[str, list[tuple[str, ast.AST]]] = {}
    for node in _own_nodes(func.body):
        found: dict[str, str] = {}
        if isinstance(node, (ast.Assign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    found.setdefault(t.id, _TAKEN)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets = [node.target]
            if isinstance(node.target, ast.Name):
                found[node.target.id] = _ITERATED if not isinstance(node, ast.AsyncFor) else _OTHER
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = []
            if isinstance(node.target, ast.Name):
                found[node.target.id] = _OTHER
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = []
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name):
                    found.setdefault(item.optional_vars.id, _OTHER)
        else:
            targets = []
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension, ast.Assign)):
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        found.setdefault(n.id, _OTHER)  # unpacked (`a, b = ...`): not one element
        for name, kind in found.items():
            out.setdefault(name, []).append((kind, node))
    return out


class _Reader:
    def __init__(self, func, annotations: dict[str, ast.AST]) -> None:
        self.func = func
        self.annotations = annotations
        args = func.args
        self.params = {a.arg: a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        self._binds: dict[str, list[tuple[str, ast.AST]]] | None = None

    def bindings(self, name: str) -> list[ast.AST | None]:
        """The element annotation each binding of *name* shows (None for one that shows nothing)."""
        if name in self.params:
            return [None]
        if self._binds is None:
            self._binds = _binds_by_name(self.func)
        return [self.of(_taken(node.value), 0) if kind == _TAKEN else
                self.of(_iterated(node.iter), 0) if kind == _ITERATED else None
                for kind, node in self._binds.get(name, ())]

    def of(self, found: tuple[ast.AST, str] | None, depth: int) -> ast.AST | None:
        """The element annotation of ``found = (container, part)``: the container is ``self.attr``
        annotated in the class, a parameter annotated with a container, or a local holding a copy
        of one (``groups = list(self._groups.values())``)."""
        if found is None or depth > 3:
            return None
        container, part = found
        text = _dotted(container) or ""
        head, _, attr = text.partition(".")
        if head == "self" and attr and "." not in attr:
            return element(self.annotations.get(attr), part)
        if text in self.params:
            return element(self.params[text].annotation, part)
        if text and not attr:
            values = [n.value for n in _own_nodes(self.func.body) if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == text for t in n.targets)]
            stores = sum(1 for n in _own_nodes(self.func.body) if isinstance(n, ast.Name) and n.id == text
                         and isinstance(n.ctx, ast.Store))
            if len(values) == 1 and stores == 1:
                return self.of(_iterated(values[0]), depth + 1) if part == KEY else None
        return None


class Elements:
    """The element classes of one function's local receivers, each name read once.

    *func* is the ``def`` read; *annotations* the enclosing class's (``attr_annotations``, empty
    outside a class); *ref* resolves a dotted name to a ref; *module* is the module's dotted name;
    *bound*, when known, the names *func*'s own code stores (``body.Body.bound``)."""

    def __init__(self, func, annotations: dict[str, ast.AST], ref: Callable[[ast.AST], str | None],
                 module: str, bound: set[str] | None = None) -> None:
        self.func, self.annotations, self.ref, self.module = func, annotations, ref, module
        self._bound = bound
        self._classes: dict[str, str | None] = {}
        self._local_binds: dict[str, list[tuple[str, ast.AST]]] | None = None
        self._reader: _Reader | None = None
        self._reach: bool | None = None

    def method(self, call_func: ast.AST) -> str | None:
        """``"pkg.mod.Group.stop"`` when *call_func* is ``name.stop`` and every binding of the local
        ``name`` is an element of an annotated container whose element type is a class of this
        project (a module of the same top-level package as this one); None otherwise."""
        if not isinstance(call_func, ast.Attribute):
            return None
        receiver = call_func.value
        if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
            made = self._project_class(direct(self.annotations.get(receiver.attr)))
            return f"{made}.{call_func.attr}" if made is not None else None
        if not isinstance(receiver, ast.Name):
            return None
        name = receiver.id
        typed = self._typed_param(name)
        if typed is not None:
            return f"{typed}.{call_func.attr}"
        if name not in self._classes:
            self._classes[name] = self._class(name) or self._local_class(name)
        made = self._classes[name]
        return f"{made}.{call_func.attr}" if made is not None else None

    def _local_class(self, name: str) -> str | None:
        """The project class every binding of the local *name* shows: ``x = Mailer(...)``,
        ``x: Mailer = ...``, ``with Mailer() as x``; or ``"pkg.mod.make_mailer()"`` for ``x =
        make_mailer()`` of a project function, which the index resolves through what that function
        gives back (``ProjectIndex.resolve``).  None when a binding shows something else."""
        if self._local_binds is None:
            self._local_binds = _binds_by_name(self.func)
        found: set[str] = set()
        for kind, node in self._local_binds.get(name, ()):
            made = None
            if isinstance(node, (ast.Assign, ast.NamedExpr)):
                value = node.value.value if isinstance(node.value, ast.Await) else node.value
                if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
                    made = self._project_class(value.func) or self._project_function(value.func)
            elif isinstance(node, ast.AnnAssign):
                made = self._project_class(direct(node.annotation))
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == name \
                            and isinstance(item.context_expr, ast.Call):
                        made = self._project_class(item.context_expr.func)
            if made is None:
                return None
            found.add(made)
        return found.pop() if len(found) == 1 else None

    def _project_function(self, func: ast.AST) -> str | None:
        """``"pkg.mod.f()"`` for a call of a lower-case name of this project (what it gives back)."""
        made = self.ref(func)
        if made is None or made.split(".", 1)[0] != self.module.split(".", 1)[0] \
                or made.rsplit(".", 1)[-1][:1].isupper():
            return None
        return f"{made}()"

    def _typed_param(self, name: str) -> str | None:
        """The project class a parameter *name* is annotated with (``client: AsyncHTTPClient``, also
        ``X | None``, ``Optional[X]`` and ``"X"``) when *func*'s own code never rebinds it, else None."""
        if self._bound is not None and name in self._bound:
            return None
        args = self.func.args
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if a.arg == name:
                return self._project_class(direct(a.annotation)) if a.annotation is not None else None
        return None

    def _containers(self) -> bool:
        """Whether an annotation in reach (the class's attributes, the parameters) names as a container's
        element a class of this project: every element a binding shows is one of those; True when one
        cannot be read (the full reading then decides)."""
        if self._reach is None:
            args = self.func.args
            notes = [*self.annotations.values(),
                     *(a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation is not None)]
            try:
                self._reach = any(self._project_class(element(n, part)) is not None for n in notes for part in (VALUE, KEY))
            except Exception:  # an odd annotation (`Optional[()]`): leave it to the full reading
                self._reach = True
        return self._reach

    def _project_class(self, found: ast.AST | None) -> str | None:
        """The ref of the element annotation *found* when it names a class of this project, else None."""
        made = self.ref(found) if isinstance(found, (ast.Name, ast.Attribute)) else None
        last = (made or "").rsplit(".", 1)[-1]
        if made is None or made.split(".", 1)[0] != self.module.split(".", 1)[0] or not last.lstrip("_")[:1].isupper():
            return None
        return made

    def _class(self, name: str) -> str | None:
        args = self.func.args
        if not self.annotations and not any(a.annotation is not None for a in (*args.posonlyargs, *args.args,
                                                                                 *args.kwonlyargs)):
            return None  # no annotated container in reach: no binding can show an element class
        if self._bound is not None and name not in self._bound and not any(
                isinstance(s, (*_FUNCS, ast.ClassDef)) for s in self.func.body):
            # no binding of its own (`_binds_by_name` reads the own code, and the bodies of defs among the
            # body's statements, which *bound* leaves out): taken from elsewhere
            return None
        if not self._containers():
            return None  # every binding's element comes from such an annotation: none names a project class
        if self._reader is None:
            self._reader = _Reader(self.func, self.annotations)
        found = self._reader.bindings(name)
        if not found or any(f is None for f in found) or len({ast.dump(f) for f in found}) != 1:
            return None
        return self._project_class(found[0])

