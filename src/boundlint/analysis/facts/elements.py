"""What an annotated container holds: the element type its annotation names.

``receivers.shown`` asks this module when a receiver is taken out of a
container rather than built in sight: ``group = self._groups.get(key)``
where the class annotates ``self._groups: dict[str, Group]``, or
``for layer in reversed(layers)`` where ``layers: Sequence[Layer]``.  The
container's own class is abstract (``typing`` names show nothing), but its
element type names the class of what comes out of it.

- ``element(annotation, part)``: the element annotation of a container
  annotation, ``part`` being ``VALUE`` (a mapping's value, a sequence's
  item) or ``KEY`` (what iterating the container gives: a mapping's key);
- ``taken(expr)``: ``(container, part)`` when *expr* takes one element out of
  a container (``c.get(k)``, ``c[k]``, ``c.pop(k)``), else None;
- ``iterated(expr)``: ``(container, part)`` for what iterating *expr* gives
  (``c``, ``c.values()``, ``c.keys()``), else None;
- ``attr_annotation(cls, attr)``: the annotation of ``self.attr`` in the class
  (``self.attr: T = ...`` in a method, or ``attr: T`` in the class body), when
  there is exactly one.

Pure reading of LibCST nodes; the container names are the language's
(``kinds.containers``, shared with ``index.elements``).
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.kinds.containers import KEY, MAPPINGS, SEQUENCES, UNWRAP as _UNWRAP, VALUE
from boundlint.analysis.facts.walk import own_nodes

__all__ = ["KEY", "VALUE", "element", "taken", "iterated", "attr_annotation"]


def _params(sub: cst.Subscript) -> list[cst.BaseExpression] | None:
    values = [e.slice.value for e in sub.slice if isinstance(e.slice, cst.Index)]
    return values if len(values) == len(sub.slice) else None


def element(annotation: cst.BaseExpression | None, part: str) -> cst.BaseExpression | None:
    """The annotation of one element of the container *annotation* names: for a mapping
    (``dict[K, V]``) ``V`` when *part* is ``VALUE``, ``K`` when ``KEY``; for a sequence, set or
    iterable (``list[C]``, ``Sequence[C]``, ``tuple[C, ...]``) ``C`` either way.  ``X | None``,
    ``Optional[X]``, ``Final[X]`` are read through.  None for anything else (a bare ``dict``,
    a string annotation, ``tuple[A, B]`` of mixed items)."""
    expr = annotation
    for _ in range(4):
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            parts = [p for p in (expr.left, expr.right) if not (isinstance(p, cst.Name) and p.value == "None")]
            if len(parts) != 1:
                return None
            expr = parts[0]
        elif isinstance(expr, cst.Subscript) and (dotted(expr.value) or "").rsplit(".", 1)[-1] in _UNWRAP:
            params = _params(expr)
            if not params:
                return None
            expr = params[0]
        else:
            break
    if not isinstance(expr, cst.Subscript):
        return None
    name = (dotted(expr.value) or "").rsplit(".", 1)[-1]
    params = _params(expr)
    if not params:
        return None
    if name in MAPPINGS and len(params) == 2:
        return params[1] if part == VALUE else params[0]
    if name in ("tuple", "Tuple"):
        return params[0] if len(params) == 2 and isinstance(params[1], cst.Ellipsis) else None
    if name in SEQUENCES and len(params) == 1:
        return params[0]
    return None


def _none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def taken(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """``(container, VALUE)`` when *expr* takes one element out of a container: ``c.get(k)``,
    ``c.pop(k)`` (without a default other than ``None``, which would be another object),
    ``c.pop()``, ``c[k]``; else None."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("get", "pop"):
        args = [a for a in expr.args if a.keyword is None and not a.star]
        if len(args) != len(expr.args) or len(args) > 2 or (len(args) == 2 and not _none(args[1].value)):
            return None
        if expr.func.attr.value == "get" and not args:
            return None
        return expr.func.value, VALUE
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        return expr.value, VALUE
    return None


def iterated(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """``(container, part)`` for what a loop over *expr* gives: ``c.values()`` its values,
    ``c.keys()`` or ``c`` itself its keys (a sequence's items either way); else None."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not expr.args:
        method = expr.func.attr.value
        return (expr.func.value, VALUE if method == "values" else KEY) if method in ("values", "keys") else None
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return expr, KEY
    return None


def attr_annotation(cls: cst.ClassDef, attr: str) -> cst.BaseExpression | None:
    """The one annotation of ``self.attr`` in the class *cls* (``self.attr: T = ...`` in any of its
    methods, or ``attr: T`` in its body); None when there is none, or two that differ."""
    found: dict[str, cst.BaseExpression] = {}
    for node in own_nodes(cls.body):
        if isinstance(node, cst.FunctionDef):
            for inner in own_nodes(node.body):
                if isinstance(inner, cst.AnnAssign) and dotted(inner.target) == f"self.{attr}":
                    found.setdefault(cst.Module([]).code_for_node(inner.annotation.annotation), inner.annotation.annotation)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.target.value == attr:
            found.setdefault(cst.Module([]).code_for_node(node.annotation.annotation), node.annotation.annotation)
    return next(iter(found.values())) if len(found) == 1 else None
