"""What BND101-BND103 share: the limits doc section, and whether a spawn site is bounded.

``spawn_limit`` judges a task or thread started in a loop; the audit asks it
too, so the report and the rules agree.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.names import dotted
from boundlint.analysis.spawns import Spawn, is_task_group
from boundlint.rules.base import short
from boundlint.tables.defaults import SLOT_GRABS
from boundlint.verdicts import AWAITED, BOUNDED_LOOPS, LIMITER, LOOP_LIMITER, PACED, SINGLE_FLIGHT, TEARDOWN, Limit, kind_of

_LIMITS_DOC = """
    ## What counts as a limit
    - a fixed set of awaitables: `gather(a(), b())`, a starred literal;
    - a bounded source: a literal (also a view of one, `{...}.items()`, or
      the words of a string literal, `"a b".split()`), `range(N)` with a
      constant `N` (or `range(len(X))` of a constant collection), a slice
      `xs[:N]`, `itertools.islice(xs, N)`, a constant (UPPER_CASE) name, an
      enum, the `fields()` of a dataclass or attrs class; a collection built
      empty and then filled (`[]`, `set()`, `{}`, `dict()`, `deque()`, then
      `append` / `add` / `extend` / `update` / `d[k] = v` / `+=`) is as large
      as its fills, not its empty literal: bounded only when every loop
      around each fill, and every iterable it is extended with, is bounded;
    - fixed-size batches: `itertools.batched(xs, N)`, or
      `range(0, len(xs), N)` with `xs[i:i + N]`;
    - the spawned function (same module: nested def, method, lambda,
      `functools.partial`) enters `async with` / `with` on a semaphore,
      `BoundedSemaphore`, anyio/trio `CapacityLimiter` or
      `aiolimiter.AsyncLimiter` (or acquires one: `acquire()`, or
      `acquire_nowait()`, which fails when no slot is free), also when it is passed in:
      a parameter annotated as a limiter or named like one (`sem`, `limiter`), or
      any parameter to which the fan-out passes a limiter shared by every item
      (`slots = Semaphore(8)`, then `gather(*(fetch(slots, u) for u in urls))`),
      or an instance of one of your own classes whose `__aenter__` /
      `__enter__` takes a limiter's slot (`async with OPEN_FILES:` where
      `OPEN_FILES = LazyGate(...)` holds a semaphore, whatever the attribute
      is called), built once here or in another module; a gate built per
      call (`async with Gate(4):`) bounds nothing; or one of your own limiter
      helpers named in the `limiter-helpers`
      option, itself or in a function it awaits one or two calls further
      down (this module's, a method of `self`, or another module's: `await
      send(p)` where `send` holds `async with _slots:`) when nothing else it
      calls reaches a dependency outside that limiter; also a context
      manager method of the same class that yields only while it holds a
      lock or limiter the instance keeps (`async with self._session() as s:`
      where `_session` does `async with self._lock: yield self._http`);
      the limiter's own size must not come from `len()` of the input
      (nor from a parameter that a caller, in any module, passes `len(...)`
      for: the finding's evidence names that caller), and every task must
      share it (a `Semaphore(N)` the spawned function
      builds itself, or one built per item in the spawning loop, is one per
      task and bounds nothing);
    - the spawned function is decorated (`@at_most(10)`, `@limits.at_most(10)`,
      `@serialised`) by a decorator of the project, in this module or
      another, whose nested wrapper (at any depth) enters a limiter shared
      by every call: built in the factory or the decorator (once per
      decorated function), a module-level limiter, or a limiter the factory
      takes (annotated as one, or passed one by the decoration:
      `@holding(_SLOTS)`); this also counts one or two calls down, as
      above.  A wrapper that builds its own semaphore per call, a decorator
      that only logs or retries, and a factory sized from the input
      (`@at_most(len(ids))`) bound nothing;
    - the spawning loop waits for capacity: `await sem.acquire()`, or a
      `len(pending) >= N` check that awaits in-flight work (a semaphore held
      around the spawn does not count: it is released once the task starts);
    - starts paced by the tasks themselves: an `Event()` built per
      iteration, handed to the task, and awaited before the next start
      (`await failed.wait()`, also under `move_on_after(delay)`), as
      happy-eyeballs connecting staggers its attempts;
    - a server's accept loop (tasks and threads, at `low` severity): a `while` loop that
      accepts a connection (`conn = await listener.accept()`, `conn, addr =
      sock.accept()`; the `accept-calls` table) and starts a task or thread
      that takes it.  One handler per accepted connection is bounded by
      design, by the listen backlog and the open-file limit; a fan-out over
      what a client sends, inside the handler or the loop, is judged as usual;
    - an optional limit that every caller sets (at `low` severity): the
      fan-out sits in one branch of an `if` on a parameter with a default
      (`if max_concurrency:`, after `if max_concurrency: return ...`, or in
      `if max_concurrency is None: return ...` with the bounded path after it),
      the other branch passes that parameter to a limiter
      (`Semaphore(max_concurrency)`) or to a call that also takes the
      collection (`run_windowed(models, max_concurrency)`), and every call
      of the function in the project, in any module, passes it.  When one
      call leaves it unset, the fan-out is judged as usual;
    - one task at a time: the task is stored in a name that an enclosing
      `if` requires to hold none (`if self.task is None: self.task =
      create_task(...)`, also `if not t`, `if t.done()`, `if t is None or
      t.done()`, and a test that requires it among other conditions:
      `if finished and self.task is None:`);
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
      then `await task`, `t.start()` then `t.join()`);
    - work handed to a known pool: `loop.run_in_executor(pool, ...)` where
      `pool` is an executor built here, on `self` or by an executor factory
      is bounded by that pool, like `pool.submit` (BND104 judges the pool's
      size); only the loop's default executor (`None`) or an unknown one
      counts as a task per item.

    Found, at `low` severity (shown with `--min-severity low`): each item's
    work handed to a thread pool of fixed size (`asyncio.to_thread(...)`,
    `loop.run_in_executor(...)`, anyio / trio `to_thread.run_sync`), in the
    fan-out itself or in the project coroutine each item runs, one or two
    calls down and in any module (an awaitable facade whose methods
    `await asyncio.to_thread(...)`), when that coroutine awaits nothing
    else but local work: the pool's threads cap how many run at once.

    Names follow Python's scope rules: a nested function's parameter or loop
    variable is its own (the enclosing function's binding of the same name
    neither bounds nor unbounds it), a comprehension's variable does not
    outlive it, and a `global` / `nonlocal` assignment rebinds the module's /
    the enclosing function's name (a module name is bounded only when every
    value it is given is).

    Limits that live in another module of the project count the same way
    (the project index reads every module): a helper from another module
    that enters a shared limiter (`async with catalog_slot():` where
    `limits.py` holds the `Semaphore`), or a limiter imported from there; a
    batching helper from another module that yields fixed-size slices; a
    helper from another module, called first, that rejects an oversized
    argument; a collection read from a settings object (an instance of a
    `BaseSettings` subclass) defined in another module.  The other way
    round, a helper's `gather(*jobs)` over a parameter is reported when its
    callers, in any module, fill `jobs` with one coroutine per item of
    request input; the finding's evidence shows that chain.

    ## Where it runs
    A fan-out in code that runs once is found at `low` severity: import time,
    `__main__`, a CLI command, a start-up, shutdown or lifespan hook (also a
    function only those call), a migration.  So is the start-up part of a
    long-lived service's body: a coroutine with no required parameter whose
    task group (anyio, asyncio `TaskGroup`, trio nursery) also runs a task
    until it is cancelled, such as one poll loop per configured store next to
    the main poll loop.  The never-ending task is a `while True:` loop (or
    `while not self.stopped:` on a flag its class sets) with no `break` and no
    `return` but on cancellation or under a parameter that the call rules out
    (`partial(poll_loop, run_once=False)`), in this module or another;
    failures raised out of it end it, as cancelling does.  A retry loop that
    returns once its job works is none, nor a drain that stops on a failure
    it catches (`except queue.Empty: break`).  A fan-out
    inside a `while` or `async for` of that body, in a request handler or a
    worker, or in a body started with a required argument (once per
    connection or per topic) is judged as usual.
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


