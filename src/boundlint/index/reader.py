"""Facts of one function for the project index, read with ``ast`` in one pass over its body.

Provenance values (``prov``) say where an argument comes from, in the
function's own terms, so the link step can follow them across calls:
``{"param": "body.ids"}`` (a parameter or an attribute of one), ``{"each": PROV, "call": REF}``
(one new call result per item of PROV: ``[fetch(i) for i in ids]``), ``{"item": PROV}`` (one item
of PROV, a loop variable), ``{"len": PROV, "text": "len(accounts)"}`` (the length of a collection
that is no literal or constant, PROV None when unknown); a loop's collection may also be
``{"returns": REF}`` (``index.sources``).  Anything else is None: unknown, never assumed to be input.
"""
from __future__ import annotations

import ast
import functools
from typing import Callable

from boundlint import tables
from boundlint.kinds.calls import STDLIB
from boundlint.index import flags, local_binds
from boundlint.index.body import _FIELDS, child_fields, walk
from boundlint.index.returns import returned
from boundlint.index.sources import returned_by, rows_given
from boundlint.index.elements import Elements
from boundlint.index.checks import _rejected_keys, _terminates, measured_key, param_reads, reads_raw_body
from boundlint.index.shapes import (
    built_here, own_method, test_module, _failover, _is_const, _is_const_batch, _paced, _shares_pool, _short_sleep, _short_text, dotted,
    handed_calls, model_dependency, pool_facts, record_dependency, record_pool, type_refs,
)
from boundlint.tables.defaults import LIMITER_WORDS, SLOT_GRABS

_LEAVES = frozenset({ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del})
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
_CACHE_DECORATORS = frozenset({"lru_cache", "cache", "cached", "cached_property", "alru_cache", "memoize"})
_GRPC_CONTEXTS = frozenset({"context", "ctx", "_context"})


