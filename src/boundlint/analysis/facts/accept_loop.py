"""Is a spawn a server's accept loop?  One handler per accepted connection, bounded by design.

A ``while`` loop that accepts a connection (``conn = await listener.accept()``,
``sock, addr = server.accept()``) and starts a task or thread that takes it
serves one connection per handler: how many run at once is how many clients
are connected, held by the listen backlog and the open-file limit, not a
request's size multiplied.  The accepting methods are the ``accept-calls``
table.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Loop, assigned_names
from boundlint.analysis.facts.walk import own_nodes
from boundlint.tables import short_names, table


def accepted(loop: Loop, spawn_call: cst.Call, ctx) -> str:
    """``"`listener.accept()`"`` when *loop* is a ``while`` loop whose body binds a name from an
    accepting call and *spawn_call* (the task or thread started per pass) takes that name; else "".

    *ctx* is the traversal's Context (its settings give the ``accept-calls`` table).
    """
    if loop.kind != "while":
        return ""
    methods = short_names(table("accept-calls", ctx.settings))
    names: dict[str, str] = {}
    for node in own_nodes(loop.node.body):
        value = getattr(node, "value", None)
        call = value.expression if isinstance(value, cst.Await) else value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in methods):
            continue
        for name, _value in assigned_names(node):  # `conn = ...`, `conn, addr = ...`
            names[name] = cst.Module([]).code_for_node(call.func) + "()"
    if not names:
        return ""
    for node in own_nodes(spawn_call):
        if isinstance(node, cst.Name) and node.value in names and node is not spawn_call.func:
            return f"`{names[node.value]}`"
    return ""

