"""Bounded sources and counts: constants, sizes from input, iterables of bounded size, length checks."""
from __future__ import annotations

import re
from typing import Iterator

import libcst as cst

from boundlint import tables
from boundlint.analysis.context import Context, Fill, Loop, empty_collection, fills_since_empty
from boundlint.analysis.enums import is_enum_class
from boundlint.analysis.limits.callers import callers_size_chain
from boundlint.analysis.names import dotted
from boundlint.analysis.walk import (
    children, helper_guards, len_argument_key, length_bound, length_guards, predicate_guards, terminates,
)
from boundlint.verdicts import (
    BATCHES, CALLER_ARGS, COMMAND_LINE, CONFIGURED, CONSTANT, CONSTANT_RANGE, ENUM, FIELDS, FIXED_BY_CODE, GUARD,
    LITERAL, SLICE, WORKER_COUNT, Limit, kind_of,
)

# The default limiter tables (``boundlint tables limiters``); judgement reads ``tables.table(..., settings)``.
LIMITER_TYPES = frozenset(tables.TABLES["limiters"].entries)
LIMITER_CLASS_NAMES = frozenset(tables.TABLES["limiter-class-names"].entries)
# Names a configured worker count goes by; range(self.concurrency) starts a fixed pool of workers.
_WORKER_WORDS = re.compile(r"worker|concurren|parallel|pool_size|num_threads|n_jobs|cpu_count|max_|_max\b|limit", re.I)
_PASS_THROUGH = frozenset({"enumerate", "sorted", "reversed", "list", "tuple", "set", "frozenset", "iter", "filter", "dict"})
_VIEW_METHODS = frozenset({"items", "keys", "values", "copy"})
_MAX_DEPTH = 4
# The fields of a class: fixed by the code's schema, not by a request.
_FIELD_LISTERS = frozenset({"dataclasses.fields", "attr.fields", "attrs.fields"})
# Per-item work that releases what already exists: closing every pool connection at
# shutdown multiplies nothing.
_TEARDOWN = re.compile(r"^_?(a?close\w*|disconnect\w*|shutdown\w*|stop\w*|cancel\w*|terminate|kill|wait\w*|join|release\w*|unsubscribe|cleanup|teardown)$")


def is_upper(name: str) -> bool:
    """True for an UPPER_CASE constant name (``MAX_BATCH``, ``_LIMIT``)."""
    stripped = name.strip("_")
    return bool(stripped) and stripped.upper() == stripped and any(c.isalpha() for c in stripped)


