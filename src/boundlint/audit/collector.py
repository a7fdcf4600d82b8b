"""Per-file facts for ``boundlint audit``, gathered in the rules' own traversal.

``AuditCollector`` has rule-style ``visit_<Node>`` / ``leave_<Node>`` hooks;
the engine runs it next to the rules (``check_files(..., collectors=(AuditCollector,))``)
and calls ``facts(position)`` at the end, which returns plain picklable data:

- ``functions``: every def with its qualified name, ``def`` line, line span,
  first decorator's line (``top``) and the same-module functions it calls
  (or defines);
- ``handlers``: the defs recognised as request handlers, with framework,
  route and the request collection fields they accept;
- ``spawns``: every fan-out site with the fan-out rules' own judgement of
  whether it is bounded and by what.

Which findings are reachable from which handler is worked out later, in
``boundlint.audit.model``, from these facts and the findings' evidence.
Handler recognition lives in ``boundlint.audit.recognise``; the expression
helpers that say where fan-out items come from in ``boundlint.audit.origins``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted
from boundlint.analysis.spawns import Spawn, executor_constructor, spawn_of
from boundlint.audit import prefixes
from boundlint.audit.origins import _QUERY_LISTS, _gather_limit, _loop_text, _origin, _query_name, _request_global, _unwrap
from boundlint.audit.recognise import (
    _HANDLER_HINT, _HANDLER_KWARGS, _HTTP_VERBS, _RESPONDERS, REGISTRAR_QUALNAMES, REGISTRARS, _classify,
    _configured_patterns, _Function, _grpc_shaped, _module_framework, _options, _param_fields, _route_text,
)
from boundlint.rules.base import short


@dataclass(eq=False)
class _Spawn:
    node: cst.Call
    fn: _Function | None
    kind: str
    api: str
    source: str | None
    origin: str | None  # dotted expression the items come from, through local aliases
    target: str | None
    bounded: bool
    limit: str | None


class AuditCollector:
    """Gathers handlers, call graph and fan-out sites of one module (see module doc)."""

    name = "audit"
    code = "audit"  # named in BND002 messages when a hook fails

    @classmethod
    def may_apply(cls, text: str, settings) -> bool:
        """False when *text* can hold no request handler: no web framework, no servicer, no configured name."""
        if _HANDLER_HINT.search(text):
            return True
        for pattern in _configured_patterns(settings):
            literal = re.split(r"[*?\[]", pattern.rsplit(".", 1)[-1])[0]
            if not literal or literal in text:
                return True
        return False

    def __init__(self) -> None:
        self._stack: list[_Function] = []
        self._names: list[str] = []
        self._functions: list[_Function] = []
        self._by_node: dict[int, _Function] = {}
        self._spawns: list[_Spawn] = []
        self._registered: list[tuple[int, str, str]] = []  # (def node id, registrar, route)
        self._roots: set[str] = set()
        self._ctx: Context | None = None
        self._mounts: dict = {"routers": {}, "includes": []}  # router prefixes (audit.prefixes)
        self._controllers: dict[int, tuple[bool, str | None]] = {}  # ClassDef id -> Litestar Controller path

    # -- imports and names ----------------------------------------------------------
    def visit_Import(self, node: cst.Import, ctx: Context) -> None:
        for alias in node.names:
            self._roots.add((dotted(alias.name) or "").split(".", 1)[0])

    def visit_ImportFrom(self, node: cst.ImportFrom, ctx: Context) -> None:
        if node.module is not None and not node.relative:
            self._roots.add((dotted(node.module) or "").split(".", 1)[0])

    def visit_ClassDef(self, node: cst.ClassDef, ctx: Context) -> None:
        self._names.append(node.name.value)
        path = prefixes.controller_path(node)
        if path is not None:
            self._controllers[id(node)] = path

    def leave_ClassDef(self, node: cst.ClassDef, ctx: Context) -> None:
        self._names.pop()

    # -- functions --------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        self._ctx = ctx
        scope = ctx.scope
        cls = scope.node if scope.kind == "class" and isinstance(scope.node, cst.ClassDef) else None
        bases = tuple(_name(arg.value, ctx) for arg in cls.bases) if cls is not None else ()
        decorators = []
        for deco in node.decorators:
            d = deco.decorator
            target = d.func if isinstance(d, cst.Call) else d
            decorators.append((ctx.qualname(target) or "", dotted(target) or "", isinstance(d, cst.Call), _route_text(d)))
        p = node.params
        params = tuple(x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params))
        parent = self._stack[-1] if self._stack else None
        fn = _Function(node, ".".join([*self._names, node.name.value]), parent, cls, bases, tuple(decorators), params,
                       scope.kind == "module")
        if parent is not None:
            parent.callees.append(id(node))  # code defined inside a function runs on its behalf
        self._functions.append(fn)
        self._by_node[id(node)] = fn
        self._stack.append(fn)
        self._names.append(node.name.value)

    def leave_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if self._stack and self._stack[-1].node is node:
            self._stack.pop()
            self._names.pop()

    # -- calls: call graph, fan-out sites, registrations, query lists -------------------
    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        fn = self._stack[-1] if self._stack else None
        if fn is not None:
            target = ctx.resolve_callable(node.func)
            if isinstance(target, cst.FunctionDef):
                fn.callees.append(id(target))
            self._query_list(node, fn, ctx)
            if not fn.responds:
                called = (dotted(node.func) or "").rsplit(".", 1)[-1]
                fn.responds = called.endswith("Response") or called in _RESPONDERS
        self._registration(node, ctx)
        prefixes.note_call(node, ctx, self._mounts)
        spawn = spawn_of(node, ctx)
        if spawn is not None:
            if fn is not None and spawn.target is not None:
                target = ctx.resolve_callable(spawn.target)
                if isinstance(target, cst.FunctionDef):
                    fn.callees.append(id(target))
            self._spawn(spawn, fn, ctx)

    def visit_For(self, node: cst.For, ctx: Context) -> None:
        self._iterated(node.iter, ctx)

    def _visit_comp(self, node: cst.BaseComp, ctx: Context) -> None:
        comp_for = node.for_in
        while comp_for is not None:
            self._iterated(comp_for.iter, ctx)
            comp_for = comp_for.inner_for_in

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def _iterated(self, expr: cst.BaseExpression, ctx: Context) -> None:
        """Note ``request.<field>`` iterated by a gRPC-shaped method, with its length check if any."""
        fn = self._stack[-1] if self._stack else None
        if fn is None or not _grpc_shaped(fn):
            return
        expr = _unwrap(expr)
        origin = _origin(expr, ctx)
        request = fn.params[1]
        if origin is None or not origin.startswith(request + ".") or origin in fn.grpc_fields:
            return
        key = origin.split(".")[1]
        field_key = f"{request}.{key}"
        if field_key in fn.grpc_fields:
            return
        limit = limits.guarded(expr, ctx) or limits.source_limit(expr, ctx)
        if limit is None and not isinstance(expr, cst.Attribute):
            bound = ctx.lookup(expr.value) if isinstance(expr, cst.Name) else None
            if bound and bound[1] and bound[1][-1] is not None:
                limit = limits.guarded(bound[1][-1], ctx)
        fn.grpc_fields[field_key] = (expr, limit)

    def _query_list(self, node: cst.Call, fn: _Function, ctx: Context) -> None:
        """``request.args.getlist("ids")`` and the like: a query parameter read as a list."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _QUERY_LISTS or not node.args:
            return
        first = node.args[0].value
        if not isinstance(first, cst.SimpleString):
            return
        root = (dotted(func.value) or "").split(".", 1)[0]
        if root not in fn.params and root != "self" and not _request_global(root, ctx):
            return
        limit = None
        parent = ctx.parent()
        if isinstance(parent, cst.Subscript):
            limit = limits.source_limit(parent, ctx)
        fn.query_lists.append((node, _query_name(node) or "query", limit))

    def _registration(self, node: cst.Call, ctx: Context) -> None:
        q = ctx.qualname(node.func) or ""
        written = dotted(node.func) or ""
        short_name = written.rsplit(".", 1)[-1]
        if q not in REGISTRAR_QUALNAMES and not (isinstance(node.func, cst.Attribute) and short_name in REGISTRARS):
            return
        candidates = [a.value for a in node.args if a.keyword is not None and a.keyword.value in _HANDLER_KWARGS]
        candidates += [a.value for a in node.args if a.keyword is None and a.star == ""][1:]
        route = ""
        for a in node.args:
            if a.keyword is None and isinstance(a.value, cst.SimpleString) and isinstance(a.value.evaluated_value, str):
                route = a.value.evaluated_value
                if route.startswith("/") or "<" in route or "{" in route or route == "":
                    break
        for expr in candidates:
            target = ctx.resolve_callable(expr)
            if isinstance(target, cst.FunctionDef):
                verb = short_name[4:].upper() if short_name.startswith("add_") and short_name[4:] in _HTTP_VERBS else ""
                self._registered.append((id(target), q or written, f"{verb} {route}".strip()))
                return

    # -- fan-out judgement (the fan-out rules' own helpers) -----------------------------
    def _spawn(self, spawn: Spawn, fn: _Function | None, ctx: Context) -> None:
        from boundlint.rules import fanout

        target = short(spawn.target) if spawn.target is not None else None
        if spawn.kind == "gather":
            self._gather(spawn, fn, ctx)
            return
        if spawn.kind == "pool":
            ctor = executor_constructor(spawn.receiver, ctx) if spawn.receiver is not None else None
            size = fanout._pool_size(ctor) if ctor is not None else None
            items = None
            if not spawn.api.endswith(("submit", "apply_async")):
                positional = [a.value for a in spawn.call.args if a.keyword is None and a.star == ""]
                items = positional[1] if len(positional) > 1 else None
            elif ctx.frame.loops and ctx.frame.loops[-1].iter is not None:
                items = ctx.frame.loops[-1].iter
            source = short(items) if items is not None else None
            origin = _origin(items, ctx)
            if ctor is not None and size is not None and limits.size_from_input(size, ctx):
                self._add(spawn, fn, ctx, source, origin, target, False, None)
                return
            if ctor is not None:
                limit = f"a pool of `{short(size)}` workers" if size is not None else "the pool's default size"
            else:
                limit = "the executor's pool size"
            self._add(spawn, fn, ctx, source, origin, target, True, limit)
            return
        if spawn.kind == "thread" and isinstance(spawn.receiver, cst.Attribute):
            self._add(spawn, fn, ctx, None, None, target, True, "one thread kept on an attribute")
            return
        loops = fanout.region_loops(spawn, ctx) if spawn.kind == "task" else list(ctx.frame.loops)
        if not loops:
            self._add(spawn, fn, ctx, None, None, target, True, "one per call")
            return
        found, limit = fanout.spawn_limit(spawn, loops, ctx)
        if found is None:
            descs = [limits.loop_limit(loop, ctx) for loop in loops]
            limit = ", ".join(dict.fromkeys(d for d in descs if d)) or "bounded loops"
            self._add(spawn, fn, ctx, _loop_text(loops), None, target, True, limit)
            return
        origin = _origin(found.loop.iter, ctx) if found.loop.iter is not None else None
        self._add(spawn, fn, ctx, found.source, origin, target, limit is not None, limit)

    def _gather(self, spawn: Spawn, fn: _Function | None, ctx: Context) -> None:
        from boundlint.rules import fanout

        call = spawn.call
        if spawn.api == "asyncio.gather":
            candidates = [a.value for a in call.args if a.star == "*"]
        else:
            first = next((a.value for a in call.args if a.keyword is None and a.star == ""), None)
            candidates = [first] if first is not None else []
        for expr in candidates:
            built = fanout.new_awaitables(expr, ctx)
            if built is None:
                continue
            bounded = fanout.UnboundedGather._bounded(built, ctx)
            source_expr = built.sources[0] if built.sources else expr
            target = short(built.target) if built.target is not None else None
            limit = _gather_limit(built, ctx) if bounded else None
            if bounded and not limit:
                limit = "bounded"
            self._add(spawn, fn, ctx, short(source_expr), _origin(source_expr, ctx), target, bounded, limit)
            return
        if spawn.api == "asyncio.gather" and not candidates:
            count = sum(1 for a in call.args if a.keyword is None)
            if count:
                self._add(spawn, fn, ctx, None, None, None, True, f"a fixed set of {count} awaitable{'s' if count != 1 else ''}")

    def _add(self, spawn: Spawn, fn, ctx, source, origin, target, bounded, limit) -> None:
        self._spawns.append(_Spawn(spawn.call, fn, spawn.kind, spawn.api, source, origin, target, bounded, limit))

    # -- result ---------------------------------------------------------------------------
    def facts(self, position) -> dict:
        """Picklable facts of the module; *position(node)* gives ``(line, column, end_line)``."""
        ctx = self._ctx
        framework = _module_framework(self._roots)
        index = {id(fn.node): i for i, fn in enumerate(self._functions)}
        functions = []
        for fn in self._functions:
            line, column, end = position(fn.node)
            callees = sorted({index[c] for c in fn.callees if c in index})
            # "top": the first decorator's line, where a chain may name a decorated handler.
            top = position(fn.node.decorators[0])[0] if fn.node.decorators else line
            functions.append({"name": fn.name, "line": position(fn.node.name)[0], "start": line, "end": end,
                              "top": top, "callees": callees})
        registered = {}
        for node_id, registrar, route in self._registered:
            registered.setdefault(node_id, (registrar, route))
        handlers = []
        options = _options(ctx)
        path = ctx.path if ctx is not None else ""
        for i, fn in enumerate(self._functions):
            found = _classify(fn, framework, registered.get(id(fn.node)), options, path, self._roots)
            if found is None:
                continue
            kind, route = found
            handlers.append({
                "function": i,
                "framework": kind,
                "route": route,
                "params": [p for p in fn.params if p not in ("self", "cls")],
                "fields": self._fields(fn, kind, position),
                "receiver": prefixes.receiver(fn.decorators) if kind not in ("grpc", "django") else None,
                "controller": self._controllers.get(id(fn.class_node)) if fn.class_node is not None else None,
                "controller_class": fn.class_node.name.value if fn.class_node is not None else None,
            })
        spawns = []
        for s in self._spawns:
            line, column, _ = position(s.node)
            spawns.append({
                "function": index.get(id(s.fn.node)) if s.fn is not None else None,
                "line": line, "column": column, "kind": s.kind, "api": s.api,
                "source": s.source, "origin": s.origin, "target": s.target,
                "bounded": s.bounded, "limit": s.limit,
            })
        return {"functions": functions, "handlers": handlers, "spawns": spawns, **self._mounts}

    def _fields(self, fn: _Function, kind: str, position) -> list[dict]:
        """The request collection fields *fn* accepts, each with its limit or None."""
        out = []
        if kind == "grpc":
            for key, (node, limit) in fn.grpc_fields.items():
                out.append({"name": key, "type": "repeated", "line": position(node)[0], "limit": limit})
        for node, name, limit in fn.query_lists:
            out.append({"name": name, "type": "list", "line": position(node)[0], "limit": limit})
        if self._ctx is not None and kind != "grpc":
            try:
                out.extend(_param_fields(fn, self._ctx, position))
            except Exception:  # the request-model helpers are best effort here; the map still renders
                pass
        return out


# -- helpers ----------------------------------------------------------------------------

def _name(expr: cst.BaseExpression, ctx: Context) -> str:
    if isinstance(expr, cst.Subscript):
        expr = expr.value
    return ctx.qualname(expr) or dotted(expr) or ""
