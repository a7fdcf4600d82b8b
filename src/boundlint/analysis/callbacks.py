"""Callbacks that run once per item: a done-callback on every task, a per-message handler.

- A done-callback attached to each task an unbounded loop (or a per-item
  worker or handler) creates: ``task.add_done_callback(on_done)`` runs
  ``on_done`` once per task.
- A message handler registered with a broker or pub/sub client:
  ``client.on_message = handle`` (paho-mqtt, websocket-client),
  ``message_callback_add(topic, handle)``, ``on_message=`` /
  ``on_message_callback=`` (pika) keywords, ``callback=`` / ``cb=`` of a
  ``subscribe`` / ``consume`` / ``basic_consume`` call (Google Pub/Sub,
  NATS), kombu's ``Consumer(..., callbacks=[handle])`` and ``register_callback(handle)``.  The
  broker calls it once per message: the volume is the input's.

Like ``workers.WorkerIndex`` the sites are noted during the traversal and
asked for in ``leave_Module``, since a callback may be defined after the
line that registers it.  The index is shared through ``ctx.cache``.
"""
from __future__ import annotations

import libcst as cst

from boundlint import tables
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted
from boundlint.analysis.storms import function_node, iterations_bounded
from boundlint.analysis.workers import WorkerIndex, WorkerSite, worker_index

_MESSAGE_KEYWORDS = frozenset({"on_message", "on_message_callback", "message_callback"})
_SUBSCRIBE_METHODS = frozenset({"subscribe", "psubscribe", "consume", "basic_consume", "subscribe_async"})
_SUBSCRIBE_KEYWORDS = frozenset({"callback", "cb"})
_TASK_MAKERS = frozenset({"create_task", "ensure_future", "submit", "run_coroutine_threadsafe", "spawn", "start_soon"})


class CallbackIndex:
    """Same-module callables a done-callback or message registration runs per item, keyed by ``id`` of their def."""

    def __init__(self) -> None:
        self.sites: dict[int, tuple[WorkerSite, bool]] = {}
        # done-callbacks attached outside any unbounded loop: (callback, site, function that attaches it)
        self._done: list[tuple[cst.CSTNode, WorkerSite, cst.CSTNode | None]] = []
        self._keep: list[cst.CSTNode] = []
        self._workers: WorkerIndex | None = None

    def site_of(self, func: cst.CSTNode | None) -> tuple[WorkerSite, bool] | None:
        """``(site, per_message)`` for a callback run per item, or None (``per_message``: a broker's handler).

        A done-callback attached outside a loop counts when the function that
        attaches it runs per item itself (a fan-out's worker, a message handler).
        """
        if func is None:
            return None
        found = self.sites.get(id(func))
        if found is not None:
            return found
        for node, site, owner in self._done:
            if node is func and owner is not None and owner is not func:
                if id(owner) in self.sites or (self._workers is not None and self._workers.site_of(owner) is not None):
                    return site, False
        return None

    def note_call(self, call: cst.Call, ctx: Context) -> None:
        """Record the callback *call* registers, if it runs once per item."""
        func = call.func
        if (dotted(func) or "").rsplit(".", 1)[-1] == "Consumer":  # kombu: `Consumer(queues, callbacks=[handle])`
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "callbacks" and isinstance(arg.value, (cst.List, cst.Tuple)):
                    for element in arg.value.elements:
                        self._add(element.value, WorkerSite(short_api(call), _where(ctx)), True, ctx)
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method == "register_callback" and call.args:  # kombu's `consumer.register_callback(handle)`
            self._add(call.args[0].value, WorkerSite(short_api(call), _where(ctx)), True, ctx)
        self._workers = worker_index(ctx)
        if method == "add_done_callback" and call.args:
            self._note_done(call, ctx)
            return
        if method == "message_callback_add" and len(call.args) >= 2:
            self._add(call.args[1].value, WorkerSite(short_api(call), _where(ctx)), True, ctx)
        for arg in call.args:
            if arg.keyword is None:
                continue
            word = arg.keyword.value
            if word in _MESSAGE_KEYWORDS or (word in _SUBSCRIBE_KEYWORDS and method in _SUBSCRIBE_METHODS):
                self._add(arg.value, WorkerSite(short_api(call), _where(ctx)), True, ctx)

    def note_assign(self, node: cst.Assign, ctx: Context) -> None:
        """Record ``client.on_message = handle``."""
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and t.attr.value in _MESSAGE_KEYWORDS:
                api = (dotted(t) or t.attr.value) + " = ..."
                self._add(node.value, WorkerSite(api, _where(ctx)), True, ctx)

    def _note_done(self, call: cst.Call, ctx: Context) -> None:
        target = ctx.resolve_callable(call.args[0].value)
        if target is None or not _task(call.func.value, ctx):  # type: ignore[union-attr]
            return
        site = WorkerSite(short_api(call), _where(ctx))
        if any(iterations_bounded(loop, ctx) is None for loop in ctx.frame.loops):
            self._keep_site(target, site, False)
        else:
            self._done.append((target, site, function_node(ctx)))
            self._keep.append(target)

    def _add(self, expr: cst.BaseExpression, site: WorkerSite, per_message: bool, ctx: Context) -> None:
        target = ctx.resolve_callable(expr)
        if target is not None:
            self._keep_site(target, site, per_message)

    def _keep_site(self, target: cst.CSTNode, site: WorkerSite, per_message: bool) -> None:
        self.sites.setdefault(id(target), (site, per_message))
        self._keep.append(target)