def constant(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0) -> bool:
    """True when *expr* is a number fixed by the code, not by the input.

    Counts: int/float literals, arithmetic on constants, UPPER_CASE names and
    attributes (``MAX = 50``, ``settings.BATCH_SIZE``), names bound only to
    constants, ``min(..., N)`` with a constant, a parameter with a constant
    default (a configured batch size).
    """
    if expr is None or depth > _MAX_DEPTH:
        return False
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return constant(expr.expression, ctx, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        return constant(expr.left, ctx, depth + 1) and constant(expr.right, ctx, depth + 1)
    if isinstance(expr, cst.Call):
        name = dotted(expr.func)
        if name == "min":
            return any(constant(a.value, ctx, depth + 1) for a in expr.args if a.star == "")
        if name == "int" and len(expr.args) == 1:
            return constant(expr.args[0].value, ctx, depth + 1)
        return False
    if isinstance(expr, cst.Attribute):
        return is_upper(expr.attr.value)
    if isinstance(expr, cst.Name):
        if is_upper(expr.value):
            return True
        bound = ctx.lookup(expr.value)
        if bound is not None:
            values = bound[1]
            return all(v is not None and constant(v, ctx, depth + 1) for v in values)
        param = ctx.lookup_param(expr.value)
        if param is not None and param.default is not None:
            return constant(param.default, ctx, depth + 1)
    return False


def _configured_count(expr: cst.BaseExpression, ctx: Context) -> bool:
    """A worker or concurrency setting: ``self.concurrency``, ``num_workers``, ``os.cpu_count()``."""
    if constant(expr, ctx):
        return True
    if isinstance(expr, cst.Call):
        name = dotted(expr.func) or ""
        return name.endswith("cpu_count")
    name = dotted(expr)
    if name is None:
        return False
    if isinstance(expr, cst.Name):
        bound = ctx.lookup(expr.value)
        if bound is not None and any(v is not None and size_from_input(v, ctx) for v in bound[1]):
            return False
    return bool(_WORKER_WORDS.search(name.rsplit(".", 1)[-1]))


def size_from_input(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0) -> bool:
    """True when *expr* is computed from a collection's length (``len(items)``, a name bound to it,
    or a parameter some caller in the project passes ``len(...)`` for: see ``limits.callers``).

    ``min(len(items), N)`` is bounded by N and so is not from input.
    """
    if expr is None or depth > _MAX_DEPTH:
        return False
    if isinstance(expr, cst.Call):
        name = dotted(expr.func)
        if name == "len":
            # len(REGIONS) of a constant collection is not the input's size; a configured
            # one (len(deployments)) still grows with whatever the caller passes
            return not (expr.args and kind_of(source_limit(expr.args[0].value, ctx)) in FIXED_BY_CODE)
        if name == "min" and any(constant(a.value, ctx) for a in expr.args):
            return False
        return any(size_from_input(a.value, ctx, depth + 1) for a in expr.args)
    if isinstance(expr, cst.BinaryOperation):
        return size_from_input(expr.left, ctx, depth + 1) or size_from_input(expr.right, ctx, depth + 1)
    if isinstance(expr, cst.BooleanOperation):
        return size_from_input(expr.left, ctx, depth + 1) or size_from_input(expr.right, ctx, depth + 1)
    if isinstance(expr, cst.Name):
        bound = ctx.lookup(expr.value)
        if bound is not None and bound[0].kind != "module":
            return any(size_from_input(v, ctx, depth + 1) for v in bound[1] if v is not None)
        if bound is None:  # a parameter: sized from the input when a caller, in any module, passes len(...)
            return bool(callers_size_chain(expr.value, ctx))
    return False


def guarded(expr: cst.BaseExpression, ctx: Context) -> str | None:
    """``"len(x) checked"`` when a rejecting length guard on *expr* ran earlier in this function."""
    key = dotted(expr)
    if key is None:
        return None
    ancestors = ctx.ancestors
    for index, node in enumerate(ancestors[:-1]):
        if isinstance(node, cst.If) and ancestors[index + 1] is node.body and length_bound(node.test) == key:
            return Limit(GUARD, f"len({key}) checked")
    scope = ctx.scope
    while scope is not None and scope.kind != "module":
        for guard in scope.guards:
            if guard.key == key:
                return Limit(GUARD, f"len({key}) checked")
        if scope.kind == "function":
            break
        scope = scope.parent
    return None


def source_limit(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0) -> str | None:
    """Why iterating *expr* yields a bounded number of items, or None when it may not."""
    if expr is None or depth > _MAX_DEPTH:
        return None
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
        for el in expr.elements:
            if isinstance(el, (cst.StarredElement, cst.StarredDictElement)):
                if source_limit(el.value, ctx, depth + 1) is None:
                    return None
        return Limit(LITERAL, "a literal")
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return Limit(LITERAL, "a literal")
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        comp_for, found = expr.for_in, None
        while comp_for is not None:  # as many items as its sources give
            found = source_limit(comp_for.iter, ctx, depth + 1)
            if found is None:
                return None
            comp_for = comp_for.inner_for_in
        return found
    if isinstance(expr, cst.Call):
        return _call_limit(expr, ctx, depth)
    if isinstance(expr, (cst.Attribute, cst.Subscript)) and _command_line(expr, ctx):
        return Limit(COMMAND_LINE, "the command line's arguments")
    if isinstance(expr, cst.Subscript):
        if (len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
                and kind_of(source_limit(expr.value, ctx, depth + 1)) == CONFIGURED):
            return Limit(CONFIGURED, "a configured collection")  # signal._live_receivers(sender)[0]: a part of one
        return _slice_limit(expr, ctx)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left = source_limit(expr.left, ctx, depth + 1)
        return left if left and source_limit(expr.right, ctx, depth + 1) else None
    if isinstance(expr, (cst.Name, cst.Attribute)):
        found = guarded(expr, ctx) or _settings_collection(expr, ctx)
        if found:
            return found
    if isinstance(expr, cst.Name):
        return _name_limit(expr, ctx, depth)
    if isinstance(expr, cst.Attribute):
        if is_upper(expr.attr.value):
            return Limit(CONSTANT, "a constant")
        if isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
            values = ctx.attr_values(expr.attr.value)
            if values and all(kind_of(source_limit(v, ctx, depth + 1)) == LITERAL for v in values):
                return Limit(LITERAL, "a literal")
        if _bounded_name(expr.attr.value, ctx):
            return Limit(CONFIGURED, "a configured collection")
    return None


def _settings_collection(expr: cst.BaseExpression, ctx: Context) -> str | None:
    """``"a configured collection"`` for an attribute of a settings object defined in the project
    (``settings.peer_urls`` where ``settings = ClusterSettings()`` and the class is a ``BaseSettings``)."""
    if not ctx.project or ctx.names.resolve(expr) is None and not isinstance(expr, cst.Attribute):
        return None
    ref = ctx.project_ref(expr)
    if ref is None or "." not in ref:
        return None
    return Limit(CONFIGURED, "a configured collection") if ctx.project.ask("configured", ref) else None


def _command_line(expr: cst.BaseExpression, ctx: Context) -> bool:
    """``sys.argv`` or a slice of it: the arguments a person typed, like a ``*args`` parameter."""
    if isinstance(expr, cst.Subscript):
        expr = expr.value
    return isinstance(expr, cst.Attribute) and ctx.qualname(expr) == "sys.argv"


def _bounded_name(name: str, ctx: Context) -> bool:
    last = name.rsplit(".", 1)[-1].lstrip("_").lower()
    names = tables.table("bounded-names", ctx.settings)  # the defaults plus the `bounded-names` option
    return any(last == n or last.endswith("_" + n) for n in names)


def teardown_call(target: cst.BaseExpression | None) -> bool:
    """True when the per-item callable releases an existing resource (``conn.close``, ``node.disconnect``)."""
    if isinstance(target, cst.Attribute):
        return bool(_TEARDOWN.match(target.attr.value))
    if isinstance(target, cst.Name):
        return bool(_TEARDOWN.match(target.value))
    return False


def _name_limit(expr: cst.Name, ctx: Context, depth: int) -> str | None:
    if _bounded_name(expr.value, ctx) and not is_upper(expr.value):  # REGIONS = (...) is a constant
        return Limit(CONFIGURED, "a configured collection")
    loop = ctx.loop_with_target(expr.value)
    if loop is not None and loop.iter is not None:
        batch = batch_limit(loop.iter, ctx)
        if batch:
            return batch
        return source_limit(loop.iter, ctx, depth + 1) if loop.kind == "comp" else None
    bound = ctx.lookup(expr.value)
    if bound is not None:
        scope, values = bound
        latest = values[-1]
        if empty_collection(latest):
            filled = fills_since_empty(scope, expr.value)
            if filled:
                return filled_limit(filled, ctx, depth)
        if scope.kind == "module":
            if is_upper(expr.value) or len(values) == 1:
                return source_limit(latest, ctx, depth + 1) if latest is not None else None
            # rebound by a `global` statement in a function: bounded only if every value is
            found = [source_limit(v, ctx, depth + 1) if v is not None else None for v in values]
            return found[-1] if all(found) else None
        return source_limit(latest, ctx, depth + 1) if latest is not None else None
    param = ctx.lookup_param(expr.value)
    if param is not None and param.star == "*":
        return Limit(CALLER_ARGS, "the caller's arguments")
    if is_enum_class(expr, ctx):  # a class of this module or the project whose bases lead to Enum
        return Limit(ENUM, "enum members")
    if is_upper(expr.value) and ctx.lookup_param(expr.value) is None:
        return Limit(CONSTANT, "a constant")
    return None


def filled_limit(filled: list[tuple[Fill, tuple[Loop, ...]]], ctx: Context, depth: int = 0) -> Limit | None:
    """Why a collection built empty and then filled holds a bounded number of items, or None.

    Its size is its fills', not the empty literal's: each ``append`` / ``add``
    / ``d[k] = v`` counts once per iteration of the loops around it (those
    not already around the empty binding), each ``extend`` / ``update`` /
    ``+=`` as many times as its iterable has items.
    """
    found: Limit | None = None
    for fill, loops in filled:
        for loop in loops:
            if loop.iter is not None:  # depth-bounded: a loop may walk the very list it fills
                limit = source_limit(loop.iter, ctx, depth + 1) or batch_limit(loop.iter, ctx)
            else:
                from boundlint.analysis.limits.loops import loop_limit  # loops builds on this module

                limit = loop_limit(loop, ctx)
            if limit is None:
                return None
            found = found or limit
        if fill.how == "extend":
            limit = source_limit(fill.value, ctx, depth + 1) or batch_limit(fill.value, ctx)
            if limit is None:
                return None
            found = found or limit
    return found or Limit(LITERAL, "a literal")


def batch_limit(expr: cst.BaseExpression, ctx: Context) -> str | None:
    """``"batches of N"`` when *expr* iterates fixed-size batches (``batched(xs, N)``, ``range(0, n, N)``)."""
    if not isinstance(expr, cst.Call):
        return None
    name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
    args = [a for a in expr.args if a.star == ""]
    if name in tables.table("batchers", ctx.settings) and len(args) >= 2 and constant(args[1].value, ctx):
        return Limit(BATCHES, "fixed-size batches")
    if name in tables.table("batchers", ctx.settings):
        for a in args:
            if a.keyword is not None and a.keyword.value in ("n", "size", "batch_size", "chunk_size") and constant(a.value, ctx):
                return Limit(BATCHES, "fixed-size batches")
    if name == "range" and len(args) == 3 and constant(args[2].value, ctx):
        return Limit(BATCHES, "fixed-size batches")
    ref = ctx.project_ref(expr.func)  # a project helper named like a batcher is judged by its own body too
    if ref is not None and ctx.project.ask("batches", ref):
        return Limit(BATCHES, "fixed-size batches")  # a project helper, in any module, that yields fixed-size slices
    return None


def checked_in_body(func: cst.FunctionDef, name: str, ctx: Context) -> str | None:
    """Why *func* bounds its own parameter *name* before using it, or None.

    Counts, among the statements of its body (also inside ``try:`` and
    ``with`` blocks, not in branches or loops): a
    rejecting length check (``if len(ids) > N: raise HTTPException(...)``,
    the forms ``Walker`` records as guards, including ``n = len(ids)`` then
    ``if n > N``), ``assert len(ids) <= N``, a same-module helper whose body
    opens with such a check (``_check(ids)``), a same-module predicate
    (``if _too_many(ids): raise``), and a first use that truncates
    (``ids = ids[:N]``); a check may be on an alias (``ids = body.ids``).
    Also counts a body whose every use of *name* (dotted too: ``body.ids``)
    is a constant-bound slice or ``islice(name, N)`` (or ``len(name)``,
    with at least one slice).
    """
    if not isinstance(func.body, cst.IndentedBlock):
        return None
    lengths: dict[str, str] = {}  # n = len(ids)
    names = {name}  # ids = body.ids: a check on the alias bounds the field
    for stmt in _straight_line(func.body.body):
        if isinstance(stmt, cst.If):
            guards = [key for key, _ in length_guards(stmt.test, lengths.get)]
            if not guards:
                guards = predicate_guards(stmt.test, ctx)
            if names.intersection(guards) and terminates(stmt.body, ctx):
                return Limit(GUARD, f"len({name}) checked")
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assert) and length_bound(small.test) in names:
                    return Limit(GUARD, f"len({name}) checked")
                if isinstance(small, cst.Expr) and isinstance(small.value, (cst.Call, cst.Await)):
                    call = small.value.expression if isinstance(small.value, cst.Await) else small.value
                    if isinstance(call, cst.Call) and names.intersection(helper_guards(call, ctx)):
                        return Limit(GUARD, f"len({name}) checked")
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                    target = small.targets[0].target.value
                    key = len_argument_key(small.value)
                    if key is not None:
                        lengths[target] = key
                    elif target == name and _truncates(small.value, name, ctx, unwrap=True):
                        return Limit(SLICE, "a constant-bound slice")
                    elif dotted(small.value) in names:
                        names.add(target)
    uses = sliced = sized = 0
    for node in iter_nodes(func.body, into_defs=True):
        if isinstance(node, (cst.Name, cst.Attribute)) and dotted(node) == name:
            uses += 1
        elif _truncates(node, name, ctx):
            sliced += 1
        elif (isinstance(node, cst.Call) and dotted(node.func) == "len" and len(node.args) == 1
              and dotted(node.args[0].value) == name):
            sized += 1
    return Limit(SLICE, "a constant-bound slice") if sliced and uses == sliced + sized else None


