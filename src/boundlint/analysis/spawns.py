"""Recognising the calls that start concurrent work (the fan-out sites).

``spawn_of(call, ctx)`` says whether a call starts work concurrently and
what runs per item: ``asyncio.gather`` / ``wait`` / ``as_completed`` over
new coroutines, ``create_task`` / ``ensure_future`` / task-group and nursery
``start_soon`` / ``start``, ``run_in_executor``, executor ``submit`` / ``map``,
and ``Thread(...).start()``.  Receivers are recognised by how they were
bound (``async with asyncio.TaskGroup() as tg``, ``anyio.create_task_group()``,
``trio.open_nursery()``, an annotation, an executor constructor), with a
few conventional names (``tg``, ``nursery``, ``loop``, ``executor``) as the
fallback.  Shared by the fan-out rules, the worker-side rules of the other
families and the audit.  ``new_awaitables`` tells new coroutines handed to
``gather`` / ``wait`` from tasks that already exist.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from boundlint import tables

from boundlint.analysis.context import Context, Loop, empty_collection, fills_since_empty
from boundlint.analysis.names import dotted

TASK_GROUP_FACTORIES = frozenset(tables.TABLES["task-groups"].entries)  # defaults; judgement reads the table
TASK_GROUP_TYPES = frozenset({"TaskGroup", "Nursery"})
_TG_NAMES = re.compile(r"^_?(tg|task_group|taskgroup|nursery|_nursery|group)$|_tg$|nursery", re.I)
LOOP_FACTORIES = frozenset({"asyncio.get_event_loop", "asyncio.get_running_loop", "asyncio.new_event_loop"})
_LOOP_NAMES = frozenset({"loop", "_loop", "event_loop", "_event_loop", "ioloop"})
EXECUTOR_TYPES = frozenset(tables.TABLES["executors"].entries)
_EXECUTOR_NAMES = re.compile(r"executor|(^|_)pool$", re.I)
THREAD_TYPES = frozenset(tables.TABLES["threads"].entries)
# Green-thread spawns: one greenlet per call, nothing waits for a free slot (a gevent Pool's spawn does).
GREENLET_SPAWNS = frozenset({"gevent.spawn", "gevent.spawn_later", "eventlet.spawn", "eventlet.spawn_n", "eventlet.spawn_after"})
_POOL_METHODS = frozenset({"submit", "map", "imap", "imap_unordered", "starmap", "apply_async", "map_async", "starmap_async"})


@dataclass(frozen=True)
class Spawn:
    """A call that starts concurrent work.

    ``kind``: ``gather`` (awaits a set of awaitables), ``task`` (starts one
    task per call), ``thread`` (starts one thread or process), ``pool``
    (hands work to an executor or pool).  ``api`` names the call for
    messages; ``target`` is the callable run per item (or None);
    ``receiver`` the task group / executor expression, if any.
    """

    kind: str
    api: str
    call: cst.Call
    target: cst.BaseExpression | None = None
    receiver: cst.BaseExpression | None = None


def _first_positional(call: cst.Call, index: int = 0) -> cst.BaseExpression | None:
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    return positional[index].value if len(positional) > index else None


def _kwarg(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    return None


def _bound_values(expr: cst.BaseExpression, ctx: Context) -> list[cst.BaseExpression]:
    """Values a Name or ``self.attr`` was bound to (assignment or ``with ... as``), latest first."""
    if type(expr) is cst.Name:
        bound = ctx.lookup(expr.value)
        return [v for v in reversed(bound[1]) if v is not None] if bound else []
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value in ("self", "cls"):
        return list(reversed(ctx.attr_values(expr.attr.value)))
    return []


def _annotation_short(expr: cst.BaseExpression, ctx: Context) -> str:
    if type(expr) is cst.Name:
        param = ctx.lookup_param(expr.value)
        if param is not None and param.annotation is not None:
            return (dotted(param.annotation.annotation) or "").rsplit(".", 1)[-1]
    return ""


def _call_name(value: cst.BaseExpression, ctx: Context) -> str:
    if type(value) is cst.Await:
        value = value.expression
    if type(value) is not cst.Call:
        return ""
    return ctx.qualname(value.func) or dotted(value.func) or ""


def group_factory(name: str, settings: object = None) -> bool:
    """True when the call named *name* makes a task group or nursery (the ``task-groups`` table, or its
    last part written as asyncio / anyio / trio spell it)."""
    return name in tables.table("task-groups", settings) or name.rsplit(".", 1)[-1] in ("TaskGroup", "create_task_group", "open_nursery")


def is_task_group(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True for an asyncio TaskGroup, anyio task group or trio nursery binding."""
    values = _bound_values(expr, ctx)
    for v in values:
        name = _call_name(v, ctx)
        if group_factory(name, ctx.settings):
            return True
    if values:
        return False
    if _annotation_short(expr, ctx) in TASK_GROUP_TYPES:
        return True
    name = dotted(expr) or ""
    return bool(_TG_NAMES.search(name.rsplit(".", 1)[-1]))


