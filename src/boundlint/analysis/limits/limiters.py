"""Limiters: semaphores and capacity limiters, in a callee (any module of the project) or held by the loop."""
from __future__ import annotations

import re

import libcst as cst

from boundlint import tables
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.names import dotted, partial_target
from boundlint.analysis.walk import len_argument_key, length_guard
from boundlint.verdicts import INFLIGHT, LIMITER, LOOP_LIMITER, LOOP_SLOT, Limit
from boundlint.analysis.limits.sources import _MAX_DEPTH, iter_nodes, size_from_input
from boundlint.tables.defaults import LIMITER_WORDS, SLOT_GRABS


def is_limiter(expr: cst.BaseExpression, ctx: Context, params: dict[str, cst.Param] | None = None, depth: int = 0) -> bool:
    """True when *expr* is a semaphore or capacity limiter whose size is not from the input.

    Recognised by construction (``asyncio.Semaphore(N)``, ``anyio.CapacityLimiter``,
    ``aiolimiter.AsyncLimiter``...), by a parameter annotated with such a
    type, or by a name that says so (``sem``, ``self._limiter``).
    """
    if depth > _MAX_DEPTH:
        return False
    if configured_limiter(expr, ctx):
        return True
    if isinstance(expr, cst.Call):
        q = ctx.qualname(expr.func) or dotted(expr.func) or ""
        short = q.rsplit(".", 1)[-1]
        if q in tables.table("limiters", ctx.settings) or short in tables.table("limiter-class-names", ctx.settings):
            size = expr.args[0].value if expr.args else None
            return not size_from_input(size, ctx)
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("acquire", "limit", "throttle"):
            return is_limiter(expr.func.value, ctx, params, depth + 1)
        return (_kept_limiter(expr.func, ctx) or _held_around_yield(expr.func, ctx)
                or project_limiter(expr.func, ctx) is not None or _entered_class(expr.func, ctx)
                or _built_by_project(expr.func, ctx))
    if isinstance(expr, (cst.Name, cst.Attribute)):
        shared = _project_instance_limiter(expr, ctx)
        if shared is not None:
            return shared
    if isinstance(expr, cst.Name):
        name = expr.value
        if params is not None and name in params:
            return _limiter_param(params[name])
        bound = ctx.lookup(name)
        if bound is not None and any(v is not None and isinstance(v, cst.Call) for v in bound[1]):
            return any(v is not None and is_limiter(v, ctx, params, depth + 1) for v in bound[1])
        param = ctx.lookup_param(name)
        if param is not None:
            return _limiter_param(param)
        return bool(LIMITER_WORDS.search(name))
    if isinstance(expr, cst.Attribute):
        if isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
            values = ctx.attr_values(expr.attr.value)
            if any(isinstance(v, cst.Call) for v in values):
                return any(is_limiter(v, ctx, params, depth + 1) for v in values)
        return bool(LIMITER_WORDS.search(expr.attr.value))
    return False


def _built_by_project(func: cst.BaseExpression, ctx: Context) -> bool:
    """``make_limiter()``: a project function, in this module or another, that builds and returns a new
    limiter (``index.queries.limits.builds_limiter``); the value is one limiter wherever it is kept."""
    ref = ctx.project_ref(func) if ctx.project else None
    return ref is not None and bool(ctx.project.ask("builds_limiter", ref))