def _straight_line(stmts) -> Iterator[cst.CSTNode]:
    """Statements in the order they run, looking into ``try:`` and ``with`` blocks (not branches or loops)."""
    for stmt in stmts:
        if isinstance(stmt, (cst.Try, cst.With)) and isinstance(stmt.body, cst.IndentedBlock):
            yield from _straight_line(stmt.body.body)
        else:
            yield stmt


def _truncates(node: cst.CSTNode, name: str, ctx: Context, unwrap: bool = False) -> bool:
    """``name[:N]`` / ``name[-N:]`` / ``islice(name, N)`` (with *unwrap*, also wrapped in ``list()``);
    *name* may be dotted (``body.ids[:N]``)."""
    if unwrap and isinstance(node, cst.Call) and dotted(node.func) in ("list", "tuple", "set") and len(node.args) == 1:
        node = node.args[0].value
    if isinstance(node, cst.Subscript) and dotted(node.value) == name:
        return _slice_limit(node, ctx) is not None
    if isinstance(node, cst.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] == "islice" and node.args:
        return dotted(node.args[0].value) == name and _call_limit(node, ctx, 0) is not None
    return False


def walked_whole(expr: cst.BaseExpression, ctx: Context) -> cst.BaseExpression | None:
    """The collection a batching iteration walks through to its end, or None.

    ``batched(xs, N)`` / ``chunked(xs, N)``, ``range(0, len(xs), N)`` and
    ``range(len(xs))`` bound each step, not the total: every item of ``xs``
    is still processed.  Rules judging a request's size look through them.
    """
    if not isinstance(expr, cst.Call):
        return None
    name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
    args = [a for a in expr.args if a.star == "" and a.keyword is None]
    if name in tables.table("batchers", ctx.settings) and args:
        return args[0].value
    if name == "range" and args:
        stop = args[0].value if len(args) == 1 else args[1].value
        if isinstance(stop, cst.Call) and dotted(stop.func) == "len" and len(stop.args) == 1:
            return stop.args[0].value
    return None


