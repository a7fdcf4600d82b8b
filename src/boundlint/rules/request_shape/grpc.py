"""BND203 unchecked-repeated-field: gRPC servicer methods looping over repeated request fields.

Which servicer classes and methods are judged is decided here; what a method
iterates over (through copies, helpers and callees) in ``grpc_iteration``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted
from boundlint.rules.base import Example, Rule
from boundlint.rules.prefilter import AnyOf, Literals
from boundlint.rules.request_shape.grpc_iteration import (
    _PER_ITEM_BUILTINS, _PER_ITEM_METHODS, _appended_from, _args_iterated_by_callee, _cheap_comp, _cheap_loop,
    _repeated_name, _unwrap_copy, _unwrap_iter,
)


@dataclass
class _Method:
    """A gRPC servicer method being walked; ``requests`` are the names holding a request message."""

    node: cst.FunctionDef
    request: str
    requests: set[str] = field(default_factory=set)
    streams: set[str] = field(default_factory=set)  # grpclib streams whose messages are requests
    reported: set[str] = field(default_factory=set)
    validated: bool = False
    context: str = ""  # the servicer context parameter: context.abort() in a loop body is no work


class UncheckedRepeatedField(Rule):
    """
    ## What it does
    Flags a gRPC handler that does work per item of a repeated or map field
    of its request with no length check earlier in the method.  Handlers:
    - grpcio: a method `(self, request, context)`, sync or `async`, of a
      class deriving from a `*Servicer` base, directly or through
      same-module classes (the context may be named `_` when the method is
      PascalCase like the proto's RPC);
    - grpclib: a method `(self, stream: Stream[...])` of a `*Base` class,
      whose request is `await stream.recv_message()`;
    - betterproto: a method `(self, request: GetPostsRequest)` of a
      `*ServiceBase` class.

    Per-item work: `for uri in request.uris`, `[f(x) for x in request.items]`,
    `map(f, request.ids)`, `executor.map(f, request.ids)`, reached also
    - through a local name or a copy (`uris = request.uris`,
      `ids = sorted(set(request.ids))`), a nested message
      (`batch = request.batch; for i in batch.items`), or a slice whose
      bounds the client picks (`request.uris[request.offset:]`);
    - through a same-module helper: one returning what it was handed,
      whose result is iterated (`for u in self._dedupe(request.uris)`);
      one handed the field that loops over its parameter with no check of
      its own (`await self._load_posts(request.uris)`); or one handed the
      whole request that loops over its field (`await self._process(request)`);
    - through a project function in another module (also a method of a
      class the servicer holds: `self.store.fetch_many(request.ids)`) that
      loops over what it is handed with a call per item, itself or through
      the functions it passes it to; the evidence names that loop;
    - in fixed-size batches (`batched(request.uris, 100)`,
      `range(0, len(uris), 100)`): each batch is bounded, the total is not;
    - over the messages of a client stream
      (`for msg in request_iterator: for uri in msg.uris`).

    A repeated field is read from its name as protobuf style writes it:
    plural lower_snake_case (`uris`, `post_ids`, `children`, `*_list`), or
    any field iterated with `.items()` / `.keys()` / `.values()` (a map);
    `request.text` (a string) and `request.DESCRIPTOR.fields` are not.  A
    copy alone does no per-item work and is not reported: `sorted(request.ids)`,
    or a comprehension that only normalises or reads its items
    (`[u.strip() for u in request.uris]`, `sum(i.quantity for i in request.items)`:
    no `await`, no call but the item's own methods and conversion builtins),
    or a loop that only checks or copies them (`if not u.startswith(...):
    context.abort(...)`, `out.append(u.strip())`); the copy's iteration
    later is (`out = []` filled in such a loop is followed too).

    The finding is on the expression naming the field.  Its severity is
    `high` when the loop body or comprehension in sight reaches an external
    dependency per item (``per item: `httpx.post()` ``), else `medium`; the
    servicer context's own methods (`context.abort`, table `server-contexts`)
    answer the caller and are no dependency call.

    ## Why is this bad?
    A protobuf `repeated` field has no size limit: only the 4 MB default
    message size caps it, which fits hundreds of thousands of small items.
    This is the incident's shape: a handler looped over a repeated URI field
    of 15,000-20,000 items where normal requests carried 50, and started a
    cache call for each.

    ## What counts as a limit
    - a helper from another module of the project, called first, whose body
      rejects an oversized argument (`await check_refs(request.refs,
      context)` where `validation.py` does `if len(refs) > MAX: await
      context.abort(...)`);
    - a rejecting length check before the loop in the same method, on the
      field, its local alias or its copy: `if len(request.uris) > MAX:`,
      `if len(a) > N or len(b) > M:`, `if not 0 < len(uris) <= MAX:`,
      `if (n := len(uris)) > MAX:`, `n = len(uris)` then `if n > MAX:`,
      followed by `raise`, `return`, `context.abort(...)` /
      `await context.abort(...)`, `context.set_code(...)` then `return`, an
      abort helper (`abort_invalid(context, ...)`, `self._reject(...)`, or a
      same-module function ending in `raise` / `abort`); or
      `assert len(request.uris) <= MAX`;
    - a same-module predicate in the test (`if self._too_many(request):` whose
      body returns `len(request.uris) > MAX`), or a same-module helper called
      first whose body opens with such a check (`_check_size(request, context)`);
    - the loop inside the bounded branch (`if len(request.uris) <= MAX:`);
    - a validation call on the whole request before the loop
      (`protovalidate.validate(request)`, `validate_request(request)`),
      which enforces `repeated.max_items` rules declared in the proto;
    - iterating a constant-bound slice (`request.uris[:100]`,
      `itertools.islice(request.uris, 100)`), or `zip` with a checked field.

    A check made outside the module, such as a server interceptor that runs
    protovalidate on every request, cannot be seen here: switch the rule off
    for those servicers with `per-file-ignores`
    (`"app/servicers/*.py" = ["BND203"]`).
    """
    code, name = "BND203", "unchecked-repeated-field"
    # grpcio servicers, grpclib handlers (their request comes from recv_message), betterproto service bases
    prefilter = AnyOf(Literals("Servicer", "recv_message"), re.compile(r"ServiceBase\b"))
    message = "`{method}` iterates request field `{field}` with no length check before it"
    hint = "reject it first: `if len(request.field) > MAX:` abort with INVALID_ARGUMENT, or use protovalidate `max_items`"
    invalid = (
        Example("servicer_loop", """
            import grpc

            from . import posts_pb2_grpc

            class PostsServicer(posts_pb2_grpc.PostsServicer):
                async def GetPosts(self, request, context):
                    posts = []
                    for uri in request.uris:  # error: BND203 col 20
                        posts.append(await self.cache.get(uri))
                    return posts
            """),
    )
    valid = (
        Example("length_checked", """
            import grpc

            from . import posts_pb2_grpc

            MAX_URIS = 100

            class PostsServicer(posts_pb2_grpc.PostsServicer):
                async def GetPosts(self, request, context):
                    if len(request.uris) > MAX_URIS:
                        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "too many uris")
                    return [await self.cache.get(uri) for uri in request.uris]
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._methods: list[_Method] = []

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if self._methods or ctx.scope.kind != "class":
            return
        params = node.params.params
        cls = ctx.scope.node
        if not params or params[0].name.value != "self" or not isinstance(cls, cst.ClassDef):
            return
        if len(params) == 3:
            # grpcio: (self, request, context); RPC methods are PascalCase, helpers take a context by name
            ctx_name = params[2].name.value.lstrip("_")
            if "context" not in ctx_name and ctx_name not in ("ctx", "") and not node.name.value[:1].isupper():
                return
            if not _is_servicer(cls, ctx):
                return
            request = params[1].name.value
            self._methods.append(_Method(node, request, {request}, context=params[2].name.value))
        elif len(params) == 2 and params[1].annotation is not None and _is_service_base(cls, ctx, "Base"):
            param = params[1]
            ann = param.annotation.annotation
            head = ann.value if isinstance(ann, cst.Subscript) else ann
            head_name = (ctx.qualname(head) or dotted(head) or "").rsplit(".", 1)[-1]
            if head_name == "Stream" and ctx.names.imports_from(("grpclib",)):
                # grpclib: request = await stream.recv_message()
                self._methods.append(_Method(node, param.name.value, set(), streams={param.name.value}))
            elif _message_type(ann, ctx) and _is_service_base(cls, ctx, "ServiceBase"):
                # betterproto: async def get_posts(self, request: GetPostsRequest)
                self._methods.append(_Method(node, param.name.value, {param.name.value}))

    def visit_Assign(self, node: cst.Assign, ctx: Context) -> None:
        if not self._methods or not self._methods[-1].streams:
            return
        value = node.value.expression if isinstance(node.value, cst.Await) else node.value
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "recv_message"
                and isinstance(value.func.value, cst.Name) and value.func.value.value in self._methods[-1].streams):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self._methods[-1].requests.add(target.target.value)

    def leave_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if self._methods and self._methods[-1].node is node:
            self._methods.pop()

    def visit_For(self, node: cst.For, ctx: Context) -> None:
        if self._methods:
            # a loop that only validates or copies items (abort on a bad one, append a normalised one)
            cheap = _cheap_loop(node, self._methods[-1].context)
            self._iterated(node.iter, node.target, ctx, check=not cheap, work=(node.body,))

    def _visit_comp(self, node, ctx: Context) -> None:
        if self._methods:
            cheap = _cheap_comp(node)  # a normalising copy: [u.strip() for u in request.uris]
            comp_for = node.for_in
            while comp_for is not None:
                self._iterated(comp_for.iter, comp_for.target, ctx, check=not cheap, work=(node,))
                comp_for = comp_for.inner_for_in

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def _iterated(self, source: cst.BaseExpression, target: cst.BaseExpression, ctx: Context, check: bool = True,
                  work: tuple[cst.CSTNode, ...] = ()) -> None:
        method = self._methods[-1]
        if isinstance(source, cst.Name) and (source.value in method.requests or source.value in method.streams) and isinstance(target, cst.Name):
            # for req in request_iterator: each streamed message is a request too
            method.requests.add(target.value)
            return
        if check:
            self._check(source, ctx, work)

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        if not self._methods:
            return
        method = self._methods[-1]
        func = node.func
        name = dotted(func) or ""
        last = name.rsplit(".", 1)[-1]
        if "validat" in last.lower():
            # protovalidate.validate(request), validate_request(request): enforces the proto's max_items
            if any(isinstance(a.value, cst.Name) and a.value.value in method.requests for a in node.args):
                method.validated = True
            return
        per_item = (isinstance(func, cst.Name) and func.value in _PER_ITEM_BUILTINS) or (
            isinstance(func, cst.Attribute) and func.attr.value in _PER_ITEM_METHODS)
        if per_item:
            for arg in node.args[1:] if len(node.args) > 1 else node.args:
                self._check(arg.value, ctx)
            return
        for arg, path, mapping, evidence in _args_iterated_by_callee(node, method.node, ctx):
            if not path:
                self._check(arg, ctx, evidence=evidence)  # self._load_posts(request.uris): its body loops over it
                continue
            # self._process(request) whose body loops over req.uris
            base = self._request_field(arg, method, ctx) if not (isinstance(arg, cst.Name) and arg.value in method.requests) else None
            root = base[2] if base is not None else (arg.value if isinstance(arg, cst.Name) and arg.value in method.requests else None)
            if root is None or method.validated:
                continue
            key = root + "." + path
            field_expr = cst.parse_expression(key)
            if not self._guarded(field_expr, ctx, method):
                self._report(arg, (arg, field_expr, key), method, mapping, evidence=evidence)

    def _check(self, expr: cst.BaseExpression, ctx: Context, work: tuple[cst.CSTNode, ...] = (),
               evidence: tuple[str, ...] = ()) -> None:
        """Report *expr* when it is an unguarded repeated field of the request; *work* is the per-item work
        in sight (a loop's body, a comprehension), the evidence its severity is judged on."""
        method = self._methods[-1]
        if method.validated:
            return
        expr, mapping = _unwrap_iter(expr, ctx)
        if isinstance(expr, cst.Call) and (dotted(expr.func) or "").rsplit(".", 1)[-1] == "zip":
            # zip stops at its shortest argument: one bounded argument bounds it
            args = [a.value for a in expr.args if a.star == "" and a.keyword is None]
            found = [self._request_field(_unwrap_iter(a, ctx)[0], method, ctx) for a in args]
            if any(f is None or self._guarded(f[0], ctx, method) or self._guarded(f[1], ctx, method) for f in found):
                return
            for arg, f in zip(args, found):
                self._report(arg, f, method, mapping, work)
            return
        found = self._request_field(expr, method, ctx)
        if found is None or self._guarded(found[0], ctx, method) or self._guarded(found[1], ctx, method):
            return
        self._report(expr, found, method, mapping, work, evidence)

    def _report(self, expr: cst.BaseExpression, found, method: _Method, mapping: bool,
                work: tuple[cst.CSTNode, ...] = (), evidence: tuple[str, ...] = ()) -> None:
        key = found[2]
        if key in method.reported or not _repeated_name(key, mapping):
            return
        method.reported.add(key)
        self.report(expr, evidence, method=method.node.name.value, field=key, work=work, fix="servicer-loop")

    @staticmethod
    def _request_field(expr: cst.BaseExpression, method: _Method, ctx: Context
                       ) -> tuple[cst.BaseExpression, cst.BaseExpression, str] | None:
        """``(expr as iterated, the request.<field> expression, its dotted key)`` for (an alias of, or a
        copy of) a request field, else None."""
        field_expr = expr
        for _ in range(4):
            if isinstance(field_expr, cst.Name) and field_expr.value not in method.requests:
                bound = ctx.lookup(field_expr.value)
                if bound is None or bound[0].kind == "module" or not bound[1] or bound[1][-1] is None:
                    return None
                value = bound[1][-1]
                if isinstance(value, (cst.List, cst.Set, cst.Dict)) and not value.elements:
                    # out = []; for u in request.uris: out.append(u.strip())
                    value = _appended_from(field_expr.value, bound[0]) or value
                field_expr = _unwrap_copy(value)
                continue
            break
        if isinstance(field_expr, cst.Subscript) and limits.source_limit(field_expr, ctx) is None:
            field_expr = field_expr.value  # request.uris[request.offset:]: the client picks the bounds
        if not isinstance(field_expr, cst.Attribute):
            return None
        key = dotted(field_expr)
        if key is None or "." not in key:
            return None
        root, _, rest = key.partition(".")
        if root not in method.requests:
            # batch = request.batch; for item in batch.items
            bound = ctx.lookup(root)
            if bound is None or bound[0].kind == "module" or not bound[1] or bound[1][-1] is None:
                return None
            base = dotted(bound[1][-1])
            if base is None or base.split(".", 1)[0] not in method.requests:
                return None
            key = base + "." + rest
        return expr, field_expr, key

    @staticmethod
    def _guarded(expr: cst.BaseExpression, ctx: Context, method: _Method) -> bool:
        if limits.guarded(expr, ctx):
            return True
        key = dotted(expr)
        scope = ctx.scope
        while scope is not None and key is not None:
            if any(g.key == key for g in scope.guards):
                return True
            if scope.node is method.node or scope.kind == "module":
                break
            scope = scope.parent
        return False


