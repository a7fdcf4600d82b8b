"""One module's summary: what other modules need to know of it, from a fast ``ast`` pass.

``summarize(text, module, is_package)`` returns a JSON-ready dict (it is
cached by content):

- ``imports``: local name -> absolute dotted target (relative imports resolved);
- ``functions``: ``name`` or ``Class.method`` -> facts (see ``_FunctionReader``):
  ``line``, ``params``, ``limiter`` (the limiter its body enters), ``with_calls``
  (refs of calls used as context managers), ``client`` (the client it builds and
  returns), ``clients`` (clients it builds per call, ``[qualname, line, col]``),
  ``len_checked`` (parameter keys it rejects when oversized), ``pauses``,
  ``raises`` (every path raises), ``batches`` (returns fixed-size slices of its
  first parameter), ``calls`` (calls of named functions, with the loop around
  each and where its arguments come from, ``awaited`` / ``absorbed`` when it is
  awaited / inside a ``try`` that catches everything and does not raise),
  ``dep`` / ``opaque`` (its first dependency call, a call of unknown effect) and
  ``dep_out`` / ``opaque_out`` (the same outside such a ``try``), ``async``,
  ``pool`` (its first thread-pool handoff) and ``pool_other`` (it awaits other
  work), ``route``, ``inputs`` and ``guards`` (``index.guards``) for endpoints,
  ``outputs`` (types it sends back), ``binds`` (local name -> per-item provenance);
  flag arguments (``index.flags``): each call's ``when`` / ``consts``, and ``guarded``, ``rebound``, ``static``;
- ``classes``: name -> ``{line, bases, fields}`` (``fields``: refs in its annotated attributes' types);
  ``instances``: module name -> class ref;
- ``aliases``: type aliases (``AnyConfig = Union[A, B]``) -> the refs they name;
- ``request_refs``: refs of capitalised names that functions reading a request mention
  (routes, and functions with a ``request`` parameter): the models they may validate the body into;
- ``built``: refs of classes the module constructs and serialises at once (outbound payloads).
- ``filled``: refs of classes the module fills from keywords or a dict literal it writes (not in test code).
- ``hooks`` / ``passed``: refs of functions it registers as start-up, shutdown or lifespan hooks, and of those
  it hands over as a value elsewhere; each function's ``role`` (see ``hooks``);
  each function's ``once_spans``, ``memoized`` and ``closure_calls`` (see ``closures``);
  ``forever`` for a function that runs until cancelled (see ``service``).

Raises SyntaxError / ValueError / RecursionError for source ``ast`` rejects.
"""
from __future__ import annotations

import ast
import builtins

from boundlint.kinds.roles import ONCE
from boundlint.index import attr_calls, closures, effects, elements, guards, hooks, migrations, service, wrapped
from boundlint import tables
from boundlint.index.project import resolve_import_from
from boundlint.index.reader import FunctionReader, dotted


def empty() -> dict:
    """The summary of a module that defines nothing (one ``ast`` cannot read, or no module at all)."""
    return {"imports": {}, "functions": {}, "classes": {}, "instances": {}, "built": [], "filled": [], "constants": {},
            "lines": {}, "request_refs": [], "hooks": [], "passed": [], "aliases": {}}


