"""Flag arguments: a constant a call passes rules out the callee's branches that test the parameter.

``load(key, validate=False)`` never runs the body of ``if validate:`` in
``load``, nor what ``load`` hands the flag on to (``check(validate)``).  The
reader (``index.reader``) records, in the same pass as the rest of a
function's facts:

- a call's ``consts``: the constants it passes, position (int) or keyword
  (str) -> the *state* of the value (``STATES``);
- a call's ``when``: the ``[parameter, state]`` conditions the branches
  around it need (``if validate:`` gives ``["validate", "truthy"]``),
  ``if not p: return`` guarding the rest of its block too; only for
  parameters the function never rebinds;
- ``guarded``: the function's own dependency calls and calls of unknown
  effect under such conditions, ``[kind, text, line, absorbed, when]``
  (*kind* ``"dep"`` or ``"opaque"``), with ``dep_open`` / ``opaque_open`` /
  ``dep_open_out`` / ``opaque_open_out`` (as ``dep`` ... of the calls under
  no condition); kept only when some call is guarded;
- ``rebound``: the parameters the function assigns (their tests and
  hand-overs say nothing of what a caller passed), only when any.

``queries.dependency`` reads them with ``given`` (``[[param, state]]``).
Pure ``ast``; never raises for a tree ``ast.parse`` made.
"""
from __future__ import annotations

import ast

# what a constant is: `None`, a falsy value that is not `None` (False, 0, "", []), a truthy one
NONE, FALSY, TRUTHY, NOT_NONE = "none", "falsy", "truthy", "not_none"
STATES = (NONE, FALSY, TRUTHY)
# a value's state -> the conditions it contradicts
# (NOT_NONE as a value: shown not `None`, truth unknown, `facts.given_args`; never recorded in the index)
_CONTRADICTS = {NONE: frozenset({TRUTHY, NOT_NONE}), FALSY: frozenset({TRUTHY, NONE}),
                TRUTHY: frozenset({FALSY, NONE}), NOT_NONE: frozenset({NONE})}
_OPPOSITE = {TRUTHY: FALSY, FALSY: TRUTHY, NONE: NOT_NONE, NOT_NONE: NONE}
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def state(expr: ast.AST) -> str | None:
    """``"none"``, ``"falsy"`` or ``"truthy"`` for ``None``, ``True`` / ``False``, a number or a literal
    display (``[]``, ``{"a": 1}``), else None: a value the code does not fix, and a string (a message
    or a key far more often than a flag: the index would carry one for most calls)."""
    if isinstance(expr, ast.Constant):
        value = expr.value
        if value is None:
            return NONE
        return (TRUTHY if value else FALSY) if isinstance(value, (bool, int, float)) else None
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return TRUTHY if expr.elts else FALSY
    if isinstance(expr, ast.Dict):
        return TRUTHY if expr.keys else FALSY
    return None


def consts(call: ast.Call) -> dict:
    """The constants *call* passes: position or keyword -> ``state``; positions after a ``*args``
    are unknown and left out (a ``**kwargs`` cannot repeat a keyword given by name)."""
    out: dict = {}
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        found = state(arg)
        if found is not None:
            out[position] = found
    for kw in call.keywords:
        if kw.arg is not None:
            found = state(kw.value)
            if found is not None:
                out[kw.arg] = found
    return out


def conditions(test: ast.AST, params: frozenset[str] | set[str]) -> tuple[list, list]:
    """``(then, other)``: the ``[parameter, condition]`` pairs the body and the ``else`` of ``if test:``
    need, for tests on *params*: ``p``, ``not p``, ``p is None``, ``p is not None``, and ``and``
    (the body needs each part) / ``or`` (the ``else`` needs each part to fail) of them."""
    if isinstance(test, ast.Name):
        return ([[test.id, TRUTHY]], [[test.id, FALSY]]) if test.id in params else ([], [])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        then, other = conditions(test.operand, params)
        return other, then
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and test.left.id in params and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
        cond = NONE if isinstance(test.ops[0], ast.Is) else NOT_NONE
        return [[test.left.id, cond]], [[test.left.id, _OPPOSITE[cond]]]
    if isinstance(test, ast.BoolOp):
        parts = [conditions(v, params) for v in test.values]
        if isinstance(test.op, ast.And):
            return [c for then, _ in parts for c in then], []
        return [], [c for _, other in parts for c in other]
    return [], []


