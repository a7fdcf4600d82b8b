"""Where a collection's size comes from: input, configured, fixed by the code, or unknown.

``volume(expr, chain, ctx)`` follows *expr* back through assignments in the
enclosing functions (*chain*, from ``placement.ancestors_of``) to its
origin and answers ``(kind, why)``:

- INPUT: a request (a handler's parameter or a field of it, a worker's
  message batch) or data read at run time (a dependency call's result, a
  query, a directory walk, a file's lines);
- CONFIGURED: a settings object or an attribute chain through one, a name that
  is or ends with a ``bounded-names`` entry (``caps.resolved_callbacks``), a getter
  called on one (``Config.get(...)``), a read of a registry of a configured kind,
  the results of a signal's ``send(...)``, installed entry points, the items of a loop that
  only pick entries of a configured collection (``base_urls[idx]``, ``analysis.facts.positions``), rows only
  endpoints behind an operator guard add (``analysis.facts.installed``), ``self``
  state set only while the object is set up (``setup-methods``, methods only
  those call, constructor defaults no construction passes), a parameter that
  every caller in the project fills with a configured value, what a helper of
  the module returns when every return is configured (see ``analysis.facts.configured``);
- FIXED: a literal (also through ``a if c else b``, a literal table's entry
  or an unpacking of one), an UPPER_CASE constant, the result of a project
  function whose every return is a handful of literal items, the keys of data
  a schema validated (a serializer's ``validated_data``, a model's dump), a
  name the code caps first (``analysis.facts.capped``: a length guard that leaves early,
  a buffer emptied at a constant size), a field of a frozen dataclass every
  construction fills with such a collection (``analysis.facts.fields``);
- derived collections keep their source's kind: a comprehension or generator
  over it, ``tuple``/``list``/``sorted``/``reversed``/``filter``/``map`` of it,
  ``a if c else b`` (an empty literal adds nothing), the results of
  ``gather(*(... for x in xs))`` (one per item of ``xs``);
- UNKNOWN: anything else, such as a library function's parameter.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.kinds import calls
from boundlint.analysis.facts import app_state, bindings, callers, capped, configured, fields, fills, installed, lookups, placement, positions, self_extend
from boundlint.analysis.facts.fills import empty as _empty
from boundlint.analysis.facts.literals import capped as _capped, index_of as _index_of, literal_items as _literal_items

INPUT, CONFIGURED, FIXED, UNKNOWN = "input", "configured", "fixed", "unknown"

_WRAPPERS = frozenset({"len", "list", "tuple", "set", "sorted", "reversed", "enumerate", "zip", "iter", "frozenset",
                       "dict", "filter", "map", "chain", "islice", "batched", "chunked", "fromkeys"})
_VIEWS = frozenset({"items", "keys", "values", "copy", "split", "splitlines", "readlines"})
_WALKS = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob"})
_WALK_METHODS = frozenset({"iterdir", "glob", "rglob", "readlines", "read_text", "splitlines"})
_REQUEST_WORDS = frozenset({"request", "req", "body", "payload", "batch", "messages", "msgs", "records", "events"})
_PENDING = (UNKNOWN, "a name being resolved")
_DEPTH = 10  # hops through assignments, callers, helpers and tables (a sub-expression is no hop: it is finite)


def _worst(found: list[tuple[str, str]]) -> tuple[str, str]:
    """The kind that bounds least of *found* (input, then unknown, configured, fixed)."""
    for kind in (INPUT, UNKNOWN, CONFIGURED, FIXED):
        for k, why in found:
            if k == kind:
                return k, why
    return UNKNOWN, ""


class _Reader:
    def __init__(self, chain: list[cst.CSTNode], ctx, path: str, runs: str | None = None) -> None:
        self.chain, self.ctx, self.path = chain, ctx, path
        self.funcs = placement.functions_in(chain)
        self.runs = runs if runs is not None else placement.where_runs(path, chain)

    def name(self, name: str, depth: int) -> tuple[str, str]:
        """The kind of *name* where the reader stands, memoised per file (a name defined through
        itself is unknown; an answer the depth cut short is not kept)."""
        names = self.ctx.cache.setdefault("volume_names", {})
        key = (id(self.funcs[-1]) if self.funcs else 0, name, self.runs)
        if key in names:
            if names[key] is _PENDING:  # defined through itself: what it adds is unknown
                self.cut(_DEPTH + 1)
                return UNKNOWN, ""
            return names[key]
        names[key] = _PENDING
        cuts = self.ctx.cache.get("volume_cuts", 0)
        found = self.resolve(name, depth)
        if self.ctx.cache.get("volume_cuts", 0) == cuts:
            names[key] = found
        else:
            del names[key]
        return found

    def resolve(self, name: str, depth: int) -> tuple[str, str]:
        memo = self.ctx.cache.setdefault("assignments", {})
        for func in reversed(self.funcs):
            if id(func) not in memo:
                memo[id(func)] = bindings.assignments(func)
            values = self_extend.drop(func, name, memo[id(func)].get(name) or [])  # `x = [m] + x`: a few more
            limit = capped.cap(func, name) if values or bindings.param(func, name) is not None else ""
            if limit:
                return FIXED, limit
            if values:
                filled = self.filled_here(func, name, depth) if all(map(_empty, values)) else None
                return filled or _worst([self.expr(v, depth + 1) for v in values])
            param = bindings.param(func, name)
            if param is not None:
                return self.param(func, param, depth)
        if name.isupper():
            return FIXED, f"the constant `{name}`"
        if name in self.ctx.index.constants:
            values = [v for v in self.ctx.index.constants[name] if v is not None]
            if values and not self.cut(depth + 1):
                return self.expr(values[-1], depth + 1)
        return UNKNOWN, ""

    def filled_here(self, func: cst.FunctionDef, name: str, depth: int) -> tuple[str, str] | None:
        """The kind of *name*, built empty in *func*, from what fills it there (``fills.fills``): as many
        items as the loops around each fill walk (one for a fill outside any loop) plus what an
        ``extend`` adds; None when the fills are not all seen or there are none."""
        owner = next((n.name.value for n in reversed(self.chain) if isinstance(n, cst.ClassDef)), None)
        picked = lookups.filled(func, name, self.ctx.settings, owner)  # `out.append(hit)`: one per registry entry
        if picked:
            return CONFIGURED, picked
        found = fills.fills(func, name)
        if not found or self.cut(depth + 1):
            return None
        kinds = []
        for loops, added in found:
            kinds.extend(self.expr(loop, depth + 1) for loop in loops)
            if added is not None:
                kinds.append(self.expr(added, depth + 1))
            elif not loops:
                kinds.append((FIXED, f"items added one by one to `{name}`"))
        return _worst(kinds)

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
            memo[key] = configured.built_once(owner, attr, self.ctx.settings, self.ctx.cache.setdefault("setup_methods", {}))
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

    def param(self, func: cst.FunctionDef, param: cst.Param, depth: int = 0) -> tuple[str, str]:
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
        passed = self.passed(func, name) or self.filled(func, param, depth)
        if passed:
            return CONFIGURED, passed
        return UNKNOWN, f"parameter `{name}` of `{func.name.value}()`"

    def passed(self, func: cst.FunctionDef, name: str) -> str | None:
        """Why the parameter *name* of the module-level function *func* is configured: every call of it
        in the project passes configuration (``settings.repos``, not of request input), application
        state, a local bound only to those or small literals, or a parameter so passed (``app_state.passed``); else None."""
        if not any(stmt is func for stmt in self.ctx.module.body):
            return None
        found = app_state.passed(self.ctx, self.ctx.project.ref(None, func.name.value), name, self.ctx.settings)
        return f"`{name}` of `{func.name.value}()`, passed {found[0]} by every caller ({found[1]})" if found else None

    def filled(self, func: cst.FunctionDef, param: cst.Param, depth: int) -> str | None:
        """Why the parameter *param* of *func* (a module-level function or a method of a module-level
        class) is configured: the project calls *func* only from this module, and every call here
        passes (or leaves to a default) a value this reader finds configured or fixed, judged where
        the call is (``caps.resolved_callbacks``, a ``tuple(...)`` of one); else None."""
        if self.cut(depth + 1):
            return None
        found = callers.calls_in_module(func, param.name.value, self.chain, self.ctx)
        if not found:
            return None
        position, sites = found
        kinds: list[tuple[str, str]] = []
        for call, chain in sites:
            arg = bindings.argument(call, position, param.name.value)
            if arg is None and (param.default is None or any(a.star for a in call.args)):
                return None
            value = arg if arg is not None else param.default
            kinds.append(_Reader(chain, self.ctx, self.path).expr(value, depth + 1))
        kind, why = _worst(kinds)
        if kind not in (CONFIGURED, FIXED):
            return None
        return f"`{param.name.value}` of `{func.name.value}()`, which every caller fills from {why}"

    def config_read(self, func: cst.BaseExpression) -> bool:
        """``_config_read``, unless the object is a parameter of a request or message handler (a config
        sent in the request is input)."""
        if not configured.config_read(func):
            return False
        root = (dotted(func) or "").split(".", 1)[0]
        return not (self.runs in (placement.REQUEST, placement.WORKER)
                    and any(bindings.param(f, root) is not None for f in self.funcs))

    def helper(self, call: cst.Call, depth: int) -> tuple[str, str] | None:
        """The kind of what a project function returns (``index.returns``): a handful of literal items,
        or the argument it hands back unchanged or a part of it; None when it returns anything else."""
        ref = self.ctx.project_ref(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
        answer = self.ctx.project.ask("returns", ref) if ref else None
        if not answer:
            return None
        if "fixed" in answer:
            return FIXED, f"at most {answer['fixed']} literal items, returned by {answer['where']}"
        arg = bindings.argument(call, answer["position"], answer["param"])
        if arg is None:
            return None
        kind, why = self.expr(arg, depth + 1)
        return (kind, f"{why}, a part of which {answer['where']} returns") if answer.get("subset") and why else (kind, why)

    def call(self, call: cst.Call, depth: int) -> tuple[str, str]:
        func = call.func
        qual = self.ctx.qualname(func) or dotted(func) or ""
        last = qual.rsplit(".", 1)[-1]
        if qual in configured.INSTALLED or last in ("entry_points", "iter_entry_points"):
            return CONFIGURED, f"installed plugins (`{qual or last}()`)"
        if qual in _WALKS or (isinstance(func, cst.Attribute) and func.attr.value in _WALK_METHODS and last != "split"):
            return INPUT, f"data read at run time (`{qual or last}()`)"
        schema = self.schema_keys(call)
        if schema:
            return FIXED, schema
        if qual.rsplit(".", 1)[-1] in _WRAPPERS or (isinstance(func, cst.Attribute) and func.attr.value in _VIEWS):
            positional = [a.value for a in call.args if not a.star and a.keyword is None]
            inner = (positional[-1] if last in ("filter", "map") and positional else call.args[0].value) if (
                call.args and qual.rsplit(".", 1)[-1] in _WRAPPERS) else (
                func.value if isinstance(func, cst.Attribute) else None)
            if inner is not None:
                return self.expr(inner, depth)
            return UNKNOWN, ""
        if self.config_read(func):
            return CONFIGURED, f"`{dotted(func)}(...)`, read from configuration"
        if isinstance(func, cst.Attribute) and func.attr.value == "get" and 1 <= len(call.args) <= 2:
            mapping = self.expr(func.value, depth)  # pools.get(tier, ()): one entry of a configured mapping
            if mapping[0] == CONFIGURED and (len(call.args) == 1 or self.part(call.args[1].value, depth)[0] in (
                    CONFIGURED, FIXED)):
                return mapping
        owner = next((n.name.value for n in reversed(self.chain) if isinstance(n, cst.ClassDef)), None)
        found = (configured.registry_read(func, self.ctx.settings, owner) or configured.signal_sent(call, self.ctx)
                 or installed.operator_rows(call, self.ctx))
        if found:
            return CONFIGURED, found
        helper = self.helper(call, depth) or self.returned(call, None, depth)
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
            return self.expr(call.args[-1 if len(call.args) < 3 else 1].value, depth)
        return UNKNOWN, ""

    def returned(self, call: cst.Call, position: int | None, depth: int) -> tuple[str, str] | None:
        """CONFIGURED when every ``return`` of the function of this module (or the method of this class,
        ``self.pools()``) *call* calls hands back a configured collection, judged in that function's body (with *position*, the item at that
        position of a literal tuple it returns: ``callbacks, others = split()``); else None."""
        callee, owner = call.func, next((n for n in reversed(self.chain) if isinstance(n, cst.ClassDef)), None)
        if isinstance(callee, cst.Name) and not any(callee.value in bindings.param_names(f) for f in self.funcs):
            func, outer = self.ctx.index.functions.get(callee.value), []
        elif (isinstance(callee, cst.Attribute) and isinstance(callee.value, cst.Name)
              and callee.value.value in ("self", "cls") and owner is not None):  # self._pools(): a method of its class
            func, outer = self.ctx.index.methods.get(owner.name.value, {}).get(callee.attr.value), [owner]
        else:
            return None
        values = bindings.returns(func) if func is not None and not self.cut(depth + 1) else None
        if not values:
            return None
        reader = _Reader([self.ctx.module, *outer, func], self.ctx, self.path, placement.UNKNOWN)
        kinds = []
        for value in values:
            items = _literal_items(value) if position is not None and isinstance(value, (cst.Tuple, cst.List)) else None
            if items and -len(items) <= position < len(items):
                value = items[position]
            kinds.append(reader.part(value, depth + 1))  # a returned empty literal is never filled
        kind, why = _worst(kinds)
        return (CONFIGURED, f"{why}, returned by `{func.name.value}()`") if kind == CONFIGURED else None

    def schema_keys(self, call: cst.Call) -> str:
        """Why the keys of the dict *call* views (``.items()``, ``.keys()``, ``.values()``) are fixed by a
        schema: the validated data a serializer method is handed (not rebound there), or a model's
        dump (also through a name bound only to one); else ``""``."""
        func = call.func
        if call.args or not (isinstance(func, cst.Attribute) and func.attr.value in ("items", "keys", "values")):
            return ""
        data = func.value
        if isinstance(data, cst.Call):
            return configured.model_dump(data)
        if not isinstance(data, cst.Name) or not self.funcs:
            return ""
        memo = self.ctx.cache.setdefault("assignments", {})
        if id(self.funcs[-1]) not in memo:
            memo[id(self.funcs[-1])] = bindings.assignments(self.funcs[-1])
        values = memo[id(self.funcs[-1])].get(data.value)
        if values:
            dumps = [configured.model_dump(v) if isinstance(v, cst.Call) else "" for v in values]
            return dumps[0] if all(dumps) else ""
        return configured.schema_data(data.value, self.chain, self.ctx)

    def gathered(self, call: cst.Call, depth: int) -> tuple[str, str] | None:
        """The kind of what ``gather(...)`` returns: one result per awaitable it is given, so as many as
        the collections its unpacked arguments walk (an argument of its own adds one); None for
        another call."""
        qual = self.ctx.qualname(call.func) or dotted(call.func) or ""
        if qual.rsplit(".", 1)[-1] != "gather" or not any(a.star == "*" for a in call.args):
            return None
        return _worst([self.expr(a.value, depth) for a in call.args if a.star == "*"])

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
                memo[id(func)] = bindings.assignments(func)
            if name in memo[id(func)]:
                values = memo[id(func)][name]
                break
            if bindings.param(func, name) is not None:
                return None
        if values is None:
            values = self.ctx.index.constants.get(name)
        if not values or any(v is None or not _literal_items(v) for v in values):
            return None  # an empty one is filled by the code that follows: as large as what fills it
        return list(values)

    def items(self, sub: cst.Subscript, depth: int) -> list[cst.BaseExpression] | None:
        """What *sub* may pick when it indexes a literal table (``KINDS[kind]``, ``pair[1]``): the
        entries at that position, or every entry; None when the table is no literal."""
        if self.cut(depth):
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

    def cut(self, depth: int) -> bool:
        """True (and counted, so that ``name`` keeps no answer it shaped) when *depth* is past the budget."""
        if depth <= _DEPTH:
            return False
        self.ctx.cache["volume_cuts"] = self.ctx.cache.get("volume_cuts", 0) + 1
        return True

    def expr(self, expr: cst.BaseExpression, depth: int = 0) -> tuple[str, str]:
        if self.cut(depth):
            return UNKNOWN, ""
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)) and not expr.elements:
            return UNKNOWN, ""  # built empty: as large as whatever fills it
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
            # A literal that unpacks a request's collection is as large as it (`[*body.ids, x]`).
            spread = [self.part(e.value, depth) for e in expr.elements
                      if isinstance(e, (cst.StarredElement, cst.StarredDictElement))]
            return next((found for found in spread if found[0] == INPUT), (FIXED, "a literal"))
        if isinstance(expr, (cst.SimpleString, cst.Integer)):
            return FIXED, "a literal"
        if isinstance(expr, cst.IfExp):
            return _worst([self.part(expr.body, depth), self.part(expr.orelse, depth)])
        if isinstance(expr, cst.BinaryOperation):
            if isinstance(expr.operator, (cst.Subtract, cst.BitAnd)):  # a part of the left
                return self.expr(expr.left, depth)
            if isinstance(expr.operator, (cst.Add, cst.BitOr)):
                return _worst([self.part(expr.left, depth), self.part(expr.right, depth)])
            return UNKNOWN, ""
        if isinstance(expr, cst.Await):
            if isinstance(expr.expression, cst.Call) and self.config_read(expr.expression.func):
                return CONFIGURED, f"`{dotted(expr.expression.func)}(...)`, read from configuration"
            cap = _capped(expr.expression, self.ctx.settings) if isinstance(expr.expression, cst.Call) else ""
            if cap:
                return FIXED, cap
            if lookups.registry_call(expr.expression, self.chain, self.ctx.settings):  # `await manager.get_servers()`
                return self.call(expr.expression, depth)
            gathered = self.gathered(expr.expression, depth) if isinstance(expr.expression, cst.Call) else None
            if gathered is not None:
                return gathered
            rows = installed.operator_rows(expr.expression, self.ctx) if isinstance(expr.expression, cst.Call) else ""
            return (CONFIGURED, rows) if rows else (INPUT, "the result of an awaited call, read at run time")
        if isinstance(expr, cst.Name):
            return self.name(expr.value, depth)
        if isinstance(expr, cst.Attribute):
            text = dotted(expr) or ""
            root = text.split(".", 1)[0]
            if text.rsplit(".", 1)[-1].isupper() and len(text.rsplit(".", 1)[-1]) > 1:
                return FIXED, f"the constant `{text}`"
            parts = text.split(".")
            why = configured.configured_chain(text, self.ctx.settings) and f"`{text}`, set by configuration"
            if why or app_state.shared(text, self.ctx):
                return CONFIGURED, why or app_state.shared(text, self.ctx)
            if root.isupper() and len(root) > 1 and len(parts) >= 2:
                return CONFIGURED, f"`{text}`, state of the module-level `{root}`"
            once = self.built_once(parts[1], depth) if root in ("self", "cls") and len(parts) >= 2 else None
            if once:
                return CONFIGURED, f"`{text}`, {once}"
            if root in ("self", "cls") or not root:
                return UNKNOWN, ""
            built = (fields.passed(root, parts[1], self.funcs, self.ctx)
                     if len(parts) == 2 and not self.cut(depth + 1) else None)
            if built is not None:  # a field of a frozen value object: what its constructions pass
                kind, why = _worst([_Reader(c, self.ctx, self.path).expr(v, depth + 1) for v, c in built[1]])
                if kind in (CONFIGURED, FIXED):
                    return kind, f"`{text}`, which every `{built[0]}(...)` fills from {why}"
            return self.name(root, depth)
        if isinstance(expr, cst.Subscript):
            picked = self.items(expr, depth + 1)
            if picked is not None:
                return _worst([self.expr(p, depth + 1) for p in picked]) if picked else (FIXED, "a literal")
            at = _index_of(expr)
            found = self.returned(expr.value, at, depth) if at is not None and isinstance(expr.value, cst.Call) else None
            if found is not None:
                return found
            kind = self.expr(expr.value, depth)
            # one part of a fixed-size result (`order, items = make()`) may be of any size
            return (UNKNOWN, "") if kind[0] == FIXED else kind
        if isinstance(expr, cst.Call):
            return self.call(expr, depth)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            picked = lookups.kept(expr, lambda coll: self.expr(coll, depth + 1))  # `if k in registry`
            if picked:
                return CONFIGURED, picked
            kinds, comp = [], expr.for_in  # as many items as all its `for` clauses walk together
            while comp is not None:
                kinds.append(self.expr(comp.iter, depth))
                comp = comp.inner_for_in
            return _worst(kinds)
        if isinstance(expr, cst.BooleanOperation):
            return self.expr(expr.left, depth)
        return UNKNOWN, ""


def volume(expr: cst.BaseExpression | None, chain: list[cst.CSTNode], ctx, path: str,
           runs: str | None = None) -> tuple[str, str]:
    """``(kind, why)`` for the collection *expr* whose size drives the work (see the module doc);
    *runs* is ``placement.where_runs`` of *chain* when the caller has it already."""
    if expr is None:
        return UNKNOWN, ""
    if any(isinstance(n, cst.For) and n.asynchronous is not None and n.iter is expr for n in chain):
        return INPUT, f"a stream read at run time (`async for` over `{dotted(expr) or 'a stream'}`)"
    reader = _Reader(chain, ctx, path, runs)
    found = reader.expr(expr)
    loop = positions.loop_over(expr, chain) if found[0] == UNKNOWN else None
    for table in positions.picked(loop) if loop is not None else ():  # `base_urls[idx]`: one per configured entry
        kind, why = reader.expr(table)
        if kind == CONFIGURED:
            named = f"`{positions.label(table)}`"
            return CONFIGURED, f"each item picks an entry of {why if why.startswith(named) else f'{named}: {why}'}"
    return found
