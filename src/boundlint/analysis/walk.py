"""The single traversal: every enabled rule's hooks run during one walk of the CST.

LibCST's own ``CSTVisitor`` rebuilds each node's children as it goes, which
costs about as much as the parse.  This walker reads the dataclass fields
directly (whitespace and punctuation skipped), keeps the ``Context`` current
(scopes, bindings, loops, ``with`` items, ``except`` handlers, length
guards), and calls each rule's ``visit_<Node>`` / ``leave_<Node>`` hooks.

A rule hook that raises is switched off for the rest of the file and
reported through ``on_rule_error``; the other rules go on.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterable

import libcst as cst

from boundlint.analysis.context import Context, FunctionFrame, Guard, Loop, Scope, assigned_names
from boundlint.analysis.names import dotted

_SKIP_FIELDS = frozenset({
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header",
    "footer", "newline", "indent", "dot", "colon", "equal", "star", "lbracket", "rbracket",
    "lbrace", "rbrace", "trailing_whitespace", "asynchronous", "operator", "relative",
})
_FIELDS: dict[type, tuple[str, ...]] = {}
_COMPS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_APPENDERS = frozenset({"append", "add", "extend", "appendleft", "insert", "put_nowait"})


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(
            f.name for f in dataclasses.fields(cls)
            if not f.name.startswith("whitespace") and f.name not in _SKIP_FIELDS
        )
        _FIELDS[cls] = names
    return names


def children(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Syntactic children of *node* in field order, without whitespace or punctuation."""
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif type(value) in (tuple, list):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def length_guard(test: cst.BaseExpression, alias=None) -> tuple[str, cst.BaseExpression] | None:
    """``(key, limit)`` when *test* is true exactly for oversized input.

    Accepts ``len(x) > N``, ``len(x) >= N``, ``N < len(x)``, ``N <= len(x)``
    and an ``or`` whose operand is such a test.  *alias* maps a local name to
    the key whose length it holds (``n = len(ids)``; ``if n > N``).
    """
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return length_guard(test.left, alias) or length_guard(test.right, alias)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        # not len(x) <= N, not 0 < len(x) <= N
        key = length_bound(test.expression)
        return (key, test.expression) if key is not None else None
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    comp = test.comparisons[0]
    left, op, right = test.left, comp.operator, comp.comparator
    if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        sized, limit = left, right
    elif isinstance(op, (cst.LessThan, cst.LessThanEqual)):
        sized, limit = right, left
    else:
        return None
    key = len_argument_key(sized)
    if key is None and alias is not None and isinstance(sized, cst.Name):
        key = alias(sized.value)
    return (key, limit) if key is not None else None


def length_bound(test: cst.BaseExpression) -> str | None:
    """The key ``x`` when *test* holds only for bounded input: ``len(x) <= N``, ``len(x) < N``, ``N >= len(x)``."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return length_bound(test.left) or length_bound(test.right)
    if not isinstance(test, cst.Comparison):
        return None
    # each pair of a chain: 0 < len(x) <= N bounds x through its second pair
    left = test.left
    for comp in test.comparisons:
        if isinstance(comp.operator, (cst.LessThan, cst.LessThanEqual)):
            key = len_argument_key(left)
        elif isinstance(comp.operator, (cst.GreaterThan, cst.GreaterThanEqual)):
            key = len_argument_key(comp.comparator)
        else:
            key = None
        if key is not None:
            return key
        left = comp.comparator
    return None


def length_guards(test: cst.BaseExpression, alias=None) -> list[tuple[str, cst.BaseExpression]]:
    """Every ``(key, limit)`` *test* rejects when oversized: ``len(a) > N or len(b) > M`` gives both."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return length_guards(test.left, alias) + length_guards(test.right, alias)
    guard = length_guard(test, alias)
    return [guard] if guard is not None else []


def helper_guards(call: cst.Call, ctx: Context) -> list[str]:
    """Keys a same-module helper rejects when oversized: ``validate(ids)`` whose body does
    ``if len(ids) > N: raise``.  The callee's key is rewritten in the caller's terms."""
    target = ctx.resolve_callable(call.func)
    if target is None and isinstance(call.func, (cst.Name, cst.Attribute)):
        return _project_helper_guards(call, ctx)
    if not isinstance(target, cst.FunctionDef):
        return []
    params, rejected = _rejected_params(target, ctx)
    if not rejected:
        return []
    if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
        params = params[1:]
    return _in_caller_terms(call, params, rejected)


