"""Small readings of ``ast`` shapes for the project index's function reader: pauses, failover loops,
shared pools, fixed-size batches, and the dependency a call reaches."""
from __future__ import annotations

import ast
import functools

from boundlint import tables
from boundlint.kinds import calls


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    kind = type(node)
    if kind is _Name:  # the most common case, asked for every call and loop the index reads
        return node.id
    if kind is not _Attribute:
        return None
    parts: list[str] = []
    while type(node) is _Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is _Name:
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


_Name, _Attribute = ast.Name, ast.Attribute


def _is_const(expr: ast.AST | None) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return True
    name = dotted(expr) if expr is not None else None
    if name is not None:
        last = name.rsplit(".", 1)[-1].strip("_")
        return bool(last) and last.upper() == last and any(c.isalpha() for c in last)
    if isinstance(expr, ast.BinOp):
        return _is_const(expr.left) and _is_const(expr.right)
    return False


def own_method(func: ast.AST, module: str, owner: str | None, bases: tuple[str, ...]) -> str | None:
    """The ref of a method a class calls on itself: ``self.m`` / ``cls.m`` -> ``module.Owner.m``,
    ``super().m`` -> ``Base.m`` of its first base (``queries.dependency`` follows inheritance from
    there); None for any other call, or outside a class."""
    if owner is None or not isinstance(func, ast.Attribute):
        return None
    if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return f"{module}.{owner}.{func.attr}"
    if isinstance(func.value, ast.Call) and dotted(func.value.func) == "super" and bases:
        return f"{bases[0]}.{func.attr}"
    return None


def record_dependency(out: dict, call: ast.Call, made: str | None, name: str, awaited: bool = False,
                      absorbed: bool = False, when: list | None = None) -> None:
    """Record in a function's facts *out* the first dependency call (``dep``: ``[text, line]``) and
    whether any call is of unknown effect (``opaque``); *made* is the callee's ref, *name* its text,
    *awaited* whether the call is awaited (an awaited call out of sight waits on I/O).  ``dep_out`` and
    ``opaque_out`` say the same of the calls whose failure reaches the caller: not *absorbed* by a
    ``try`` that catches everything and does not raise (``absorbs``).  A call under the parameter
    conditions *when* (copied: the caller's list goes on changing) is also listed in ``guarded``, and left out
    of the ``*_open`` views (``index.flags``)."""
    views = (("dep", "opaque"),) if absorbed else (("dep", "opaque"), ("dep_out", "opaque_out"))
    if not when:
        views += (("dep_open", "opaque_open"),) if absorbed else (("dep_open", "opaque_open"),
                                                                 ("dep_open_out", "opaque_open_out"))
    views = tuple(v for v in views if out.get(v[0]) is None)
    if not views and (not when or out.get("dep_open_out") is not None):
        return  # the first dependency call decides; ``opaque`` no longer matters (queries.dependency)
    func = call.func
    receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
    method = func.attr if isinstance(func, ast.Attribute) else None
    kind = _kind(made, receiver, method)
    if kind == calls.UNKNOWN and made is None and _named_kind(receiver, method, name) == calls.DEPENDENCY:
        kind = calls.DEPENDENCY  # out of sight, named for what it does (`fetch_user()`)
    if kind == calls.UNKNOWN and made is None and awaited:
        kind = calls.DEPENDENCY  # awaited and out of sight: a coroutine that waits on I/O
    opaque_call = kind == calls.UNKNOWN and made is None and not (isinstance(func, ast.Name) and calls.builtin_name(func.id))
    for dep, opaque in views:
        if kind == calls.DEPENDENCY:
            out[dep] = [f"`{name or method}()`", call.lineno]
        elif opaque_call:
            out[opaque] = True
    if when and (kind == calls.DEPENDENCY or opaque_call):
        out.setdefault("guarded", []).append(["dep" if kind == calls.DEPENDENCY else "opaque",
                                              f"`{name or method}()`", call.lineno, absorbed, list(when)])


# What ``calls`` says of a callee, by its names alone: modules repeat them (``self.client.get``,
# ``logger.info`` ...), and the index asks with the default tables (no settings), which never change in a
# process.  Bounded: emptied when full.
_KINDS: dict[tuple, str] = {}
_NAMED: dict[tuple, str] = {}
_KINDS_MAX = 50_000


def _kind(made: str | None, receiver: str | None, method: str | None) -> str:
    """``calls.classify_call(made, receiver, method, verbs=False)``, remembered."""
    return _remembered(_KINDS, (made, receiver, method), calls.classify_call, made, receiver, method, verbs=False)


def _named_kind(receiver: str | None, method: str | None, name: str) -> str:
    """``calls.classify(None, receiver, method, name=name)``, remembered."""
    return _remembered(_NAMED, (receiver, method, name), calls.classify, None, receiver, method, name=name)


