"""BND1xx unbounded fan-out: one concurrent task, thread or coroutine per input item.

The incident behind boundlint: one RPC handler turned a 20,000-item request
into 20,000 concurrent cache calls.  Every rule here reports on the call that
spawns the work, and stays quiet when ``boundlint.analysis.limits`` finds a
concurrency limit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.names import dotted
from boundlint.analysis.spawns import (
    NewAwaitables, Spawn, executor_constructor, is_event_loop, is_task_group, new_awaitables, spawn_of,
)
from boundlint.rules.base import Example, Rule, short

_LIMITS_DOC = """
    ## What counts as a limit
    - a fixed set of awaitables: `gather(a(), b())`, a starred literal;
    - a bounded source: a literal (also a view of one, `{...}.items()`, or
      the words of a string literal, `"a b".split()`), `range(N)` with a
      constant `N` (or `range(len(X))` of a constant collection), a slice
      `xs[:N]`, `itertools.islice(xs, N)`, a constant (UPPER_CASE) name, an
      enum, the `fields()` of a dataclass or attrs class;
    - fixed-size batches: `itertools.batched(xs, N)`, or
      `range(0, len(xs), N)` with `xs[i:i + N]`;
    - the spawned function (same module: nested def, method, lambda,
      `functools.partial`) enters `async with` / `with` on a semaphore,
      `BoundedSemaphore`, anyio/trio `CapacityLimiter` or
      `aiolimiter.AsyncLimiter` (or acquires one), also when it is passed in,
      or one of your own limiter helpers named in the `limiter-helpers`
      option; the limiter's own size must not come from `len()` of the input,
      and every task must share it (a `Semaphore(N)` the spawned function
      builds itself, or one built per item in the spawning loop, is one per
      task and bounds nothing);
    - the spawning loop waits for capacity: `await sem.acquire()`, or a
      `len(pending) >= N` check that awaits in-flight work (a semaphore held
      around the spawn does not count: it is released once the task starts);
    - a dominating guard earlier in the function: `if len(xs) > N: raise`
      (or `return`, `abort(...)`, an abort helper such as
      `abort_invalid(...)` or a same-module function that ends by raising),
      also written `if not 0 < len(xs) <= N:`, `if (n := len(xs)) > N:`,
      `if len(xs) > N or len(ys) > M:`, through `n = len(xs)`, or
      `assert len(xs) <= N`, or a same-module helper called first that
      does such a check (`validate(xs)`) or a same-module predicate in the
      test (`if too_many(xs): raise`); or an enclosing
      `if len(xs) <= N:` block;
    - a collection sized by configuration, not by a request: iterating a
      `*args` parameter (the caller's fixed arguments) or `sys.argv`, or a
      name such as `servers`, `workers`, `shards`, `nodes`, `callbacks`,
      `deployments`, `regions` (the `bounded-names` option adds more);
    - work that releases what exists (`close`, `disconnect`, `cancel`,
      `kill`, `wait`, `join` per item), or a task awaited before the next
      iteration (`await loop.run_in_executor(...)`, `task = create_task(...)`
      then `await task`, `t.start()` then `t.join()`).
"""


def _doc(text: str) -> str:
    return text + _LIMITS_DOC


@dataclass(frozen=True)
class Unbounded:
    """An unbounded loop behind a fan-out, with the expression it iterates (for messages)."""

    loop: Loop
    source: str


def _loop_source(loop: Loop) -> str:
    if loop.iter is not None:
        return short(loop.iter)
    return "while " + short(loop.test) if loop.test is not None else "a loop"


def unbounded_loop(loops: list[Loop], ctx: Context) -> Unbounded | None:
    """The innermost loop of *loops* that runs an unbounded number of times, or None."""
    for loop in reversed(loops):
        if limits.loop_limit(loop, ctx) is None:
            return Unbounded(loop, _loop_source(loop))
    return None


def spawn_limit(spawn: Spawn, loops: list[Loop], ctx: Context) -> tuple[Unbounded | None, str | None]:
    """``(unbounded loop, None)`` for an unbounded spawn site, else ``(loop or None, limit)``."""
    found = unbounded_loop(loops, ctx)
    if found is None:
        return None, "bounded loops"
    if limits.teardown_call(spawn.target):
        return found, "releases existing resources"
    if awaited_in_iteration(spawn, found.loop, ctx):
        return found, "awaited before the next iteration"
    if spawn.target is not None and not unshared_limiter(spawn.call, ctx, found.loop):
        limit = limits.callee_limit(spawn.target, ctx)
        if limit:
            return found, limit
    # a limiter held around the spawn is released once the task starts, not when it ends
    limit = limits.loop_backpressure(found.loop, spawn.call, ctx, held=False)
    if limit:
        return found, limit
    return found, None


def _limiter_call(node: cst.CSTNode, ctx: Context) -> bool:
    if not isinstance(node, cst.Call):
        return False
    q = ctx.qualname(node.func) or dotted(node.func) or ""
    return q in limits.LIMITER_TYPES or q.rsplit(".", 1)[-1] in limits.LIMITER_CLASS_NAMES


def unshared_limiter(call: cst.Call, ctx: Context, loop: Loop | None = None) -> bool:
    """True when *call* hands its tasks a limiter that bounds nothing.

    The spawned function acquires it, but it is sized from the input
    (``sem = Semaphore(len(names))``: a slot per item), or it is a new one
    per item: built in the spawn's arguments or inside the spawning *loop*.
    """
    for node in limits.iter_nodes(call):
        if _limiter_call(node, ctx):
            return True
        if not isinstance(node, cst.Name):
            continue
        bound = ctx.lookup(node.value)
        for value in bound[1] if bound else ():
            if not _limiter_call(value, ctx):
                continue
            if value.args and limits.size_from_input(value.args[0].value, ctx):
                return True
            if loop is not None and any(n is value for n in limits.iter_nodes(loop.node)):
                return True
    return False


_WAIT_WRAPPERS = frozenset({"wait_for", "shield", "wait", "timeout"})


def awaited_in_iteration(spawn: Spawn, loop: Loop, ctx: Context) -> bool:
    """True when the spawned task is awaited within the same loop iteration (sequential work).

    Covers ``await loop.run_in_executor(...)``, ``await asyncio.wait_for(create_task(...), t)``
    and ``task = create_task(...)`` followed by ``await task`` / ``asyncio.wait({task}, ...)`` /
    ``task.result()`` in the loop body.
    """
    if spawn.kind == "thread" and isinstance(spawn.receiver, cst.Name) and loop.kind in ("for", "while"):
        # t.start(); t.join(): the thread ends before the next one starts
        for node in limits.iter_nodes(loop.node.body):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "join":
                if isinstance(node.func.value, cst.Name) and node.func.value.value == spawn.receiver.value:
                    return True
    parents = ctx.ancestors
    parent = parents[-1] if parents else None
    if isinstance(parent, cst.Await):
        return spawn.kind == "task" and not spawn.api.endswith((".start", ".start_soon"))
    if isinstance(parent, cst.Arg) and len(parents) >= 3 and isinstance(parents[-2], cst.Call):
        wrapper = (dotted(parents[-2].func) or "").rsplit(".", 1)[-1]
        if wrapper in _WAIT_WRAPPERS and isinstance(parents[-3], cst.Await):
            return True
    if loop.kind not in ("for", "while"):
        return False
    name = None
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        name = parent.targets[0].target.value
    elif isinstance(parent, cst.AnnAssign) and isinstance(parent.target, cst.Name):
        name = parent.target.value
    if name is None:
        return False
    for node in limits.iter_nodes(loop.node.body):
        if isinstance(node, cst.Await):
            inner = node.expression
            if isinstance(inner, cst.Name) and inner.value == name:
                return True
            if isinstance(inner, cst.Call) and _mentions(inner, name):
                return True
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "result":
            if isinstance(node.func.value, cst.Name) and node.func.value.value == name:
                return True
    return False


def _mentions(call: cst.Call, name: str) -> bool:
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Name) and value.value == name:
            return True
        if isinstance(value, (cst.Set, cst.List, cst.Tuple)):
            if any(isinstance(e.value, cst.Name) and e.value.value == name for e in value.elements):
                return True
    return False


def region_loops(spawn: Spawn, ctx: Context) -> list[Loop]:
    """The loops that multiply a spawn: for a task group bound by ``with`` here, only those inside it."""
    loops = ctx.frame.loops
    receiver = spawn.receiver
    if receiver is not None and isinstance(receiver, cst.Name) and is_task_group(receiver, ctx):
        for index, item in enumerate(ctx.frame.withs):
            asname = item.asname.name if item.asname is not None else None
            if isinstance(asname, cst.Name) and asname.value == receiver.value:
                inside = [loop for loop in loops if _withs_depth(loop, ctx) > index]
                return inside
    return loops


def _withs_depth(loop: Loop, ctx: Context) -> int:
    # A loop is inside a with item when the with node is one of the loop node's ancestors.
    try:
        loop_pos = ctx.ancestors.index(loop.node if loop.kind != "comp" else loop.owner)
    except ValueError:
        return len(ctx.frame.withs)
    depth = 0
    for node in ctx.ancestors[:loop_pos]:
        if isinstance(node, cst.With):
            depth += len(node.items)
    return depth


# -- BND101 ---------------------------------------------------------------------

class UnboundedGather(Rule):
    __doc__ = _doc("""
    ## What it does
    Flags `asyncio.gather()` (and `asyncio.wait()` / `asyncio.as_completed()`
    handed bare coroutines) over a collection of new coroutines whose size the
    input decides: a starred comprehension, generator, `map()`, or a list built
    in a loop.

    ## Why is this bad?
    `gather` starts every coroutine at once.  A request with 20,000 items opens
    20,000 concurrent calls to the dependency behind them: the connection pool
    overflows, sockets pile up in TIME_WAIT, and the error handling of each
    failed call multiplies the damage.  Nothing applies backpressure.
    """)
    code, name = "BND101", "unbounded-gather"
    prefilter = re.compile(r"\b(?:gather|wait|as_completed)\b")
    message = "`{call}` starts one coroutine per item of `{source}` with no concurrency limit"
    hint = "acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches"
    invalid = (
        Example("starred_generator", """
            import asyncio

            async def handler(ids):
                return await asyncio.gather(*(fetch(i) for i in ids))  # error: BND101 col 18
            """),
        Example("list_built_in_loop", """
            import asyncio

            async def build_all(sources):
                jobs = []
                for src in sources:
                    jobs.append(compile_one(src))
                await asyncio.gather(*jobs)  # error: BND101 col 11
            """),
    )
    valid = (
        Example("semaphore_per_task", """
            import asyncio

            async def handler(ids):
                sem = asyncio.Semaphore(20)

                async def one(i):
                    async with sem:
                        return await fetch(i)

                return await asyncio.gather(*(one(i) for i in ids))
            """),
        Example("fixed_arguments", """
            import asyncio

            async def load():
                return await asyncio.gather(fetch_users(), fetch_documents())
            """),
        Example("fixed_batches", """
            import asyncio
            import itertools

            async def handler(ids):
                for batch in itertools.batched(ids, 50):
                    await asyncio.gather(*(fetch(i) for i in batch))
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        q = ctx.qualname(node.func)
        if q not in ("asyncio.gather", "asyncio.wait", "asyncio.as_completed"):
            return
        if q == "asyncio.gather":
            candidates = [a.value for a in node.args if a.star == "*"]
        else:
            first = next((a.value for a in node.args if a.keyword is None and a.star == ""), None)
            candidates = [first] if first is not None else []
        for expr in candidates:
            built = new_awaitables(expr, ctx)
            if built is None:
                chain = _callers_spawn(expr, ctx)
                if chain:
                    self.report(node, chain, call=short(node.func) + "(...)", source=short(expr))
                    return
                continue
            if self._bounded(built, ctx, node):
                continue
            source = built.sources[0] if built.sources else expr
            self.report(node, call=short(node.func) + "(...)", source=short(source))
            return

    @staticmethod
    def _bounded(built: NewAwaitables, ctx: Context, call: cst.Call | None = None) -> bool:
        if limits.teardown_call(built.target):
            return True
        if built.target is not None and limits.callee_limit(built.target, ctx) and not (call and unshared_limiter(call, ctx)):
            return True
        if not built.sources:
            return False
        for item in built.loops:
            if isinstance(item, Loop) and item.kind == "while":
                if limits.loop_limit(item, ctx) is None:
                    return False
        return all(limits.source_limit(s, ctx) or limits.batch_limit(s, ctx) for s in built.sources if s is not None)


def _callers_spawn(expr: cst.BaseExpression, ctx: Context) -> list[str] | None:
    """The chain when *expr* is a parameter that callers, in any module, fill with one new coroutine
    per item of request input (``run_all(jobs)`` called with ``[refresh(a) for a in account_ids]``)."""
    if not ctx.project or not isinstance(expr, cst.Name) or ctx.lookup_param(expr.value) is None:
        return None
    qual = ctx.function_qualname()
    if qual is None:
        return None
    return ctx.project.ask("spawn_sources", ctx.project.ref(None, qual), expr.value)  # type: ignore[return-value]


# -- BND102 / BND103 --------------------------------------------------------------

class UnboundedTaskSpawn(Rule):
    __doc__ = _doc("""
    ## What it does
    Flags a task started per item of an unbounded loop or comprehension:
    `TaskGroup.create_task`, anyio `start_soon` / `start`, trio nursery
    `start_soon` / `start`, `asyncio.create_task`, `asyncio.ensure_future`,
    `loop.create_task`, `loop.run_in_executor`, and gevent / eventlet
    `spawn` (a greenlet per call); also such a function applied by `map()`
    (`map(asyncio.create_task, coros)`).

    ## Why is this bad?
    Each iteration starts another concurrent task and nothing waits for a
    free slot, so the number of tasks in flight grows with the input (or with
    the rate of a stream).  One large batch or a burst of messages becomes
    thousands of concurrent calls to the dependency behind them.
    """)
    code, name = "BND102", "unbounded-task-spawn"
    prefilter = re.compile(r"\b(?:create_task|ensure_future|start_soon|run_in_executor|start|spawn|spawn_n|spawn_later|spawn_after)\b")
    message = "`{call}` starts a task per item of `{source}` with no concurrency limit"
    hint = "acquire a semaphore (anyio: CapacityLimiter) in each task, or run a fixed pool of workers reading a queue"
    invalid = (
        Example("taskgroup_comprehension", """
            import asyncio

            async def run_prompts(client, prompts):
                async with asyncio.TaskGroup() as tg:
                    tasks = [tg.create_task(client.complete(p)) for p in prompts]  # error: BND102 col 18
                return [t.result() for t in tasks]
            """),
        Example("anyio_stream", """
            from anyio.abc import TaskGroup

            async def serve(tg: TaskGroup, subscription):
                async for run in subscription:
                    tg.start_soon(execute, run)  # error: BND102 col 9
            """),
    )
    valid = (
        Example("capacity_limiter", """
            import anyio
            from anyio import CapacityLimiter

            async def render(src, limiter: CapacityLimiter):
                async with limiter:
                    await convert(src)

            async def render_all(sources):
                limiter = CapacityLimiter(4)
                async with anyio.create_task_group() as tg:
                    for src in sources:
                        tg.start_soon(render, src, limiter)
            """),
        Example("fixed_worker_pool", """
            import anyio

            async def main(queue):
                async with anyio.create_task_group() as tg:
                    for _ in range(8):
                        tg.start_soon(worker, queue)
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "map":
            self._mapped_spawn(node, ctx)
            return
        spawn = spawn_of(node, ctx)
        if spawn is None or spawn.kind != "task":
            return
        loops = region_loops(spawn, ctx)
        if not loops:
            return
        found, limit = spawn_limit(spawn, loops, ctx)
        if found is not None and limit is None:
            self.report(node, call=spawn.api + "(...)" if "." in spawn.api else short(node.func) + "(...)", source=found.source)


    def _mapped_spawn(self, node: cst.Call, ctx: Context) -> None:
        """``map(asyncio.create_task, coros)``: the spawn function applied to every item of a collection."""
        args = [a.value for a in node.args if a.keyword is None and a.star == ""]
        if len(args) < 2 or ctx.names.resolve_name("map") is not None:
            return
        func, source = args[0], args[1]
        q = ctx.qualname(func) or ""
        if q not in ("asyncio.create_task", "asyncio.ensure_future"):
            if not (isinstance(func, cst.Attribute) and func.attr.value == "create_task"
                    and (is_task_group(func.value, ctx) or is_event_loop(func.value, ctx))):
                return
            q = short(func)
        if limits.source_limit(source, ctx) or limits.batch_limit(source, ctx):
            return
        if isinstance(source, cst.Name):
            bound = ctx.lookup(source.value)
            value = bound[1][-1] if bound and bound[1] else None
            if isinstance(value, (cst.GeneratorExp, cst.ListComp)):
                source = value  # coros = [fetch(u) for u in urls]
        if isinstance(source, (cst.GeneratorExp, cst.ListComp)) and isinstance(source.elt, cst.Call):
            if limits.callee_limit(source.elt.func, ctx) and not unshared_limiter(source, ctx):
                return
            source = source.for_in.iter
        self.report(node, call=q + "(...)", source=short(source))


class ThreadPerItem(Rule):
    __doc__ = _doc("""
    ## What it does
    Flags `threading.Thread(...).start()`, `threading.Timer(...).start()` and
    `multiprocessing.Process(...).start()` (or of a same-module subclass of
    these) once per item of an unbounded loop.

    ## Why is this bad?
    Every item costs an OS thread (with its stack) or a whole process.  A large
    input exhausts memory, thread limits or file descriptors, and the threads
    all hit the same dependency at once.
    """)
    code, name = "BND103", "thread-per-item"
    prefilter = re.compile(r"\b(?:Thread|Process|Timer)\b")
    message = "`{call}` starts a {unit} per item of `{source}` with no limit"
    hint = "use a ThreadPoolExecutor with a fixed max_workers, or a fixed number of worker threads reading a queue"
    invalid = (
        Example("thread_in_loop", """
            import threading

            def notify_all(users):
                for user in users:
                    threading.Thread(target=notify, args=(user,)).start()  # error: BND103 col 9
            """),
    )
    valid = (
        Example("fixed_pool", """
            from concurrent.futures import ThreadPoolExecutor

            def notify_all(users):
                with ThreadPoolExecutor(max_workers=8) as pool:
                    pool.map(notify, users)
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        spawn = spawn_of(node, ctx)
        if spawn is None or spawn.kind != "thread" or isinstance(spawn.receiver, cst.Attribute):
            return  # a thread kept on an attribute was built once, not per item
        loops = list(ctx.frame.loops)
        if not loops:
            return
        found, limit = spawn_limit(spawn, loops, ctx)
        if found is not None and limit is None:
            unit = "process" if "Process" in spawn.api else "thread"
            self.report(node, call=spawn.api + "()", source=found.source, unit=unit)


# -- BND104 -------------------------------------------------------------------------

def _pool_size(ctor: cst.Call) -> cst.BaseExpression | None:
    for a in ctor.args:
        if a.keyword is not None and a.keyword.value in ("max_workers", "processes"):
            return a.value
    positional = [a for a in ctor.args if a.keyword is None and a.star == ""]
    return positional[0].value if positional else None


class PoolSizedFromInput(Rule):
    __doc__ = """
    ## What it does
    Flags a `ThreadPoolExecutor`, `ProcessPoolExecutor`, `multiprocessing.Pool`
    or `ThreadPool` whose `max_workers` / `processes` is computed from the
    input's size (`len(items)` or a name bound to it).  The finding is on the
    `submit` / `map` that fans out over the pool, or on the constructor when
    the pool is used elsewhere.

    ## Why is this bad?
    A pool exists to cap concurrency.  Sized from the input it caps nothing:
    10,000 items start 10,000 threads or processes, each with its own
    connection to the dependency.

    ## What counts as a limit
    - a constant or default `max_workers` (`ThreadPoolExecutor()`,
      `max_workers=8`, `max_workers=MAX_WORKERS`);
    - `min(len(items), N)` with a constant `N`.
    """
    code, name = "BND104", "pool-sized-from-input"
    prefilter = re.compile(r"(?:Executor|Pool)\b")
    message = "`{call}` fans out over a pool sized from the input (`{size}`)"
    hint = "give the pool a constant max_workers, e.g. min(len(items), 16)"
    invalid = (
        Example("len_sized_pool", """
            import concurrent.futures

            def execute(items):
                with concurrent.futures.ThreadPoolExecutor(max_workers=len(items)) as executor:
                    futures = [executor.submit(run, item) for item in items]  # error: BND104 col 20
                return [f.result() for f in futures]
            """),
    )
    valid = (
        Example("capped_pool", """
            import concurrent.futures

            def execute(items):
                with concurrent.futures.ThreadPoolExecutor(max_workers=min(len(items), 16)) as executor:
                    return list(executor.map(run, items))
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._pending: dict[int, tuple[cst.Call, cst.BaseExpression]] = {}
        self._used: set[int] = set()

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        spawn = spawn_of(node, ctx)
        if spawn is not None and spawn.kind == "pool" and spawn.receiver is not None:
            ctor = executor_constructor(spawn.receiver, ctx)
            if ctor is not None and id(ctor) in self._pending:
                self._used.add(id(ctor))
                self.report(node, call=short(node.func) + "(...)", size=short(self._pending[id(ctor)][1]))
            return
        if executor_constructor(node, ctx) is node:
            size = _pool_size(node)
            if size is not None and limits.size_from_input(size, ctx):
                self._pending[id(node)] = (node, size)

    def leave_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        for key, (ctor, size) in list(self._pending.items()):
            if key not in self._used and _inside(ctor, node):
                self.report(ctor, call=short(ctor.func) + "(...)", size=short(size))
                del self._pending[key]

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        for key, (ctor, size) in self._pending.items():
            if key not in self._used:
                self.report(ctor, call=short(ctor.func) + "(...)", size=short(size))
        self._pending.clear()


def _inside(inner: cst.CSTNode, outer: cst.CSTNode) -> bool:
    return any(n is inner for n in limits.iter_nodes(outer))
