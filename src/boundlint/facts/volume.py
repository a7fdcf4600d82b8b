"""Where a collection's size comes from: input, configured, fixed by the code, or unknown.

``volume(expr, chain, ctx)`` follows *expr* back through assignments in the
enclosing functions (*chain*, from ``placement.ancestors_of``) to its
origin and answers ``(kind, why)``:

- INPUT: a request (a handler's parameter or a field of it, a worker's
  message batch) or data read at run time (a dependency call's result, a
  query, a directory walk, a file's lines);
- CONFIGURED: a settings object or an attribute chain through one, a getter
  called on one (``Config.get(...)``), a parameter every caller in the project
  fills from one, ``self`` state set only while the object is set up
  (``setup-methods``, methods only those call, constructor defaults no
  construction passes);
- FIXED: a literal (also through ``a if c else b``, a literal table's entry
  or an unpacking of one), an UPPER_CASE constant, the result of a project
  function whose every return is a handful of literal items;
- UNKNOWN: anything else, such as a library function's parameter.
"""
from __future__ import annotations

import libcst as cst

from boundlint import tables
from boundlint.analysis.names import dotted
from boundlint.facts import calls, placement
from boundlint.facts.literals import (
    capped as _capped, index_of as _index_of, item as _item, literal_items as _literal_items,
)

INPUT, CONFIGURED, FIXED, UNKNOWN = "input", "configured", "fixed", "unknown"

_WRAPPERS = frozenset({"len", "list", "tuple", "set", "sorted", "reversed", "enumerate", "zip", "iter", "frozenset",
                       "dict", "filter", "map", "chain", "islice", "batched", "chunked", "fromkeys"})
# A call of one of these on an object named as configuration reads it (`await Config.get("urls")`).
_CONFIG_GETTERS = frozenset({"get", "get_value", "getlist", "get_list", "get_config", "value"})
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
                elif isinstance(t.target, (cst.Tuple, cst.List)):  # a, b = pair: b is pair[1]
                    for i, elt in enumerate(t.target.elements):
                        if isinstance(elt, cst.StarredElement):
                            break
                        if isinstance(elt.value, cst.Name):
                            out.setdefault(elt.value.value, []).append(_item(node.value, i))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            out.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            out.setdefault(node.target.value, []).append(node.value)
        stack.extend(node.children)
    return out


def _worst(found: list[tuple[str, str]]) -> tuple[str, str]:
    """The kind that bounds least of *found* (input, then unknown, configured, fixed)."""
    for kind in (INPUT, UNKNOWN, CONFIGURED, FIXED):
        for k, why in found:
            if k == kind:
                return k, why
    return UNKNOWN, ""


def _param(func: cst.FunctionDef, name: str) -> cst.Param | None:
    params = func.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == name:
            return p
    star = params.star_arg
    if isinstance(star, cst.Param) and star.name.value == name:
        return star
    return None


_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
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


def _fields_of(node: cst.CSTNode):
    """*node*'s syntactic children read from its fields (``node.children`` rebuilds them: far slower)."""
    from boundlint.analysis.walk.walker import children  # the checker has it loaded; the index never needs it

    return children(node)


def _setup_methods(methods: list[cst.FunctionDef], settings) -> set[str]:
    """Names of the methods that set the object up before it works: those the ``setup-methods`` table
    names (``__init__``, ``start``, ``before_run`` ...), and those called (``self.m()``) only from
    set-up methods and never inside a loop there."""
    roots = tables.table("setup-methods", settings)
    callers: dict[str, list[tuple[str, bool]]] = {}  # method -> (calling method, in a loop)
    for method in methods:
        stack: list[tuple[cst.CSTNode, bool]] = [(method.body, False)]
        while stack:
            node, looped = stack.pop()
            if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and isinstance(node.func.value, cst.Name) and node.func.value.value == "self"):
                callers.setdefault(node.func.attr.value, []).append((method.name.value, looped))
            inner = looped or isinstance(node, _LOOPS)
            stack.extend((child, inner) for child in _fields_of(node)
                         if not isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))
    out = {m.name.value for m in methods if m.name.value in roots}
    grew = True
    while grew:
        grew = False
        for method in methods:
            name = method.name.value
            calls_of = callers.get(name)
            if name not in out and calls_of and all(c in out and not looped for c, looped in calls_of):
                out.add(name)
                grew = True
    return out


