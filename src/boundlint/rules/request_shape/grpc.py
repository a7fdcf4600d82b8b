"""BND203 unchecked-repeated-field: gRPC servicer methods looping over repeated request fields."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted
from boundlint.rules.base import Example, Rule

# Calls that run a function once per item of their iterable argument.
_PER_ITEM_BUILTINS = frozenset({"map", "filter"})
_PER_ITEM_METHODS = frozenset({"map", "starmap", "imap", "imap_unordered", "map_async", "starmap_async"})
# Copies: same items, no per-item work; a loop over the copy is a loop over the field.
_COPIES = frozenset({"list", "set", "tuple", "frozenset", "sorted", "reversed", "enumerate", "iter"})
_ITER_VIEWS = frozenset({"items", "keys", "values"})
# A field name that ends in "s" but is no plural.
_NOT_PLURAL = frozenset({
    "status", "address", "alias", "bias", "canvas", "gas", "this", "news", "series", "species", "chaos",
    "atlas", "corpus", "bonus", "focus", "campus", "plus", "minus", "virus", "radius", "axis", "basis",
    "analysis", "apparatus", "census", "consensus", "lens", "iris", "dns", "https", "os", "sms", "ms", "ns",
})
_IRREGULAR_PLURALS = frozenset({"children", "people", "criteria", "indices", "matrices", "vertices", "media"})
_COLLECTION_SUFFIXES = ("_list", "_set", "_map", "_batch", "_array")


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

    The finding is on the expression naming the field.

    ## Why is this bad?
    A protobuf `repeated` field has no size limit: only the 4 MB default
    message size caps it, which fits hundreds of thousands of small items.
    This is the incident's shape: a handler looped over a repeated URI field
    of 15,000-20,000 items where normal requests carried 50, and started a
    cache call for each.

    ## What counts as a limit
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
    prefilter = re.compile(r"Servicer|recv_message|ServiceBase\b")
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
            self._iterated(node.iter, node.target, ctx, check=not cheap)

    def _visit_comp(self, node, ctx: Context) -> None:
        if self._methods:
            cheap = _cheap_comp(node)  # a normalising copy: [u.strip() for u in request.uris]
            comp_for = node.for_in
            while comp_for is not None:
                self._iterated(comp_for.iter, comp_for.target, ctx, check=not cheap)
                comp_for = comp_for.inner_for_in

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def _iterated(self, source: cst.BaseExpression, target: cst.BaseExpression, ctx: Context, check: bool = True) -> None:
        method = self._methods[-1]
        if isinstance(source, cst.Name) and (source.value in method.requests or source.value in method.streams) and isinstance(target, cst.Name):
            # for req in request_iterator: each streamed message is a request too
            method.requests.add(target.value)
            return
        if check:
            self._check(source, ctx)

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
        for arg, path, mapping in _args_iterated_by_callee(node, method.node, ctx):
            if not path:
                self._check(arg, ctx)  # self._load_posts(request.uris) whose body loops over its parameter
                continue
            # self._process(request) whose body loops over req.uris
            base = self._request_field(arg, method, ctx) if not (isinstance(arg, cst.Name) and arg.value in method.requests) else None
            root = base[2] if base is not None else (arg.value if isinstance(arg, cst.Name) and arg.value in method.requests else None)
            if root is None or method.validated:
                continue
            key = root + "." + path
            field_expr = cst.parse_expression(key)
            if not self._guarded(field_expr, ctx, method):
                self._report(arg, (arg, field_expr, key), method, mapping)

    def _check(self, expr: cst.BaseExpression, ctx: Context) -> None:
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
                self._report(arg, f, method, mapping)
            return
        found = self._request_field(expr, method, ctx)
        if found is None or self._guarded(found[0], ctx, method) or self._guarded(found[1], ctx, method):
            return
        self._report(expr, found, method, mapping)

    def _report(self, expr: cst.BaseExpression, found, method: _Method, mapping: bool) -> None:
        key = found[2]
        if key in method.reported or not _repeated_name(key, mapping):
            return
        method.reported.add(key)
        self.report(expr, method=method.node.name.value, field=key)

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


def _args_iterated_by_callee(call: cst.Call, caller: cst.FunctionDef, ctx: Context
                             ) -> list[tuple[cst.BaseExpression, str, bool]]:
    """``(argument, field path, as a mapping)`` for each argument of *call* that a same-module
    function or method iterates without checking its length: path ``""`` for the argument itself
    (``self._load(request.uris)``), ``"uris"`` for a field of it (``self._process(request)``
    whose body loops over ``req.uris``)."""
    target = ctx.resolve_callable(call.func)
    if not isinstance(target, cst.FunctionDef) or target is caller:
        return []
    params = [p.name.value for p in (*target.params.posonly_params, *target.params.params)]
    if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
        params = params[1:]
    out = []
    for index, arg in enumerate(call.args):
        if arg.star:
            continue
        name = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
        if name is not None:
            out.extend((arg.value, path, mapping) for path, mapping in _iterated_paths(target, name, ctx))
    return out


def _iterated_paths(func: cst.FunctionDef, name: str, ctx: Context) -> frozenset[tuple[str, bool]]:
    """``(path, as a mapping)`` for what *func*'s body loops, comprehends or maps over: its parameter
    *name* (path ``""``) or a field of it (``"uris"`` for ``name.uris``), each with no length check
    of its own (cached per function and parameter)."""
    cache = ctx.cache.setdefault("bnd203.iterated_paths", {})
    key = (id(func), name)
    found = cache.get(key)
    if found is None:
        paths: set[tuple[str, bool]] = set()
        for node in limits.iter_nodes(func.body, into_defs=True):
            sources: list[cst.BaseExpression] = []
            if isinstance(node, (cst.For, cst.CompFor)):
                sources.append(node.iter)
            elif isinstance(node, cst.Call):
                func_expr = node.func
                if (isinstance(func_expr, cst.Name) and func_expr.value in _PER_ITEM_BUILTINS) or (
                        isinstance(func_expr, cst.Attribute) and func_expr.attr.value in _PER_ITEM_METHODS):
                    sources.extend(a.value for a in node.args[1:])
            for source in sources:
                inner, mapping = _unwrap_copy(source), False
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in _ITER_VIEWS:
                    inner, mapping = inner.func.value, True
                inner = limits.walked_whole(inner, ctx) or inner
                path = dotted(inner)
                if path is not None and (path == name or path.startswith(name + ".")):
                    if not limits.checked_in_body(func, path, ctx):
                        paths.add((path[len(name) + 1:], mapping))
        found = cache[key] = frozenset(paths)
    return found  # type: ignore[return-value]


def _returns_first_param(func: cst.FunctionDef, method_call: bool) -> bool:
    """True when *func* returns (a transform of) its first argument: ``return list(dict.fromkeys(uris))``."""
    params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
    if method_call and params and params[0] in ("self", "cls"):
        params = params[1:]
    if not params:
        return False
    name = params[0]
    for node in limits.iter_nodes(func.body):
        if isinstance(node, (cst.Return, cst.Yield)) and node.value is not None:
            if any(isinstance(n, cst.Name) and n.value == name for n in limits.iter_nodes(node.value, into_defs=True)):
                return True
    return False


def _appended_from(name: str, scope) -> cst.BaseExpression | None:
    """The collection a loop walked to fill the empty *name* with ``name.append(...)``, if any."""
    for _value, loop in scope.appends.get(name, ()):
        if loop is not None and loop.iter is not None:
            return _unwrap_copy(loop.iter)
    return None


_CHEAP_METHODS = frozenset({
    "append", "add", "extend", "update", "setdefault", "get", "appendleft", "discard", "remove", "insert",
})


def _cheap_loop(node: cst.For, context: str) -> bool:
    """True when a loop body only checks or copies items: no await, no nested loop, no call but the
    item's own methods, conversion builtins, filling a local collection or the servicer context's
    ``abort`` / ``set_code``."""
    targets = {n.value for n in limits.iter_nodes(node.target) if isinstance(n, cst.Name)}
    raised: set[int] = set()  # raise InvalidArgument(f"bad uri {u}"): building the error is no work
    for n in limits.iter_nodes(node.body):
        if isinstance(n, (cst.Await, cst.For, cst.While, cst.With, cst.FunctionDef, cst.Lambda,
                          cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return False
        if isinstance(n, cst.Raise) and n.exc is not None:
            raised.update(id(x) for x in limits.iter_nodes(n.exc))
        if isinstance(n, cst.Call) and id(n) not in raised:
            func = n.func
            if isinstance(func, cst.Name) and func.value in _CHEAP_CALLS:
                continue
            if not isinstance(func, cst.Attribute):
                return False
            root = func
            while isinstance(root, (cst.Attribute, cst.Subscript)):
                root = root.value
            if isinstance(root, cst.Call):
                continue  # judged on its own
            if not isinstance(root, cst.Name):
                return False
            if root.value in targets or (context and root.value == context):
                continue
            if func.attr.value in _CHEAP_METHODS and root.value not in ("self", "cls") and func.value is root:
                continue
            return False
    return True


def _unwrap_copy(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``sorted(set(x))`` / ``list(x)`` / ``[u.strip() for u in x]`` -> ``x``: a copy holds the same items."""
    for _ in range(3):
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in _COPIES and expr.args:
            expr = expr.args[0].value
            continue
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and expr.for_in.inner_for_in is None and _cheap_comp(expr):
            expr = expr.for_in.iter
            continue
        break
    return expr


