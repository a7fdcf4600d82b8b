"""When a failure is handled once per iteration: the judgement behind BND301-BND303.

- ``iterations_bounded(loop)``: the shared ``limits.loop_limit`` answer,
  read as a bound on iterations (fixed-size batches are not one), plus a few
  sources that are fixed by the code (UPPER_CASE constants, a literal behind
  a conditional or a wrapper class, the package's own files);
- ``handler_loop(ctx)``: the ``except`` handler around the node being
  visited and the unbounded loop around that handler;
- ``loop_storm_limit``: why a log call there does not repeat per failed
  iteration (a counter, sampling or once-only guard, an exit right after it,
  a retry or fallback loop, a pause);
- ``retry_decorated``: retry decorators, for BND303 as well (pauses: ``pauses``);
- ``leaves_on_success`` / ``try_stops_loop``: retry and fallback loops.
"""
from __future__ import annotations

from typing import Iterable, Iterator

import libcst as cst

from boundlint import tables
from boundlint.verdicts import BATCHES, COUNTER, EXITS, LITERAL, ONCE_FLAG, PACED, RETRY, SAMPLED, Limit, kind_of

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.loop_exits import stops_condition
from boundlint.analysis.names import dotted
from boundlint.analysis import pacing
from boundlint.analysis.pauses import call_name as _call_name, paced

_RETRY_DECORATOR_MODULES = ("tenacity", "backoff", "stamina", "retrying", "retry", "async_retrying", "aioretry")
_RETRY_DECORATOR_NAMES = frozenset({"retry", "on_exception", "on_predicate", "retry_async", "retry_context", "retrying"})
_MUTATORS = frozenset({"add", "append", "update", "setdefault", "incr", "increment", "inc", "discard", "remove", "clear"})


# -- where the log call sits ---------------------------------------------------------

def _index(ctx: Context, node: cst.CSTNode) -> int:
    ancestors = ctx.ancestors
    for i in range(len(ancestors) - 1, -1, -1):
        if ancestors[i] is node:
            return i
    return -1


def _loop_anchor(loop: Loop) -> cst.CSTNode:
    return loop.owner if loop.kind == "comp" and loop.owner is not None else loop.node


def iterations_bounded(loop: Loop, ctx: Context) -> str | None:
    """Why *loop* runs a bounded number of iterations, or None.

    The shared ``limits.loop_limit`` judgement, except that fixed-size
    batches bound concurrency, not the number of iterations; a ``while``
    counter compared with a configured maximum and incremented in the loop
    is a counted retry; an UPPER_CASE name is a constant of the code, a
    name bound to ``a if cond else b`` is bounded when both are,
    ``hooks or []`` when ``hooks`` is, a class built from a literal
    (``OrderedSet([a, b])``) is as long as the literal, and a listing of
    the package's own directory (``os.listdir(os.path.dirname(__file__))``)
    is fixed by the install.
    """
    found = limits.loop_limit(loop, ctx)
    if kind_of(found) == BATCHES:
        return None
    if found is not None:
        return found
    if loop.kind == "while" and _counted(loop):
        return "a counted retry"
    source = loop.iter
    if isinstance(source, cst.BooleanOperation) and isinstance(source.operator, cst.Or):
        left = limits.source_limit(source.left, ctx) or _constant_name(source.left, ctx)
        if left and limits.source_limit(source.right, ctx):
            return left  # hooks or []
    found = _constant_name(source, ctx) or _wrapped_literal(source, ctx) or _own_files(source, ctx)
    if found:
        return found
    if isinstance(source, cst.Name):
        bound = ctx.lookup(source.value)
        value = bound[1][-1] if bound and bound[1] else None
        if isinstance(value, cst.IfExp) and limits.source_limit(value.body, ctx) and limits.source_limit(value.orelse, ctx):
            return "a literal"
    return None


_DIR_LISTERS = frozenset({"os.walk", "os.listdir", "os.scandir", "glob.glob", "glob.iglob", "pkgutil.iter_modules", "pkgutil.walk_packages"})
_PATH_LISTERS = frozenset({"iterdir", "glob", "rglob", "walk"})


def _wrapped_literal(source: cst.BaseExpression | None, ctx: Context) -> str | None:
    """``OrderedSet([a, b])``, ``deque((x, y))``: a class built from one literal has the literal's size."""
    if isinstance(source, cst.Call) and len(source.args) == 1 and source.args[0].keyword is None and source.args[0].star == "":
        name = (dotted(source.func) or "").rsplit(".", 1)[-1]
        if name[:1].isupper() and kind_of(limits.source_limit(source.args[0].value, ctx)) == LITERAL:
            return "a literal"
    return None


