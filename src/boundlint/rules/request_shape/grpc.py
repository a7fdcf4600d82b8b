"""BND203 unchecked-repeated-field: gRPC servicer methods looping over repeated request fields."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted
from boundlint.rules.base import Example, Rule

_BUILDERS = frozenset({"list", "set", "tuple", "frozenset", "sorted", "dict", "map", "filter", "enumerate", "zip", "reversed"})
_EXTENDERS = frozenset({"extend", "update", "map", "starmap", "imap", "imap_unordered"})
_ITER_VIEWS = frozenset({"items", "keys", "values"})


@dataclass
class _Method:
    """A gRPC servicer method being walked."""

    node: cst.FunctionDef
    request: str
    reported: set[str] = field(default_factory=set)
    validated: bool = False


class UncheckedRepeatedField(Rule):
    """
    ## What it does
    Flags a gRPC servicer method (a method `(self, request, context)`, sync
    or `async`, of a class deriving from a `*Servicer` base) that iterates,
    fans out over, or builds a collection from a field of the request
    (`for uri in request.uris`, `[f(x) for x in request.items]`,
    `list(request.ids)`, also through a local name `uris = request.uris`)
    with no length check earlier in the method.  The finding is on the
    expression naming the field.

    ## Why is this bad?
    A protobuf `repeated` field has no size limit: only the 4 MB default
    message size caps it, which fits hundreds of thousands of small items.
    This is the incident's shape: a handler looped over a repeated URI field
    of 15,000-20,000 items where normal requests carried 50, and started a
    cache call for each.

    ## What counts as a limit
    - a rejecting length check before the loop in the same method:
      `if len(request.uris) > MAX:` followed by `raise`, `return`,
      `context.abort(...)` or `await context.abort(...)`, or
      `assert len(request.uris) <= MAX` (also on the local alias);
    - a validation call on the whole request before the loop
      (`protovalidate.validate(request)`, `validator.validate(request)`),
      which enforces `repeated.max_items` rules declared in the proto;
    - iterating a constant-bound slice (`request.uris[:100]`,
      `itertools.islice(request.uris, 100)`).
    """
    code, name = "BND203", "unchecked-repeated-field"
    prefilter = re.compile(r"Servicer")
    message = "`{method}` iterates request field `{field}` with no length check before it"
    hint = ("reject oversized requests first: `if len(request.field) > MAX: context.abort(grpc.StatusCode.INVALID_ARGUMENT, ...)`, "
            "or declare protovalidate `repeated.max_items` and validate the request")
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
        if len(params) != 3 or params[0].name.value != "self":
            return
        ctx_name = params[2].name.value.lstrip("_")
        if "context" not in ctx_name and ctx_name != "ctx":
            return
        cls = ctx.scope.node
        if not isinstance(cls, cst.ClassDef) or not _is_servicer(cls):
            return
        self._methods.append(_Method(node, params[1].name.value))

    def leave_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if self._methods and self._methods[-1].node is node:
            self._methods.pop()

    def visit_For(self, node: cst.For, ctx: Context) -> None:
        if self._methods:
            self._check(node.iter, ctx)

    def _visit_comp(self, node, ctx: Context) -> None:
        if self._methods:
            comp_for = node.for_in
            while comp_for is not None:
                self._check(comp_for.iter, ctx)
                comp_for = comp_for.inner_for_in

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        if not self._methods:
            return
        method = self._methods[-1]
        func = node.func
        name = dotted(func) or ""
        last = name.rsplit(".", 1)[-1]
        if last.endswith("validate") or last == "Validate":
            if any(isinstance(a.value, cst.Name) and a.value.value == method.request for a in node.args):
                method.validated = True
            return
        if isinstance(func, cst.Name) and func.value in _BUILDERS:
            for arg in node.args:
                self._check(arg.value, ctx, direct=True)
        elif isinstance(func, cst.Attribute) and func.attr.value in _EXTENDERS:
            for arg in node.args:
                self._check(arg.value, ctx, direct=True)

    def _check(self, expr: cst.BaseExpression, ctx: Context, direct: bool = False) -> None:
        method = self._methods[-1]
        if method.validated:
            return
        if not direct:
            expr = _unwrap_iter(expr)
        found = self._request_field(expr, method, ctx)
        if found is None:
            return
        field_expr, key = found
        if key in method.reported:
            return
        if self._guarded(expr, ctx, method) or self._guarded(field_expr, ctx, method):
            return
        method.reported.add(key)
        self.report(expr, method=method.node.name.value, field=key)

    @staticmethod
    def _request_field(expr: cst.BaseExpression, method: _Method, ctx: Context) -> tuple[cst.BaseExpression, str] | None:
        """``(request.<field> expression, its dotted key)`` when *expr* is (an alias of) a request field."""
        if isinstance(expr, cst.Name) and expr.value != method.request:
            bound = ctx.lookup(expr.value)
            if bound is None or bound[0].kind == "module" or not bound[1] or bound[1][-1] is None:
                return None
            expr = bound[1][-1]
        if not isinstance(expr, cst.Attribute):
            return None
        key = dotted(expr)
        if key is None or not key.startswith(method.request + "."):
            return None
        return expr, key

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


def _unwrap_iter(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``enumerate(x)`` / ``x.items()`` / ``range(len(x))`` / ``sorted(x)`` -> ``x``."""
    for _ in range(3):
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value in ("enumerate", "sorted", "reversed", "list", "set", "tuple") and expr.args:
                expr = expr.args[0].value
                continue
            if isinstance(func, cst.Name) and func.value == "range" and len(expr.args) == 1:
                inner = expr.args[0].value
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "len" and inner.args:
                    expr = inner.args[0].value
                    continue
            if isinstance(func, cst.Attribute) and func.attr.value in _ITER_VIEWS and not expr.args:
                expr = func.value
                continue
        break
    return expr


def _is_servicer(cls: cst.ClassDef) -> bool:
    for arg in cls.bases:
        name = dotted(arg.value) or ""
        if name.rsplit(".", 1)[-1].endswith("Servicer"):
            return True
    return False