_WEB_REQUESTS = ("starlette", "fastapi", "aiohttp", "django", "flask", "sanic", "litestar", "tornado", "quart", "werkzeug", "falcon", "pyramid")


def _message_type(ann: cst.BaseExpression, ctx: Context) -> bool:
    """A generated message class for a request: ``GetPostsRequest`` (not a web framework's ``Request``)."""
    name = dotted(ann) or ""
    last = name.rsplit(".", 1)[-1]
    if not last.endswith("Request") or last in ("Request", "HttpRequest", "HTTPRequest", "WSGIRequest", "ASGIRequest", "WebRequest"):
        return False
    q = ctx.qualname(ann) or ""
    return not q.startswith(_WEB_REQUESTS)


def _is_service_base(cls: cst.ClassDef, ctx: Context, suffix: str) -> bool:
    """A class deriving from a generated grpclib (``GreeterBase``) or betterproto (``PostsServiceBase``) service base."""
    for arg in cls.bases:
        name = dotted(arg.value) or ""
        last = name.rsplit(".", 1)[-1]
        if last.endswith(suffix) and not last.endswith(("ModelBase", "SchemaBase")) and last != suffix:
            q = ctx.qualname(arg.value) or ""
            if not q.startswith(_WEB_REQUESTS):
                return True
    return False


def _is_servicer(cls: cst.ClassDef, ctx: Context, depth: int = 0) -> bool:
    """A class deriving from a generated ``*Servicer`` base, directly or through same-module classes."""
    for arg in cls.bases:
        name = dotted(arg.value) or ""
        if name.rsplit(".", 1)[-1].endswith("Servicer"):
            return True
        base = ctx.index.classes.get(name) if depth < 4 else None
        if base is not None and base is not cls and _is_servicer(base, ctx, depth + 1):
            return True
    return False
