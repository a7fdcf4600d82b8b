"""Recognising network clients, sessions, pools and connections, and one-shot request helpers.

``client_constructor(call, ctx)`` names the client a call builds (by the
canonical qualified name of the callee, through any import form; the
``client-factories`` option adds more).  ``sessionless_request(call, ctx)``
names a module-level convenience call that opens a fresh connection per
call (``requests.get``, ``httpx.post``, ``urllib.request.urlopen``).
``reused(ctx)`` says why a client built inside a loop is still built once:
it is cached on an attribute or in a dict, returned, or built by a
failover loop that stops at the first success.
"""
from __future__ import annotations

import libcst as cst

from boundlint import tables
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.limits import iter_nodes
from boundlint.analysis.pauses import paced
from boundlint.analysis.storms import leaves_on_success
from boundlint.analysis.names import dotted

# The default table (``boundlint tables client-constructors``); judgement reads ``client_factories(ctx)``.
CLIENT_FACTORIES = frozenset(tables.TABLES["client-constructors"].entries)
# Methods that store what they are given, so a client passed to them is kept for reuse.
_STORES = frozenset({"append", "add", "put", "put_nowait", "__setitem__"})


def client_factories(ctx: Context) -> frozenset[str]:
    """The ``client-constructors`` table in effect (the defaults, the ``client-factories`` option, the config)."""
    return tables.table("client-constructors", ctx.settings)


def client_constructor(call: cst.Call, ctx: Context) -> str | None:
    """The qualified name of the client, session, pool or connection *call* builds, else None."""
    q = ctx.qualname(call.func)
    if q is None:
        return None
    if q in client_factories(ctx):
        return q
    return None


def helper_constructor(call: cst.Call, ctx: Context) -> str | None:
    """The client a same-module helper builds and returns each time it is called, else None.

    ``def _client(token): return httpx.Client(...)`` makes every call of
    ``_client(...)`` a new client.  A helper that caches (a decorator such as
    ``lru_cache``, or a ``return`` under a lazy-initialisation ``if``) does not
    count: only a ``return`` among the body's own statements is read.
    """
    target = ctx.resolve_callable(call.func)
    if type(target) is not cst.FunctionDef or target.decorators or type(target.body) is not cst.IndentedBlock:
        return None
    for stmt in target.body.body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Return and small.value is not None:
                    value = small.value.expression if type(small.value) is cst.Await else small.value
                    if type(value) is cst.Call and not shares_pool(value):
                        return client_constructor(value, ctx)
    return None


def project_factory(call: cst.Call, ctx: Context) -> list | None:
    """``[client, "`f` (path:line)"]`` when *call* calls a project function, in another module, that
    builds and returns a new client on every call (``make_client()`` from ``clients.py``)."""
    if not ctx.project or not isinstance(call.func, (cst.Name, cst.Attribute)) or ctx.resolve_callable(call.func) is not None:
        return None
    ref = ctx.project_ref(call.func)
    return ctx.project.ask("client_factory", ref) if ref is not None else None  # type: ignore[return-value]


def sessionless_request(call: cst.Call, ctx: Context) -> str | None:
    """The qualified name when *call* is a one-shot request helper that opens its own connection."""
    q = ctx.qualname(call.func)
    return q if q in tables.table("sessionless-calls", ctx.settings) else None


def sessionless_name(expr: cst.BaseExpression, ctx: Context) -> str | None:
    """The qualified name when *expr* (a callable passed as a worker) is such a helper."""
    q = ctx.qualname(expr)
    return q if q in tables.table("sessionless-calls", ctx.settings) else None


def _index(ctx: Context, node: cst.CSTNode) -> int:
    for i in range(len(ctx.ancestors) - 1, -1, -1):
        if ctx.ancestors[i] is node:
            return i
    return -1


RETURNED = "returned to the caller"