def _remembered(memo: dict, key: tuple, compute, *args, **kwargs) -> str:
    """``compute(*args, **kwargs)``, kept in *memo* under *key* (emptied when it reaches ``_KINDS_MAX``)."""
    found = memo.get(key)
    if found is None:
        if len(memo) >= _KINDS_MAX:
            memo.clear()
        found = memo[key] = compute(*args, **kwargs)
    return found


def _broad(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(dotted(k) in ("Exception", "BaseException") for k in kinds if k is not None)


def _inside(nodes: list, skip_try: bool = False):
    """Every node under *nodes*, not entering nested functions, classes or lambdas (nor, with
    *skip_try*, the body of a ``try`` that ``absorbs``)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        if skip_try and isinstance(node, ast.Try) and absorbs(node):
            stack.extend(node.handlers + node.orelse + node.finalbody)
            continue
        stack.extend(ast.iter_child_nodes(node))


def absorbs(stmt: ast.Try) -> bool:
    """A ``try`` that catches every exception (a bare ``except``, ``except Exception`` / ``BaseException``)
    and whose handlers never raise: a failure in its body stops there, the caller never sees it."""
    return (any(_broad(h) for h in stmt.handlers)
            and not any(isinstance(n, ast.Raise) for h in stmt.handlers for n in _inside(h.body)))


def handed_calls(calls: list[ast.Call]) -> set[int]:
    """Ids of the calls handed straight to a function among *calls* (``hook(data=Request(keys=k))``,
    every call under a function's body: ``body.Body.calls``): an API called in-process."""
    return {id(a) for n in calls if not (dotted(n.func) or "f").rsplit(".", 1)[-1][:1].isupper()
            for a in (*n.args, *(k.value for k in n.keywords))}


HANDOFFS = frozenset({"asyncio.to_thread", "anyio.to_thread.run_sync", "trio.to_thread.run_sync"})
# calls that start, or wait on, other awaitables: work that is not the coroutine's own awaits
_STARTS = frozenset({"gather", "wait", "as_completed", "wait_for", "shield", "create_task", "ensure_future",
                     "start_soon", "run_coroutine_threadsafe", "submit", "map"})


def pool_facts(func: ast.FunctionDef | ast.AsyncFunctionDef, awaits_other: bool) -> dict:
    """``async``, ``pool`` (filled by ``record_pool``) and ``pool_other``: a coroutine awaits something
    no call record shows (``await task``, ``async with`` / ``async for``: *awaits_other*, see
    ``body.Body``), so its awaited work is not all handed to a thread pool."""
    is_async = isinstance(func, ast.AsyncFunctionDef)
    return {"async": is_async, "pool": None, "pool_other": is_async and awaits_other}


def record_pool(out: dict, call: ast.Call, made: str | None, name: str, awaited: bool) -> None:
    """Record in a coroutine's facts *out* the first call that hands work to a thread pool of fixed
    size (``pool``: ``[text, line]``; ``asyncio.to_thread(f)``, ``loop.run_in_executor(None, f)``), or
    ``pool_other`` for an awaited call of another kind that is not the project's (whose calls the
    ``pooled`` query reads) nor local, and for a call that starts or waits on other awaitables."""
    if not out["async"]:
        return
    short = name.rsplit(".", 1)[-1]
    if made in HANDOFFS or (isinstance(call.func, ast.Attribute) and call.func.attr == "run_in_executor"):
        out["pool"] = out["pool"] or [f"`{name or short}()`", call.lineno]
        return
    if short in _STARTS:
        out["pool_other"] = True
        return
    func = call.func
    receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
    kind = _kind(made, receiver, func.attr if isinstance(func, ast.Attribute) else None)
    project = made is not None and made.split(".", 1)[0] not in calls.STDLIB
    if kind == calls.DEPENDENCY or (awaited and not project and kind != calls.LOCAL):
        out["pool_other"] = True


def _paced(body: list[ast.stmt]) -> bool:
    """A sleep of at least 0.1 s among a loop body's own statements or in a ``try``'s ``finally`` there."""
    for stmt in body:
        blocks = [[stmt]]
        if isinstance(stmt, ast.Try):
            blocks = [stmt.finalbody]
        for block in blocks:
            for inner in block:
                value = inner.value if isinstance(inner, ast.Expr) else None
                value = value.value if isinstance(value, ast.Await) else value
                if isinstance(value, ast.Call) and _sleep_name(value) and not _short_sleep(value):
                    return True
    return False


def _sleep_name(call: ast.Call) -> bool:
    """``time.sleep(5)``, ``await asyncio.sleep(5)``, ``stop.wait(60)`` (an event's timed wait; not ``asyncio.wait``)."""
    name = dotted(call.func) or ""
    last = name.rsplit(".", 1)[-1]
    if last == "wait":
        return bool(call.args or call.keywords) and not name.startswith("asyncio.")
    return last == "sleep" or name in tables.table("sleeps")


def _short_text(expr: ast.AST) -> str:
    """Source-like text of a loop's iterable for evidence (``ast.unparse`` only for small expressions)."""
    if isinstance(expr, ast.Call):
        name = dotted(expr.func)
        if name is not None:
            return f"{name}(...)"
    return ast.unparse(expr) if len(list(ast.walk(expr))) < 12 else "..."


def _failover(body: list[ast.stmt]) -> bool:
    """A loop body whose ``try`` returns or breaks on success: a failover walk, not per-item work."""
    return any(isinstance(stmt, ast.Try) and any(isinstance(x, (ast.Return, ast.Break)) for x in stmt.body)
               for stmt in body)


def _short_sleep(call: ast.Call) -> bool:
    arg = call.args[0] if call.args else None
    return isinstance(arg, ast.Constant) and isinstance(arg.value, (int, float)) and arg.value < 0.1


def _shares_pool(call: ast.Call) -> bool:
    return any(kw.arg in tables.table("shared-pool-keywords") for kw in call.keywords)


def _is_const_batch(call: ast.Call, reader) -> bool:
    """``range(0, len(xs), SIZE)`` with a constant step, or a step parameter with a constant default."""
    if dotted(call.func) != "range" or len(call.args) != 3:
        return False
    step = call.args[2]
    if _is_const(step):
        return True
    return isinstance(step, ast.Name) and _is_const(reader.defaults.get(step.id))


def present(test: ast.AST, key: str) -> bool:
    """``key is not None`` or a bare ``key``: a guard that only skips an absent value."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot):
        return dotted(test.left) == key and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    return dotted(test) == key


_VALIDATORS = frozenset({"model_validate", "parse_obj", "model_construct", "construct"})


def built_here(call: ast.Call, made: str | None, ref) -> str | None:
    """The ref of the class *call* fills with data the code writes itself, else None: keyword arguments
    only (``Payload(texts=t, tools=ts)``, ``Payload(**{"texts": t})``) or a dict literal
    (``Payload.model_validate({"texts": t})``).
    A class is told from a function by its capitalised name; *ref* resolves a Name/Attribute chain."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _VALIDATORS and len(call.args) == 1 and not call.keywords:
        owner = ref(func.value)
        if isinstance(call.args[0], ast.Dict) and owner is not None and owner.rsplit(".", 1)[-1][:1].isupper():
            return owner
        return None
    if (made is not None and made.rsplit(".", 1)[-1][:1].isupper() and call.keywords and not call.args
            and all(_written(kw) for kw in call.keywords)):
        return made  # not `Serializer(data=...)` (DRF validates input so) nor `Query(ids=request.args...)`
    return None


def _written(kw: ast.keyword) -> bool:
    """A keyword argument whose value the code writes: ``texts=t``, or ``**{"texts": t, **extra}`` (a dict
    literal naming at least one key); not ``data=`` nor a value read off the request."""
    if kw.arg is not None:
        return kw.arg != "data" and not _reads_request(kw.value)
    spread = kw.value
    return (isinstance(spread, ast.Dict) and any(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in spread.keys)
            and not any(_reads_request(v) for v in spread.values))


def _reads_request(expr: ast.AST) -> bool:
    """The value is read off the request being served (``request.args.getlist("ids")``, ``req.json()["x"]``)."""
    while isinstance(expr, (ast.Call, ast.Attribute, ast.Subscript, ast.Await)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return isinstance(expr, ast.Name) and expr.id.lower() in ("request", "req", "self.request")


@functools.lru_cache(maxsize=4096)  # asked for every function of a module
def test_module(module: str) -> bool:
    """``tests.test_api``, ``app.conftest``: test code builds request models to send them to the app."""
    return any(part in ("test", "tests", "conftest") or part.startswith("test_") for part in module.split("."))


def model_dependency(default: ast.Call) -> bool:
    """``Depends()`` or ``Depends(Model)``: FastAPI fills a class from the query, which the client sends."""
    if default.keywords and not default.args:
        return False
    return not default.args or (isinstance(default.args[0], ast.Name) and default.args[0].id[:1].isupper())


def type_refs(expr: ast.AST, ref) -> list[str]:
    """The refs (*ref* resolves a Name/Attribute chain) a type expression names, string forward references
    that are one identifier included, in order of first mention."""
    out = []
    for node in ast.walk(expr):
        if isinstance(node, (ast.Name, ast.Attribute)):
            r = ref(node)
            if r is not None and r not in out:
                out.append(r)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            r = ref(ast.Name(node.value))
            if r is not None and r not in out:
                out.append(r)
    return out
