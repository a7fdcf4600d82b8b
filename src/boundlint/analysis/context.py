"""The state of the one traversal: scopes, loops, ``with`` blocks, ``except`` handlers.

The walker (``boundlint.analysis.walk``) keeps a ``Context`` up to date while
it visits each node once in source order; rules read it in their hooks.  A
``Scope`` is a module, class, function or lambda; loops, ``with`` items and
``except`` handlers are tracked per function so a nested function starts
afresh (a loop in the caller does not make the callee's body a loop).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

import libcst as cst

from boundlint.analysis.names import ImportTable, dotted, partial_target
from boundlint.analysis.facts.walk import leaf_types

if TYPE_CHECKING:
    from boundlint.config import Settings

FunctionNode = Union[cst.FunctionDef, cst.Lambda]


@dataclass(eq=False)
class Loop:
    """A ``for`` / ``async for`` / ``while`` statement or one ``for`` clause of a comprehension.

    ``iter`` is the iterated expression (None for ``while``), ``test`` the
    ``while`` condition, ``node`` the statement or ``CompFor``; ``owner`` is the
    comprehension node for a comprehension clause.
    """

    kind: str  # "for" | "while" | "comp"
    node: cst.CSTNode
    iter: cst.BaseExpression | None = None
    target: cst.BaseExpression | None = None
    test: cst.BaseExpression | None = None
    owner: cst.CSTNode | None = None


@dataclass(eq=False)
class Guard:
    """A length check that rejects oversized input: ``if len(key) > limit: raise``."""

    key: str
    limit: cst.BaseExpression
    node: cst.CSTNode


@dataclass(eq=False)
class Fill:
    """Items added to a collection: ``value`` (the item, or for ``extend`` the iterable of items),
    ``how`` (``append`` one item, ``extend`` many, ``item`` one ``d[k] = v``) and the loops active then."""

    value: cst.BaseExpression
    how: str
    loops: tuple[Loop, ...]


_LITERALS = leaf_types(cst.List, cst.Set, cst.Dict)
_BLOCKS = leaf_types(cst.If, cst.Try, cst.With, cst.For, cst.While)  # compound statements looked through
_SEQUENCES = leaf_types(cst.Tuple, cst.List)
_CALLABLE_VALUES = leaf_types(cst.Lambda, cst.Call)
_EMPTY_FACTORIES = frozenset({"list", "set", "dict", "deque", "OrderedDict", "collections.deque", "collections.OrderedDict"})


def empty_collection(value: cst.BaseExpression | None) -> bool:
    """True for a collection built empty: ``[]``, ``set()``, ``{}``, ``dict()``, ``deque()``, ``defaultdict(list)``."""
    if type(value) in _LITERALS:
        return not value.elements
    if type(value) is cst.Call:
        name = dotted(value.func) or ""
        if name in _EMPTY_FACTORIES:
            return not value.args
        if name.rsplit(".", 1)[-1] == "defaultdict":
            return len(value.args) <= 1 and all(a.keyword is None for a in value.args)
    return False


def fills_since_empty(scope: Scope, name: str) -> list[tuple[Fill, tuple[Loop, ...]]] | None:
    """The fills of *name* since it was last bound empty in *scope*, each with the loops it adds
    (those around the fill but not around the empty binding); None when it was never bound empty."""
    emptied = scope.emptied.get(name)
    if emptied is None:
        return None
    outer, start = emptied
    out = []
    for fill in scope.fills.get(name, [])[start:]:
        loops = fill.loops
        if loops[:len(outer)] == outer:
            loops = loops[len(outer):]
        out.append((fill, loops))
    return out


@dataclass(eq=False)
class Scope:
    """A module, class, function or lambda body, with what it binds so far.

    ``bindings`` maps a name to the values assigned to it in order;
    ``appends`` maps a name to the values passed to ``name.append/add/extend``
    with the innermost loop active at the time; ``loop_targets`` maps a
    name to the loop that binds it; ``with_targets`` maps ``as`` names to
    the context expression.  ``fills`` maps a name to each ``Fill`` that
    adds items to it (``append`` / ``add`` / ``extend`` / ``update``, ``d[k] =
    v``, ``+=``) and ``emptied`` to the loops active where it was last bound
    to an empty collection, with the number of fills before that.
    ``globals`` / ``nonlocals`` hold the names a ``global`` / ``nonlocal``
    statement hands to the module or an enclosing function.
    """

    kind: str  # "module" | "class" | "function" | "lambda"
    node: cst.CSTNode
    parent: Scope | None
    bindings: dict[str, list[cst.BaseExpression | None]] = field(default_factory=dict)
    appends: dict[str, list[tuple[cst.BaseExpression, Loop | None]]] = field(default_factory=dict)
    loop_targets: dict[str, Loop] = field(default_factory=dict)
    with_targets: dict[str, cst.BaseExpression] = field(default_factory=dict)
    params: dict[str, cst.Param] = field(default_factory=dict)
    defs: dict[str, cst.CSTNode] = field(default_factory=dict)
    guards: list[Guard] = field(default_factory=list)
    fills: dict[str, list[Fill]] = field(default_factory=dict)
    emptied: dict[str, tuple[tuple[Loop, ...], int]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        node = self.node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return node.name.value
        return "<lambda>" if type(node) is cst.Lambda else "<module>"

    def function(self) -> Scope | None:
        """Innermost enclosing function or lambda scope (self included)."""
        scope: Scope | None = self
        while scope is not None and scope.kind not in ("function", "lambda"):
            scope = scope.parent
        return scope

    def enclosing_class(self) -> Scope | None:
        """The class scope a method's body belongs to (skips nested functions' own scope only once)."""
        scope = self.parent
        while scope is not None and scope.kind in ("function", "lambda"):
            scope = scope.parent
        return scope if scope is not None and scope.kind == "class" else None


@dataclass(eq=False)
class FunctionFrame:
    """Per-function traversal state; a fresh frame starts at each def or lambda."""

    scope: Scope
    loops: list[Loop] = field(default_factory=list)
    withs: list[cst.WithItem] = field(default_factory=list)
    handlers: list[cst.ExceptHandler] = field(default_factory=list)


class ModuleIndex:
    """What a module defines, found before the traversal so later definitions resolve.

    ``functions``: module-level function name -> FunctionDef.
    ``classes``: class name -> ClassDef (top-level and nested in classes).
    ``methods``: class name -> {method name -> FunctionDef}.
    ``class_attrs``: class name -> {attribute -> values of ``self.attr = value``}.
    ``constants``: module-level name -> assigned values.
    """

    def __init__(self, module: cst.Module) -> None:
        self.functions: dict[str, cst.FunctionDef] = {}
        self.classes: dict[str, cst.ClassDef] = {}
        self.methods: dict[str, dict[str, cst.FunctionDef]] = {}
        self.class_attrs: dict[str, dict[str, list[cst.BaseExpression]]] = {}
        self.constants: dict[str, list[cst.BaseExpression | None]] = {}
        for stmt in _flat_statements(module.body):
            if type(stmt) is cst.FunctionDef:
                self.functions[stmt.name.value] = stmt
                self._add_globals(stmt)
            elif type(stmt) is cst.ClassDef:
                self._add_class(stmt)
            else:
                for name, value in assigned_names(stmt):
                    self.constants.setdefault(name, []).append(value)

    def _add_class(self, node: cst.ClassDef) -> None:
        name = node.name.value
        self.classes[name] = node
        methods = self.methods.setdefault(name, {})
        attrs = self.class_attrs.setdefault(name, {})
        for stmt in _flat_statements(node.body.body):
            if type(stmt) is cst.FunctionDef:
                methods[stmt.name.value] = stmt
                self._add_globals(stmt)
                for inner in _flat_statements(stmt.body.body if type(stmt.body) is cst.IndentedBlock else ()):
                    for target, value in _self_assignments(inner):
                        attrs.setdefault(target, []).append(value)
            elif type(stmt) is cst.ClassDef:
                self._add_class(stmt)
            else:
                for attr, value in assigned_names(stmt):
                    if value is not None:
                        attrs.setdefault(attr, []).append(value)


    def _add_globals(self, func: cst.FunctionDef) -> None:
        """``global x`` then ``x = value`` in *func* binds the module's ``x``: record the value."""
        if type(func.body) is not cst.IndentedBlock:
            return
        stmts = _flat_statements(func.body.body)
        names = {n.name.value for s in stmts if type(s) is cst.Global for n in s.names}
        if not names:
            return
        for stmt in stmts:
            for name, value in assigned_names(stmt):
                if name in names:
                    self.constants.setdefault(name, []).append(value)