def reused(call: cst.Call, ctx: Context, loop: Loop | None) -> str | None:
    """Why the client *call* builds is built once rather than per item, or None.

    Counts a client stored on an attribute or in a mapping (``self._session =
    ...``, ``clients[host] = ...``, ``pool.append(Client())``,
    ``{host: Client(host) for host in hosts}``), one
    returned or yielded from the loop, one built under a lazy-initialisation
    test (``if self._client is None:`` / ``if key not in clients:``), and,
    when *loop* is given, a failover loop that leaves at its first success
    (``for addr in getaddrinfo(...): try: ...; break``).
    """
    if shares_pool(call):
        return "a handle over a pool built elsewhere"
    parent = ctx.parent()
    node: cst.CSTNode = call
    if type(parent) is cst.Await:
        node, parent = parent, ctx.parent(2)
    if isinstance(parent, (cst.Assign, cst.AnnAssign)):
        targets = [t.target for t in parent.targets] if type(parent) is cst.Assign else [parent.target]
        if any(isinstance(t, (cst.Attribute, cst.Subscript)) for t in targets):
            return "kept on an attribute or in a mapping"
    if isinstance(parent, (cst.Return, cst.Yield)):
        return RETURNED
    if isinstance(parent, (cst.ListComp, cst.SetComp, cst.DictComp)) and node in (getattr(parent, "elt", None), getattr(parent, "value", None)):
        return "kept in the collection the comprehension builds"
    if type(parent) is cst.Arg:
        outer = ctx.parent(2)
        if type(outer) is cst.Call and type(outer.func) is cst.Attribute and outer.func.attr.value in _STORES:
            return "kept in a collection"
    start = _index(ctx, loop.node) if loop is not None else 0
    for anc in ctx.ancestors[start + 1:]:
        if type(anc) is cst.If and _lazy_test(anc.test):
            return "built once under a lazy-initialisation check"
    if loop is not None and loop.kind in ("for", "while") and leaves_on_success(getattr(loop.node, "body", None)):
        return "a failover loop that stops at the first success"
    return None


def shares_pool(call: cst.Call) -> bool:
    """True when *call* is handed an existing pool, connector or transport (``connection_pool=POOL``).

    A value built right there (``connector=TCPConnector()``) is new, so it does not count.
    """
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in tables.table("shared-pool-keywords"):
            value = arg.value
            if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)) and dotted(value) != "None":
                return True
    return False


def reconnect_session(call: cst.Call, ctx: Context, loop: Loop | None) -> str | None:
    """Why a client built in a ``while`` loop is one per session or period, not one per item, or None.

    A reconnect loop builds a connection and then serves many items with it
    (a nested loop that uses the client: ``async for msg in ws``,
    ``for line in sock.makefile()``); a periodic loop pauses (a sleep of at
    least 0.1 s among the loop body's own statements) before it builds the
    next one.
    """
    if loop is None or loop.kind != "while":
        return None
    body = getattr(loop.node, "body", None)
    if type(body) is not cst.IndentedBlock:
        return None
    if paced_loop(loop, ctx):
        return "a periodic loop: it pauses between connections"
    name = _bound_name(call, ctx)
    if name is None:
        return None
    for node in iter_nodes(body):
        if isinstance(node, (cst.For, cst.While)) and node is not loop.node:
            head = node.iter if type(node) is cst.For else node.test
            if any(dotted(n) == name or (type(n) is cst.Name and n.value == name) for n in iter_nodes(head)):
                return "a reconnect loop: each connection serves many items"
            if type(node) is cst.While and any(type(n) is cst.Name and n.value == name for n in iter_nodes(node.body)):
                return "a reconnect loop: each connection serves many items"
    return None


def paced_loop(loop: Loop, ctx: Context) -> bool:
    """True when a ``while`` loop pauses on every pass: a sleep of at least 0.1 s among its body's own
    statements or in the ``finally`` of a ``try`` there (one pass per period, not one per item)."""
    body = getattr(loop.node, "body", None)
    if type(body) is not cst.IndentedBlock:
        return False
    tops: list[cst.CSTNode] = [s for s in body.body if type(s) is cst.SimpleStatementLine]
    for stmt in body.body:
        if type(stmt) is cst.Try and stmt.finalbody is not None:
            tops.append(stmt.finalbody)
    return paced(tops, ctx)


def serves_many(call: cst.Call, ctx: Context, func: cst.CSTNode) -> bool:
    """True when *func* goes on to serve many items with the client *call* builds: a loop over it or
    one whose body uses it (``ws = connect(); async for msg in ws``): a session, not one use."""
    name = _bound_name(call, ctx)
    body = getattr(func, "body", None)
    if name is None or body is None:
        return False
    for node in iter_nodes(body):
        if isinstance(node, (cst.For, cst.While)):
            head = node.iter if type(node) is cst.For else node.test
            if any(dotted(n) == name or (type(n) is cst.Name and n.value == name) for n in iter_nodes(head)):
                return True
            if type(node) is cst.While and any(type(n) is cst.Name and n.value == name for n in iter_nodes(node.body)):
                return True
    return False