def _built_once(owner: cst.ClassDef, attr: str, settings=None, memo: dict | None = None) -> tuple | None:
    """See ``_Reader.built_once``: None when the attribute is not state fixed at set-up, else
    ``(params, values)``: the ``__init__`` parameters its value is made from (empty when none) and
    ``(method, value)`` for each value a set-up method assigns."""
    assigned_at_build = False
    handed: set[str] = set()
    values: list[tuple[cst.FunctionDef, cst.BaseExpression]] = []
    methods = [s for s in (owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ())
               if isinstance(s, cst.FunctionDef)]
    if memo is None:
        memo = {}
    setup = memo.get(id(owner))  # the same for every attribute of the class: one walk of its methods
    if setup is None:
        setup = memo[id(owner)] = _setup_methods(methods, settings)
    for stmt in methods:
        builder = stmt.name.value in setup
        stack: list[cst.CSTNode] = [stmt.body]
        while stack:
            node = stack.pop()
            stack.extend(_fields_of(node))
            targets: list[cst.CSTNode] = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
                targets = [node.target]
            for target in targets:
                if _self_attr(target, attr):
                    if not builder:
                        return None
                    value = getattr(node, "value", None)
                    used = _names_in(value) & _param_names(stmt) if value is not None else set()
                    if used and stmt.name.value != "__init__":
                        return None  # handed in by whoever calls it: as large as the caller's collection
                    handed |= used  # handed in by whoever builds it: judged by how the project builds it
                    if value is not None:
                        values.append((stmt, value))
                    assigned_at_build = True
                if isinstance(target, cst.Subscript) and _self_attr(target.value, attr) and not builder:
                    return None  # self.attr[key] = value per call
            if (not builder and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in _FILLS and _self_attr(node.func.value, attr)):
                return None  # filled as the object works
    return (frozenset(handed), values) if assigned_at_build else None


def _configured_chain(text: str, settings) -> bool:
    """``settings.repos``, ``self.config.regions``, ``x.replicas``: an attribute chain that names configuration."""
    parts = text.split(".")
    return (parts[0] in _CONFIG_ROOTS - {"self", "cls"} or any("settings" in p or "config" in p for p in parts)
            or parts[-1] in tables.table("bounded-names", settings))


def _config_read(func: cst.BaseExpression) -> bool:
    """``Config.get(...)``, ``settings.get_value(...)``: a getter called on an object named as configuration."""
    if not (isinstance(func, cst.Attribute) and func.attr.value in _CONFIG_GETTERS):
        return False
    receiver = func.value.attr.value if isinstance(func.value, cst.Attribute) else (
        func.value.value if isinstance(func.value, cst.Name) else "")
    word = receiver.lower().strip("_")
    return word in _CONFIG_ROOTS - {"self", "cls", "options", "opts"} or word.endswith(("config", "settings"))