def _project_helper_guards(call: cst.Call, ctx: Context) -> list[str]:
    """Keys a helper from another module of the project rejects when oversized, in the caller's terms."""
    ref = ctx.project_ref(call.func)
    checked = ctx.project.ask("len_checked", ref) if ref is not None else None
    if not checked:
        return []
    rejected = [(root, rest) for root, _, rest in (key.partition(".") for key in checked["keys"])]
    return _in_caller_terms(call, checked["params"], rejected)


def predicate_guards(test: cst.BaseExpression, ctx: Context) -> list[str]:
    """Keys an ``if`` test rejects through a same-module predicate: ``if self._too_many(request):``
    whose body is ``return len(request.keys) > MAX``.  Keys are in the caller's terms."""
    if not isinstance(test, cst.Call):
        return []
    target = ctx.resolve_callable(test.func)
    if not isinstance(target, cst.FunctionDef) or not isinstance(target.body, cst.IndentedBlock):
        return []
    stmts = target.body.body
    last = stmts[-1] if stmts else None
    if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Return) and last.body[0].value is not None):
        return []
    rejected = []
    for key, _limit in length_guards(last.body[0].value):
        root, _, rest = key.partition(".")
        rejected.append((root, rest))
    params = [p.name.value for p in (*target.params.posonly_params, *target.params.params)]
    if params and params[0] in ("self", "cls") and isinstance(test.func, cst.Attribute):
        params = params[1:]
    return _in_caller_terms(test, params, rejected)


def _in_caller_terms(call: cst.Call, params: list[str], rejected: list[tuple[str, str]]) -> list[str]:
    """Rewrite the callee's ``(parameter, attribute path)`` keys with the arguments *call* passes."""
    passed: dict[str, str] = {}
    for index, arg in enumerate(call.args):
        key = dotted(arg.value)
        if key is None or arg.star:
            continue
        if arg.keyword is not None:
            passed[arg.keyword.value] = key
        elif index < len(params):
            passed[params[index]] = key
    out = []
    for root, rest in rejected:
        if root in passed:
            out.append(passed[root] + ("." + rest if rest else ""))
    return out


def _rejected_params(func: cst.FunctionDef, ctx: Context) -> tuple[list[str], list[tuple[str, str]]]:
    """``(positional parameter names, [(parameter, attribute path)])`` of the length checks that open
    *func*'s body and leave when oversized; computed once per function and file."""
    cache = ctx.cache.setdefault("walk.rejected_params", {})
    found = cache.get(id(func))
    if found is None:
        params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
        rejected = []
        if isinstance(func.body, cst.IndentedBlock):
            for stmt in func.body.body:
                if isinstance(stmt, cst.If):
                    guards = length_guards(stmt.test)
                    if guards and _terminates(stmt.body):
                        for key, _limit in guards:
                            root, _, rest = key.partition(".")
                            rejected.append((root, rest))
        found = cache[id(func)] = (params, rejected)
    return found


def len_argument_key(node: cst.BaseExpression) -> str | None:
    """Dotted key ``x`` / ``request.items`` of ``len(x)``, else None."""
    if isinstance(node, cst.NamedExpr):
        node = node.value  # (n := len(x)) > N
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
        return dotted(node.args[0].value)
    return None


def _terminates(body: cst.BaseSuite, ctx: Context | None = None, depth: int = 0) -> bool:
    """True when a block ends by leaving: ``raise``, ``return`` or an abort/exit call.

    An abort call is ``context.abort(...)``, ``sys.exit()``, a helper named
    like one (``abort_invalid(context, ...)``, ``self._reject(...)``), or, with
    *ctx*, a same-module function or method whose own body ends by leaving.
    """
    if isinstance(body, cst.SimpleStatementSuite):
        smalls = body.body
    else:
        if not body.body or not isinstance(body.body[-1], cst.SimpleStatementLine):
            return False
        smalls = body.body[-1].body
    for small in smalls:
        if isinstance(small, (cst.Raise, cst.Return, cst.Continue, cst.Break)):
            return True
        if isinstance(small, cst.Expr):
            value = small.value.expression if isinstance(small.value, cst.Await) else small.value
            if isinstance(value, cst.Call):
                name = dotted(value.func) or ""
                last = name.rsplit(".", 1)[-1]
                if last in _ABORTS or _ABORT_HELPER.match(last):
                    return True
                if ctx is not None and depth == 0:
                    target = ctx.resolve_callable(value.func)
                    if isinstance(target, cst.FunctionDef) and _terminates(target.body, None, depth + 1):
                        return True
    return False