def _flat_statements(body) -> list[cst.CSTNode]:
    """Statements of a block, looking through if/try/with blocks (not into functions)."""
    out: list[cst.CSTNode] = []
    stack = list(reversed(list(body)))
    while stack:
        stmt = stack.pop()
        if type(stmt) is cst.SimpleStatementLine:
            out.extend(stmt.body)
        elif type(stmt) in _BLOCKS or type(stmt).__name__ == "TryStar":
            out.append(stmt)
            blocks = [stmt.body]
            orelse = getattr(stmt, "orelse", None)
            while orelse is not None:
                blocks.append(orelse.body)
                orelse = getattr(orelse, "orelse", None) if type(orelse) is cst.If else None
            for handler in getattr(stmt, "handlers", ()):
                blocks.append(handler.body)
            final = getattr(stmt, "finalbody", None)
            if final is not None:
                blocks.append(final.body)
            for block in reversed(blocks):
                if type(block) is cst.IndentedBlock:
                    stack.extend(reversed(block.body))
                elif type(block) is cst.SimpleStatementSuite:
                    stack.extend(reversed(block.body))
        else:
            out.append(stmt)
    return out


def assigned_names(stmt: cst.CSTNode) -> list[tuple[str, cst.BaseExpression | None]]:
    """``(name, value)`` for each plain name a small statement binds; value None when unpacked."""
    if type(stmt) is cst.Assign:
        out = []
        for target in stmt.targets:
            t = target.target
            if type(t) is cst.Name:
                out.append((t.value, stmt.value))
            elif type(t) in _SEQUENCES:
                out.extend((e.value.value, None) for e in t.elements if type(e.value) is cst.Name)
        return out
    if type(stmt) is cst.AnnAssign and type(stmt.target) is cst.Name:
        return [(stmt.target.value, stmt.value)]
    return []


