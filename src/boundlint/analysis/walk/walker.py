"""The walker: reads each node's children straight from its dataclass fields, keeps the ``Context``
current and calls the rules' hooks."""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

import libcst as cst

from boundlint.analysis.context import Context, Fill, FunctionFrame, Guard, Loop, Scope, assigned_names, empty_collection
from boundlint.analysis.walk.guards import _terminates, helper_guards, len_argument_key, length_guards, predicate_guards

_SKIP_FIELDS = frozenset({
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header",
    "footer", "newline", "indent", "dot", "colon", "equal", "star", "lbracket", "rbracket",
    "lbrace", "rbrace", "trailing_whitespace", "asynchronous", "operator", "relative",
})
_FIELDS: dict[type, tuple[str, ...]] = {}
_COMPS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_APPENDERS = frozenset({"append", "add", "extend", "appendleft", "insert", "put_nowait"})
# Methods that add many items at once (the argument is an iterable) or one keyed item.
_EXTENDERS = frozenset({"extend", "update", "extendleft"})
_KEYED = frozenset({"setdefault", "__setitem__"})


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(
            f.name for f in dataclasses.fields(cls)
            if not f.name.startswith("whitespace") and f.name not in _SKIP_FIELDS
        )
        _FIELDS[cls] = names
    return names


def is_node_type(kind: type) -> bool:
    """``issubclass(kind, cst.CSTNode)``, memoised: ``isinstance`` against LibCST's abstract base runs
    ``ABCMeta.__instancecheck__`` in Python on every call, the largest cost of a walk."""
    if kind in _NODE_TYPES:
        return True
    if kind in _OTHER_TYPES:
        return False
    (_NODE_TYPES if issubclass(kind, cst.CSTNode) else _OTHER_TYPES).add(kind)
    return kind in _NODE_TYPES