def after(stmt: ast.stmt, params: frozenset[str] | set[str]) -> list:
    """The conditions the statements after *stmt* in its block need: ``if not p: return`` (a body
    that ends by leaving the block, no ``else``) lets the rest run only when ``p`` is truthy."""
    if not isinstance(stmt, ast.If) or stmt.orelse or not stmt.body or not isinstance(stmt.body[-1], _EXITS):
        return []
    return conditions(stmt.test, params)[1]


def ruled_out(when: list | None, given: dict) -> bool:
    """True when a value in *given* (parameter -> state) contradicts a condition in *when*."""
    if not when or not given:
        return False
    for param, cond in when:
        found = given.get(param)
        if found is not None and cond in _CONTRADICTS[found]:
            return True
    return False


def passed_on(call: dict, facts: dict, given: dict) -> dict:
    """What the callee of the call record *call* receives for certain: the constants the call passes
    and the parameters of the caller (whose facts are *facts*) with a known state in *given* that it
    hands on unchanged, by the callee's position or keyword."""
    out = dict(call.get("consts") or ())
    if given:
        rebound = facts.get("rebound") or ()
        for position, prov in enumerate(call["args"][:call.get("starred")]):
            name = prov.get("param") if prov else None
            if name in given and name not in rebound:
                out[position] = given[name]
        for keyword, prov in call["kwargs"].items():
            name = prov.get("param") if prov else None
            if name in given and name not in rebound:
                out[keyword] = given[name]
    return out


def by_name(facts: dict, passed: dict) -> dict:
    """*passed* (position or keyword -> state) in the terms of the function whose facts are *facts*:
    parameter -> state; positions skip ``self`` / ``cls`` of a method that is no static method (a call
    through the class that passes the instance itself, ``Job.run(job, False)``, is taken as bound)."""
    if not passed:
        return {}
    params = facts["params"][1:] if facts["method"] and not facts.get("static") else facts["params"]
    out = {}
    for key, found in passed.items():
        if isinstance(key, int):
            if key < len(params):
                out[params[key]] = found
        elif key in params:
            out[key] = found
    return out


def own(facts: dict, given: dict, failures: bool) -> tuple:
    """``(dep, opaque)`` of the function whose facts are *facts* when its parameters have the states
    *given*: its dependency calls and calls of unknown effect under conditions *given* rules out do
    not count (with *failures*, as ``dep_out`` / ``opaque_out``: absorbed calls left out)."""
    suffix = "_out" if failures else ""
    dep, opaque = facts.get("dep" + suffix), facts.get("opaque" + suffix)
    guarded = facts.get("guarded")
    if not guarded or not given or not any(ruled_out(g[4], given) for g in guarded):
        return dep, opaque
    dep, opaque = facts.get("dep_open" + suffix), facts.get("opaque_open" + suffix)
    for kind, text, line, absorbed, when in guarded:
        if (failures and absorbed) or ruled_out(when, given):
            continue
        if kind == "dep":
            return [text, line], opaque
        opaque = True
    return dep, opaque


def finish(out: dict, params: list[str], bound: set[str], static: bool) -> None:
    """Drop the open views of a function with no guarded effect (they equal ``dep`` ...), and add
    ``rebound`` and ``static`` when they hold."""
    if not out.get("guarded"):
        for key in ("guarded", "dep_open", "opaque_open", "dep_open_out", "opaque_open_out"):
            out.pop(key, None)
    rebound = sorted(p for p in params if p in bound)
    if rebound:
        out["rebound"] = rebound
    if static:
        out["static"] = True


def call_facts(call: ast.Call) -> dict:
    """``{"consts": ...}`` for a call record when *call* passes constants, and ``{"starred": i}``
    when its *i*-th positional argument is a ``*args`` (the positions after it are unknown)."""
    if not (call.args or call.keywords):
        return {}
    found = consts(call)
    out = {"consts": found} if found else {}
    star = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), None)
    if star is not None:
        out["starred"] = star
    return out
