"""Length guards: the ``if len(x) > N: raise`` checks (inline, in a helper, in a predicate) that reject
oversized input, and whether a block leaves (``raise`` / ``return`` / an abort call)."""
from __future__ import annotations

import re

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted


def length_guard(test: cst.BaseExpression, alias=None) -> tuple[str, cst.BaseExpression] | None:
    """``(key, limit)`` when *test* is true exactly for oversized input.

    Accepts ``len(x) > N``, ``len(x) >= N``, ``N < len(x)``, ``N <= len(x)``
    and an ``or`` whose operand is such a test.  *alias* maps a local name to
    the key whose length it holds (``n = len(ids)``; ``if n > N``).
    """
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or:
        return length_guard(test.left, alias) or length_guard(test.right, alias)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        # not len(x) <= N, not 0 < len(x) <= N
        key = length_bound(test.expression)
        return (key, test.expression) if key is not None else None
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
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
    if key is None and alias is not None and type(sized) is cst.Name:
        key = alias(sized.value)
    return (key, limit) if key is not None else None


def length_bound(test: cst.BaseExpression) -> str | None:
    """The key ``x`` when *test* holds only for bounded input: ``len(x) <= N``, ``len(x) < N``, ``N >= len(x)``."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        return length_bound(test.left) or length_bound(test.right)
    if type(test) is not cst.Comparison:
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
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.Or:
        return length_guards(test.left, alias) + length_guards(test.right, alias)
    guard = length_guard(test, alias)
    return [guard] if guard is not None else []


def helper_guards(call: cst.Call, ctx: Context) -> list[str]:
    """Keys a same-module helper rejects when oversized: ``validate(ids)`` whose body does
    ``if len(ids) > N: raise``.  The callee's key is rewritten in the caller's terms."""
    target = ctx.resolve_callable(call.func)
    if target is None and isinstance(call.func, (cst.Name, cst.Attribute)):
        return _project_helper_guards(call, ctx)
    if type(target) is not cst.FunctionDef:
        return []
    params, rejected = _rejected_params(target, ctx)
    if not rejected:
        return []
    if params and params[0] in ("self", "cls") and type(call.func) is cst.Attribute:
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
    if type(test) is not cst.Call:
        return []
    target = ctx.resolve_callable(test.func)
    if type(target) is not cst.FunctionDef or type(target.body) is not cst.IndentedBlock:
        return []
    stmts = target.body.body
    last = stmts[-1] if stmts else None
    if not (type(last) is cst.SimpleStatementLine and type(last.body[0]) is cst.Return and last.body[0].value is not None):
        return []
    rejected = []
    for key, _limit in length_guards(last.body[0].value):
        root, _, rest = key.partition(".")
        rejected.append((root, rest))
    params = [p.name.value for p in (*target.params.posonly_params, *target.params.params)]
    if params and params[0] in ("self", "cls") and type(test.func) is cst.Attribute:
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
        if type(func.body) is cst.IndentedBlock:
            for stmt in func.body.body:
                if type(stmt) is cst.If:
                    guards = length_guards(stmt.test)
                    if guards and _terminates(stmt.body):
                        for key, _limit in guards:
                            root, _, rest = key.partition(".")
                            rejected.append((root, rest))
        found = cache[id(func)] = (params, rejected)
    return found


def len_argument_key(node: cst.BaseExpression) -> str | None:
    """Dotted key ``x`` / ``request.items`` of ``len(x)``, else None."""
    if type(node) is cst.NamedExpr:
        node = node.value  # (n := len(x)) > N
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "len" and len(node.args) == 1:
        return dotted(node.args[0].value)
    return None


def _terminates(body: cst.BaseSuite, ctx: Context | None = None, depth: int = 0) -> bool:
    """True when a block ends by leaving: ``raise``, ``return`` or an abort/exit call.

    An abort call is ``context.abort(...)``, ``sys.exit()``, a helper named
    like one (``abort_invalid(context, ...)``, ``self._reject(...)``), or, with
    *ctx*, a same-module function or method whose own body ends by leaving.
    """
    if type(body) is cst.SimpleStatementSuite:
        smalls = body.body
    else:
        if not body.body or type(body.body[-1]) is not cst.SimpleStatementLine:
            return False
        smalls = body.body[-1].body
    for small in smalls:
        if isinstance(small, (cst.Raise, cst.Return, cst.Continue, cst.Break)):
            return True
        if type(small) is cst.Expr:
            value = small.value.expression if type(small.value) is cst.Await else small.value
            if type(value) is cst.Call:
                name = dotted(value.func) or ""
                last = name.rsplit(".", 1)[-1]
                if last in _ABORTS or _ABORT_HELPER.match(last):
                    return True
                if ctx is not None and depth == 0:
                    target = ctx.resolve_callable(value.func)
                    if type(target) is cst.FunctionDef and _terminates(target.body, None, depth + 1):
                        return True
    return False


def terminates(body: cst.BaseSuite, ctx: Context | None = None) -> bool:
    """Public name of the test a rejecting guard's block passes: it ends in ``raise`` / ``return`` / an abort."""
    return _terminates(body, ctx)


_ABORTS = frozenset({"abort", "exit", "_exit", "abort_with_status", "fail", "reject"})
# Helpers that abort the call by name: abort_invalid(context, ...), self._reject(...), raise_not_found();
# not the conditional ones (raise_for_status(), abort_if_missing()).
_ABORT_HELPER = re.compile(r"^(?!.*_(?:if|unless|when|for|on)(?:_|$))_*(?:abort|reject|deny|raise)(?:_\w*)?$|^_*\w+_abort$")