def queue_worker(func: cst.CSTNode | None, ctx: Context) -> WorkerSite | None:
    """The decorator that makes *func* a task a queue or broker runs once per message (``@shared_task``,
    ``@app.task(bind=True)``, ``@dramatiq.actor``, ``@broker.subscriber("q")``: the ``worker-decorators``
    table less the ``periodic-decorators``), as a site; else None."""
    if not isinstance(func, cst.FunctionDef):
        return None
    workers = tables.table("worker-decorators", ctx.settings) - tables.table("periodic-decorators", ctx.settings)
    for decorator in func.decorators:
        expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        name = dotted(expr) or ""
        if name.rsplit(".", 1)[-1] in workers:
            return WorkerSite(f"@{name}", "<module>", ("input", f"the messages `@{name}` delivers"))
    return None


def hands_back(handler: cst.ExceptHandler, func: cst.CSTNode) -> bool:
    """True when *handler* hands the failure back to the task queue: among its own statements, a call of
    ``retry`` on the bound task (``raise self.retry(exc=exc, countdown=60)``), which re-queues the message
    with a delay; its log line then repeats per retry, paced by the queue."""
    params = func.params.params if isinstance(func, cst.FunctionDef) else ()
    if not params:
        return False
    bound = params[0].name.value
    for stmt in handler.body.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            value = small.exc if isinstance(small, cst.Raise) else getattr(small, "value", None)
            if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "retry"
                    and isinstance(value.func.value, cst.Name) and value.func.value.value == bound):
                return True
    return False


def _task(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True when *expr* is (or names) a task or future made here: ``create_task(...)``, ``t`` bound to one."""
    if isinstance(expr, cst.Name):
        bound = ctx.lookup(expr.value)
        values = [v for v in bound[1] if v is not None] if bound else []
        return any(_task(v, ctx) for v in values[-1:])
    if isinstance(expr, cst.Await):
        expr = expr.expression
    if isinstance(expr, cst.Call):
        name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
        return name in _TASK_MAKERS
    return False


def short_api(call: cst.Call) -> str:
    """``task.add_done_callback(...)`` style text of a registration call, at most 60 characters."""
    text = " ".join(cst.Module(body=[]).code_for_node(call.func).split())
    return (text if len(text) <= 55 else text[:52] + "...") + "(...)"


def _where(ctx: Context) -> str:
    scope = ctx.scope.function()
    return scope.name if scope is not None else "<module>"


def callback_index(ctx: Context) -> CallbackIndex:
    """The file's shared CallbackIndex (created on first use)."""
    index = ctx.cache.get("callbacks")
    if index is None:
        index = ctx.cache["callbacks"] = CallbackIndex()
    return index  # type: ignore[return-value]