def spawn_limit(spawn: Spawn, loops: list[Loop], ctx: Context) -> tuple[Unbounded | None, Limit | None]:
    """``(unbounded loop, None)`` for an unbounded spawn site, else ``(loop or None, limit)``."""
    found = unbounded_loop(loops, ctx)
    if found is None:
        return None, Limit(BOUNDED_LOOPS, "bounded loops")
    if limits.teardown_call(spawn.target):
        return found, Limit(TEARDOWN, "releases existing resources")
    if awaited_in_iteration(spawn, found.loop, ctx):
        return found, Limit(AWAITED, "awaited before the next iteration")
    single = single_flight(found.loop, ctx)
    if single:
        return found, Limit(SINGLE_FLIGHT, single)
    signal = awaits_signal(spawn, found.loop)
    if signal:
        return found, Limit(PACED, f"each start waits for `{signal}`, which the task it started sets, before the next")
    if spawn.target is not None and not unshared_limiter(spawn.call, ctx, found.loop):
        limit = limits.callee_limit(spawn.target, ctx) or limits.passed_limiter(spawn.target, work_args(spawn), ctx)
        if limit:
            return found, limit if kind_of(limit) else Limit(LIMITER, limit)
    # a limiter held around the spawn is released once the task starts, not when it ends
    limit = limits.loop_backpressure(found.loop, spawn.call, ctx, held=False)
    if limit:
        return found, limit if kind_of(limit) else Limit(LOOP_LIMITER, limit)
    return found, None


def work_args(spawn: Spawn) -> list[cst.Arg]:
    """The arguments the spawn hands its target: the coroutine call's (``create_task(f(a, b))``), or the
    spawn call's after the callable (``tg.start_soon(f, a, b)``); [] when neither shows them."""
    first = next((a.value for a in spawn.call.args if a.keyword is None and a.star == ""), None)
    if isinstance(first, cst.Call) and first.func is spawn.target:
        return list(first.args)
    if first is spawn.target:
        return [a for a in spawn.call.args if a.value is not first and a.keyword is None]
    return []


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