class FunctionReader:
    """Reads one ``def``: its parameters, limiters, clients, checks, pauses, calls and route.

    *ref* maps a Name/Attribute expression to an absolute dotted name (or
    None); *owner* is the enclosing class name for a method, *annotations* its annotated
    attributes (``index.elements``: the class of a receiver taken out of one).
    """

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef, ref: Callable[[ast.AST], str | None],
                 module: str, owner: str | None, local: set[str], instances: dict[str, str] | None = None,
                 bases: tuple[str, ...] = (), annotations: dict[str, ast.AST] | None = None) -> None:
        self.func, self.ref, self.module, self.owner = func, ref, module, owner
        self.instances = instances or {}
        self.bases = bases
        self._test_code = test_module(module)  # test code builds models to send them: none is filled
        # the tables each call is matched against, looked up once per function
        self._sleeps, self._serialisers, self._constructors, self._rows = (
            tables.table("sleeps"), tables.table("serialisers"), tables.table("client-constructors"),
            tables.table("row-sources"))
        args = func.args
        self.params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        self.body = walk(func, self.params)  # one walk of the body for every question but this reader's own
        # `group = self._groups.get(k)`: the class of a receiver taken out of an annotated container
        self.elements = Elements(func, annotations or {}, ref, module, self.body.bound)
        self.free = frozenset(self.params) - self.body.bound  # parameters whose tests say what a caller passed
        self.when: list = []  # the `[parameter, condition]` pairs the branches around the current statement need
        self.binds: dict[str, dict] = {}
        self.awaited: set[int] = set()  # ids of calls that are awaited
        self._handed: set[int] | None = None  # handed_calls(), read only once a call builds a model
        self.loop_vars: dict[str, dict] = {}
        self._gathered: dict[int, str] = {}  # id of a comprehension a gather() unpacks -> that call's text
        self.out: dict = {"line": func.lineno, "params": self.params, "method": owner is not None,
                          "limiter": None, "with_calls": [], "client": None, "client_call": None, "clients": [],
                          "len_checked": [], "pauses": False, "pause_calls": [], "raises": False, "batches": None,
                          "calls": [], "dep": None, "opaque": False, "route": None, "inputs": [], "outputs": [],
                          "cached": False, "built": [], "filled": [], "size_checked": [],
                          "dep_out": None, "opaque_out": False, **pool_facts(func, self.body.awaits_other)}
        self._absorbed = self.body.absorbed  # ids of calls whose failure a catch-all `try` here stops
        self.sizes: dict[str, str] = {}  # size = len(json.dumps(params)): local name -> the parameter it measures
        self.aliases: dict[str, str] = {}  # users = body.users: local name -> the parameter key it holds, until rebound
        self.size_keys: dict[str, str] = {}  # size = len(json.dumps(body.meta)): local name -> the key it measures

    @functools.cached_property
    def defaults(self) -> dict[str, ast.AST]:
        """Parameter name -> its default expression (read only for routes and stepped ranges)."""
        args = self.func.args
        positional = [*args.posonlyargs, *args.args]
        out = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)}
        out.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        return out

    # -- provenance --------------------------------------------------------------
    def prov(self, expr: ast.AST | None, depth: int = 0) -> dict | None:
        if expr is None or depth > 4:
            return None
        if isinstance(expr, ast.Starred):
            return self.prov(expr.value, depth + 1)
        if isinstance(expr, ast.Await):
            return self.prov(expr.value, depth + 1)
        name = dotted(expr)
        if name is not None:
            root = name.split(".", 1)[0]
            if root in self.loop_vars:
                return self.loop_vars[root]
            if root in self.binds and root == name:
                return self.binds[root]
            if root in self.params and root not in ("self", "cls"):
                return {"param": name}
            return None
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and expr.generators:
            source = self.prov(expr.generators[0].iter, depth + 1)
            if isinstance(expr.elt, ast.Call) and source is not None:
                return {"each": source, "call": self.ref(expr.elt.func) or dotted(expr.elt.func) or "?",
                        "line": expr.lineno}
            return None
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("list", "tuple", "set", "sorted") and expr.args:
            return self.prov(expr.args[0], depth + 1)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in self._rows:
            return {"data": f"{_short_text(expr.func)}()"}  # query rows, a listing: data read at run time
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args
                and expr.func.attr in ("items", "keys", "values")):
            return self.prov(expr.func.value, depth + 1)  # samples.items(): as many as the mapping holds
        return self._length(expr, depth)

    def _length(self, expr: ast.AST, depth: int) -> dict | None:
        """``{"len": ...}`` for ``len(xs)`` of a collection the code does not fix, also through
        ``max(1, len(xs))``, ``len(xs) * 2`` or ``int(...)`` (``min(len(xs), N)`` is bounded)."""
        if isinstance(expr, ast.Call) and dotted(expr.func) == "len" and len(expr.args) == 1:
            inner = expr.args[0]
            if isinstance(inner, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)) or _is_const(inner):
                return None
            text = ast.unparse(expr)
            return {"len": self.prov(inner, depth + 1), "text": text if len(text) <= 60 else _short_text(expr)}
        if isinstance(expr, ast.Call) and dotted(expr.func) in ("max", "int", "round") and not expr.keywords:
            parts = expr.args
        elif isinstance(expr, ast.BinOp):
            parts = [expr.left, expr.right]
        else:
            return None
        for part in parts:
            found = self.prov(part, depth + 1)
            if found is not None and "len" in found:
                return found
        return None

    # -- the pass ----------------------------------------------------------------
    def facts(self) -> dict:
        func = self.func
        names = {(dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] for d in func.decorator_list}
        self.out["cached"] = bool(names & _CACHE_DECORATORS)
        self._route()
        self._statements(func.body, None)
        body = func.body
        self.out["raises"] = bool(body) and isinstance(body[-1], ast.Raise)
        for stmt in body:  # a factory: `return httpx.Client(...)` among the body's own statements
            if isinstance(stmt, ast.Return) and isinstance(stmt.value, (ast.Call, ast.Await)):
                call = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
                if isinstance(call, ast.Call) and not _shares_pool(call):
                    made = self.ref(call.func)
                    if made in tables.table("client-constructors"):
                        self.out["client"] = made
                    elif made is not None:
                        self.out["client_call"] = made
        self.out["returns"] = returned(func, self.params, self.body)
        self.out["rows"] = rows_given(self.body.returns, self.prov, self._callee)  # data read at run time it hands back
        self.out["reads"] = param_reads(func, self.params, self._callee, self.body)
        if self.out["route"] and reads_raw_body(func, self.params, self.body):
            self.out["raw_body"] = True
        flags.finish(self.out, self.params, self.body.bound, any(dotted(d) == "staticmethod" for d in func.decorator_list))
        for key in ("len_checked", "size_checked"):
            self.out[key] = sorted(set(self.out[key]))
        return self.out

    def _callee(self, call: ast.Call) -> str | None:
        """The project ref *call* calls (``self.method`` of the class included), None for the stdlib or unknown."""
        func = call.func
        made = self.ref(func) or own_method(func, self.module, self.owner, self.bases)
        return None if made is None or made.split(".", 1)[0] in STDLIB else made

    def _route(self) -> None:
        methods = tables.table("endpoint-methods")
        for deco in self.func.decorator_list:
            if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute) and deco.func.attr in methods:
                path = deco.args[0].value if deco.args and isinstance(deco.args[0], ast.Constant) else ""
                self.out["route"] = f"{deco.func.attr.upper()} {path}".strip()
                for kw in deco.keywords:
                    if kw.arg in ("response_model", "response"):
                        self.out["outputs"].extend(type_refs(kw.value, self.ref))
                break
        if self.out["route"] is None and self.owner is not None and any(b.endswith("Servicer") for b in self.bases):
            if len(self.params) == 3 and self.params[2] in _GRPC_CONTEXTS and not self.func.name.startswith("_"):
                self.out["route"] = f"rpc {self.owner}.{self.func.name}"
                self.out["inputs"] = [[self.params[1], []]]
                return
        if self.out["route"] is None:
            return
        if self.func.returns is not None:
            self.out["outputs"].extend(type_refs(self.func.returns, self.ref))
        markers = tables.table("dependency-markers")
        used = {n.id for n, _ in self.body.names}
        args = self.func.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.arg in ("self", "cls"):
                continue
            default = self.defaults.get(arg.arg)
            injected = isinstance(default, ast.Call) and (dotted(default.func) or "").rsplit(".", 1)[-1] in markers
            refs = type_refs(arg.annotation, self.ref) if arg.annotation is not None else []
            if injected and model_dependency(default):  # `q: Search = Depends()`, `Depends(Search)`: the query is input
                injected = False
                refs += [r for r in map(self.ref, default.args[:1]) if r is not None and r not in refs]
            if isinstance(arg.annotation, ast.Subscript) and dotted(arg.annotation.value) in ("Annotated", "typing.Annotated"):
                inner = arg.annotation.slice
                extras = inner.elts[1:] if isinstance(inner, ast.Tuple) else []
                if any(isinstance(e, ast.Call) and (dotted(e.func) or "").rsplit(".", 1)[-1] in markers for e in extras):
                    injected = True
            if not injected and arg.arg in used:  # a parameter the handler never reads drives no work
                self.out["inputs"].append([arg.arg, refs])

    def _statements(self, body: list[ast.stmt], loop: dict | None, when: list = ()) -> None:
        depth = len(self.when)
        self.when.extend(when)
        for stmt in body:
            self._statement(stmt, loop)
            self.when.extend(flags.after(stmt, self.free) if type(stmt) is ast.If else ())  # `if not p: return`
        del self.when[depth:]

    def _statement(self, stmt: ast.stmt, loop: dict | None) -> None:
        kind = type(stmt)  # parsed nodes are of the leaf classes: exact type tests
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            return  # its own facts; a nested def runs when called, not here
        if kind is ast.For or kind is ast.AsyncFor:
            self._exprs(stmt.iter, loop)
            inner = self._loop(stmt.iter, stmt.lineno)
            if _failover(stmt.body):
                inner["bounded"] = True  # it stops at the first item that works
            if isinstance(stmt.target, ast.Name):
                self.loop_vars[stmt.target.id] = {"item": inner["src"]} if inner["src"] else {"item": None}
            self._statements(stmt.body, inner)
            self._statements(stmt.orelse, loop)
            return
        if kind is ast.While:
            self._exprs(stmt.test, loop)
            # paced: a pause among the body's own statements (or its try's finally) makes it one pass per period
            # a retry loop that returns or breaks once its try succeeds runs its work once, not per pass
            self._statements(stmt.body, {"src": None, "text": "while", "bounded": _failover(stmt.body),
                                         "line": stmt.lineno, "paced": _paced(stmt.body)})
            self._statements(stmt.orelse, loop)
            return
        if kind is ast.With or kind is ast.AsyncWith:
            for item in stmt.items:
                self._with_item(item.context_expr, kind is ast.AsyncWith)
                self._exprs(item.context_expr, loop)
            self._statements(stmt.body, loop)
            return
        if kind is ast.If:
            keys = [self._unalias(k) for k in _rejected_keys(stmt.test)]
            if keys and _terminates(stmt.body):
                self.out["len_checked"].extend(k for k in keys if k.split(".", 1)[0] in self.params)
            measured = self._size_rejected(stmt.test)
            if measured and _terminates(stmt.body):
                self.out["size_checked"].append(measured)
            measured = self._size_rejected(stmt.test, key=True)
            if measured and "." in measured and _terminates(stmt.body):
                self.out["size_checked"].append(measured)  # len(json.dumps(body.meta)) > N: the field's size
            self._exprs(stmt.test, loop)
            then, other = flags.conditions(stmt.test, self.free)
            self._statements(stmt.body, loop, then)
            self._statements(stmt.orelse, loop, other)
            return
        if kind is ast.Assert:
            for key in _rejected_keys(stmt.test, asserted=True):
                if key.split(".", 1)[0] in self.params:
                    self.out["len_checked"].append(key)
        if kind is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
            name = stmt.targets[0].id
            measured = self._measured(stmt.value)
            if measured:
                self.sizes[name] = measured
            measured = self._measured(stmt.value, key=True)
            if measured:
                self.size_keys[name] = measured
            held = dotted(stmt.value)
            if held is not None and held.split(".", 1)[0] in self.params and name not in self.params:
                self.aliases[name] = held
            else:
                self.aliases.pop(name, None)
            found = self.prov(stmt.value)
            if found is not None and name not in self.params:
                self.binds[name] = found
            elif isinstance(stmt.value, (ast.List, ast.Set, ast.Dict)) and not (
                    stmt.value.keys if isinstance(stmt.value, ast.Dict) else stmt.value.elts):
                self.binds.pop(name, None)
        if (kind is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Subscript
                and isinstance(stmt.targets[0].value, ast.Name) and loop is not None and loop.get("src")
                and isinstance(stmt.value, ast.Call)):
            # coros = {}; for x in xs: coros[x] = fetch(x) -- one new call per item of xs
            made = self.ref(stmt.value.func) or dotted(stmt.value.func) or "?"
            self.binds[stmt.targets[0].value.id] = {"each": loop["src"], "call": made, "line": stmt.value.lineno}
        if (kind is ast.Expr and type(stmt.value) is ast.Call
                and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("append", "add")
                and isinstance(stmt.value.func.value, ast.Name) and loop is not None and loop.get("src")
                and stmt.value.args and isinstance(stmt.value.args[0], ast.Call)):
            # coros = []; for x in xs: coros.append(fetch(x)) -- one new call per item of xs
            elt = stmt.value.args[0]
            self.binds[stmt.value.func.value.id] = {"each": loop["src"], "call": self.ref(elt.func) or dotted(elt.func) or "?",
                                                     "line": elt.lineno}
        if kind is ast.Assign:
            local_binds.state_set(self, stmt)  # `request.app.state.X = body.x`: shared state from input
        for field in _FIELDS.get(kind) or child_fields(kind):  # as ast.iter_child_nodes, without its generators
            value = getattr(stmt, field, None)
            for child in value if type(value) is list else (value,):
                if isinstance(child, ast.stmt):
                    self._statement(child, loop)
                elif isinstance(child, ast.excepthandler):
                    self._statements(child.body, loop)
                elif type(child) is not ast.Name and type(child) is not ast.Constant and isinstance(child, ast.expr):
                    self._exprs(child, loop)  # a name or a constant holds no call

    def _measured(self, expr: ast.AST, key: bool = False) -> str | None:
        """The parameter whose size ``len(...)`` of *expr* measures (``len(json.dumps(params).encode())``), else None;
        with *key*, the parameter key it measures, through a local alias (``len(json.dumps(body.meta))``: ``body.meta``)."""
        if not (isinstance(expr, ast.Call) and dotted(expr.func) == "len" and len(expr.args) == 1):
            return None
        if key:
            return measured_key(expr.args[0], self.params, self._unalias)
        roots = {n.id for n in ast.walk(expr.args[0]) if isinstance(n, ast.Name) and n.id in self.params}
        roots.discard("self")
        return roots.pop() if len(roots) == 1 else None

    def _unalias(self, key: str) -> str:
        """*key* in the parameter's terms when its root is a local alias (``users`` -> ``body.users``)."""
        root, dot, rest = key.partition(".")
        held = self.aliases.get(root)
        return held + dot + rest if held is not None else key

    def _size_rejected(self, test: ast.AST, key: bool = False) -> str | None:
        """The parameter a raising test rejects when its size is too large (``if size > max_size:``);
        with *key*, the parameter key (``body.meta``)."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            return next((p for p in (self._size_rejected(v, key) for v in test.values) if p), None)
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, op, right = test.left, test.ops[0], test.comparators[0]
        larger = left if isinstance(op, (ast.Gt, ast.GtE)) else right if isinstance(op, (ast.Lt, ast.LtE)) else None
        if isinstance(larger, ast.Name):
            return (self.size_keys if key else self.sizes).get(larger.id)
        return self._measured(larger, key) if larger is not None else None

    def _loop(self, iterable: ast.AST, line: int) -> dict:
        src = self.prov(iterable) or returned_by(iterable, self._callee)  # a param, data, or a function's result
        bounded = isinstance(iterable, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)) or (
            isinstance(iterable, ast.Call) and dotted(iterable.func) == "range" and all(_is_const(a) for a in iterable.args))
        name = dotted(iterable)
        if name is not None and _is_const(iterable):
            bounded = True
        text = dotted(iterable) or _short_text(iterable)
        return {"src": src, "text": text[:60], "bounded": bounded, "line": line}

    def _with_item(self, expr: ast.AST, is_async: bool = False) -> None:
        if isinstance(expr, ast.Call):
            made = self.ref(expr.func)
            short = (made or dotted(expr.func) or "").rsplit(".", 1)[-1]
            if made in tables.table("limiters") or short in tables.table("limiter-class-names"):
                return  # a limiter built per call is shared with nobody: it bounds nothing
            if made is not None:
                self.out["with_calls"].append(made)
            return
        name = dotted(expr)
        if name is None:
            return
        if self._limiter_name(name):
            self.out["limiter"] = self.out["limiter"] or name
        elif (made := self.instances.get(name)) is not None and made.split(".", 1)[0] not in STDLIB:
            # `async with OPEN_FILES:` on an instance of a class: its own `__aenter__` runs (the link step says whose)
            self.out["with_calls"].append(f"{made}.{'__aenter__' if is_async else '__enter__'}")
        elif (imported := self.ref(expr)) is not None and imported.split(".", 1)[0] not in STDLIB:
            self.out["with_calls"].append(imported)  # an instance another module builds: the query asks its class

    def _limiter_name(self, name: str) -> bool:
        made = self.instances.get(name)
        if made is not None:
            return made in tables.table("limiters") or made.rsplit(".", 1)[-1] in tables.table("limiter-class-names")
        return bool(LIMITER_WORDS.search(name.rsplit(".", 1)[-1]))

    def _exprs(self, expr: ast.AST, loop: dict | None) -> None:
        stack = [expr]
        fields, leaves, AST = _FIELDS, _LEAVES, ast.AST
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ast.Lambda:
                continue
            if kind in _COMPREHENSIONS:
                gen = node.generators[0]
                stack.append(gen.iter)
                inner = self._loop(gen.iter, node.lineno)
                if id(node) in self._gathered:
                    inner["via"] = self._gathered[id(node)]  # gather(*(fetch(u) for u in urls)): concurrent
                if isinstance(gen.target, ast.Name):
                    self.loop_vars[gen.target.id] = {"item": inner["src"]}
                for part in ([node.key, node.value] if kind is ast.DictComp else [node.elt]):
                    self._exprs(part, inner)
                for extra in node.generators[1:]:
                    self._exprs(extra.iter, inner)
                continue
            if kind is ast.Call:
                self._call(node, loop)
            elif kind is ast.Await and type(node.value) is ast.Call:
                self.awaited.add(id(node.value))
            found = fields.get(kind)
            for name in found if found is not None else child_fields(kind):  # children, skipping leaves
                value = getattr(node, name, None)
                if type(value) is list:
                    stack.extend([v for v in value if isinstance(v, AST) and type(v) not in leaves])
                elif isinstance(value, AST) and type(value) not in leaves:
                    stack.append(value)

    def _call(self, call: ast.Call, loop: dict | None) -> None:
        func = call.func
        name = dotted(func) or ""
        short = name.rsplit(".", 1)[-1]
        made = self.ref(func) or own_method(func, self.module, self.owner, self.bases) or self.elements.method(func)
        if (made in self._sleeps or short in ("sleep", "backoff", "_backoff", "wait_backoff")) and not _short_sleep(call):
            self.out["pauses"] = True
        if isinstance(func, ast.Attribute) and func.attr in self._serialisers and isinstance(func.value, ast.Call):
            made_here = self.ref(func.value.func)  # Payload(...).model_dump(): the module builds and sends it
            if made_here is not None and made_here not in self.out["built"]:
                self.out["built"].append(made_here)
        built = built_here(call, made, self.ref) if not self._test_code else None
        if built is not None and self._handed is None:
            self._handed = handed_calls(self.body.calls)
        if built is not None and id(call) not in self._handed:
            self.out["filled"].append(built)  # Payload(texts=...), Payload.model_validate({...}): the project fills it
        if short in SLOT_GRABS and isinstance(func, ast.Attribute):
            receiver = dotted(func.value)
            if receiver and self._limiter_name(receiver):
                self.out["limiter"] = self.out["limiter"] or receiver
        if made is not None and made in self._constructors and not _shares_pool(call):
            self.out["clients"].append([made, call.lineno, call.col_offset + 1])
        if name == "range" and _is_const_batch(call, self):  # only range(...) can be one
            self.out["batches"] = self.out["batches"] or "fixed-size batches"
        record_dependency(self.out, call, made, name, id(call) in self.awaited, id(call) in self._absorbed, self.when)
        if self.out["async"]:  # record_pool reads coroutines only
            record_pool(self.out, call, made, name, id(call) in self.awaited)
        if made in _TO_THREAD or short in _WORKER_METHODS:  # what _worker_pass reads, else it returns at once
            self._worker_pass(call, short, made, loop)
        if short in _GATHERS:
            for arg in call.args:
                value = arg.value if isinstance(arg, ast.Starred) else arg
                if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
                    self._gathered[id(value)] = f"{name or short}(...)"
        if made is None or made.split(".", 1)[0] in STDLIB:
            return
        record = {"ref": made, "line": call.lineno, "col": call.col_offset + 1,
                  "args": [local_binds.local(self, a, self.prov(a)) for a in call.args],
                  "kwargs": {kw.arg: local_binds.local(self, kw.value, self.prov(kw.value)) for kw in call.keywords if kw.arg},
                  "loop": None if loop is None else {k: loop[k] for k in _LOOP_KEYS if k in loop},
                  **({"awaited": True} if id(call) in self.awaited else {}),
                  **({"absorbed": True} if id(call) in self._absorbed else {}),
                  **({"when": list(self.when)} if self.when else {}), **flags.call_facts(call)}
        self.out["calls"].append(record)

    def _worker_pass(self, call: ast.Call, short: str, made: str | None, loop: dict | None) -> None:
        """Record a project function handed to a pool or thread per item (``pool.map(fetch, urls)``,
        ``executor.submit(fetch, u)`` in a loop) as a call of it, with ``via`` naming the fan-out."""
        if made in _TO_THREAD:
            position = 0
        elif isinstance(call.func, ast.Attribute) and short in _WORKER_METHODS:
            position = 1 if short == "run_in_executor" else 0
        else:
            return
        args = [a for a in call.args if not isinstance(a, ast.Starred)]
        if len(args) <= position:
            return
        target = args[position]
        if isinstance(target, ast.Call) and (dotted(target.func) or "").rsplit(".", 1)[-1] == "partial" and target.args:
            target = target.args[0]  # partial(fetch, session)
        worker = self.ref(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
        if worker is None or worker.split(".", 1)[0] in STDLIB:
            return
        if short in _MAP_METHODS:
            if len(args) <= position + 1:
                return
            items = args[position + 1]
            runs = self._loop(items, call.lineno)
            item_args = [{"item": runs["src"]} if runs["src"] else None]
        elif loop is not None:
            runs = loop  # one submit per pass of the enclosing loop
            item_args = [self.prov(a) for a in args[position + 1:]]
        else:
            return  # handed over once: one run, not one per item
        runs = {**{k: runs[k] for k in _LOOP_KEYS if k in runs}, "via": f"{dotted(call.func) or short}(...)"}
        self.out["calls"].append({"ref": worker, "line": call.lineno, "col": call.col_offset + 1, "args": item_args,
                                  "kwargs": {}, "loop": runs})


# what a call record keeps of its loop; ``via`` names the fan-out that runs the call concurrently
_LOOP_KEYS = ("src", "text", "bounded", "line", "paced", "via")
_GATHERS = frozenset({"gather", "wait", "as_completed"})
_MAP_METHODS = frozenset({"map", "imap", "imap_unordered", "starmap", "map_async", "starmap_async"})
_WORKER_METHODS = _MAP_METHODS | {"submit", "run_in_executor", "apply_async"}
_TO_THREAD = frozenset({"asyncio.to_thread", "anyio.to_thread.run_sync", "trio.to_thread.run_sync"})