def _own_files(source: cst.BaseExpression | None, ctx: Context) -> str | None:
    """A listing of the package's own directory (a path built from ``__file__`` / ``__path__``): fixed by the install."""
    if not isinstance(source, cst.Call):
        return None
    name = ctx.qualname(source.func) or ""
    if name in _DIR_LISTERS:
        roots = [a.value for a in source.args]
    elif isinstance(source.func, cst.Attribute) and source.func.attr.value in _PATH_LISTERS:
        roots = [source.func.value]
    else:
        return None
    return "the package's own files" if any(_from_module_path(r, ctx, 0) for r in roots) else None


def _from_module_path(expr: cst.BaseExpression, ctx: Context, depth: int) -> bool:
    if depth > 4:
        return False
    for node in _nodes(expr):
        if isinstance(node, cst.Name):
            if node.value in ("__file__", "__path__"):
                return True
            bound = ctx.lookup(node.value)
            if bound is not None and any(v is not None and _from_module_path(v, ctx, depth + 1) for v in bound[1]):
                return True
    return False


def _constant_name(source: cst.BaseExpression | None, ctx: Context) -> str | None:
    if isinstance(source, (cst.Name, cst.Attribute)):
        name = source.value if isinstance(source, cst.Name) else source.attr.value
        if limits.is_upper(name) and (not isinstance(source, cst.Name) or ctx.lookup_param(name) is None):
            return "a constant"
    return None


def _counted(loop: Loop) -> bool:
    test = loop.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    op = test.comparisons[0].operator
    if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)) and _decremented(dotted(test.left), loop.node):
        return True  # while ttl > 0: ttl -= 1
    if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
        key = dotted(test.left)
    elif isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        key = dotted(test.comparisons[0].comparator)
    else:
        return False
    return key is not None and key in _augmented(loop.node)


def _decremented(key: str | None, root: cst.CSTNode) -> bool:
    """True when ``key -= <positive int>`` runs under *root*: a countdown."""
    for node in _nodes(root):
        if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.SubtractAssign) and _key(node.target) == key:
            if isinstance(node.value, cst.Integer) and int(node.value.value, 0) > 0:
                return True
    return False


def handler_loop(ctx: Context) -> tuple[cst.ExceptHandler, Loop | None] | None:
    """``(innermost except handler, innermost unbounded loop around it)``; None outside a handler."""
    handlers = ctx.frame.handlers
    if not handlers:
        return None
    handler = handlers[-1]
    at = _index(ctx, handler)
    for loop in reversed(ctx.frame.loops):
        if _index(ctx, _loop_anchor(loop)) < at and iterations_bounded(loop, ctx) is None:
            return handler, loop
    return handler, None


def loop_source(loop: Loop) -> str:
    """The loop's iterated expression (or ``while <test>``) for messages, at most 40 characters."""
    if loop.iter is not None:
        return _short(loop.iter)
    return "while " + _short(loop.test) if loop.test is not None else "a loop"