def limiter_chain(call: cst.Call, target: cst.BaseExpression | None, ctx: Context) -> tuple[str, ...]:
    """The evidence when the limiter a spawn's work acquires is sized by a caller, in any module
    (``sem = Semaphore(concurrency)`` where ``main()`` passes ``len(accounts)``); else ``()``.

    Looks at the names the spawn call passes and at what the spawned same-module
    function enters with ``with`` or ``acquire()``.
    """
    exprs: list[cst.BaseExpression] = [n for n in limits.iter_nodes(call) if isinstance(n, cst.Name)]
    func = ctx.resolve_callable(target) if target is not None else None
    if isinstance(func, cst.FunctionDef):
        for node in limits.iter_nodes(func.body):
            if isinstance(node, cst.WithItem):
                exprs.append(node.item)
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in SLOT_GRABS:
                exprs.append(node.func.value)
    for expr in exprs:
        bound = ctx.lookup(expr.value) if isinstance(expr, cst.Name) else None
        for value in bound[1] if bound else ():
            if _limiter_call(value, ctx) and value.args:
                chain = limits.size_chain(value.args[0].value, ctx)
                if chain:
                    return chain
    return ()


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


def awaits_signal(spawn: Spawn, loop: Loop) -> str | None:
    """The name of a signal the loop waits on before its next start, else None.

    ``done = Event()`` built in the loop body, handed to the spawned task, then ``await done.wait()`` in
    the same body (also under a timeout, ``with move_on_after(delay):``): the next task starts only once
    this one has signalled (a failed attempt) or the delay has passed, as happy-eyeballs connecting does.
    """
    if loop.kind not in ("for", "while"):
        return None
    passed = {a.value.value for a in spawn.call.args if isinstance(a.value, cst.Name)}
    built = set()
    waited = set()
    for node in limits.iter_nodes(loop.node.body):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and not node.value.args:
            if (dotted(node.value.func) or "").rsplit(".", 1)[-1] == "Event":
                built.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
        elif isinstance(node, cst.Await) and isinstance(node.expression, cst.Call):
            func = node.expression.func
            if isinstance(func, cst.Attribute) and func.attr.value == "wait" and isinstance(func.value, cst.Name):
                waited.add(func.value.value)
    found = sorted(passed & built & waited)
    return found[0] if found else None


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


def single_flight(loop: Loop, ctx: Context) -> str | None:
    """``"one task at a time ..."`` when the spawn (the current node) is stored in a name that an
    enclosing ``if`` inside *loop* requires to hold no task (``if self.task is None: self.task =
    create_task(...)``, also ``if not t`` and ``t.done()``); else None."""
    ancestors = ctx.ancestors
    anchor = loop.node if loop.kind != "comp" else loop.owner
    start = next((i for i, node in enumerate(ancestors) if node is anchor), None)
    if start is None:
        return None
    stored = None
    for node in reversed(ancestors[start + 1:]):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            stored = dotted(node.targets[0].target)
            break
        if isinstance(node, cst.BaseSuite):
            return None  # the spawn is no assignment's value
    if not stored:
        return None
    for node in ancestors[start + 1:]:
        if isinstance(node, cst.If) and stored in _none_tests(node.test):
            return f"one task at a time: started only while `{stored}` holds none"
    return None


def _none_tests(test: cst.BaseExpression) -> set[str]:
    """Names *test* requires to hold no running task: ``x is None``, ``not x``, ``x.done()``; a conjunct of
    an ``and`` (``if done and x is None:``: true only when ``x`` holds none), or a name both sides of an
    ``or`` require (``x is None or x.done()``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return _none_tests(test.left) & _none_tests(test.right)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _none_tests(test.left) | _none_tests(test.right)
    if (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Is)
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None"):
        return {dotted(test.left) or ""}
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return {dotted(test.expression) or ""}
    if (isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value == "done"
            and not test.args):
        return {dotted(test.func.value) or ""}
    return set()


def lowered(loop: Loop | None, call: cst.Call, volume: cst.BaseExpression | None, ctx: Context) -> tuple[str, str] | None:
    """``(LOW, why)`` for a fan-out bounded by design or by its callers' choice, else None (judged as usual).

    A task or thread started per pass of a server's accept loop (``analysis.facts.accept_loop``): one handler
    per accepted connection.  A fan-out over *volume* that runs only when callers leave an optional
    limit unset, which a call in the project sets (``analysis.facts.optional_limit``).
    """
    from boundlint.analysis.facts.accept_loop import accepted
    from boundlint.analysis.facts.optional_limit import optional_limit
    from boundlint.analysis.severity import LOW

    how = accepted(loop, call, ctx) if loop is not None else ""
    if how:
        return LOW, (f"a server's accept loop: one handler per connection accepted by {how}, "
                     "bounded by design (the listen backlog and the open-file limit)")
    optional = optional_limit(volume, ctx)
    return (LOW, optional) if optional else None