_CHEAP_CALLS = frozenset({"str", "int", "float", "bool", "len", "tuple", "abs", "round", "repr", "isinstance"})


def _cheap_comp(node: cst.BaseComp) -> bool:
    """True when a comprehension only copies or normalises its items (``u.strip()``, ``item.id``,
    ``str(i)``): no await and no call but a method of the item or a conversion builtin."""
    targets: set[str] = set()
    comp_for = node.for_in
    parts: list[cst.CSTNode] = []
    while comp_for is not None:
        for n in limits.iter_nodes(comp_for.target):
            if isinstance(n, cst.Name):
                targets.add(n.value)
        parts.extend(i.test for i in comp_for.ifs)
        comp_for = comp_for.inner_for_in
    parts.extend([node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt])
    for part in parts:
        for n in limits.iter_nodes(part, into_defs=True):
            if isinstance(n, (cst.Await, cst.Lambda, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)) and n is not part:
                return False
            if isinstance(n, cst.Await):
                return False
            if isinstance(n, cst.Call):
                func = n.func
                if isinstance(func, cst.Name) and func.value in _CHEAP_CALLS:
                    continue
                root = func
                while isinstance(root, (cst.Attribute, cst.Subscript)):
                    root = root.value
                # a method of the item (u.strip()) or of a value judged on its own (str(u).lower())
                if isinstance(func, cst.Attribute) and (isinstance(root, cst.Call) or isinstance(root, cst.Name) and root.value in targets):
                    continue
                return False
    return True


