"""BND4xx connection churn: a new client, pool or connection per item.

In the incident each of 20,000 per-item tasks dialed its own connection to
the cache: the idle pool overflowed, sockets piled up in TIME_WAIT and
ephemeral ports ran out, so even restarts could not rebuild the pool.  A
client built once and reused keeps a bounded pool of connections; one built
per item opens (and tears down) a connection per item.  Client recognition
lives in ``boundlint.analysis.clients``; per-item workers in
``boundlint.analysis.workers``.
"""
from __future__ import annotations

import re

import libcst as cst

from boundlint.analysis.clients import (
    CLIENT_FACTORIES, client_constructor, helper_constructor, project_factory, reconnect_session, returned_later, reused,
    server_socket, sessionless_name, sessionless_request,
)
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.storms import function_node, iterations_bounded, leaves_on_success, loop_source
from boundlint.analysis.workers import SPAWN_RE, WorkerSite, worker_index
from boundlint.rules.base import Example, Rule, short


def _func_name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"


def _worker_text(func: cst.CSTNode, site: WorkerSite) -> str:
    return f"in `{_func_name(func)}`, which `{site.describe()}` runs per item"


def _innermost_unbounded(ctx: Context) -> Loop | None:
    for loop in reversed(ctx.frame.loops):
        if iterations_bounded(loop, ctx) is None:
            return loop
    return None


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
    counts as its constructor, and so does such a factory in another module
    of the project (`make_client()` from `clients.py`, unless it caches:
    `@lru_cache`).  A function that builds a client on every call is
    reported at the constructor when another module calls it per item of
    its own input (`for url in urls: fetch(url)`); the evidence names the
    caller.

    ## Why is this bad?
    A client owns a connection pool; building one per item throws the pool
    away after a single use.  Each item pays a TCP (and TLS) handshake, the
    closed sockets linger in TIME_WAIT, and under load the host runs out of
    ephemeral ports or the server out of connection slots, so even healthy
    requests fail.

    ## What counts as a limit
    - the client is built once, outside the loop or worker, and reused
      (also when it is passed in as a parameter).  A same-module function
      that builds a client and is called per item of an unbounded `for`
      loop builds one per item (the finding is on its constructor);
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
      (a sleep of at least 0.1 s among its own statements) before the next.

    ## Options
    In `[tool.boundlint.churn]`: `client-factories` adds constructors by
    qualified name (`mycompany.cache.connect`).
    """
    code, name = "BND401", "client-per-item"
    # A factory resolves only where its last name is written (at the call or in its import).
    prefilter = re.compile(r"\b(?:" + "|".join(sorted({q.rsplit(".", 1)[-1] for q in CLIENT_FACTORIES})) + r")\b")
    widening_options = ("client-factories",)
    message = "`{call}` opens a new {kind} {where}"
    hint = "build the client once, outside the loop or worker, and reuse it: its pool limits and reuses connections"
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
        self._candidates: list[tuple[cst.Call, cst.CSTNode, str]] = []
        # same-module functions called once per item of a for loop: id(def) -> (loop source, caller)
        self._looped: dict[int, tuple[str, str]] = {}

    def _note_loop_call(self, node: cst.Call, ctx: Context) -> None:
        """Record a same-module function called per item of an unbounded ``for`` loop (sequential churn)."""
        if not ctx.frame.loops or not isinstance(node.func, (cst.Name, cst.Attribute)):
            return
        target = ctx.resolve_callable(node.func)
        if not isinstance(target, cst.FunctionDef) or id(target) in self._looped:
            return
        loop = _innermost_unbounded(ctx)
        if loop is None or loop.kind == "while":
            return  # a while loop may reconnect per session; a for loop runs per item
        if loop.kind == "for" and leaves_on_success(getattr(loop.node, "body", None)):
            return  # a failover loop: it stops at the first call that works
        caller = function_node(ctx)
        self._looped[id(target)] = (loop_source(loop), _func_name(caller) if caller is not None else "<module>")

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        worker_index(ctx).note_call(node, ctx)
        factory = client_constructor(node, ctx) or helper_constructor(node, ctx)
        evidence: tuple[str, ...] = ()
        if factory is None and ctx.frame.loops:
            made = project_factory(node, ctx)
            if made is not None:
                factory, evidence = made[0], (f"{made[1]} builds a new `{made[0]}` on every call",)
        if factory is None:
            self._note_loop_call(node, ctx)
            return
        loop = _innermost_unbounded(ctx)
        if reused(node, ctx, loop) or server_socket(node, ctx, loop.node if loop is not None else function_node(ctx)):
            return
        if reconnect_session(node, ctx, loop):
            return
        kind = _kind(factory)
        if loop is not None:
            where = f"on every iteration of `{loop_source(loop)}`" if loop.kind == "while" else f"per item of `{loop_source(loop)}`"
            self.report(node, evidence, call=short(node.func) + "(...)", kind=kind, where=where, volume=loop.iter,
                        work=(node,))
            return
        func = function_node(ctx)
        if func is not None and not returned_later(node, ctx, func):
            self._candidates.append((node, func, kind, ctx.function_qualname()))

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        index = worker_index(ctx)
        for call, func, kind, qual in self._candidates:
            site = index.site_of(func)
            if site is not None:
                self.report(call, call=short(call.func) + "(...)", kind=kind, where=_worker_text(func, site), work=(call,),
                            volume=site.volume)
            elif id(func) in self._looped:
                source, caller = self._looped[id(func)]
                where = f"in `{_func_name(func)}`, which `{caller}` calls per item of `{source}`"
                self.report(call, call=short(call.func) + "(...)", kind=kind, where=where, work=(call,))
            elif qual is not None and ctx.project:
                chain = ctx.project.ask("per_item_callers", ctx.project.ref(None, qual))
                if chain:
                    where = f"in `{_func_name(func)}`, which another module calls per item"
                    self.report(call, chain, call=short(call.func) + "(...)", kind=kind, where=where, work=(call,))
        self._candidates.clear()
        self._looped.clear()


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

class SessionlessRequestInFanOut(Rule):
    __doc__ = """
    ## What it does
    Flags a module-level convenience request (`requests.get` / `post` / ...,
    `httpx.get` / `post` / ..., `urllib.request.urlopen`, `aiohttp.request`)
    inside a function that a fan-out in the same module runs once per item,
    and such a helper handed to the fan-out directly
    (`executor.map(requests.get, urls)`).

    ## Why is this bad?
    Each of these calls builds a throw-away session: a new connection per
    call, closed right after.  Run concurrently, one per item, they open as
    many connections at once as there are items in flight, with a TCP and
    TLS handshake each, and leave the sockets in TIME_WAIT.

    ## What counts as a limit
    - a shared `requests.Session` / `httpx.Client` / `aiohttp.ClientSession`
      built once and passed to the workers (its pool reuses connections);
    - the fan-out runs over a bounded source or starts a fixed pool of
      workers;
    - a plain sequential loop of `requests.get` is not this rule: it holds
      one connection at a time.
    """
    code, name = "BND402", "sessionless-request-in-fan-out"
    # the helpers resolve only through an import of one of these modules
    prefilter = (re.compile(r"\b(?:requests|httpx|urllib|urllib2|aiohttp)\b"), SPAWN_RE)
    message = "`{call}` opens a new connection per call {where}"
    hint = "create one Session or Client for the fan-out and pass it to every worker, so its pool reuses connections"
    invalid = (
        Example("requests_get_in_pool", """
            from concurrent.futures import ThreadPoolExecutor

            import requests

            def fetch(url):
                return requests.get(url, timeout=10).json()  # error: BND402 col 12

            def fetch_all(urls):
                with ThreadPoolExecutor(max_workers=8) as pool:
                    return list(pool.map(fetch, urls))
            """),
    )
    valid = (
        Example("shared_session", """
            from concurrent.futures import ThreadPoolExecutor
            from functools import partial

            import requests

            def fetch(session, url):
                return session.get(url, timeout=10).json()

            def fetch_all(urls):
                with requests.Session() as session, ThreadPoolExecutor(max_workers=8) as pool:
                    return list(pool.map(partial(fetch, session), urls))
            """),
        Example("sequential_loop", """
            import requests

            def fetch_all(urls):
                return [requests.get(url, timeout=10).json() for url in urls]
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._candidates: list[tuple[cst.Call, cst.CSTNode]] = []

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        worker_index(ctx).note_call(node, ctx)
        if sessionless_request(node, ctx) is None:
            return
        func = function_node(ctx)
        if func is not None:
            self._candidates.append((node, func))

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        index = worker_index(ctx)
        for call, func in self._candidates:
            site = index.site_of(func)
            if site is not None:
                self.report(call, call=short(call.func) + "(...)", where=_worker_text(func, site), work=(call,),
                            volume=site.volume)
        for target, site in index.direct:
            if sessionless_name(target, ctx):
                self.report(target, call=short(target), where=f"for every item of `{site.describe()}`", work=(target,),
                            volume=site.volume)
        self._candidates.clear()
