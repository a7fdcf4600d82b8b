"""Where a collection's size comes from: input, configured, fixed by the code, or unknown.

``volume(expr, chain, ctx)`` follows *expr* back through assignments in the
enclosing functions (*chain*, from ``placement.ancestors_of``) to its
origin and answers ``(kind, why)``:

- INPUT: a request (a handler's parameter or a field of it, a worker's
  message batch) or data read at run time (a dependency call's result, a
  query, a directory walk, a file's lines);
- CONFIGURED: a settings object, ``self``/``cls`` state, configuration;
- FIXED: a literal, an UPPER_CASE constant;
- UNKNOWN: anything else, such as a library function's parameter.
"""
from __future__ import annotations

import libcst as cst

from boundlint import tables
from boundlint.analysis.names import dotted
from boundlint.facts import calls, placement

INPUT, CONFIGURED, FIXED, UNKNOWN = "input", "configured", "fixed", "unknown"

_WRAPPERS = frozenset({"len", "list", "tuple", "set", "sorted", "reversed", "enumerate", "zip", "iter", "frozenset",
                       "dict", "filter", "map", "chain", "islice", "batched", "chunked"})
_VIEWS = frozenset({"items", "keys", "values", "copy", "split", "splitlines", "readlines"})
_WALKS = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob"})
# What the installation fixes: plugins and entry points found at start-up.
_INSTALLED = frozenset({"importlib.metadata.entry_points", "importlib_metadata.entry_points",
                        "pkg_resources.iter_entry_points", "entry_points", "iter_entry_points"})
_WALK_METHODS = frozenset({"iterdir", "glob", "rglob", "readlines", "read_text", "splitlines"})
_CONFIG_ROOTS = frozenset({"settings", "config", "conf", "cfg", "options", "opts", "app_settings", "self", "cls"})
_REQUEST_WORDS = frozenset({"request", "req", "body", "payload", "batch", "messages", "msgs", "records", "events"})
_DEPTH = 4


def _assignments(func: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """Name -> values assigned to it in *func*'s own body (nested defs skipped), in one walk."""
    out: dict[str, list[cst.BaseExpression]] = {}
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Nonlocal, cst.Global)):  # a nested def rebinds it: its values are not all here
            for item in node.names:
                out.setdefault(item.name.value, []).append(cst.Name("__rebound__"))
        if isinstance(node, (cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.FunctionDef):
            stack.extend(n for n in node.body.children if isinstance(node.body, cst.IndentedBlock))
            continue
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    out.setdefault(t.target.value, []).append(node.value)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            out.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            out.setdefault(node.target.value, []).append(node.value)
        stack.extend(node.children)
    return out


def _param(func: cst.FunctionDef, name: str) -> cst.Param | None:
    params = func.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == name:
            return p
    star = params.star_arg
    if isinstance(star, cst.Param) and star.name.value == name:
        return star
    return None


_BUILDERS = frozenset({"__init__", "__post_init__", "setup", "setUp", "__attrs_post_init__"})
_FILLS = frozenset({"append", "extend", "add", "update", "insert", "setdefault", "appendleft"})


def _self_attr(expr: cst.CSTNode, attr: str) -> bool:
    return (isinstance(expr, cst.Attribute) and expr.attr.value == attr and isinstance(expr.value, cst.Name)
            and expr.value.value in ("self", "cls"))


def _names_in(expr: cst.CSTNode) -> set[str]:
    out, stack = set(), [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        stack.extend(node.children)
    return out


def _param_names(func: cst.FunctionDef) -> set[str]:
    params = func.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)} - {"self", "cls"}


def _built_once(owner: cst.ClassDef, attr: str) -> bool:
    """See ``_Reader.built_once``; False when the attribute is never assigned at construction."""
    assigned_at_build = False
    for stmt in owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ():
        if not isinstance(stmt, cst.FunctionDef):
            continue
        builder = stmt.name.value in _BUILDERS
        stack: list[cst.CSTNode] = [stmt.body]
        while stack:
            node = stack.pop()
            stack.extend(node.children)
            targets: list[cst.CSTNode] = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
                targets = [node.target]
            for target in targets:
                if _self_attr(target, attr):
                    if not builder:
                        return False
                    value = getattr(node, "value", None)
                    if value is not None and _names_in(value) & _param_names(stmt):
                        return False  # handed in by whoever builds it: as large as the caller's collection
                    assigned_at_build = True
                if isinstance(target, cst.Subscript) and _self_attr(target.value, attr) and not builder:
                    return False  # self.attr[key] = value per call
            if (not builder and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in _FILLS and _self_attr(node.func.value, attr)):
                return False  # filled as the object works
    return assigned_at_build