def _argument(call: cst.Call, position: int, name: str) -> cst.BaseExpression | None:
    """The argument *call* passes for the parameter *name* at *position*, else None (also when a
    ``*args`` or ``**kwargs`` may hold it)."""
    positional = []
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            positional.append(arg.value)
        elif arg.keyword.value == name:
            return arg.value
    return positional[position] if position < len(positional) else None


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
                return _worst([self.expr(v, depth + 1) for v in values])
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

    def built_once(self, attr: str, depth: int) -> str | None:
        """Why ``self.<attr>`` is state fixed at set-up, else None: it is assigned only while the object
        is set up (``__init__``, a ``setup-methods`` method such as ``start`` or ``before_run``, or a
        method only those call, outside any loop), from something other than a value handed in or
        read at run time (a literal, configuration, a lookup of its own) or from ``__init__`` parameters that no
        construction in the project passes (their defaults), and never filled or rebound by another
        method: state fixed at set-up, like configuration."""
        owner = next((n for n in reversed(self.chain) if isinstance(n, cst.ClassDef)), None)
        if owner is None:
            return None
        memo = self.ctx.cache.setdefault("built_once", {})
        key = (id(owner), attr)
        if key not in memo:
            memo[key] = _built_once(owner, attr, self.ctx.settings, self.ctx.cache.setdefault("setup_methods", {}))
        if memo[key] is None:
            return None
        handed, values = memo[key]
        owner_at = next(i for i, n in enumerate(self.chain) if n is owner)
        for method, value in values:  # a query's rows or a message batch stays input, even at set-up
            reader = _Reader([*self.chain[:owner_at + 1], method], self.ctx, self.path, placement.UNKNOWN)
            if reader.expr(value, depth + 1)[0] == INPUT:
                return None
        if not handed:
            return "set when the object is set up and not changed after"
        ref = self.ctx.project_ref(owner.name)
        for param in sorted(handed):
            answer = self.ctx.project.ask("constructed", ref, param) if ref else None
            if not answer or not answer["built"] or answer["passing"]:
                return None
        return (f"set when the object is set up, from the defaults of `{', '.join(sorted(handed))}`, "
                f"which no construction of `{owner.name.value}` in the project passes")

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
        passed = self.passed(func, name)
        if passed:
            return CONFIGURED, passed
        return UNKNOWN, f"parameter `{name}` of `{func.name.value}()`"

    def passed(self, func: cst.FunctionDef, name: str) -> str | None:
        """Why the parameter *name* of the module-level function *func* is configured: every call of it
        in the project passes an attribute chain that names configuration (``settings.repos``) of a
        parameter that carries no request input; else None."""
        if not any(stmt is func for stmt in self.ctx.module.body):
            return None
        calls_of = self.ctx.project.ask("passed", self.ctx.project.ref(None, func.name.value), name)
        if not calls_of or any(c["input"] or not c["text"] or "." not in c["text"]
                               or not _configured_chain(c["text"], self.ctx.settings) for c in calls_of):
            return None
        first = calls_of[0]
        return (f"`{name}` of `{func.name.value}()`, passed `{first['text']}` (configuration) "
                f"by every caller ({first['where']})")

    def config_read(self, func: cst.BaseExpression) -> bool:
        """``_config_read``, unless the object is a parameter of a request or message handler (a config
        sent in the request is input)."""
        if not _config_read(func):
            return False
        root = (dotted(func) or "").split(".", 1)[0]
        return not (self.runs in (placement.REQUEST, placement.WORKER)
                    and any(_param(f, root) is not None for f in self.funcs))

    def helper(self, call: cst.Call, depth: int) -> tuple[str, str] | None:
        """The kind of what a project function returns (``index.returns``): a handful of literal items,
        or the argument it hands back unchanged; None when it returns anything else."""
        ref = self.ctx.project_ref(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
        answer = self.ctx.project.ask("returns", ref) if ref else None
        if not answer:
            return None
        if "fixed" in answer:
            return FIXED, f"at most {answer['fixed']} literal items, returned by {answer['where']}"
        arg = _argument(call, answer["position"], answer["param"])
        return self.expr(arg, depth + 1) if arg is not None else None

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
        if self.config_read(func):
            return CONFIGURED, f"`{dotted(func)}(...)`, read from configuration"
        helper = self.helper(call, depth)
        if helper is not None:
            return helper
        cap = _capped(call, self.ctx.settings)
        if cap:
            return FIXED, cap
        receiver = dotted(func.value) if isinstance(func, cst.Attribute) else None
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if calls.classify(self.ctx.qualname(func), receiver, method, self.ctx.settings) == calls.DEPENDENCY:
            return INPUT, f"the result of `{dotted(func) or method}()`, read at run time"
        if isinstance(func, cst.Name) and func.value == "range" and call.args:
            return self.expr(call.args[-1 if len(call.args) < 3 else 1].value, depth + 1)
        return UNKNOWN, ""

    def part(self, expr: cst.BaseExpression, depth: int) -> tuple[str, str]:
        """The kind of one part of a collection: there an empty literal holds nothing."""
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)) and not expr.elements:
            return FIXED, "a literal"
        return self.expr(expr, depth)

    def literals(self, name: str) -> list[cst.BaseExpression] | None:
        """Every value assigned to *name* (in the enclosing functions, else at module level) when each
        is a non-empty literal collection with no unpacked part, else None."""
        memo = self.ctx.cache.setdefault("assignments", {})
        values: list | None = None
        for func in reversed(self.funcs):
            if id(func) not in memo:
                memo[id(func)] = _assignments(func)
            if name in memo[id(func)]:
                values = memo[id(func)][name]
                break
            if _param(func, name) is not None:
                return None
        if values is None:
            values = self.ctx.index.constants.get(name)
        if not values or any(v is None or not _literal_items(v) for v in values):
            return None  # an empty one is filled by the code that follows: as large as what fills it
        return list(values)

    def items(self, sub: cst.Subscript, depth: int) -> list[cst.BaseExpression] | None:
        """What *sub* may pick when it indexes a literal table (``KINDS[kind]``, ``pair[1]``): the
        entries at that position, or every entry; None when the table is no literal."""
        if depth > _DEPTH:
            return None
        base = sub.value
        if isinstance(base, cst.Subscript):
            tables_ = self.items(base, depth + 1)
        elif isinstance(base, cst.Name):
            tables_ = self.literals(base.value)
        else:
            tables_ = [base] if _literal_items(base) is not None else None
        if tables_ is None:
            return None
        position = _index_of(sub)
        out: list[cst.BaseExpression] = []
        for table in tables_:
            entries = _literal_items(table)
            if entries is None:
                return None
            fits = position is not None and -len(entries) <= position < len(entries)
            if fits and isinstance(table, (cst.List, cst.Tuple)):
                out.append(entries[position])
            else:
                out.extend(entries)
        return out

    def expr(self, expr: cst.BaseExpression, depth: int = 0) -> tuple[str, str]:
        if depth > _DEPTH:
            return UNKNOWN, ""
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)) and not expr.elements:
            return UNKNOWN, ""  # built empty: as large as whatever fills it
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
            # A literal that unpacks a request's collection is as large as it (`[*body.ids, x]`).
            spread = [self.part(e.value, depth + 1) for e in expr.elements
                      if isinstance(e, (cst.StarredElement, cst.StarredDictElement))]
            return next((found for found in spread if found[0] == INPUT), (FIXED, "a literal"))
        if isinstance(expr, (cst.SimpleString, cst.Integer)):
            return FIXED, "a literal"
        if isinstance(expr, cst.IfExp):
            return _worst([self.part(expr.body, depth + 1), self.part(expr.orelse, depth + 1)])
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, (cst.Subtract, cst.BitAnd)):  # a part of the left
                return self.expr(expr.left, depth + 1)
            if isinstance(expr.operator, (cst.Add, cst.BitOr)):
                return _worst([self.part(expr.left, depth + 1), self.part(expr.right, depth + 1)])
            return UNKNOWN, ""
        if isinstance(expr, cst.Await):
            if isinstance(expr.expression, cst.Call) and self.config_read(expr.expression.func):
                return CONFIGURED, f"`{dotted(expr.expression.func)}(...)`, read from configuration"
            cap = _capped(expr.expression, self.ctx.settings) if isinstance(expr.expression, cst.Call) else ""
            if cap:
                return FIXED, cap
            return INPUT, "the result of an awaited call, read at run time"
        if isinstance(expr, cst.Name):
            return self.name(expr.value, depth)
        if isinstance(expr, cst.Attribute):
            text = dotted(expr) or ""
            root = text.split(".", 1)[0]
            if text.rsplit(".", 1)[-1].isupper() and len(text.rsplit(".", 1)[-1]) > 1:
                return FIXED, f"the constant `{text}`"
            parts = text.split(".")
            if _configured_chain(text, self.ctx.settings):
                return CONFIGURED, f"`{text}`, set by configuration"
            if root.isupper() and len(root) > 1 and len(parts) >= 2:
                return CONFIGURED, f"`{text}`, state of the module-level `{root}`"
            once = self.built_once(parts[1], depth) if root in ("self", "cls") and len(parts) >= 2 else None
            if once:
                return CONFIGURED, f"`{text}`, {once}"
            if root in ("self", "cls") or not root:
                return UNKNOWN, ""
            return self.name(root, depth)
        if isinstance(expr, cst.Subscript):
            picked = self.items(expr, depth + 1)
            if picked is not None:
                return _worst([self.expr(p, depth + 1) for p in picked]) if picked else (FIXED, "a literal")
            kind = self.expr(expr.value, depth + 1)
            # one part of a fixed-size result (`order, items = make()`) may be of any size
            return (UNKNOWN, "") if kind[0] == FIXED else kind
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
