"""Flag arguments in sight: ``load(key, confirm=False)`` never runs ``if confirm:`` in ``load``.

The LibCST side of ``index.flags``: the same states (``"none"``, ``"falsy"``,
``"truthy"``) and conditions, for the defs ``analysis.facts.dependency`` reads in
sight and for the calls it hands to the project index.

- ``passed(call, known)``: what *call* passes for certain, as the index's
  dependency queries take it (``[[position or keyword, state], ...]``):
  constants, and the caller's own parameters whose state it knows (*known*);
- ``states(call, func, offset, known)``: the same in terms of the def in
  sight *func*: ``{parameter: state}``;
- ``not_taken(body, states)``: the ids of the nodes under *body* those
  states rule out: the branch of ``if p:`` / ``if not p:`` / ``p is None``
  (and ``and`` / ``or`` of them, ``x if p else y``) that cannot run, and the
  statements after ``if not p: return`` when ``p`` is falsy.

Pure reading of LibCST nodes.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.facts.walk import binding_targets, own_nodes
from boundlint.index.flags import FALSY, NONE, NOT_NONE, TRUTHY, ruled_out

_NAMED = {"None": NONE, "False": FALSY, "True": TRUTHY}
_OPPOSITE = {TRUTHY: FALSY, FALSY: TRUTHY, NONE: NOT_NONE, NOT_NONE: NONE}
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def _state(expr: cst.BaseExpression, known: dict[str, str]) -> str | None:
    """``index.flags.state`` of a LibCST expression, or the state *known* of a parameter it names."""
    if isinstance(expr, cst.Name):  # a parameter only shown not None is not handed on (the index records no such state)
        return _NAMED.get(expr.value) or (known.get(expr.value) if known.get(expr.value) != NOT_NONE else None)
    if isinstance(expr, (cst.Integer, cst.Float)):
        return TRUTHY if expr.evaluated_value else FALSY
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
        return TRUTHY if expr.elements else FALSY
    return None


def passed(call: cst.Call, known: dict[str, str] | None = None) -> list:
    """``[[position or keyword, state], ...]``: the constants *call* passes, and the parameters of its
    caller whose state is *known*; positions after a ``*args`` are left out."""
    known = known or {}
    out: list = []
    position = 0
    for arg in call.args:
        if arg.star:
            position = -1 if arg.star == "*" else position
            continue
        found = _state(arg.value, known)
        if arg.keyword is not None:
            if found is not None:
                out.append([arg.keyword.value, found])
        elif position >= 0:
            if found is not None:
                out.append([position, found])
            position += 1
    return out


def states(call: cst.Call, func: cst.FunctionDef, offset: int, known: dict[str, str] | None = None
           ) -> dict[str, str]:
    """``{parameter: state}`` of the def in sight *func* for what *call* passes (``passed``); *offset*
    is how many leading parameters the call does not fill (``self``).  Parameters *func* rebinds are
    left out: its tests read its own value."""
    if any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in func.decorators):
        offset = 0
    params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
    named = set(params) | {p.name.value for p in func.params.kwonly_params}
    out: dict[str, str] = {}
    for key, found in passed(call, known):
        if isinstance(key, int):
            if key + offset < len(params):
                out[params[key + offset]] = found
        elif key in named:
            out[key] = found
    rebound = _rebound(func, set(out)) if out else set()
    return {k: v for k, v in out.items() if k not in rebound}


def _rebound(func: cst.FunctionDef, names: set[str]) -> set[str]:
    """The names of *names* that *func*'s own code assigns (nested defs not read)."""
    found: set[str] = set()
    for node in own_nodes(func.body):
        for target in binding_targets(node, loops=True):
            for leaf in own_nodes(target):
                if isinstance(leaf, cst.Name) and leaf.value in names:
                    found.add(leaf.value)
    return found


def conditions(test: cst.BaseExpression, names: dict[str, str] | set[str]) -> tuple[list, list]:
    """``index.flags.conditions`` for a LibCST test on *names*: ``(then, other)``."""
    if isinstance(test, cst.Name):
        return ([[test.value, TRUTHY]], [[test.value, FALSY]]) if test.value in names else ([], [])
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        then, other = conditions(test.expression, names)
        return other, then
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name) \
            and test.left.value in names and isinstance(test.comparisons[0].comparator, cst.Name) \
            and test.comparisons[0].comparator.value == "None" \
            and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot)):
        cond = NONE if isinstance(test.comparisons[0].operator, cst.Is) else NOT_NONE
        return [[test.left.value, cond]], [[test.left.value, _OPPOSITE[cond]]]
    if isinstance(test, cst.BooleanOperation):
        left, right = conditions(test.left, names), conditions(test.right, names)
        if isinstance(test.operator, cst.And):
            return left[0] + right[0], []
        return [], left[1] + right[1]
    return [], []


def not_taken(body: cst.CSTNode, known: dict[str, str]) -> set[int]:
    """The ids of the nodes under *body* that the parameter states *known* rule out (see the module
    doc).  Nested defs are not read."""
    if not known:
        return set()
    out: set[int] = set()
    for node in own_nodes(body):
        if isinstance(node, (cst.If, cst.IfExp)):
            then, other = conditions(node.test, known)
            if ruled_out(then, known):
                out.add(id(node.body))
            if node.orelse is not None and ruled_out(other, known):
                out.add(id(node.orelse))
        elif isinstance(node, cst.IndentedBlock):
            stmts = node.body
            for i, stmt in enumerate(stmts[:-1]):
                if isinstance(stmt, cst.If) and stmt.orelse is None and block_exits(stmt.body) \
                        and ruled_out(conditions(stmt.test, known)[1], known):
                    out.update(id(s) for s in stmts[i + 1:])  # `if not p: return` with p falsy: the rest never runs
                    break
    return out


def block_exits(block: cst.BaseSuite) -> bool:
    """The block ends by leaving it: ``return``, ``raise``, ``continue`` or ``break``."""
    last = block.body[-1] if isinstance(block, cst.IndentedBlock) and block.body else None
    if isinstance(block, cst.SimpleStatementSuite):
        return bool(block.body) and isinstance(block.body[-1], _EXITS)
    return isinstance(last, cst.SimpleStatementLine) and bool(last.body) and isinstance(last.body[-1], _EXITS)