def _stub(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A method a subclass fills in: ``@abstractmethod``, or only a docstring, ``pass``, ``...`` or
    ``raise NotImplementedError``."""
    if any((dotted(d) or "").rsplit(".", 1)[-1] == "abstractmethod" for d in func.decorator_list):
        return True
    for stmt in func.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and "NotImplementedError" in (
                dotted(stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc) or ""):
            continue
        return False
    return True


def summarize(text: str, module: str, is_package: bool) -> dict:
    """The summary of one module's source *text* (module name *module*, a package's ``__init__`` or not)."""
    tree = ast.parse(text)
    imports: dict[str, str] = {}
    for node in _import_statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    imports[root] = root
        else:
            base = resolve_import_from(module, is_package, node.level, node.module)
            if base is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    imports.setdefault("*", [])  # type: ignore[arg-type]
                    imports["*"].append(base)  # type: ignore[union-attr]
                    continue
                imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    out = {**empty(), "imports": imports}
    local = _local_names(tree)

    resolved: dict[str, str | None] = {}  # dotted text -> its ref: modules repeat the same names

    def ref(expr: ast.AST) -> str | None:
        name = dotted(expr)
        if name is None:
            return None
        found = resolved.get(name, resolved)
        if found is resolved:
            found = resolved[name] = _resolve(name)
        return found

    def _resolve(name: str) -> str | None:
        root, _, rest = name.partition(".")
        if root in local:
            return f"{module}.{name}"
        target = imports.get(root)
        if target is None and "*" in imports and not hasattr(builtins, root):
            return f"{module}.{name}"  # perhaps from `from pkg.types import *`: the index follows it
        if target is None or not isinstance(target, str):
            return None
        return f"{target}.{rest}" if rest else target

    body = _flat(tree.body)
    for stmt in body:  # module-level instances first: functions ask what `_slots` or `settings` is
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            value = stmt.value
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if not isinstance(target, ast.Name):
                    continue
                if isinstance(value, ast.Call):
                    made = ref(value.func)
                    if made is not None:
                        out["instances"][target.id] = made
                        out["lines"][target.id] = stmt.lineno
                elif isinstance(value, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                    out["constants"][target.id] = "literal"
                elif isinstance(value, (ast.Subscript, ast.BinOp)) and target.id[:1].isupper():
                    out["aliases"][target.id] = sorted(_annotation_refs(value, ref))  # Any = Union[A, B]
    instances = out["instances"]
    request_refs: set[str] = set()
    walked = {}  # id of each function read -> the walk of its body, for hooks.links
    hook_names = hooks.hook_names()
    sleeps = tables.table("sleeps")
    statements: dict = {}  # each block's own statements, read once for every reader (closures.own_statements)
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reader = FunctionReader(stmt, ref, module, None, local, instances)
            out["functions"][stmt.name] = facts = reader.facts()
            walked[id(stmt)] = reader.body
            request_refs |= _request_refs(stmt, facts, ref, reader.body)
            out["functions"][stmt.name]["role"] = hooks.role(stmt, None)
            effects.record(facts, stmt, reader.body, ref, sleeps)
            facts["guards"] = guards.guards(stmt) if facts.get("route") else []
            _once_facts(facts, stmt, None, ref, module, None, local, instances, hook_names, reader.body, statements)
            wrapped.record(facts, stmt, ref, instances, False, reader.body)
            service.record(facts, stmt, None, reader.body)  # `forever`: a loop that runs until cancelled
        elif isinstance(stmt, ast.ClassDef):
            bases = [r for r in map(_base_ref(ref), stmt.bases) if r]
            fields = sorted({r for inner in stmt.body if isinstance(inner, ast.AnnAssign)
                             for r in _annotation_refs(inner.annotation, ref)}
                            | {r for b in stmt.bases if isinstance(b, ast.Subscript)  # RootModel[list[Item]]
                               for r in _annotation_refs(b.slice, ref)})
            out["classes"][stmt.name] = {"line": stmt.lineno, "bases": bases, "fields": fields}
            types = attr_calls.attr_types(stmt, ref, statements)  # self._manager = Manager(...): for the once judgement
            # what `self._slots` holds, for the methods' readers (`await self._slots.acquire()` takes a slot)
            held = {**instances, **{f"self.{attr}": made for attr, made in types.items()}}
            annotated = elements.attr_annotations(stmt, statements)  # self._groups: dict[str, Group]: the receivers' classes
            read_of_class: dict = {}  # what service.forever reads of the class, once for all its methods
            for inner in _flat(stmt.body):
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    reader = FunctionReader(inner, ref, module, stmt.name, local, held, tuple(bases), annotated)
                    facts = reader.facts()
                    walked[id(inner)] = reader.body
                    facts["role"] = hooks.role(inner, bases)
                    effects.record(facts, inner, reader.body, ref, sleeps)
                    facts["guards"] = guards.guards(inner) if facts.get("route") else []
                    _once_facts(facts, inner, bases, ref, module, stmt.name, local, instances, hook_names, reader.body, statements)
                    wrapped.record(facts, inner, ref, instances, True, reader.body)
                    service.record(facts, inner, stmt, reader.body, read_of_class)
                    facts["attr_calls"] = attr_calls.attr_calls(inner, types, reader.body.calls)
                    if _stub(inner):
                        facts["stub"] = True
                    out["functions"][f"{stmt.name}.{inner.name}"] = facts
                    request_refs |= _request_refs(inner, facts, ref, reader.body)
    out["request_refs"] = sorted(request_refs)
    built = {r for facts in out["functions"].values() for r in facts.pop("built")}
    out["built"] = sorted(built)
    out["filled"] = sorted({r for facts in out["functions"].values() for r in facts.pop("filled")})
    out["hooks"], passed = hooks.links(tree, ref, module, walked)
    # of this module's own names, only functions and methods matter: constants and instances are no callees
    own = {r for r in passed if r.startswith(module + ".") and r[len(module) + 1:] not in out["functions"]}
    out["passed"] = [r for r in passed if r not in own]
    return out


def _once_facts(facts: dict, func, bases, ref, module: str, owner, local, instances, hook_names, walked,
                memo: dict) -> None:
    """Add what *func*'s own body shows of code that runs once (``index.closures``): ``once_spans``,
    ``memoized`` (then its role is ``once``) and ``closure_calls`` (*hook_names*: ``hooks.hook_names()``;
    *walked*: the ``body.walk`` of *func*; *memo*: the module's ``closures.own_statements``)."""
    statements = closures.own_statements(func.body, memo)  # one statement walk for both kinds of spans
    facts["once_spans"] = closures.once_spans(func, statements) + migrations.migration_spans(func, statements)
    facts["memoized"] = closures.memoized(func, bases)
    if facts["memoized"] and facts["role"] is None:
        facts["role"] = ONCE
    if not walked.defines:  # no nested function to run
        facts["closure_calls"] = []
        return

    def read(inner) -> list[dict]:
        return FunctionReader(inner, ref, module, owner, local, instances, tuple(bases or ())).facts()["calls"]

    facts["closure_calls"] = closures.closure_calls(func, read, lambda f: hooks.role(f, None), hook_names)


def _annotation_refs(expr: ast.AST, ref) -> set[str]:
    """Refs of the names in a type annotation, string forward references included."""
    out = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError):  # a string that is no type: `Literal["a b"]`
                continue
            out |= _annotation_refs(node, ref)
        elif isinstance(node, (ast.Name, ast.Attribute)):
            r = ref(node)
            if r is not None:
                out.add(r)
    return out