def session_client(call: cst.Call, ctx: Context) -> str | None:
    """``"<session>.client"`` when *call* builds a client from a session (boto3 style), else None.

    ``session.client("s3")`` / ``.resource("s3")`` where ``session`` is bound
    to a new session (``session = boto3.Session()``), or, in a module that
    imports boto3 or aioboto3, any receiver (a parameter, a module-level
    session, a cached ``factory()``) with the service named by a string: each
    call makes a client with its own connection pool, whoever holds the
    session.  A receiver that is itself a constructor call
    (``boto3.Session().client(...)``) is that constructor's finding: None.
    """
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in ("client", "resource"):
        return None
    receiver = func.value
    if type(receiver) is cst.Call and (client_constructor(receiver, ctx) or helper_constructor(receiver, ctx)
                                           or project_factory(receiver, ctx)):
        return None
    if type(receiver) is cst.Name:
        bound = ctx.lookup(receiver.value)
        value = bound[1][-1] if bound and bound[1] else None
        value = value.expression if type(value) is cst.Await else value
        made = client_constructor(value, ctx) if type(value) is cst.Call else None
        if made is not None and "session" in made.rsplit(".", 1)[-1].lower():
            return f"{made}.{func.attr.value}"
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    if type(first) is cst.SimpleString and ctx.names.imports_from(("boto3", "aioboto3", "aiobotocore", "botocore")):
        return f"{dotted(receiver) or 'session'}.{func.attr.value}"
    return None


def returned_later(call: cst.Call, ctx: Context, func: cst.CSTNode) -> bool:
    """True when the name *call*'s client is bound to is returned by *func* (``r = Redis(...); ...; return r``).

    *func* then builds clients for its callers, which decide whether to keep them.
    """
    name = _bound_name(call, ctx)
    if name is None:
        return False
    body = getattr(func, "body", None)
    for node in iter_nodes(body) if body is not None else ():
        if type(node) is cst.Return and node.value is not None and dotted(node.value) == name:
            return True
    return False


def _bound_name(call: cst.Call, ctx: Context) -> str | None:
    """The name *call*'s result is bound to (``x = call``, ``x, y = await call``, ``with call as x``)."""
    for anc in reversed(ctx.ancestors):
        if type(anc) is cst.With:
            for item in anc.items:
                value = item.item.expression if type(item.item) is cst.Await else item.item
                if value is call and item.asname is not None:
                    return dotted(item.asname.name)
            return None
        if type(anc) is cst.Assign and len(anc.targets) == 1:
            target = anc.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)) and target.elements:
                return dotted(target.elements[0].value)
            return dotted(target)
        if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return None
    return None


def _lazy_test(test: cst.BaseExpression) -> bool:
    """``x is None``, ``not x``, ``key not in clients``, ``not hasattr(...)``."""
    if type(test) is cst.BooleanOperation:
        return _lazy_test(test.left) or _lazy_test(test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = test.expression
        return isinstance(inner, (cst.Name, cst.Attribute)) or (type(inner) is cst.Call and dotted(inner.func) == "hasattr")
    if type(test) is cst.Comparison:
        for comp in test.comparisons:
            if type(comp.operator) is cst.NotIn:
                return True
            if isinstance(comp.operator, (cst.Is, cst.Equal)) and type(comp.comparator) is cst.Name and comp.comparator.value == "None":
                return True
    return False


def server_socket(call: cst.Call, ctx: Context, root: cst.CSTNode | None) -> bool:
    """True when the ``socket.socket(...)`` *call* builds is bound (``sock.bind(...)`` under *root*): a listener, not a client."""
    if root is None or ctx.qualname(call.func) != "socket.socket":
        return False
    name = None
    for anc in reversed(ctx.ancestors):
        if type(anc) is cst.Assign and len(anc.targets) == 1:
            name = dotted(anc.targets[0].target)
            break
        if type(anc) is cst.WithItem and anc.asname is not None:
            name = dotted(anc.asname.name)
            break
        if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            break
    if name is None:
        return False
    from boundlint.analysis.limits import iter_nodes

    for node in iter_nodes(root):
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("bind", "listen"):
            if dotted(node.func.value) == name:
                return True
    return False