def terminates(body: cst.BaseSuite, ctx: Context | None = None) -> bool:
    """Public name of the test a rejecting guard's block passes: it ends in ``raise`` / ``return`` / an abort."""
    return _terminates(body, ctx)


_ABORTS = frozenset({"abort", "exit", "_exit", "abort_with_status", "fail", "reject"})
# Helpers that abort the call by name: abort_invalid(context, ...), self._reject(...), raise_not_found();
# not the conditional ones (raise_for_status(), abort_if_missing()).
_ABORT_HELPER = re.compile(r"^(?!.*_(?:if|unless|when|for|on)(?:_|$))_*(?:abort|reject|deny|raise)(?:_\w*)?$|^_*\w+_abort$")


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
        ctx = self.ctx
        self._hooks(self.visits, node)
        ctx.ancestors.append(node)
        special = _SPECIAL.get(type(node))
        if special is not None:
            special(self, node)
        else:
            for child in children(node):
                self.walk(child)
        ctx.ancestors.pop()
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
        if isinstance(node, cst.FunctionDef):
            self.walk_all(node.decorators)
            ctx.scope.defs[node.name.value] = node
            if node.returns is not None:
                self.walk(node.returns)
        for p in _all_params(params):
            if p.default is not None:
                self.walk(p.default)
            if p.annotation is not None:
                self.walk(p.annotation)
        scope = Scope("function" if isinstance(node, cst.FunctionDef) else "lambda", node, ctx.scope)
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
        first = True
        while comp_for is not None:
            # The first iterable is evaluated outside the comprehension.
            if first:
                self.walk(comp_for.iter)
                first = False
            else:
                self.walk(comp_for.iter)
            loop = Loop("comp", comp_for, iter=comp_for.iter, target=comp_for.target, owner=node)
            self._bind_target(comp_for.target, loop)
            ctx.frame.loops.append(loop)
            pushed += 1
            self.walk_all(comp_for.ifs)
            comp_for = comp_for.inner_for_in
        if isinstance(node, cst.DictComp):
            self.walk(node.key)
            self.walk(node.value)
        else:
            self.walk(node.elt)
        del ctx.frame.loops[len(ctx.frame.loops) - pushed:]

    def _with(self, node: cst.With) -> None:
        ctx = self.ctx
        for item in node.items:
            self.walk(item.item)
            if item.asname is not None:
                target = item.asname.name
                if isinstance(target, cst.Name):
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
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        if isinstance(node, cst.AnnAssign):
            self.walk(node.annotation)
        for target in targets:
            self.walk(target)
        scope = self.ctx.scope
        if scope.kind == "module":
            return  # the module index already holds module-level bindings
        for name, value in assigned_names(node):
            scope.bindings.setdefault(name, []).append(value)

    def _named_expr(self, node: cst.NamedExpr) -> None:
        self.walk(node.value)
        if isinstance(node.target, cst.Name):
            scope = self.ctx.scope.function() or self.ctx.scope
            scope.bindings.setdefault(node.target.value, []).append(node.value)

    def _call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _APPENDERS and isinstance(func.value, cst.Name) and node.args:
            loops = self.ctx.frame.loops
            self.ctx.scope.appends.setdefault(func.value.value, []).append(
                (node.args[-1].value, loops[-1] if loops else None))
        self.walk(func)
        self.walk_all(node.args)

    def _if(self, node: cst.If) -> None:
        guards = length_guards(node.test, self._len_alias)
        if not guards and isinstance(node.test, cst.Call):
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
        value = node.value.expression if isinstance(node.value, cst.Await) else node.value
        if isinstance(value, cst.Call) and self.ctx.scope.kind in ("function", "lambda"):
            for key in helper_guards(value, self.ctx):
                self.ctx.scope.guards.append(Guard(key, value, node))
        for child in children(node):
            self.walk(child)

    def _assert(self, node: cst.Assert) -> None:
        test = node.test
        # assert len(x) <= N  is the negation of a rejecting guard
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
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
        if isinstance(target, cst.Name):
            scope.loop_targets[target.value] = loop
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                if isinstance(el.value, cst.Name):
                    scope.loop_targets[el.value.value] = loop


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    if isinstance(params.star_arg, cst.Param):
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
    cst.Call: Walker._call,
    cst.If: Walker._if,
    cst.Assert: Walker._assert,
    cst.Expr: Walker._expr_statement,
}
if hasattr(cst, "TryStar"):
    _SPECIAL[cst.TryStar] = Walker._try