def _kept_limiter(func: cst.BaseExpression, ctx: Context) -> bool:
    """``self._slots()``: a method of the enclosing class that hands out a limiter the instance keeps:
    it stores the one it builds (of a size not from the input) on ``self`` (``self._sems[loop] = sem``),
    or is annotated to return a limiter and returns an attribute of ``self``; so every caller shares
    it.  One that builds a new limiter on every call and keeps nothing bounds nothing."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls")):
        return False
    method = ctx.method(func.attr.value)
    if not isinstance(method, cst.FunctionDef):
        return False
    nodes = list(iter_nodes(method.body))
    built = [n for n in nodes if _limiter_constructor(n, ctx)]
    if any(size_from_input(n.args[0].value if n.args else None, ctx) for n in built):
        return False
    names = {t.value for n in nodes if isinstance(n, (cst.Assign, cst.AnnAssign)) and _limiter_constructor(n.value, ctx)
             for t in ([x.target for x in n.targets] if isinstance(n, cst.Assign) else [n.target]) if isinstance(t, cst.Name)}
    kept = any(isinstance(n, cst.Assign) and any(_on_instance(t.target) for t in n.targets)
               and (_limiter_constructor(n.value, ctx) or (isinstance(n.value, cst.Name) and n.value.value in names))
               for n in nodes)
    returns = method.returns.annotation if method.returns is not None else None
    kind = (ctx.qualname(returns) or dotted(returns) or "") if isinstance(returns, (cst.Name, cst.Attribute)) else ""
    annotated = kind in tables.table("limiters", ctx.settings) or (
        kind.rsplit(".", 1)[-1] in tables.table("limiter-class-names", ctx.settings))
    handed = any(isinstance(n, cst.Return) and isinstance(n.value, cst.Attribute) and _on_instance(n.value) for n in nodes)
    return kept or (annotated and handed)


_LOCKS = frozenset({"asyncio.Lock", "anyio.Lock", "trio.Lock", "threading.Lock", "threading.RLock"})
_CONTEXT_MANAGERS = frozenset({"asynccontextmanager", "contextmanager"})


def _held_around_yield(func: cst.BaseExpression, ctx: Context) -> bool:
    """``async with self._session():`` where the method ``_session`` is a context manager that hands out
    what it yields while holding a limiter or a lock the instance keeps (``async with self._lock:
    yield self._http``), on every path that yields: every caller waits for it, so whatever the caller
    does with it runs one (or the limiter's size) at a time."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls")):
        return False
    method = ctx.method(func.attr.value)
    if not isinstance(method, cst.FunctionDef):
        return False
    if not any((dotted(d.decorator) or "").rsplit(".", 1)[-1] in _CONTEXT_MANAGERS for d in method.decorators):
        return False
    yields = {id(n) for n in iter_nodes(method.body) if isinstance(n, cst.Yield)}
    held_yields: set[int] = set()
    for node in iter_nodes(method.body):
        if isinstance(node, cst.With) and any(_held(item.item, ctx) for item in node.items):
            held_yields.update(id(n) for n in iter_nodes(node.body) if isinstance(n, cst.Yield))
    return bool(yields) and yields <= held_yields  # a branch that yields without it hands the session out freely


def _held(held: cst.BaseExpression, ctx: Context) -> bool:
    """``self._lock`` / ``self._slots``: a lock or limiter the instance keeps."""
    if not (isinstance(held, cst.Attribute) and _on_instance(held)):
        return False
    values = [v for v in ctx.attr_values(held.attr.value) if isinstance(v, cst.Call)]
    return any((ctx.qualname(v.func) or "") in _LOCKS or is_limiter(v, ctx) for v in values)


def _on_instance(target: cst.BaseExpression) -> bool:
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
    return isinstance(target, cst.Name) and target.value in ("self", "cls")


def project_limiter(func: cst.BaseExpression, ctx: Context) -> Limit | None:
    """``"a limiter in `f` (path:line)"`` when *func* names a project helper, in any module, that enters one.

    ``async with catalog_slot():`` where ``limits.catalog_slot`` does
    ``async with _slots:`` on a module-level ``asyncio.Semaphore``.
    """
    ref = ctx.project_ref(func)
    answer = ctx.project.ask("limiter", ref) if ref is not None else None
    if not answer:
        return None
    where = answer[answer.rfind("(") + 1:-1] if answer.endswith(")") else ""
    return Limit(LIMITER, answer, where)


def _project_instance_limiter(expr: cst.BaseExpression, ctx: Context) -> bool | None:
    """For a limiter imported from another module (``from .limits import SLOTS``): whether it is one; else None."""
    ref = ctx.project_ref(expr) if ctx.names.resolve(expr) is not None else None
    if ref is None:
        return None
    answer = ctx.project.ask("instance_of", ref)
    if answer is None:
        return None
    short = answer.rsplit(".", 1)[-1]
    if answer in tables.table("limiters", ctx.settings) or short in tables.table("limiter-class-names", ctx.settings):
        return True
    return bool(ctx.project.ask("entered", answer))  # an instance of a project class whose entry takes a slot


def configured_limiter(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True when *expr* is, or calls, a name in the ``limiter-helpers`` option (qualified or as written).

    Teams wrap their semaphores in helpers (``async with app.pools.checkout():``)
    that no built-in rule can recognise; naming them in the config makes them limits.
    """
    helpers = tables.table("limiter-helpers", ctx.settings)
    if not helpers:
        return False
    target = expr.func if isinstance(expr, cst.Call) else expr
    if not isinstance(target, (cst.Name, cst.Attribute)):
        return False
    names = {ctx.qualname(target), dotted(target)}
    return any(n in helpers for n in names if n)


def _limiter_param(param: cst.Param) -> bool:
    if param.annotation is not None:
        text = dotted(param.annotation.annotation) or ""
        if text.rsplit(".", 1)[-1] in tables.table("limiter-class-names"):
            return True
    return bool(LIMITER_WORDS.search(param.name.value))


def callee_limit(func: cst.BaseExpression, ctx: Context, depth: int = 0) -> str | None:
    """``"semaphore in f"`` when the spawned callable acquires a limiter before its work
    (``with``, ``acquire()`` or ``acquire_nowait()``).

    *func* is the callable expression as spawned (``self._fetch``, a nested
    def's name, a lambda, ``functools.partial(f, ...)``).
    """
    if depth > 2:
        return None
    target = ctx.resolve_callable(func)
    if target is None:
        func = partial_target(func) or func
        return project_limiter(func, ctx) if isinstance(func, (cst.Name, cst.Attribute)) else None
    if isinstance(target, cst.Lambda):
        body = target.body
        if isinstance(body, cst.Await):
            body = body.expression
        if isinstance(body, cst.Call):
            return callee_limit(body.func, ctx, depth + 1)
        return None
    if not isinstance(target, cst.FunctionDef):
        return None
    from boundlint.analysis.limits.decorated import decorator_limit  # it asks is_limiter back

    wrapped = decorator_limit(target, ctx)
    if wrapped:
        return wrapped
    params = {p.name.value: p for p in (*target.params.params, *target.params.kwonly_params, *target.params.posonly_params)}
    for node in iter_nodes(target.body):
        if isinstance(node, cst.WithItem) and is_limiter(node.item, ctx, params) and not _per_call_limiter(node.item, target, ctx):
            return Limit(LIMITER, f"a limiter in `{target.name.value}`")
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in SLOT_GRABS:
            if is_limiter(node.func.value, ctx, params) and not _per_call_limiter(node.func.value, target, ctx):
                return Limit(LIMITER, f"a limiter in `{target.name.value}`")
    return _limit_below(target, ctx, depth) if depth < 2 else None


def passed_limiter(func: cst.BaseExpression, args: list[cst.Arg], ctx: Context) -> Limit | None:
    """A limiter the spawning code hands to each item's function: the function (*func*, resolved in
    this module) enters ``with`` or ``acquire()`` on one of its parameters, whatever its name, and the
    call passes there (*args*, as written at the call) a name that ``is_limiter`` finds a limiter
    where the spawn is (``slots = Semaphore(8)`` then ``gather(*(fetch(slots, u) for u in urls))``).
    None otherwise; a limiter built in the arguments themselves is one per item and is never counted
    (``unshared_limiter`` also rules out one built inside the spawning loop)."""
    target = ctx.resolve_callable(func)
    if not isinstance(target, cst.FunctionDef):
        return None
    names = [p.name.value for p in (*target.params.posonly_params, *target.params.params)]
    if names and names[0] in ("self", "cls") and isinstance(func, cst.Attribute):
        names = names[1:]
    given: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(a for a in args if a.keyword is None and a.star == ""):
        if position < len(names):
            given[names[position]] = arg.value
    given.update({a.keyword.value: a.value for a in args if a.keyword is not None})
    for node in iter_nodes(target.body):
        held = node.item if isinstance(node, cst.WithItem) else (
            node.func.value if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in SLOT_GRABS else None)
        if not isinstance(held, cst.Name) or not isinstance(given.get(held.value), (cst.Name, cst.Attribute)):
            continue
        if is_limiter(given[held.value], ctx):
            shown = dotted(given[held.value])
            return Limit(LIMITER, f"the limiter `{shown}` passed to `{target.name.value}()`, which holds it")
    return None


def _limit_below(target: cst.FunctionDef, ctx: Context, depth: int = 0) -> Limit | None:
    """A limiter one or two calls further down: the spawned *target* awaits a project function (this
    module's, a method of ``self``, or another module's) that enters a shared limiter, or awaits one
    that does so itself (*depth* 1), and nothing else it calls reaches a dependency, so every
    dependency call waits for a slot."""
    from boundlint.analysis.facts import dependency  # facts read the analysis, not the other way round at import

    found, limited, rest = None, set(), []
    for node in iter_nodes(target.body):
        if isinstance(node, cst.Await) and isinstance(node.expression, cst.Call):
            func = node.expression.func
            limit = callee_limit(func, ctx, depth + 1) if isinstance(func, (cst.Name, cst.Attribute)) else None
            if limit:
                found = found or limit
                limited.update(id(n) for n in iter_nodes(node.expression))
        elif isinstance(node, cst.Call):
            rest.append(node)
    if found is None:
        return None
    chain = [*ctx.ancestors, target]
    for call in rest:
        if id(call) not in limited and dependency.reaches([call], chain, ctx)[0] == dependency.YES:
            return None  # a dependency call that does not wait for the limiter
    return Limit(LIMITER, f"{found} called by `{target.name.value}`", getattr(found, "where", ""))


def _limiter_constructor(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True for a call that builds a limiter: a known limiter type, a project class whose entry takes a slot,
    or a project function that builds and returns one."""
    if not isinstance(expr, cst.Call):
        return False
    q = ctx.qualname(expr.func) or dotted(expr.func) or ""
    return (q in tables.table("limiters", ctx.settings) or q.rsplit(".", 1)[-1] in tables.table("limiter-class-names", ctx.settings)
            or _entered_class(expr.func, ctx) or _built_by_project(expr.func, ctx))


def _entered_class(func: cst.BaseExpression, ctx: Context) -> bool:
    """True when *func* names a project class (any module) whose ``__aenter__`` / ``__enter__`` takes a
    limiter's slot: a call of it builds a limiter (``_SOCKETS = Gate(64)``)."""
    ref = ctx.project_ref(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
    return bool(ref and ctx.project.ask("entered", ref))


def _per_call_limiter(expr: cst.BaseExpression, target: cst.FunctionDef, ctx: Context) -> bool:
    """True when the spawned function builds the limiter itself (``sem = Semaphore(10)`` in its body).

    Each task then holds its own semaphore, shared with nobody: it bounds nothing.
    """
    if _limiter_constructor(expr, ctx):
        return True
    if not isinstance(expr, cst.Name):
        return False
    for node in iter_nodes(target.body):
        if isinstance(node, cst.Assign) and _limiter_constructor(node.value, ctx):
            if any(isinstance(t.target, cst.Name) and t.target.value == expr.value for t in node.targets):
                return True
    return False


def loop_backpressure(loop: Loop, site: cst.CSTNode, ctx: Context, held: bool = True) -> str | None:
    """Why the loop cannot run ahead of its workers, or None.

    Counts ``await sem.acquire()`` in the loop body, a limiter ``with``
    around the spawn inside the loop, and a length check on in-flight work
    whose branch waits (``if len(pending) >= N: await asyncio.wait(...)``).
    With *held* false a limiter ``with`` does not count: it is released as
    soon as a task is started, not when the task ends.
    """
    for item in ctx.frame.withs if held else ():
        if is_limiter(item.item, ctx):
            return Limit(LOOP_LIMITER, "a limiter held by the spawning loop")
    body = loop.node.body if loop.kind in ("for", "while") else None
    if body is None:
        return None
    for node in iter_nodes(body):
        if isinstance(node, cst.Call):
            name = (dotted(node.func) or "").rsplit(".", 1)[-1]
            if "acquire" in name:
                return Limit(LOOP_SLOT, "a slot acquired by the spawning loop")
        if isinstance(node, (cst.If, cst.While)) and (_len_compare(node.test) or _inflight_compare(node.test)):
            if _waits_or_leaves(node.body):
                return Limit(INFLIGHT, "a check on in-flight work")
    return None


_INFLIGHT = re.compile(r"inflight|in_flight|running|active|pending|outstanding|concurrent|busy", re.I)


def _inflight_compare(test: cst.BaseExpression) -> bool:
    """``inflight >= MAX``-style: a comparison on a counter of running work."""
    if not isinstance(test, cst.Comparison):
        return False
    sides = [test.left, *(c.comparator for c in test.comparisons)]
    return any(_INFLIGHT.search((dotted(side) or "").rsplit(".", 1)[-1]) for side in sides)


def _waits_or_leaves(body: cst.CSTNode) -> bool:
    for n in iter_nodes(body):
        if isinstance(n, (cst.Await, cst.Continue, cst.Break, cst.Return, cst.Raise)):
            return True
        if isinstance(n, cst.Call) and (dotted(n.func) or "").endswith(("wait", "result", "join", "sleep")):
            return True
    return False


def _len_compare(test: cst.BaseExpression) -> bool:
    if length_guard(test) is not None:
        return True
    if isinstance(test, cst.Comparison):
        return len_argument_key(test.left) is not None or any(len_argument_key(c.comparator) is not None for c in test.comparisons)
    return False