_REQUEST_PARAMS = frozenset({"request", "req"})


def _request_refs(func: ast.FunctionDef | ast.AsyncFunctionDef, facts: dict, ref, walked) -> set[str]:
    """Capitalised names that a route, or a function reading a ``request`` (a parameter, or Flask's global),
    mentions: the models it may read the body into (*walked*: the ``body.walk`` of *func*)."""
    args = func.args
    reads = facts.get("route") is not None or any(
        a.arg in _REQUEST_PARAMS for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
    capitalised, stored, loaded = [], set(), False
    if not reads and not any(node.id in _REQUEST_PARAMS for node, _parent in walked.names):
        return set()  # no request read, and no name `request`: nothing below can find one
    for node, _parent in walked.names:
        if node.id in _REQUEST_PARAMS:
            if isinstance(node.ctx, ast.Store):
                stored.add(node.id)
            else:
                loaded = True
        elif node.id[:1].isupper():
            capitalised.append(node)
    if not (reads or (loaded and not stored)):  # a local named `request` is no request
        return set()
    return {r for r in map(ref, capitalised) if r is not None}


def _import_statements(body: list[ast.stmt]):
    """Every ``import`` / ``from ... import`` statement, also inside functions, classes and blocks
    (a statement walk: expressions hold no imports)."""
    stack = list(reversed(body))
    blocks = _BLOCKS
    while stack:
        stmt = stack.pop()
        kind = type(stmt)
        if kind is ast.Import or kind is ast.ImportFrom:
            yield stmt
            continue
        found = blocks.get(kind)
        if found is None:
            found = blocks[kind] = tuple(f for f in ("body", "orelse", "finalbody", "handlers", "cases")
                                         if f in kind._fields)
        for name in found:
            stack.extend(reversed(getattr(stmt, name)))


_BLOCKS: dict[type, tuple[str, ...]] = {}  # statement type -> its fields that hold statements, in walk order


def _base_ref(ref):
    def base(expr: ast.AST) -> str | None:
        if isinstance(expr, ast.Subscript):  # Generic[T], RootModel[list[int]]
            expr = expr.value
        return ref(expr) or dotted(expr)
    return base


def _local_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for stmt in _flat(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
    return names


def _flat(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements of a block, looking through ``if`` / ``try`` / ``with`` (not into functions)."""
    out: list[ast.stmt] = []
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.AsyncWith)) or type(stmt).__name__ == "TryStar":
            blocks = [stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
            for block in reversed(blocks):
                stack.extend(reversed(block))
        else:
            out.append(stmt)
    return out