def _short(node: cst.CSTNode, limit: int = 40) -> str:
    code = " ".join(cst.Module(body=[]).code_for_node(node).split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


# -- guards --------------------------------------------------------------------------

def _nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    return limits.iter_nodes(node)


def _key(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Subscript):
        return dotted(expr.value)
    return dotted(expr)


def _augmented(root: cst.CSTNode) -> set[str]:
    """Keys of ``x += ...`` / ``self.n += ...`` / ``counts[k] += ...`` under *root*, and ``x = x + 1``."""
    out = set()
    for node in _nodes(root):
        if isinstance(node, cst.AugAssign):
            key = _key(node.target)
            if key:
                out.add(key)
        elif isinstance(node, cst.Assign) and isinstance(node.value, cst.BinaryOperation):
            for target in node.targets:
                key = _key(target.target)
                if key and key in (dotted(node.value.left), dotted(node.value.right)):
                    out.add(key)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("incr", "increment", "inc"):
            key = dotted(node.func.value)
            if key:
                out.add(key)
    return out


def _changed(root: cst.CSTNode) -> set[str]:
    """Keys assigned, augmented or mutated (``seen.add(k)``, ``warned[k] = True``) under *root*."""
    out = _augmented(root)
    for node in _nodes(root):
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                key = _key(target)
                if key:
                    out.add(key)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MUTATORS:
            key = dotted(node.func.value)
            if key:
                out.add(key)
    return out


def _test_keys(test: cst.BaseExpression) -> set[str]:
    out = set()
    for node in _nodes(test):
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            key = _key(node)
            if key:
                out.add(key)
    return out


def _compared_keys(test: cst.BaseExpression) -> set[str]:
    out = set()
    for node in _nodes(test):
        if isinstance(node, cst.Comparison):
            for operand in (node.left, *(c.comparator for c in node.comparisons)):
                key = _key(operand)
                if key:
                    out.add(key)
    return out


def guard_kind(test: cst.BaseExpression, body: cst.CSTNode, scope_root: cst.CSTNode, ctx: Context) -> Limit | None:
    """Why an ``if`` with *test* and *body* keeps a log line from repeating, or None.

    ``a sampling guard``: a modulo (``i % 100 == 0``) or a ``random`` call;
    ``a counter guard``: a comparison on a name incremented under
    *scope_root* (``errors += 1 ... if errors < N``); ``a once-only flag``:
    a name the branch itself sets or adds to (``if not warned: warned = True``,
    ``if key not in seen: seen.add(key)``).
    """
    for node in _nodes(test):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            return Limit(SAMPLED, "a sampling guard")
        if isinstance(node, cst.Call) and (ctx.qualname(node.func) or dotted(node.func) or "").startswith("random."):
            return Limit(SAMPLED, "a sampling guard")
    compared = _compared_keys(test)
    if compared and compared & _augmented(scope_root):
        return Limit(COUNTER, "a counter guard")
    if _test_keys(test) & _changed(body):
        return Limit(ONCE_FLAG, "a once-only flag")
    return None


def _path(ctx: Context, start: int) -> list[cst.CSTNode]:
    return ctx.ancestors[start + 1:] if start >= 0 else list(ctx.ancestors)


def guarded(ctx: Context, start: cst.CSTNode, scope_root: cst.CSTNode) -> Limit | None:
    """A counter, sampling or once-only guard on an ``if`` between *start* and the current node."""
    for node in _path(ctx, _index(ctx, start)):
        if isinstance(node, cst.If):
            found = guard_kind(node.test, node, scope_root, ctx)
            if found:
                return found
    return None


def _leaves(stmt: cst.CSTNode, ctx: Context) -> bool:
    """True for a statement that leaves the loop: ``raise``, ``return``, ``break``, ``sys.exit()``."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return any(_leaves(s, ctx) for s in stmt.body)
    if isinstance(stmt, (cst.Raise, cst.Return, cst.Break)):
        return True
    if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
        name = _call_name(stmt.value, ctx)
        return name in ("sys.exit", "os._exit", "exit", "quit", "os.abort")
    return False


def exits_after(ctx: Context, start: cst.CSTNode) -> bool:
    """True when the current node's statement is followed, in a block between *start* (a handler, or a loop)
    and it, by a ``raise`` / ``return`` / ``break`` that leaves the loop."""
    path = _path(ctx, _index(ctx, start))
    for i in range(len(path) - 1, 0, -1):
        node, parent = path[i], path[i - 1]
        if isinstance(node, (cst.For, cst.While)):
            return False  # a break there would leave only the inner loop
        if isinstance(node, cst.BaseSmallStatement) and isinstance(parent, cst.SimpleStatementLine):
            siblings = list(parent.body)
        elif isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            siblings = list(parent.body)
        else:
            continue
        try:
            at = next(j for j, s in enumerate(siblings) if s is node)
        except StopIteration:
            continue
        if any(_leaves(s, ctx) for s in siblings[at + 1:]):
            return True
    return False


def loop_pacing(loop: Loop, handler: cst.ExceptHandler, ctx: Context) -> bool:
    """True when a failed iteration of *loop* waits: a pause in *handler*, in the loop's test, an iterator that backs off (``async for ws in websockets.connect(uri)``), or a pause elsewhere in the loop that runs after the failure (``pacing.on_failing_path``: not one at the end of the ``try``, in its ``else``, after a handler that ``continue``s, or under an ``if`` that holds only on success)."""

    if paced([handler.body], ctx):
        return True
    if loop.test is not None and paced([loop.test], ctx):
        return True
    if isinstance(loop.iter, cst.Call) and _call_name(loop.iter, ctx) in tables.table("backoff-iterators", ctx.settings):
        return True
    try_node = pacing.handler_try(handler, ctx)
    if try_node is None:
        return False
    if ctx.project and any(ctx.project.ask("paces_failure", ref) for ref in _tried_callees(try_node, ctx)):
        return True  # the failed call waited before it raised: `await fetcher.next_job()` backs off itself
    return any(pacing.on_failing_path(p, loop, try_node, handler) for p in pacing.pauses_in(loop, ctx))


def _tried_callees(try_node: cst.Try, ctx: Context) -> list[str]:
    """The project refs of the calls in *try_node*'s body (``Context.callee_ref``)."""
    calls = [n for n in _nodes(try_node.body) if isinstance(n, cst.Call)]
    return [ref for ref in (ctx.callee_ref(c) for c in calls) if ref]


def retry_decorated(ctx: Context) -> bool:
    """True when the enclosing function carries a tenacity / backoff / stamina retry decorator."""
    scope = ctx.scope.function()
    node = scope.node if scope is not None else None
    if not isinstance(node, cst.FunctionDef):
        return False
    for deco in node.decorators:
        expr = deco.decorator.func if isinstance(deco.decorator, cst.Call) else deco.decorator
        name = ctx.qualname(expr) or dotted(expr) or ""
        if name.split(".", 1)[0] in _RETRY_DECORATOR_MODULES or name.rsplit(".", 1)[-1] in _RETRY_DECORATOR_NAMES:
            return True
    return False


def function_node(ctx: Context) -> cst.CSTNode | None:
    """The innermost function or lambda being visited, or None at module or class level."""
    scope = ctx.scope.function()
    return scope.node if scope is not None else None


def loop_storm_limit(ctx: Context, handler: cst.ExceptHandler, loop: Loop) -> Limit | None:
    """Why a log call in *handler* does not repeat once per failed iteration of *loop*, or None.

    A counter, sampling or once-only guard; a ``raise`` / ``return`` /
    ``break`` right after it (the error leaves the loop); a retry or
    fallback loop that stops once the ``try`` succeeds; a pause of at
    least 0.1 s on the failing path (the loop writes at most a few lines a
    second).
    """
    found = guarded(ctx, loop.node, loop.node)
    if found:
        return found
    if exits_after(ctx, _loop_anchor(loop)):  # also an enclosing handler that re-raises (a cleanup log inside it)
        return Limit(EXITS, "the error leaves the loop")
    if stops_condition(loop, handler):
        return Limit(EXITS, "the handler makes the loop's condition false: the loop ends")
    try_node = ctx.ancestors[_index(ctx, handler) - 1]
    if try_stops_loop(try_node, loop):
        return Limit(RETRY, "a retry or fallback loop: it stops at the first success")
    if loop_pacing(loop, handler, ctx):
        return Limit(PACED, "the loop pauses after a failure")
    return None


# -- retry and fallback loops --------------------------------------------------------

def _exit_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, (cst.Break, cst.Return)) for s in stmt.body)