def _self_assignments(stmt: cst.CSTNode) -> list[tuple[str, cst.BaseExpression]]:
    if type(stmt) is cst.Assign:
        targets = [t.target for t in stmt.targets]
        value = stmt.value
    elif type(stmt) is cst.AnnAssign and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return []
    out = []
    for t in targets:
        if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value in ("self", "cls"):
            out.append((t.attr.value, value))
    return out


class Context:
    """Everything a rule hook may ask about the node being visited.

    Attributes: ``path`` (as given), ``module``, ``names`` (ImportTable),
    ``index`` (ModuleIndex), ``settings`` (the effective Settings),
    ``scope`` (innermost Scope), ``frame`` (per-function loops, ``with``
    items, ``except`` handlers), ``ancestors`` (nodes from the module down
    to the parent of the node being visited), ``project`` (the
    ``index.view.ProjectView``: what other modules of the project say).
    """

    def __init__(self, path: str, module: cst.Module, settings: Settings, project=None, text: str | None = None) -> None:
        from boundlint.index.view import NO_PROJECT

        self.path = path
        self.text = text  # the source *module* was parsed from: positions come from its statements' lines
        self._locator = None
        # What the rest of the project says (index.view.ProjectView); falsy outside any project.
        self.project = project if project is not None else NO_PROJECT
        self.module = module
        self.settings = settings
        self.names = ImportTable()
        self.index = ModuleIndex(module)
        self.scope = Scope("module", module, None)
        self.scope.bindings = self.index.constants
        self.frame = FunctionFrame(self.scope)
        self.ancestors: list[cst.CSTNode] = []
        # Per-file state several rules share (e.g. the fan-out worker index), keyed by owner module.
        self.cache: dict[str, object] = {}

    # -- questions rules ask -------------------------------------------------
    def locator(self):
        """The file's ``analysis.locate.Locator`` (nodes enclosing a node, positions), made once."""
        if self._locator is None:
            from boundlint.analysis.locate import Locator

            self._locator = Locator(self.module, self.text)
        return self._locator

    def where(self, node: cst.CSTNode) -> str:
        """``path:line`` of *node* in the module being checked, for evidence."""
        return f"{self.path.replace(chr(92), '/')}:{self.locator().position(node).start.line}"

    def project_ref(self, node: cst.BaseExpression) -> str | None:
        """The absolute project ref of a Name/Attribute chain: imported (also relatively) or defined here."""
        if not self.project:
            return None
        q = self.names.resolve(node)
        if q is not None:
            return self.project.ref(q)
        name = dotted(node)
        if name is None:
            return None
        root = name.split(".", 1)[0]
        if self.lookup_param(root) is not None:
            return None
        scope = self.scope
        while scope is not None and scope.kind != "module":  # a local of the function shadows the module's
            if root in scope.bindings or root in scope.defs:
                return None
            scope = scope.parent
        if root in self.index.functions or root in self.index.classes or root in self.index.constants:
            return self.project.ref(None, name)
        return None

    def callee_ref(self, call: cst.Call) -> str | None:
        """The absolute project ref of the function *call* calls: by name (``project_ref``), else as the
        project index resolved it (a method through its receiver's class: ``self._stream.consume()``)."""
        ref = self.project_ref(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
        qual = self.function_qualname() if ref is None and self.project else None
        if qual is None:
            return ref
        start = self.locator().position(call).start
        return self.project.ask("callee_at", self.project.ref(None, qual), start.line, start.column + 1)

    def function_qualname(self) -> str | None:
        """``f`` or ``Class.method`` for the module-level function or method being visited, else None."""
        scope = self.scope.function()
        if scope is None or type(scope.node) is not cst.FunctionDef:
            return None
        parent = scope.parent
        if parent is not None and parent.kind == "module":
            return scope.node.name.value
        if parent is not None and parent.kind == "class" and parent.parent is not None and parent.parent.kind == "module":
            return f"{parent.name}.{scope.node.name.value}"
        return None

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """Canonical qualified name of an imported Name/Attribute chain, else None."""
        return self.names.resolve(node)

    def parent(self, depth: int = 1) -> cst.CSTNode | None:
        """The node *depth* levels above the one being visited."""
        return self.ancestors[-depth] if len(self.ancestors) >= depth else None

    def lookup(self, name: str) -> tuple[Scope, list[cst.BaseExpression | None]] | None:
        """The innermost scope binding *name* by assignment and its values, else None.

        Python's rules: a parameter or loop variable of a function shadows the
        enclosing scopes' bindings of the same name (None: no assignment binds
        it there); a ``global`` name is looked up in the module; a class body's
        names are not visible from its methods.
        """
        scope: Scope | None = self.scope
        while scope is not None:
            if name in scope.globals:
                scope = self._module_scope(scope)
                continue
            if scope.kind != "class" or scope is self.scope:
                values = scope.bindings.get(name)
                if values:
                    return scope, values
                if _shadows(scope, name):
                    return None
            scope = scope.parent
        return None

    @staticmethod
    def _module_scope(scope: Scope) -> Scope:
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup_param(self, name: str) -> cst.Param | None:
        """The parameter *name* of an enclosing function, if that is what binds it."""
        scope: Scope | None = self.scope
        while scope is not None:
            if name in scope.globals:
                return None
            if name in scope.bindings and scope.kind != "module":
                return None
            if name in scope.params:
                return scope.params[name]
            if scope.kind in ("function", "lambda") and name in scope.loop_targets and name not in scope.nonlocals:
                return None  # a loop variable of a nested function shadows the outer parameter
            scope = scope.parent
        return None

    def lookup_def(self, name: str) -> cst.CSTNode | None:
        """A function or class named *name*: nested defs first, then module level."""
        scope: Scope | None = self.scope
        while scope is not None:
            if name in scope.defs:
                return scope.defs[name]
            scope = scope.parent
        return self.index.functions.get(name) or self.index.classes.get(name)

    def current_class(self) -> str | None:
        """Name of the class whose method body is being visited."""
        scope = self.scope.function()
        while scope is not None:
            cls = scope.enclosing_class()
            if cls is not None:
                return cls.name
            scope = scope.parent.function() if scope.parent is not None else None
        return None

    def method(self, name: str) -> cst.FunctionDef | None:
        """Method *name* of the enclosing class, if any."""
        cls = self.current_class()
        if cls is None:
            return None
        return self.index.methods.get(cls, {}).get(name)

    def attr_values(self, attr: str) -> list[cst.BaseExpression]:
        """Values assigned to ``self.<attr>`` anywhere in the enclosing class."""
        cls = self.current_class()
        if cls is None:
            return []
        return self.index.class_attrs.get(cls, {}).get(attr, [])

    def resolve_callable(self, func: cst.BaseExpression, _depth: int = 0) -> cst.CSTNode | None:
        """The same-module def (or lambda) that *func* names, or None.

        Handles a bare name (nested def, module function), ``self.m`` /
        ``cls.m`` (a method of the enclosing class), a lambda, and
        ``functools.partial(f, ...)``.  A rebinding such as
        ``fn = partial(fn, x)`` refers to itself, so the chain is followed a
        few steps only.
        """
        if _depth > 8:
            return None
        if type(func) is cst.Lambda:
            return func
        if type(func) is cst.Name:
            found = self.lookup_def(func.value)
            if found is None:
                bound = self.lookup(func.value)
                if bound is not None and bound[1] and bound[1][-1] is not None:
                    value = bound[1][-1]
                    if type(value) in _CALLABLE_VALUES:
                        return self.resolve_callable(value, _depth + 1)
            return found
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in ("self", "cls"):
            return self.method(func.attr.value)
        if partial_target(func) is not None:
            return self.resolve_callable(partial_target(func), _depth + 1)
        return None

    def loop_with_target(self, name: str) -> Loop | None:
        """The active or finished loop of this function whose target binds *name*."""
        scope: Scope | None = self.scope
        while scope is not None:
            if name in scope.globals:
                return None
            if name in scope.loop_targets:
                return scope.loop_targets[name]
            if name in scope.bindings and scope.kind != "module":
                return None
            if name in scope.params:
                return None  # a nested function's parameter is its own name
            scope = scope.parent
        return None


def _shadows(scope: Scope, name: str) -> bool:
    """True when a function binds *name* without an assignment (a parameter or a loop variable)."""
    if scope.kind not in ("function", "lambda") or name in scope.nonlocals:
        return False
    return name in scope.params or name in scope.loop_targets