_NODE_TYPES: set[type] = set()
_OTHER_TYPES: set[type] = set()


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Syntactic children of *node* in field order, without whitespace or punctuation (a new list)."""
    out = []
    kind = type(node)
    # The type tests of is_node_type inlined (it runs for every field of every node), the call on a miss only.
    for name in _FIELDS.get(kind) or _fields(kind):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                if type(item) in _NODE_TYPES or (type(item) not in _OTHER_TYPES and is_node_type(type(item))):
                    out.append(item)
        elif kind in _NODE_TYPES or (kind not in _OTHER_TYPES and is_node_type(kind)):
            out.append(value)
    return out


class Walker:
    """Walks one module once, keeping *ctx* current and calling the rules' hooks.

    ``rules`` are Rule instances; a method ``visit_Call(node, ctx)`` runs when
    a ``cst.Call`` is entered, ``leave_Call`` when it is left.
    ``on_rule_error(rule, exc)`` is called when a hook raises.
    """

    def __init__(self, rules: Iterable[object], ctx: Context, on_rule_error: Callable[[object, BaseException], None]) -> None:
        self.ctx = ctx
        self.on_rule_error = on_rule_error
        self.visits: dict[str, list[tuple[object, Callable]]] = {}
        self.leaves: dict[str, list[tuple[object, Callable]]] = {}
        self.disabled: set[int] = set()
        for rule in rules:
            for attr in dir(type(rule)):
                if attr.startswith("visit_"):
                    self.visits.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
                elif attr.startswith("leave_"):
                    self.leaves.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))

    # -- dispatch -------------------------------------------------------------
    def _hooks(self, table: dict, node: cst.CSTNode) -> None:
        hooks = table.get(type(node).__name__)
        if not hooks:
            return
        for rule, hook in hooks:
            if id(rule) in self.disabled:
                continue
            try:
                hook(node, self.ctx)
            except RecursionError:
                raise
            except Exception as exc:  # one rule's bug must not cost the file's other findings
                self.disabled.add(id(rule))
                self.on_rule_error(rule, exc)

    def walk(self, node: cst.CSTNode) -> None:
        """Visit *node* and everything under it."""
        ancestors = self.ctx.ancestors
        kind = type(node)
        name = kind.__name__
        if name in self.visits:  # most node types have no hook: skip the call
            self._hooks(self.visits, node)
        ancestors.append(node)
        special = _SPECIAL.get(kind)
        if special is not None:
            special(self, node)
        else:
            walk = self.walk
            for child in children(node):
                walk(child)
        ancestors.pop()
        if name in self.leaves:
            self._hooks(self.leaves, node)

    def walk_all(self, nodes: Iterable[cst.CSTNode | None]) -> None:
        for node in nodes:
            if node is not None:
                self.walk(node)

    # -- structure -------------------------------------------------------------
    def _import(self, node: cst.Import) -> None:
        self.ctx.names.add_import(node)

    def _import_from(self, node: cst.ImportFrom) -> None:
        self.ctx.names.add_import_from(node)

    def _class(self, node: cst.ClassDef) -> None:
        ctx = self.ctx
        self.walk_all(node.decorators)
        self.walk_all(node.bases)
        self.walk_all(node.keywords)
        ctx.scope.defs[node.name.value] = node
        scope = Scope("class", node, ctx.scope)
        outer = ctx.scope
        ctx.scope = scope
        self.walk(node.body)
        ctx.scope = outer

    def _function(self, node: cst.FunctionDef | cst.Lambda) -> None:
        ctx = self.ctx
        params = node.params
        if type(node) is cst.FunctionDef:
            self.walk_all(node.decorators)
            ctx.scope.defs[node.name.value] = node
            if node.returns is not None:
                self.walk(node.returns)
        for p in _all_params(params):
            if p.default is not None:
                self.walk(p.default)
            if p.annotation is not None:
                self.walk(p.annotation)
        scope = Scope("function" if type(node) is cst.FunctionDef else "lambda", node, ctx.scope)
        for p in _all_params(params):
            scope.params[p.name.value] = p
        outer_scope, outer_frame = ctx.scope, ctx.frame
        ctx.scope, ctx.frame = scope, FunctionFrame(scope)
        self.walk(node.body)
        ctx.scope, ctx.frame = outer_scope, outer_frame

    def _for(self, node: cst.For) -> None:
        ctx = self.ctx
        self.walk(node.iter)
        self.walk(node.target)
        loop = Loop("for", node, iter=node.iter, target=node.target)
        self._bind_target(node.target, loop)
        ctx.frame.loops.append(loop)
        self.walk(node.body)
        ctx.frame.loops.pop()
        if node.orelse is not None:
            self.walk(node.orelse)

    def _while(self, node: cst.While) -> None:
        ctx = self.ctx
        loop = Loop("while", node, test=node.test)
        ctx.frame.loops.append(loop)
        self.walk(node.test)
        self.walk(node.body)
        ctx.frame.loops.pop()
        if node.orelse is not None:
            self.walk(node.orelse)

    def _comp(self, node: cst.BaseComp) -> None:
        ctx = self.ctx
        pushed = 0
        comp_for: cst.CompFor | None = node.for_in
        # A comprehension's variables are its own (Python 3): what they shadow comes back after it.
        saved = dict(ctx.scope.loop_targets)
        while comp_for is not None:
            self.walk(comp_for.iter)  # the first iterable is evaluated outside, the others per item
            loop = Loop("comp", comp_for, iter=comp_for.iter, target=comp_for.target, owner=node)
            self._bind_target(comp_for.target, loop)
            ctx.frame.loops.append(loop)
            pushed += 1
            self.walk_all(comp_for.ifs)
            comp_for = comp_for.inner_for_in
        if type(node) is cst.DictComp:
            self.walk(node.key)
            self.walk(node.value)
        else:
            self.walk(node.elt)
        del ctx.frame.loops[len(ctx.frame.loops) - pushed:]
        ctx.scope.loop_targets = saved

    def _with(self, node: cst.With) -> None:
        ctx = self.ctx
        for item in node.items:
            self.walk(item.item)
            if item.asname is not None:
                target = item.asname.name
                if type(target) is cst.Name:
                    ctx.scope.with_targets[target.value] = item.item
                    ctx.scope.bindings.setdefault(target.value, []).append(item.item)
            ctx.frame.withs.append(item)
        self.walk(node.body)
        del ctx.frame.withs[len(ctx.frame.withs) - len(node.items):]

    def _try(self, node: cst.Try) -> None:
        ctx = self.ctx
        self.walk(node.body)
        for handler in node.handlers:
            ctx.ancestors.append(handler)
            self._hooks(self.visits, handler)
            if handler.type is not None:
                self.walk(handler.type)
            ctx.frame.handlers.append(handler)
            self.walk(handler.body)
            ctx.frame.handlers.pop()
            self._hooks(self.leaves, handler)
            ctx.ancestors.pop()
        if node.orelse is not None:
            self.walk(node.orelse)
        if node.finalbody is not None:
            self.walk(node.finalbody)

    def _assign(self, node: cst.Assign | cst.AnnAssign) -> None:
        if node.value is not None:
            self.walk(node.value)
        targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]
        if type(node) is cst.AnnAssign:
            self.walk(node.annotation)
        for target in targets:
            self.walk(target)
            if type(target) is cst.Subscript and type(target.value) is cst.Name and node.value is not None:
                self._fill(target.value.value, node.value, "item")  # d[k] = v
        scope = self.ctx.scope
        for name, value in assigned_names(node):
            owner = self._binding_scope(name)
            if owner.kind == "module" and scope.kind == "module":
                continue  # the module index already holds module-level bindings
            values = owner.bindings.setdefault(name, [])
            if not any(v is value for v in values):  # a `global` assignment the module index read already
                values.append(value)
            if empty_collection(value):
                owner.emptied[name] = (tuple(self.ctx.frame.loops), len(owner.fills.get(name, ())))

    def _binding_scope(self, name: str) -> Scope:
        """The scope an assignment to *name* binds in: its own, the module's (``global``) or an
        enclosing function's (``nonlocal``)."""
        scope = self.ctx.scope
        if name in scope.globals:
            while scope.parent is not None:
                scope = scope.parent
            return scope
        if name in scope.nonlocals:
            outer = scope.parent
            while outer is not None and outer.kind != "module":
                if outer.kind in ("function", "lambda") and (name in outer.bindings or name in outer.params) and name not in outer.nonlocals:
                    return outer
                outer = outer.parent
        return scope

    def _fill(self, name: str, value: cst.BaseExpression, how: str) -> None:
        owner = self._binding_scope(name)
        owner.fills.setdefault(name, []).append(Fill(value, how, tuple(self.ctx.frame.loops)))

    def _aug_assign(self, node: cst.AugAssign) -> None:
        if type(node.target) is cst.Name and isinstance(node.operator, (cst.AddAssign, cst.BitOrAssign)):
            self._fill(node.target.value, node.value, "extend")  # xs += [...], s |= {...}
        for child in children(node):
            self.walk(child)

    def _declare(self, node: cst.Global | cst.Nonlocal) -> None:
        names = {n.name.value for n in node.names}
        if type(node) is cst.Global:
            self.ctx.scope.globals |= names
        else:
            self.ctx.scope.nonlocals |= names

    def _named_expr(self, node: cst.NamedExpr) -> None:
        self.walk(node.value)
        if type(node.target) is cst.Name:
            scope = self.ctx.scope.function() or self.ctx.scope
            scope.bindings.setdefault(node.target.value, []).append(node.value)

    def _call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and node.args:
            method = func.attr.value
            if method in _APPENDERS:
                loops = self.ctx.frame.loops
                self.ctx.scope.appends.setdefault(func.value.value, []).append(
                    (node.args[-1].value, loops[-1] if loops else None))
            if method in _APPENDERS or method in _EXTENDERS or method in _KEYED:
                how = "extend" if method in _EXTENDERS else "item" if method in _KEYED else "append"
                self._fill(func.value.value, node.args[-1].value if how != "extend" else node.args[0].value, how)
        self.walk(func)
        self.walk_all(node.args)

    def _if(self, node: cst.If) -> None:
        guards = length_guards(node.test, self._len_alias)
        if not guards and type(node.test) is cst.Call:
            guards = [(key, node.test) for key in predicate_guards(node.test, self.ctx)]
        if guards and _terminates(node.body, self.ctx):
            for key, limit in guards:
                self.ctx.scope.guards.append(Guard(key, limit, node))
        for child in children(node):
            self.walk(child)

    def _len_alias(self, name: str) -> str | None:
        """The key ``x`` when local *name* was bound to ``len(x)`` (``n = len(ids)``)."""
        values = self.ctx.scope.bindings.get(name)
        return len_argument_key(values[-1]) if values and values[-1] is not None else None

    def _expr_statement(self, node: cst.Expr) -> None:
        value = node.value.expression if type(node.value) is cst.Await else node.value
        if type(value) is cst.Call and self.ctx.scope.kind in ("function", "lambda"):
            for key in helper_guards(value, self.ctx):
                self.ctx.scope.guards.append(Guard(key, value, node))
        for child in children(node):
            self.walk(child)

    def _assert(self, node: cst.Assert) -> None:
        test = node.test
        # assert len(x) <= N  is the negation of a rejecting guard
        if type(test) is cst.Comparison and len(test.comparisons) == 1:
            op = test.comparisons[0].operator
            key = None
            if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
                key, limit = len_argument_key(test.left), test.comparisons[0].comparator
            elif isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
                key, limit = len_argument_key(test.comparisons[0].comparator), test.left
            if key is not None:
                self.ctx.scope.guards.append(Guard(key, limit, node))
        for child in children(node):
            self.walk(child)

    def _bind_target(self, target: cst.BaseExpression, loop: Loop) -> None:
        scope = self.ctx.scope
        if type(target) is cst.Name:
            scope.loop_targets[target.value] = loop
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                if type(el.value) is cst.Name:
                    scope.loop_targets[el.value.value] = loop


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    if type(params.star_arg) is cst.Param:
        out.append(params.star_arg)
    if params.star_kwarg is not None:
        out.append(params.star_kwarg)
    return out


_SPECIAL: dict[type, Callable[[Walker, cst.CSTNode], None]] = {
    cst.Import: Walker._import,
    cst.ImportFrom: Walker._import_from,
    cst.ClassDef: Walker._class,
    cst.FunctionDef: Walker._function,
    cst.Lambda: Walker._function,
    cst.For: Walker._for,
    cst.While: Walker._while,
    cst.ListComp: Walker._comp,
    cst.SetComp: Walker._comp,
    cst.GeneratorExp: Walker._comp,
    cst.DictComp: Walker._comp,
    cst.With: Walker._with,
    cst.Try: Walker._try,
    cst.Assign: Walker._assign,
    cst.AnnAssign: Walker._assign,
    cst.NamedExpr: Walker._named_expr,
    cst.AugAssign: Walker._aug_assign,
    cst.Global: Walker._declare,
    cst.Nonlocal: Walker._declare,
    cst.Call: Walker._call,
    cst.If: Walker._if,
    cst.Assert: Walker._assert,
    cst.Expr: Walker._expr_statement,
}
if hasattr(cst, "TryStar"):
    _SPECIAL[cst.TryStar] = Walker._try