def _unwrap_iter(expr: cst.BaseExpression, ctx: Context) -> tuple[cst.BaseExpression, bool]:
    """The collection an iteration walks through, and whether it is iterated as a mapping.

    ``enumerate(x)`` / ``sorted(x)`` / ``x.items()`` / ``range(len(x))`` /
    ``batched(x, N)`` / ``range(0, len(x), N)`` / ``self._dedupe(x)`` /
    ``x or []`` / ``set(x) - seen`` -> ``x``.
    A constant-bound slice or ``islice`` stays as it is (bounded).
    """
    mapping = False
    for _ in range(4):
        if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or):
            expr = expr.left  # request.uris or []: the field when it has items
            continue
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Subtract, cst.BitAnd)):
            expr = expr.left  # set(request.uris) - seen: at most the field's items
            continue
        if not isinstance(expr, cst.Call):
            break
        func = expr.func
        if isinstance(func, cst.Name) and func.value in _COPIES and expr.args:
            expr = expr.args[0].value
            continue
        if isinstance(func, cst.Attribute) and func.attr.value in _ITER_VIEWS and not expr.args:
            expr, mapping = func.value, True
            continue
        whole = limits.walked_whole(expr, ctx)
        if whole is not None:
            expr = whole
            continue
        args = [a.value for a in expr.args if a.star == "" and a.keyword is None]
        target = ctx.resolve_callable(func) if args else None
        if isinstance(target, cst.FunctionDef) and _returns_first_param(target, isinstance(func, cst.Attribute)):
            expr = args[0]  # a same-module helper returning what it was handed: self._dedupe(request.uris)
            continue
        break
    return expr, mapping


def _repeated_name(key: str, mapping: bool) -> bool:
    """True when the dotted path reads as a repeated (or map) field.

    Protobuf style names repeated fields in the plural (``uris``, ``post_ids``)
    and every field in lower_snake_case, so ``request.text`` (a string walked
    character by character) and ``request.DESCRIPTOR.fields`` (the schema)
    are no repeated request fields.  A field iterated with ``.items()`` is a map.
    """
    parts = key.split(".")[1:]
    if any(not p or not p[0].islower() for p in parts):
        return False
    if mapping:
        return True
    last = parts[-1]
    if last in _IRREGULAR_PLURALS or last.endswith(_COLLECTION_SUFFIXES):
        return True
    word = last.rsplit("_", 1)[-1]
    return word.endswith("s") and not word.endswith(("ss", "us")) and word not in _NOT_PLURAL


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