class _Reader:
    def __init__(self, chain: list[cst.CSTNode], ctx, path: str, runs: str | None = None) -> None:
        self.chain, self.ctx, self.path = chain, ctx, path
        self.funcs = placement.functions_in(chain)
        self.runs = runs if runs is not None else placement.where_runs(path, chain)

    def name(self, name: str, depth: int) -> tuple[str, str]:
        memo = self.ctx.cache.setdefault("assignments", {})
        for func in reversed(self.funcs):
            if id(func) not in memo:
                memo[id(func)] = _assignments(func)
            values = memo[id(func)].get(name)
            if values:
                found = [self.expr(v, depth + 1) for v in values]
                for kind in (INPUT, UNKNOWN, CONFIGURED, FIXED):
                    for k, why in found:
                        if k == kind:
                            return k, why
            param = _param(func, name)
            if param is not None:
                return self.param(func, param)
        if name.isupper():
            return FIXED, f"the constant `{name}`"
        if name in self.ctx.index.constants:
            values = [v for v in self.ctx.index.constants[name] if v is not None]
            if values and depth < _DEPTH:
                return self.expr(values[-1], depth + 1)
        return UNKNOWN, ""

    def built_once(self, attr: str) -> bool:
        """``self.<attr>`` is assigned only while the object is built (``__init__``, the class body), from
        something other than a value handed in (a literal, configuration, a lookup of its own), and never
        filled or rebound by another method: state fixed at construction, like configuration."""
        owner = next((n for n in reversed(self.chain) if isinstance(n, cst.ClassDef)), None)
        if owner is None:
            return False
        memo = self.ctx.cache.setdefault("built_once", {})
        key = (id(owner), attr)
        if key not in memo:
            memo[key] = _built_once(owner, attr)
        return memo[key]

    def param(self, func: cst.FunctionDef, param: cst.Param) -> tuple[str, str]:
        name = param.name.value
        if self.runs in (placement.REQUEST, placement.WORKER):
            what = "request" if self.runs == placement.REQUEST else "message"
            return INPUT, f"{what} input `{name}` of `{func.name.value}()`"
        if name in _REQUEST_WORDS:
            return INPUT, f"`{name}` of `{func.name.value}()`"
        if param.annotation is not None:
            text = dotted(param.annotation.annotation) or ""
            if text.rsplit(".", 1)[-1] in ("Request", "WebSocket", "HttpRequest"):
                return INPUT, f"request `{name}` of `{func.name.value}()`"
        return UNKNOWN, f"parameter `{name}` of `{func.name.value}()`"

    def call(self, call: cst.Call, depth: int) -> tuple[str, str]:
        func = call.func
        qual = self.ctx.qualname(func) or dotted(func) or ""
        last = qual.rsplit(".", 1)[-1]
        if qual in _INSTALLED or last in ("entry_points", "iter_entry_points"):
            return CONFIGURED, f"installed plugins (`{qual or last}()`)"
        if qual in _WALKS or (isinstance(func, cst.Attribute) and func.attr.value in _WALK_METHODS and last != "split"):
            return INPUT, f"data read at run time (`{qual or last}()`)"
        if qual.rsplit(".", 1)[-1] in _WRAPPERS or (isinstance(func, cst.Attribute) and func.attr.value in _VIEWS):
            inner = call.args[0].value if call.args and qual.rsplit(".", 1)[-1] in _WRAPPERS else (
                func.value if isinstance(func, cst.Attribute) else None)
            if inner is not None:
                return self.expr(inner, depth + 1)
            return UNKNOWN, ""
        receiver = dotted(func.value) if isinstance(func, cst.Attribute) else None
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if calls.classify(self.ctx.qualname(func), receiver, method, self.ctx.settings) == calls.DEPENDENCY:
            return INPUT, f"the result of `{dotted(func) or method}()`, read at run time"
        if isinstance(func, cst.Name) and func.value == "range" and call.args:
            return self.expr(call.args[-1 if len(call.args) < 3 else 1].value, depth + 1)
        return UNKNOWN, ""

    def expr(self, expr: cst.BaseExpression, depth: int = 0) -> tuple[str, str]:
        if depth > _DEPTH:
            return UNKNOWN, ""
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)) and not expr.elements:
            return UNKNOWN, ""  # built empty: as large as whatever fills it
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.SimpleString, cst.Integer)):
            return FIXED, "a literal"
        if isinstance(expr, cst.Await):
            return INPUT, "the result of an awaited call, read at run time"
        if isinstance(expr, cst.Name):
            return self.name(expr.value, depth)
        if isinstance(expr, cst.Attribute):
            text = dotted(expr) or ""
            root = text.split(".", 1)[0]
            if text.rsplit(".", 1)[-1].isupper() and len(text.rsplit(".", 1)[-1]) > 1:
                return FIXED, f"the constant `{text}`"
            parts = text.split(".")
            configured = (root in _CONFIG_ROOTS - {"self", "cls"} or any("settings" in p or "config" in p for p in parts)
                          or parts[-1] in tables.table("bounded-names", self.ctx.settings))
            if configured:
                return CONFIGURED, f"`{text}`, set by configuration"
            if root.isupper() and len(root) > 1 and len(parts) >= 2:
                return CONFIGURED, f"`{text}`, state of the module-level `{root}`"
            if root in ("self", "cls") and len(parts) >= 2 and self.built_once(parts[1]):
                return CONFIGURED, f"`{text}`, set when the object is built and not changed after"
            if root in ("self", "cls") or not root:
                return UNKNOWN, ""
            return self.name(root, depth)
        if isinstance(expr, cst.Subscript):
            return self.expr(expr.value, depth + 1)
        if isinstance(expr, cst.Call):
            return self.call(expr, depth)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self.expr(expr.for_in.iter, depth + 1)
        if isinstance(expr, cst.BooleanOperation):
            return self.expr(expr.left, depth + 1)
        return UNKNOWN, ""


def volume(expr: cst.BaseExpression | None, chain: list[cst.CSTNode], ctx, path: str,
           runs: str | None = None) -> tuple[str, str]:
    """``(kind, why)`` for the collection *expr* whose size drives the work (see the module doc);
    *runs* is ``placement.where_runs`` of *chain* when the caller has it already."""
    if expr is None:
        return UNKNOWN, ""
    if any(isinstance(n, cst.For) and n.asynchronous is not None and n.iter is expr for n in chain):
        return INPUT, f"a stream read at run time (`async for` over `{dotted(expr) or 'a stream'}`)"
    return _Reader(chain, ctx, path, runs).expr(expr)