def is_event_loop(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True for an asyncio event loop binding."""
    values = _bound_values(expr, ctx)
    for v in values:
        name = _call_name(v, ctx)
        if name in LOOP_FACTORIES or name.rsplit(".", 1)[-1] in ("get_event_loop", "get_running_loop", "new_event_loop"):
            return True
    if values:
        return False
    if _annotation_short(expr, ctx) in ("AbstractEventLoop", "BaseEventLoop"):
        return True
    if type(expr) is cst.Call and not expr.args and _call_name(expr, ctx) in LOOP_FACTORIES:
        return True  # asyncio.get_event_loop().create_task(...)
    name = dotted(expr) or ""
    return name.rsplit(".", 1)[-1] in _LOOP_NAMES or name.endswith("get_event_loop()")


def executor_constructor(expr: cst.BaseExpression, ctx: Context) -> cst.Call | None:
    """The executor or pool constructor call *expr* was bound to, if known.

    Also a call of an executor factory (``executor_factory(max_workers=n)``,
    ``self._make_pool()``): see ``executor_factory``.
    """
    for v in [expr, *_bound_values(expr, ctx)]:
        if type(v) is cst.Call:
            if _executor_class_call(v, ctx) or executor_factory(v, ctx):
                return v
    return None


def _executor_class_call(v: cst.Call, ctx: Context) -> bool:
    name = ctx.qualname(v.func) or dotted(v.func) or ""
    short = name.rsplit(".", 1)[-1]
    if name in tables.table("executors", ctx.settings) or short in ("ThreadPoolExecutor", "ProcessPoolExecutor", "ThreadPool"):
        return True
    return short == "Pool" and (name.startswith("multiprocessing") or name == "Pool" and bool(ctx.names.resolve_name("Pool")))


# Callables named for what they return: executor_factory, self._pool_factory, make_executor, executor_cls.
_FACTORY_NAMES = re.compile(
    r"(?:executor|pool)_?(?:factory|cls|class|type|maker)$|^_*(?:make|new|create|build|get|open)_\w*(?:executor|pool)$", re.I)


def executor_factory(call: cst.Call, ctx: Context, depth: int = 0) -> cst.FunctionDef | bool:
    """True (or the factory's def) when *call* returns a new executor or pool.

    Evidence first: a same-module function or method whose body returns an
    executor constructor (or another factory's call), or whose return
    annotation names an ``Executor`` / ``Pool``.  Else the callable's name
    says so (``executor_factory(...)``, ``self.pool_cls(...)``,
    ``make_executor(...)``): such factories are usually injected.
    """
    if depth > 2:
        return False
    target = ctx.resolve_callable(call.func)
    if type(target) is cst.FunctionDef:
        if target.returns is not None:
            returned = (dotted(target.returns.annotation) or "").rsplit(".", 1)[-1]
            if returned.endswith(("Executor", "Pool")):
                return target
        for node in _returns(target, ctx):
            if type(node) is cst.Call and (_executor_class_call(node, ctx) or executor_factory(node, ctx, depth + 1)):
                return target
        return False
    name = (dotted(call.func) or "").rsplit(".", 1)[-1]
    return bool(_FACTORY_NAMES.search(name))


def _returns(func: cst.FunctionDef, ctx: Context | None = None) -> list[cst.BaseExpression]:
    from boundlint.analysis.limits import iter_nodes  # limits imports this module's neighbours

    memo = ctx.cache.setdefault("spawns.returns", {}) if ctx is not None else {}
    found = memo.get(id(func))  # executor_factory asks for the same callee at each of its calls
    if found is None:
        found = memo[id(func)] = [n.value for n in iter_nodes(func.body) if type(n) is cst.Return and n.value is not None]
    return found


def pool_size(ctor: cst.Call, ctx: Context | None = None) -> cst.BaseExpression | None:
    """The size expression of an executor or pool, in the caller's terms, or None (the default).

    ``max_workers=`` / ``processes=`` or the first positional argument; for a
    same-module factory whose returned constructor is sized by one of its
    parameters (``def make_pool(n): return ThreadPoolExecutor(n)``), the
    argument *ctor* passes for that parameter.
    """
    own = _size_argument(ctor)
    if own is not None or ctx is None:
        return own
    factory = executor_factory(ctor, ctx)
    if type(factory) is not cst.FunctionDef:
        return None
    params = [p.name.value for p in (*factory.params.posonly_params, *factory.params.params)]
    if params and params[0] in ("self", "cls") and type(ctor.func) is cst.Attribute:
        params = params[1:]
    for node in _returns(factory, ctx):
        inner = _size_argument(node) if type(node) is cst.Call else None
        if type(inner) is cst.Name:
            for index, arg in enumerate(a for a in ctor.args if a.star == ""):
                if (arg.keyword is not None and arg.keyword.value == inner.value) or (
                        arg.keyword is None and index < len(params) and params[index] == inner.value):
                    return arg.value
    return None


def _size_argument(ctor: cst.Call) -> cst.BaseExpression | None:
    for a in ctor.args:
        if a.keyword is not None and a.keyword.value in ("max_workers", "processes"):
            return a.value
    positional = [a for a in ctor.args if a.keyword is None and a.star == ""]
    return positional[0].value if positional else None


def is_executor(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True for a concurrent.futures executor or multiprocessing pool binding."""
    if executor_constructor(expr, ctx) is not None:
        return True
    if _bound_values(expr, ctx):
        return False
    if _annotation_short(expr, ctx).endswith(("Executor", "Pool")):
        return True
    name = dotted(expr) or ""
    return bool(_EXECUTOR_NAMES.search(name.rsplit(".", 1)[-1]))


def thread_constructor(expr: cst.BaseExpression, ctx: Context) -> cst.Call | None:
    """The ``threading.Thread(...)`` / ``multiprocessing.Process(...)`` call behind *expr*."""
    candidates = [expr, *_bound_values(expr, ctx)]
    if type(expr) is cst.Name:
        loop = ctx.loop_with_target(expr.value)
        if loop is not None and loop.iter is not None:
            collection = _collection_of(loop.iter)
            for source in [collection, *_bound_values(collection, ctx)]:
                if isinstance(source, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
                    candidates.append(source.elt)
                elif type(source) is cst.DictComp:
                    candidates.append(source.value)
            for fill, _loops in _filled(collection, ctx):  # jobs.append(Process(...)) / threads[k] = Thread(...)
                if fill.how != "extend":
                    candidates.extend([fill.value, *_bound_values(fill.value, ctx)])
    for v in candidates:
        if type(v) is cst.Call:
            name = ctx.qualname(v.func) or ""
            if name in tables.table("threads", ctx.settings) or (type(v.func) is cst.Name and thread_subclass(v.func.value, ctx)):
                return v
    return None


def _collection_of(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``jobs`` for ``jobs``, ``jobs.values()``, ``list(jobs)``: the collection an iteration walks."""
    if type(expr) is cst.Call and not expr.args:
        if type(expr.func) is cst.Attribute and expr.func.attr.value == "values":
            return expr.func.value
    if type(expr) is cst.Call and len(expr.args) == 1 and dotted(expr.func) in ("list", "tuple", "set"):
        return _collection_of(expr.args[0].value)
    return expr


def _filled(expr: cst.BaseExpression, ctx: Context) -> list:
    """The ``(Fill, loops)`` of a local collection *expr* built empty then filled, else ``[]``."""
    if type(expr) is not cst.Name:
        return []
    bound = ctx.lookup(expr.value)
    if bound is None or not bound[1] or not empty_collection(bound[1][-1]):
        return []
    return fills_since_empty(bound[0], expr.value) or []


def thread_subclass(name: str, ctx: Context, depth: int = 0) -> bool:
    """True when *name* is a same-module class derived (directly or not) from ``threading.Thread`` / ``Process``."""
    cls = ctx.index.classes.get(name)
    if cls is None or depth > 3:
        return False
    for base in cls.bases:
        if (ctx.qualname(base.value) or "") in tables.table("threads", ctx.settings):
            return True
        if type(base.value) is cst.Name and base.value.value != name and thread_subclass(base.value.value, ctx, depth + 1):
            return True
    return False


def spawn_of(call: cst.Call, ctx: Context) -> Spawn | None:
    """The Spawn *call* performs, or None when it starts no concurrent work."""
    func = call.func
    q = ctx.qualname(func)
    if q is not None:
        if q in ("asyncio.gather", "asyncio.wait", "asyncio.as_completed"):
            return Spawn("gather", q, call)
        if q in ("asyncio.create_task", "asyncio.ensure_future"):
            inner = _first_positional(call)
            return Spawn("task", q, call, inner.func if type(inner) is cst.Call else None)
        if q in GREENLET_SPAWNS:
            index = 1 if q.endswith(("_later", "_after")) else 0
            return Spawn("task", q, call, _first_positional(call, index))
    if type(func) is not cst.Attribute:
        return None
    method, receiver = func.attr.value, func.value
    if method == "create_task":
        if is_task_group(receiver, ctx) or is_event_loop(receiver, ctx):
            inner = _first_positional(call)
            return Spawn("task", f"{short_receiver(receiver)}.create_task", call,
                         inner.func if type(inner) is cst.Call else None, receiver)
        return None
    if method == "start_soon" or (method == "start" and is_task_group(receiver, ctx)):
        return Spawn("task", f"{short_receiver(receiver)}.{method}", call, _first_positional(call), receiver)
    if method == "run_in_executor":
        executor = _first_positional(call)
        if executor is not None and executor_constructor(executor, ctx) is not None:
            # a known pool (not the loop's default executor): bounded by its size, like its own submit
            return Spawn("pool", f"{short_receiver(receiver)}.run_in_executor", call, _first_positional(call, 1), executor)
        return Spawn("task", f"{short_receiver(receiver)}.run_in_executor", call, _first_positional(call, 1), receiver)
    if method in _POOL_METHODS and is_executor(receiver, ctx):
        return Spawn("pool", f"{short_receiver(receiver)}.{method}", call, _first_positional(call), receiver)
    if method == "start" and not call.args:
        ctor = thread_constructor(receiver, ctx)
        if ctor is not None:
            return Spawn("thread", (ctx.qualname(ctor.func) or "Thread") + "(...).start", call, _kwarg(ctor, "target"), receiver)
    return None


def spawned_work(spawn: Spawn) -> tuple[cst.CSTNode, ...]:
    """The per-item work of *spawn*: its arguments and its target, not the spawning call itself (``tg.start_soon``
    only hands the work over; it is no call out of sight that waits on I/O).  ``run_in_executor`` stays:
    it says the work runs on the loop's thread pool (``analysis.facts.dependency.pooled``)."""
    if spawn.api.endswith("run_in_executor"):
        return (spawn.call,) if spawn.target is None else (spawn.call, spawn.target)
    # a name handed along (`start_soon(fetch, job)`) is an argument, not a call: only the target is run
    work = tuple(arg.value for arg in spawn.call.args
                 if arg.value is not spawn.target and not isinstance(arg.value, (cst.Name, cst.Attribute)))
    return work if spawn.target is None else (*work, spawn.target)


def short_receiver(expr: cst.BaseExpression) -> str:
    """``tg`` / ``self._tg`` / ``loop`` as written, or ``<expr>`` when not a plain name."""
    return dotted(expr) or "<expr>"


@dataclass(frozen=True)
class NewAwaitables:
    """A dynamically sized collection of new coroutines handed to gather/wait."""

    loops: tuple[Loop | cst.CompFor, ...]
    sources: tuple[cst.BaseExpression, ...]
    target: cst.BaseExpression | None


def _is_spawn_call(value: cst.BaseExpression, ctx: Context) -> bool:
    return type(value) is cst.Call and spawn_of(value, ctx) is not None


def new_awaitables(expr: cst.BaseExpression, ctx: Context, depth: int = 0) -> NewAwaitables | None:
    """How *expr* builds coroutines per item, or None when it holds existing tasks or a fixed set."""
    if depth > 3:
        return None
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        elt = expr.elt
        if type(elt) is cst.Call and not _is_spawn_call(elt, ctx):
            fors, comp_for = [], expr.for_in
            while comp_for is not None:
                fors.append(comp_for)
                comp_for = comp_for.inner_for_in
            return NewAwaitables(tuple(fors), tuple(f.iter for f in fors), elt.func)
        return None
    if type(expr) is cst.Call and dotted(expr.func) == "map" and len(expr.args) >= 2:
        return NewAwaitables((), (expr.args[1].value,), expr.args[0].value)
    if type(expr) is cst.Call and isinstance(_collection_of(expr), cst.Name):
        return new_awaitables(_collection_of(expr), ctx, depth + 1)  # gather(*coros.values())
    if type(expr) is cst.Name:
        bound = ctx.lookup(expr.value)
        if bound is None or not bound[1] or bound[1][-1] is None:
            return None
        value = bound[1][-1]
        if empty_collection(value):
            return _filled_awaitables(expr, ctx, depth)
        return new_awaitables(value, ctx, depth + 1)
    return None


def _filled_awaitables(expr: cst.Name, ctx: Context, depth: int) -> NewAwaitables | None:
    """New coroutines added to an empty collection: ``coros.append(fetch(x))`` / ``coros[x] = fetch(x)``
    in a loop, or ``coros.extend(fetch(x) for x in xs)``.  The loops are every loop around the fill
    that was not already around the empty binding, outermost first."""
    for fill, loops in _filled(expr, ctx):
        if fill.how == "extend":
            built = new_awaitables(fill.value, ctx, depth + 1)
            if built is not None:
                outer = tuple(loop for loop in loops if loop.iter is not None)
                return NewAwaitables(tuple(loops) + built.loops, tuple(l.iter for l in outer) + built.sources, built.target)
            continue
        value = fill.value
        if type(value) is cst.Name:  # coro = fetch(x); coros.append(coro)
            values = _bound_values(value, ctx)
            value = values[0] if values else value
        if type(value) is cst.Call and not _is_spawn_call(value, ctx) and loops:
            return NewAwaitables(tuple(loops), tuple(l.iter for l in loops if l.iter is not None), value.func)
    return None