def _call_limit(expr: cst.Call, ctx: Context, depth: int) -> str | None:
    name = dotted(expr.func) or ""
    short = name.rsplit(".", 1)[-1]
    if not short and isinstance(expr.func, cst.Attribute):
        short = expr.func.attr.value  # {"a": 1}.items(): a method on a receiver that is no dotted name
    args = [a for a in expr.args if a.star == ""]
    if short == "range" and name in ("range", "builtins.range"):
        if len(args) == 1 and _configured_count(args[0].value, ctx):
            return Limit(CONSTANT_RANGE, "range of a constant") if constant(args[0].value, ctx) else Limit(WORKER_COUNT, "a configured worker count")
        first = args[0].value if len(args) == 1 else None
        if isinstance(first, cst.Call) and dotted(first.func) == "len" and not size_from_input(first, ctx):
            return Limit(CONSTANT_RANGE, "range of a constant")  # range(len(ITEMS)) of a constant collection
        if len(args) >= 2 and constant(args[1].value, ctx):
            return Limit(CONSTANT_RANGE, "range of a constant")
        if len(args) >= 2 and isinstance(args[1].value, cst.BinaryOperation) and constant(args[1].value.right, ctx):
            # range(i, i + N)
            return Limit(CONSTANT_RANGE, "range of a constant")
        return batch_limit(expr, ctx)
    if short == "islice" and len(args) >= 2 and constant(args[-1].value if len(args) == 2 else args[2].value, ctx):
        return Limit(CONSTANT_RANGE, "islice of a constant")
    if short in tables.table("batchers", ctx.settings):
        return None  # the number of batches still grows with the input
    if short in ("zip",):
        for a in args:
            found = source_limit(a.value, ctx, depth + 1)
            if found:
                return found
        return None
    if short in _PASS_THROUGH and name == short and args:
        return source_limit(args[0].value, ctx, depth + 1)
    if short in _VIEW_METHODS and isinstance(expr.func, cst.Attribute) and not args:
        return source_limit(expr.func.value, ctx, depth + 1)
    if short in ("split", "rsplit", "splitlines") and isinstance(expr.func, cst.Attribute):
        receiver = expr.func.value
        if isinstance(receiver, (cst.SimpleString, cst.ConcatenatedString)):
            return Limit(LITERAL, "a literal")  # "host port user".split()
    if (ctx.qualname(expr.func) or "") in _FIELD_LISTERS:
        return Limit(FIELDS, "a class's fields")
    if isinstance(expr.func, cst.Attribute) and _bounded_name(short, ctx):
        return Limit(CONFIGURED, "a configured collection")  # registry.enabled_services()
    if short == "as_completed" and args:
        return source_limit(args[0].value, ctx, depth + 1)
    return None


def _slice_limit(expr: cst.Subscript, ctx: Context) -> str | None:
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Slice):
        return None
    sl = expr.slice[0].slice
    lower, upper = sl.lower, sl.upper
    if upper is not None and (lower is None or constant(lower, ctx)) and constant(upper, ctx):
        return Limit(SLICE, "a constant-bound slice")
    if upper is None and lower is not None and isinstance(lower, cst.UnaryOperation) and constant(lower, ctx):
        return Limit(SLICE, "a constant-bound slice")  # xs[-N:]
    if upper is not None and lower is not None and isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add):
        parts = (upper.left, upper.right)
        lower_key = dotted(lower)
        if lower_key is not None and any(dotted(p) == lower_key for p in parts) and any(constant(p, ctx) for p in parts):
            return Limit(BATCHES, "fixed-size batches")
    return None


_DEFS = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})


def iter_nodes(node: cst.CSTNode, into_defs: bool = False) -> Iterator[cst.CSTNode]:
    """Every node under *node* in source order; nested function and class bodies only with *into_defs*."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if not into_defs and current is not node and type(current) in _DEFS:  # leaf classes: no ABC check
            continue
        stack.extend(reversed(list(children(current))))
