"""BND203: what a servicer method iterates over, and whether the work per item is real.

Sees through copies (``sorted(set(x))``), views (``x.items()``), helpers that
return their argument and same-module callees that loop over a parameter;
a loop or comprehension that only checks or copies items is no work.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted

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
    "bus", "onus", "opus", "nexus", "genus", "syllabus", "stimulus", "surplus", "prospectus", "impetus", "locus",
    "modus", "thesaurus", "us",
})
_IRREGULAR_PLURALS = frozenset({"children", "people", "criteria", "indices", "matrices", "vertices", "media", "batch"})
_COLLECTION_SUFFIXES = ("_list", "_set", "_map", "_batch", "_array")


def _args_iterated_by_callee(call: cst.Call, caller: cst.FunctionDef, ctx: Context
                             ) -> list[tuple[cst.BaseExpression, str, bool, tuple[str, ...]]]:
    """``(argument, field path, as a mapping, evidence)`` for each argument of *call* that a
    same-module function or method iterates without checking its length: path ``""`` for the argument
    itself (``self._load(request.uris)``), ``"uris"`` for a field of it (``self._process(request)``
    whose body loops over ``req.uris``).  A project function in another module counts when the index
    shows it loops over the argument with a call per item (``queries.callers.iterates``); the
    evidence then names that loop."""
    target = ctx.resolve_callable(call.func)
    if target is None and ctx.project:
        return _project_iterated(call, ctx)
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
            out.extend((arg.value, path, mapping, ()) for path, mapping in _iterated_paths(target, name, ctx))
    return out


def _project_iterated(call: cst.Call, ctx: Context) -> list[tuple[cst.BaseExpression, str, bool, tuple[str, ...]]]:
    ref = ctx.callee_ref(call)
    if ref is None:
        return []
    out = []
    for index, arg in enumerate(call.args):
        if arg.star:
            continue
        at = arg.keyword.value if arg.keyword is not None else index
        for path, step in ctx.project.ask("iterates", ref, at) or ():
            out.append((arg.value, path, False, (step,)))
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
    return word.endswith("s") and not word.endswith("ss") and word not in _NOT_PLURAL  # skus, gpus: plural