def leaves_on_success(block: cst.BaseSuite | None) -> bool:
    """True when *block* leaves its loop once its work succeeds.

    A ``break`` / ``return`` among the block's own statements, in a ``with``
    or ``try`` body (or ``else``) among them, or under an ``if`` that tests a
    result assigned earlier in the block (``resp = fetch(); if resp is not
    None: return resp``).
    """
    if block is None:
        return False
    if isinstance(block, cst.SimpleStatementSuite):
        return any(isinstance(s, (cst.Break, cst.Return)) for s in block.body)
    assigned: set[str] = set()
    for stmt in block.body:
        if _exit_line(stmt):
            return True
        if isinstance(stmt, cst.With) and leaves_on_success(stmt.body):
            return True
        if isinstance(stmt, cst.Try) and (leaves_on_success(stmt.body) or (stmt.orelse is not None and leaves_on_success(stmt.orelse.body))):
            return True
        if isinstance(stmt, cst.If) and assigned & _test_keys(stmt.test) and leaves_on_success(stmt.body):
            return True
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    assigned.update(k for k in map(dotted, targets) if k)
    return False


def try_stops_loop(try_node: cst.CSTNode, loop: Loop) -> bool:
    """True when the loop ends once *try_node* (a statement of the loop body) succeeds: a retry or fallback loop."""
    if leaves_on_success(try_node.body) or (getattr(try_node, "orelse", None) is not None and leaves_on_success(try_node.orelse.body)):
        return True
    body = getattr(loop.node, "body", None)
    if not isinstance(body, cst.IndentedBlock):
        return False
    statements = list(body.body)
    for i, stmt in enumerate(statements):
        if stmt is try_node:
            return i + 1 < len(statements) and _exit_line(statements[i + 1])
    return False

