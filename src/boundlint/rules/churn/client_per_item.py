"""BND401 client-per-item: a network client, session, pool or connection built per item, request or message."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from boundlint.analysis.clients import (
    CLIENT_FACTORIES, client_constructor, helper_constructor, paced_loop, reconnect_session, RETURNED,
    returned_later, reused, server_socket, serves_many, session_client, sessionless_request,
)
from boundlint.analysis.callbacks import queue_worker
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.decorators import wrapping_decorator
from boundlint.analysis.severity import LOW
from boundlint.analysis.storms import function_node, iterations_bounded, leaves_on_success, loop_source
from boundlint.analysis.workers import WorkerSite, worker_index
from boundlint.rules.base import Example, Rule, short
from boundlint.rules.prefilter import Words

# The longest chain that makes a factory's client one per item: the loop and two plain calls.
_FACTORY_STEPS = 3
# The longest chain that makes a function's own client one per item: the loop and one plain call.
# Further up, fresh readers found mostly a lazy cache, a configured collection or a start-up path
# (5 of 7 such findings false on the pinned corpora).
_CANDIDATE_STEPS = 2
# What churn costs per item whatever else the work does: a connection opened and torn down.
_CONNECTION = "a new connection per item"


def _func_name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"


def _worker_text(func: cst.CSTNode, site: WorkerSite) -> str:
    return f"in `{_func_name(func)}`, which `{site.describe()}` runs per item"


def _innermost_unbounded(ctx: Context) -> Loop | None:
    for loop in reversed(ctx.frame.loops):
        if iterations_bounded(loop, ctx) is None:
            return loop
    return None


@dataclass(frozen=True)
class _Candidate:
    """A client built on every call of ``func`` (not in a loop there): reported when ``func`` runs per item."""

    call: cst.Call
    func: cst.CSTNode
    kind: str
    qual: str | None  # the function's qualified name, for the project's callers
    sessionless: bool = False  # a one-shot request helper (`requests.get`), not a constructor
    serves_many: bool = False  # the function goes on to serve many items with it: a session per call
    decorator: str | None = None  # the module-level decorator ``func`` is the wrapper of


def note_loop_call(looped: dict[int, list[tuple[str, str, bool, cst.Call]]], node: cst.Call, ctx: Context) -> None:
    """Record in *looped* a same-module function *node* calls per item: in an unbounded ``for`` loop, or on
    every pass of a ``while`` loop that does not pause (a consumer's loop: one pass per message)."""
    if not ctx.frame.loops or not isinstance(node.func, (cst.Name, cst.Attribute)):
        return
    target = ctx.resolve_callable(node.func)
    if not isinstance(target, cst.FunctionDef):
        return
    loop = _innermost_unbounded(ctx)
    if loop is None or (loop.kind == "while" and paced_loop(loop, ctx)):
        return  # a periodic loop builds one per period
    if loop.kind == "while" and loop.test is not None and any(a is loop.test for a in (*ctx.ancestors, node)):
        return  # `while probe(port):` searches until the helper answers; it is not work per item
    if loop.kind in ("for", "while") and leaves_on_success(getattr(loop.node, "body", None)):
        return  # a failover or retry loop: it stops at the first call that works
    caller = function_node(ctx)
    looped.setdefault(id(target), []).append(
        (loop_source(loop), _func_name(caller) if caller is not None else "<module>", loop.kind == "while", node))


# -- BND401 ---------------------------------------------------------------------------

class ClientPerItem(Rule):
    __doc__ = """
    ## What it does
    Flags a network client, session, pool or connection constructed inside a
    loop over an unbounded source, or inside a function that a fan-out in
    the same module runs once per item: `aiohttp.ClientSession`,
    `httpx.Client` / `AsyncClient`, `requests.Session`, `urllib3.PoolManager`,
    `http.client.HTTPConnection`, `socket.socket` / `create_connection`,
    `redis.Redis` / `StrictRedis` / `redis.asyncio.Redis` / `from_url`,
    pymemcache and aiomcache clients, `asyncpg.connect` / `create_pool`,
    `psycopg.connect`, `psycopg2.connect`, `pymongo.MongoClient`, motor
    clients, gRPC channels (`grpc.insecure_channel`, `grpc.aio` ...),
    `boto3.client` / `resource` / `Session`, `aioboto3.Session`,
    Elasticsearch clients, aiokafka / kafka producers and consumers, pika
    and aio-pika connections, SQLAlchemy engines, other database drivers'
    `connect`, `asyncio.open_connection` and trio / anyio TCP streams,
    websocket connections, and the standard library's `smtplib`, `ftplib`,
    `imaplib` and `poplib` clients.  A same-module helper that builds and
    returns such a client (`def _client(): return httpx.Client(...)`)
    counts as its constructor.  A factory in another module of the project
    (`make_client()` from `clients.py`, unless it caches: `@lru_cache`) is
    reported at its own constructor when a caller runs it per item, also
    through up to two plain calls (a worker that a gather runs per item
    calls the factory once; further up, a caller may keep the client it
    is handed); the evidence is that chain of callers.  A
    client made from a session (`session.client("s3")`,
    `factory().client("s3")`, `SESSION.resource("s3")` in a module that
    imports boto3) is a new client with its own pool on every call, whoever
    holds the session.

    A constructor in a task a queue runs once per message (`@shared_task`,
    `@app.task`, `@dramatiq.actor`: the `worker-decorators` table) opens
    one client per message.  So does a constructor on every run of a
    function whose role is per request (a route, a method of a handler
    or view class, a gRPC servicer method) or per message (a task-queue
    actor, a consumer), or of a function such a function calls once per
    call, in any module: one new client per request or message.  Per
    request it is `low` for now (shown with `--min-severity low` and in the
    audit): whether the route is open to any client or only to
    administrators, and whether the work is cached, is not judged yet, and
    fresh readers found most such findings mild.  A
    one-shot request helper there is one request per request, not churn,
    and a function that goes on to serve many items with its client opens
    one per run, not per item: neither is reported per request.  Calls
    reach a function through a module, and
    through an object: a parameter annotated with a project class
    (`client: ApiClient`), an attribute set from one in `__init__`, a local
    instance (`mailer = Mailer()`), an instance a project function gives
    back (`-> Mailer`), and a method a class inherits.

    A function that opens a connection on every call (any of the above, or
    a one-shot `requests.get` / `httpx.post` / `urlopen`) is reported at the
    construction when it runs per item: called in an unbounded `for` loop
    or comprehension, on every pass of a `while` loop that does not pause
    (a consumer's loop: one pass per message), or handed to a pool per item
    (`pool.map(fetch, urls)`, `executor.submit(fetch, u)` in a loop), in the
    same module or in another one over its own input, over rows a query
    returns, or over what a project function returns when it hands back
    such rows (`for order in changed_orders(since):`, through any chain of
    such functions), directly or through one plain call (further up, a
    lazy cache, a configured collection or a start-up path decides more
    often than not); the evidence names the callers and their lines.  The wrapper of a project decorator (`def with_connection(fn):
    def wrapper(*a): conn = psycopg2.connect(...); ...; return wrapper`, a
    decorator factory too) runs on every call of each function it decorates:
    its constructor is reported when one of them runs per item, per request
    or per message.  A one-shot request helper that a fan-out runs is
    BND402's.

    ## Why is this bad?
    A client owns a connection pool; building one per item throws the pool
    away after a single use.  Each item pays a TCP (and TLS) handshake, the
    closed sockets linger in TIME_WAIT, and under load the host runs out of
    ephemeral ports or the server out of connection slots, so even healthy
    requests fail.

    ## What counts as a limit
    - the client is built once, outside the loop or worker, and reused
      (also when it is passed in as a parameter, or a module-level session
      is used for the requests: `HTTP.get(...)`).  A function that builds a
      client and is called per item builds one per item (the finding is on
      its constructor), whatever bounds the concurrency: churn is per
      request, not per concurrent task.  A helper called once, or per item
      of a constant or its own looked-up list, is not per item of input;
    - a helper that goes on to serve many items with its connection
      (`sock = create_connection(addr); for line in sock.makefile(): ...`)
      is one connection per session, also when a `while` loop calls it
      again after each failure;
    - the loop runs over a bounded source (the shared rules of BND1xx), or
      the fan-out over a bounded source or a fixed pool of workers;
    - the client is kept for reuse: stored on an attribute or in a mapping
      (`self._session = ...`, `clients[host] = ...`), collected by a
      comprehension (`{h: Redis(host=h) for h in hosts}`), returned, or built
      under a lazy-initialisation check (`if self._client is None:`);
    - a failover loop that leaves at its first success
      (`for addr in getaddrinfo(...): try: ...; break`);
    - a `socket.socket()` that the code binds (`sock.bind(...)`): a listener,
      not a client connection;
    - a thin handle over a pool, connector or transport built elsewhere
      (`Redis(connection_pool=POOL)`, `ClientSession(connector=shared)`,
      `httpx.Client(transport=shared)`);
    - a `while` loop that reconnects: the connection then serves many items
      in a nested loop (`async for message in ws`), or the loop pauses
      (a sleep of at least 0.1 s, or an event's timed `wait`, among its own
      statements) before the next: a periodic loop builds one client per
      period, directly or through a helper.

    ## Options
    In `[tool.boundlint.churn]`: `client-factories` adds constructors by
    qualified name (`mycompany.cache.connect`).
    """
    code, name = "BND401", "client-per-item"
    # A factory resolves only where its last name is written (at the call or in its import).
    # A one-shot request helper resolves only through an import of its module.
    prefilter = Words(*sorted({q.rsplit(".", 1)[-1] for q in CLIENT_FACTORIES} | {"requests", "httpx", "urllib", "urllib2", "aiohttp"}))
    widening_options = ("client-factories",)
    message = "`{call}` opens a new {kind} {where}"
    hint = "build the client once, outside the loop or worker, and reuse it: its pool limits and reuses connections"
    hints = {  # each item names another host (one connection per relay server): "build it once" cannot apply
        "destination": "each item is another destination: keep one client per destination, built once and reused "
                       "(a dict by host)",
    }
    invalid = (
        Example("client_per_job", """
            import redis

            def run_jobs(jobs):
                for job in jobs:
                    store = redis.Redis(host="cache", port=6379)  # error: BND401 col 17
                    store.hset(f"job:{job['id']}", mapping={"state": "running"})
            """),
        Example("session_per_task", """
            import asyncio

            from aiohttp import ClientSession

            async def predict(url, sem):
                async with sem, ClientSession() as session:  # error: BND401 col 21
                    async with session.post(url) as resp:
                        return await resp.read()

            async def run(urls):
                sem = asyncio.Semaphore(20)
                await asyncio.gather(*(predict(u, sem) for u in urls))
            """),
    )
    valid = (
        Example("client_reused", """
            import aiohttp

            async def sync_prices(skus):
                async with aiohttp.ClientSession() as session:
                    for sku in skus:
                        async with session.get(f"/catalogue/{sku}") as resp:
                            yield await resp.json()
            """),
        Example("client_passed_in", """
            import asyncio

            async def predict(session, url, sem):
                async with sem, session.post(url) as resp:
                    return await resp.read()

            async def run(session, urls):
                sem = asyncio.Semaphore(20)
                await asyncio.gather(*(predict(session, u, sem) for u in urls))
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._candidates: list[_Candidate] = []
        # same-module functions called per item: id(def) -> [(loop source, caller, per pass of a while loop, the call)]
        self._looped: dict[int, list[tuple[str, str, bool, cst.Call]]] = {}
        # clients returned by this module's functions: (construction, function, kind, qualified name)
        self._factories: list[tuple[cst.Call, cst.FunctionDef, str, str]] = []

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        worker_index(ctx).note_call(node, ctx)
        factory = client_constructor(node, ctx) or helper_constructor(node, ctx) or session_client(node, ctx)
        if factory is None:
            note_loop_call(self._looped, node, ctx)
            if sessionless_request(node, ctx) is not None and _innermost_unbounded(ctx) is None:
                self._candidate(node, ctx, "connection", sessionless=True)
            return
        loop = _innermost_unbounded(ctx)
        kept = reused(node, ctx, loop)
        if kept == RETURNED and loop is None:
            self._factory(node, ctx, factory)  # a factory: judged by who calls it per item
            return
        if kept or server_socket(node, ctx, loop.node if loop is not None else function_node(ctx)):
            return
        if reconnect_session(node, ctx, loop):
            return
        kind = _kind(factory)
        if loop is not None:
            where = f"on every iteration of `{loop_source(loop)}`" if loop.kind == "while" else f"per item of `{loop_source(loop)}`"
            destination = _per_destination(node, loop)
            self.report(node, call=short(node.func) + "(...)", kind=kind,
                        where=where + (" (each item is another destination)" if destination else ""),
                        volume=loop.iter, work=(node,), reached=_CONNECTION,
                        **({"hint": self.hints["destination"]} if destination else {}))
            return
        self._candidate(node, ctx, kind)

    def _factory(self, node: cst.Call, ctx: Context, factory: str) -> None:
        """Keep a client a function builds and returns (not a cached one): reported here when another module
        runs the function per item (``index.queries.callers.per_item_through``); this module's own calls are
        judged where they are (``helper_constructor``)."""
        func = function_node(ctx)
        if isinstance(func, cst.FunctionDef) and not func.decorators and ctx.function_qualname():
            self._factories.append((node, func, _kind(factory), ctx.function_qualname()))

    def _candidate(self, node: cst.Call, ctx: Context, kind: str, sessionless: bool = False) -> None:
        """Keep a construction that runs once per call of its function: judged when the module's callers are known."""
        func = function_node(ctx)
        if func is not None and not returned_later(node, ctx, func):
            qual = ctx.function_qualname()
            self._candidates.append(_Candidate(node, func, kind, qual, sessionless, serves_many(node, ctx, func),
                                               wrapping_decorator(ctx) if qual is None else None))

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        index = worker_index(ctx)
        for c in self._candidates:
            call = short(c.call.func) + "(...)"
            site = index.site_of(c.func)
            if site is not None and not c.sessionless:  # a sessionless helper in a fan-out is BND402's
                self.report(c.call, call=call, kind=c.kind, where=_worker_text(c.func, site), volume=site.volume,
                            reached=_CONNECTION)
                continue
            # a constructor, not a one-shot request helper: `requests.get` per message is one request per message
            queued = queue_worker(c.func, ctx) if site is None and not (c.serves_many or c.sessionless) else None
            if queued is not None:  # a task-queue actor: one run, and one new client, per message
                self.report(c.call, call=call, kind=c.kind, volume=queued.volume, reached=_CONNECTION,
                            where=f"in `{_func_name(c.func)}`, which `{queued.api}` runs once per message")
                continue
            looped = [hit for hit in self._looped.get(id(c.func), ()) if not (hit[2] and c.serves_many)]
            if looped and site is None:
                source, caller, passes, at = looped[0]
                each = f"on every pass of `{source}`" if passes else f"per item of `{source}`"
                chain = (f"`{caller}()` calls `{_func_name(c.func)}()` {each} ({ctx.where(at)})",)
                self.report(c.call, chain, call=call, kind=c.kind,
                            where=f"in `{_func_name(c.func)}`, which `{caller}` calls {each}", reached=_CONNECTION)
            elif site is None and ctx.project and (c.qual is not None or c.decorator is not None):
                found = _through(c, ctx)
                if found:
                    self.report(c.call, found[0], call=call, kind=c.kind, where=found[1], volume=("unknown", found[0][0]),
                                reached=_CONNECTION, severity=LOW if found[1].endswith("once per request") else None)
        for call_node, func, kind, qual in self._factories if ctx.project else ():
            chain = ctx.project.ask("per_item_through", ctx.project.ref(None, qual))
            # a factory's caller may keep what it hands back (an attribute, a cache): only a caller
            # close to the per-item loop is evidence that each item gets its own client
            if chain and len(chain) <= _FACTORY_STEPS:
                self.report(call_node, chain, call=short(call_node.func) + "(...)", kind=kind,
                            where=f"in `{_func_name(func)}`, which another module runs per item",
                            volume=("unknown", chain[0]), reached=_CONNECTION)
        self._candidates.clear()
        self._looped.clear()
        self._factories.clear()


def _through(c: _Candidate, ctx: Context) -> tuple[list[str], str] | None:
    """``(chain, where)`` when the project runs the function of candidate *c* once per item (its callers, or
    for a decorator's wrapper the functions it decorates), or, for a constructor a function does not go on
    to use for many items, once per request or message; else None."""
    name, project = _func_name(c.func), ctx.project
    passes, fanout = not c.serves_many, False if c.sessionless else None  # a sessionless helper fanned out is BND402's
    if c.qual is not None:
        ref = project.ref(None, c.qual)
        chain = project.ask("per_item_through", ref, passes, fanout)
        where = f"in `{name}`, which another module calls per item"
    else:
        ref = project.ref(None, c.decorator)
        chain = project.ask("per_item_wrapped", ref, passes, fanout)
        where = f"in `{name}`, which `@{c.decorator}` runs on every call of a function run per item"
    if chain and len(chain) <= _CANDIDATE_STEPS:
        return chain, where
    if c.sessionless or c.serves_many:
        return None  # one request per request is no churn; a session serving many items is one per run
    chain = project.ask("per_run_through", ref) if c.qual is not None else project.ask(
        "per_item_wrapped", ref, False, None, True)
    return (chain, f"in `{name}`, {_per_run(chain)}") if chain else None


def _per_run(chain: list[str] | None) -> str:
    """How often a function that ``per_run_through`` answered *chain* for runs, in words."""
    unit = "message" if chain and "runs once per message" in chain[0] else "request"
    return f"which runs once per {unit}"


def _kind(factory: str) -> str:
    short_name = factory.rsplit(".", 1)[-1].lower()
    if short_name == "socket":
        return "socket"
    if "session" in short_name:
        return "session"
    if "pool" in short_name:
        return "pool"
    if "channel" in short_name:
        return "channel"
    if short_name in ("socket", "create_connection", "connect", "connect_robust", "blockingconnection") or "connection" in short_name:
        return "connection"
    if "engine" in short_name:
        return "engine"
    return "client"


# -- BND402 ---------------------------------------------------------------------------


def _per_destination(call: cst.Call, loop) -> bool:
    """True when *call*'s arguments name the ``for`` loop's item (``SMTP(server.host)`` per ``server``): each
    pass connects somewhere else."""
    target = getattr(loop.node, "target", None)
    if not isinstance(loop.node, cst.For) or target is None:
        return False
    items = {n.value for n in iter_names(target)}
    return any(n.value in items for arg in call.args for n in iter_names(arg.value))


def iter_names(node: cst.CSTNode):
    """Every ``Name`` in *node*, itself included (attributes' roots, subscripts, calls)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            yield current
        stack.extend(current.children)
