"""What the code shows a method call's receiver is: an instance of which class, if any.

``shown(receiver, funcs, ctx, owner)`` reads the bindings in sight of a
receiver and answers with the class expression they agree on:

- a parameter or local annotated with a class (``path: Path``,
  ``worker: EventsWorker | None = None``, ``Optional[Path]``);
- a local, closure or module name assigned from a class call
  (``p = Path(x)``, ``REGISTRY = PromptRegistry()``), every assignment
  agreeing (``None`` aside);
- an attribute of ``self`` assigned from a class call in its class
  (``self._queue = asyncio.Queue()``);
- a loop variable over a list built of one class's instances
  (``dirs = [Path(d) for d in names]`` then ``for d in dirs``), or over what a
  method of a standard-library object returns (``for p in root.rglob("*")``);
- an element of an annotated container (``analysis.facts.elements``): taken out of it
  (``g = self._groups.get(key)``, ``(g := jobs[k])``) or looped over
  (``for g in self._groups.values()``, ``for layer in reversed(layers)``)
  where the annotation names the element type (``self._groups: dict[str, Group]``
  in the class, ``layers: Sequence[Layer]``).  The container's own ``typing``
  class shows nothing; its element type names a class like any annotation.

A class is told by its name (capitalised, as PEP 8 names classes) or by the
module index; a call of a lower-case function shows nothing.  The answer is
``(CLASS, expr)`` with the class expression, ``(STDLIB, text)`` for an object
a standard-library object's method returned, or None when nothing in sight
shows the class.  Pure reading of LibCST nodes; the caller resolves the class.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.kinds import calls
from boundlint.analysis.facts import bindings, elements
from boundlint.analysis.facts.attr_origin import stdlib_made
from boundlint.analysis.facts.walk import leaf_types, own_nodes

_LOOPS = leaf_types(cst.For, cst.CompFor)
_UNFOLLOWED = leaf_types(cst.AugAssign, cst.WithItem)  # bindings `_binds` cannot read a value from

CLASS, STDLIB = "class", "stdlib"
# annotations that qualify a binding without naming its class (`x: Final = Path(p)`), or wrap it
_QUALIFIERS = frozenset({"Final", "ClassVar", "Annotated", "Any", "object"})
# modules whose classes are abstract: an annotation with one does not show the object's class
_ABSTRACT = ("typing", "typing_extensions", "collections.abc", "abc", "numbers", "types")
_WRAPPERS = frozenset({"list", "sorted", "tuple", "set", "reversed", "iter", "frozenset"})


def _class_expr(expr: cst.BaseExpression | None, ctx) -> cst.BaseExpression | None:
    """The class a value or annotation names: ``Path`` of ``Path(x)``, ``Path | None``, ``Optional[Path]``."""
    if expr is None:
        return None
    if type(expr) is cst.Call:
        expr = expr.func
        return expr if _is_class(expr, ctx) else None
    if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.BitOr:
        parts = [p for p in (expr.left, expr.right) if not (type(p) is cst.Name and p.value == "None")]
        return _class_expr(parts[0], ctx) if len(parts) == 1 else None
    if type(expr) is cst.Subscript and (dotted(expr.value) or "").rsplit(".", 1)[-1] in (
            "Optional", "Final", "ClassVar", "Annotated") and type(expr.slice[0].slice) is cst.Index:
        return _class_expr(expr.slice[0].slice.value, ctx)
    if isinstance(expr, (cst.Name, cst.Attribute)) and _is_class(expr, ctx):
        return expr
    return None


def _is_class(expr: cst.BaseExpression, ctx) -> bool:
    text = dotted(expr)
    if text is None:
        return False
    last = text.rsplit(".", 1)[-1]
    qual = ctx.qualname(expr) or ""
    if last in _QUALIFIERS or any(qual == m or qual.startswith(m + ".") for m in _ABSTRACT):
        return False
    return text in ctx.index.classes or (last[:1].isupper() and not last.isupper() and "_" not in last)


def _qualifier(expr: cst.BaseExpression) -> bool:
    """``Final`` (bare): a qualifier that leaves the class to the assigned value."""
    return (dotted(expr) or "").rsplit(".", 1)[-1] in _QUALIFIERS


def _annotation(node: cst.Annotation | None, ctx) -> cst.BaseExpression | None:
    return _class_expr(node.annotation, ctx) if node is not None else None


def _param(func: cst.FunctionDef, name: str) -> cst.Param | None:
    """The named parameter of *func*, not ``*args`` (whose annotation types its items, not itself)."""
    found = bindings.param(func, name)
    return None if found is func.params.star_arg else found


def _agree(found: list) -> object:
    """The one answer every binding gives, else None (a binding that shows nothing spoils the rest)."""
    if not found or any(f is None for f in found):
        return None
    first = found[0]
    key = (first[0], dotted(first[1]) if first[0] == CLASS else first[1])
    for f in found[1:]:
        if (f[0], dotted(f[1]) if f[0] == CLASS else f[1]) != key:
            return None
    return first


def _binds(func: cst.FunctionDef, name: str, ctx, funcs: list, depth: int, owner: str | None = None) -> list | None:
    """What each binding of *name* in *func* shows (None for one that shows nothing), or None when
    *func* does not bind *name* at all.  A local that copies an attribute of ``self``
    (``jobs = self._jobs``) shows what the attribute shows in the class *owner*."""
    param = _param(func, name)
    if param is not None:
        shown_class = _annotation(param.annotation, ctx)
        return [(CLASS, shown_class) if shown_class is not None else None]
    annotated: list = []
    assigned: list = []
    for node in own_nodes(func.body):
        if type(node) is cst.AnnAssign and type(node.target) is cst.Name and node.target.value == name:
            shown_class = _annotation(node.annotation, ctx)
            if shown_class is None and _qualifier(node.annotation.annotation) and type(node.value) is cst.Call:
                shown_class = _class_expr(node.value, ctx)  # `table: Final = Repo(client)`: the value shows it
            annotated.append((CLASS, shown_class) if shown_class is not None else None)
        elif type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                                   for t in node.targets):
            if type(node.value) is cst.Name and node.value.value == "None":
                continue
            alias = dotted(node.value) if type(node.value) is cst.Attribute else None
            if alias is not None and alias.startswith("self.") and alias.count(".") == 1 and owner is not None:
                assigned.append(shown(alias, funcs, ctx, owner, depth + 1))
                continue
            assigned.append(_value(node.value, ctx, funcs, owner))
        elif type(node) in _LOOPS and type(node.target) is cst.Name and node.target.value == name:
            assigned.append(_items(node.iter, ctx, funcs, depth + 1, owner))
        elif type(node) is cst.NamedExpr and _binds_name(node, name):
            assigned.append(_value(node.value, ctx, funcs, owner))
        elif type(node) in _UNFOLLOWED and _binds_name(node, name):
            assigned.append(None)
    if annotated:
        return annotated  # the annotation says what every assignment holds
    return assigned or None


def _value(value: cst.BaseExpression, ctx, funcs: list, owner: str | None):
    """What an assigned *value* shows: a class call (``Path(x)``), or one element taken out of an
    annotated container (``self._groups.get(key)`` where ``self._groups: dict[str, Group]``)."""
    shown_class = _class_expr(value, ctx) if type(value) is cst.Call else None
    if shown_class is None and (took := elements.taken(value)) is not None:
        shown_class = _element_class(took, ctx, funcs, owner)
    return (CLASS, shown_class) if shown_class is not None else None


def _element_class(found: tuple, ctx, funcs: list, owner: str | None) -> cst.BaseExpression | None:
    """The class of the elements of ``found = (container, part)`` that the container's annotation
    names (``elements``): ``self.attr`` annotated in the class *owner*, or a parameter or local of
    the nearest function binding the name (an annotated ``x: list[Job] = []`` only)."""
    container, part = found
    text = dotted(container) or ""
    parts = text.split(".")
    annotation = None
    if len(parts) == 2 and parts[0] == "self" and owner in ctx.index.classes:
        annotation = elements.attr_annotation(ctx.index.classes[owner], parts[1])
    elif len(parts) == 1 and text:
        for func in reversed(funcs):
            param = _param(func, text)
            if param is not None:
                annotation = param.annotation.annotation if param.annotation is not None else None
                break
            notes = [n.annotation.annotation for n in own_nodes(func.body) if type(n) is cst.AnnAssign
                     and type(n.target) is cst.Name and n.target.value == text]
            if notes or binds(func, text):
                annotation = notes[0] if len(notes) == 1 else None
                break
    return _class_expr(elements.element(annotation, part), ctx) if annotation is not None else None


def _binds_name(node: cst.CSTNode, name: str) -> bool:
    target = node.asname.name if type(node) is cst.WithItem and node.asname is not None else getattr(node, "target", None)
    return type(target) is cst.Name and target.value == name


def _items(iterable: cst.BaseExpression, ctx, funcs: list, depth: int, owner: str | None = None):
    """What the items of *iterable* are: one class's instances (built in sight, or named by the
    element type of an annotated container), or standard-library objects; else None."""
    if type(iterable) is cst.Call and dotted(iterable.func) in _WRAPPERS and len(iterable.args) == 1:
        iterable = iterable.args[0].value
    if (over := elements.iterated(iterable)) is not None and \
            (element_class := _element_class(over, ctx, funcs, owner)) is not None:
        return CLASS, element_class
    if isinstance(iterable, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        made = _class_expr(iterable.elt, ctx) if type(iterable.elt) is cst.Call else None
        return (CLASS, made) if made is not None else None
    if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)) and iterable.elements:
        return _agree([(CLASS, c) if (c := _class_expr(e.value, ctx) if type(e.value) is cst.Call else None)
                       is not None else None for e in iterable.elements])
    if type(iterable) is cst.Name and depth < 4:
        return _items_of_name(iterable.value, ctx, funcs, depth, owner)
    if type(iterable) is cst.Call and type(iterable.func) is cst.Attribute:
        holder = dotted(iterable.func.value)
        found = shown(holder, funcs, ctx, None, depth + 1) if holder else None
        if found is not None and (found[0] == STDLIB or stdlib_class(found[1], ctx)):
            return STDLIB, f"{holder}.{iterable.func.attr.value}()"
    return None


def _items_of_name(name: str, ctx, funcs: list, depth: int, owner: str | None = None):
    """The items of a list held by *name*: its one assignment in the nearest function binding it."""
    for func in reversed(funcs):
        values = [n.value for n in own_nodes(func.body) if isinstance(n, (cst.Assign, cst.AnnAssign)) and n.value is not None
                  and any(type(t) is cst.Name and t.value == name
                          for t in ([x.target for x in n.targets] if type(n) is cst.Assign else [n.target]))]
        if values:
            return _items(values[0], ctx, funcs, depth + 1, owner) if len(values) == 1 else None
        if _param(func, name) is not None:
            return None
    return None


def stdlib_class(expr: cst.BaseExpression, ctx) -> bool:
    """True when the class *expr* is imported from the standard library and is no dependency's
    (``pathlib.Path``, ``asyncio.Queue``; not ``socket.socket`` nor ``http.client.HTTPConnection``)."""
    qual = ctx.qualname(expr)
    return qual is not None and calls.classify(qual, None, None, ctx.settings, verbs=False) == calls.LOCAL \
        and qual.split(".", 1)[0] in calls.STDLIB


def shown(receiver: str, funcs: list[cst.FunctionDef], ctx, owner: str | None, depth: int = 0):
    """``(CLASS, expr)``, ``(STDLIB, text)`` or None: what the bindings in sight show *receiver* is.

    *funcs* are the functions enclosing the call, outermost first (the last
    is where the call is); *owner* the enclosing class's name, for
    ``self.attr``.  Only a plain name or ``self.attr`` is read.
    """
    if depth > 4:
        return None
    parts = receiver.split(".")
    if len(parts) == 2 and parts[0] in ("self", "cls") and owner is not None:
        values = ctx.index.class_attrs.get(owner, {}).get(parts[1], [])
        return _agree([(STDLIB, made) if (made := stdlib_made(v, owner, ctx)) else (CLASS, c)
                       if (c := _class_expr(v, ctx) if type(v) is cst.Call else None) is not None
                       else None for v in values if not (type(v) is cst.Name and v.value == "None")])
    if len(parts) != 1:
        return None
    for func in reversed(funcs):
        found = _binds(func, receiver, ctx, funcs, depth, owner)
        if found is not None:
            return _agree(found)
    values = [v for v in ctx.index.constants.get(receiver, ()) if not (type(v) is cst.Name and v.value == "None")]
    return _agree([(CLASS, c) if (c := _class_expr(v, ctx) if type(v) is cst.Call else None) is not None else None
                   for v in values])


def binds(func: cst.FunctionDef, name: str) -> bool:
    """True when *func* binds *name* itself (a parameter, an assignment, a loop variable): it shadows
    the module's class of that name."""
    if _param(func, name) is not None:
        return True
    for node in own_nodes(func.body):
        if type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                                for t in node.targets):
            return True
        if isinstance(node, (cst.AnnAssign, cst.For, cst.CompFor, cst.AugAssign, cst.NamedExpr, cst.WithItem)) \
                and _binds_name(node, name):
            return True
    return False


def abstract(func: cst.FunctionDef) -> bool:
    """True when *func* is a placeholder a subclass fills in: ``@abstractmethod``, or a body of only
    a docstring, ``pass``, ``...`` or ``raise NotImplementedError``; its body shows nothing."""
    if any((dotted(d.decorator) or "").rsplit(".", 1)[-1] == "abstractmethod" for d in func.decorators):
        return True
    body = func.body.body if type(func.body) is cst.IndentedBlock else func.body.body
    for stmt in body:
        smalls = stmt.body if type(stmt) is cst.SimpleStatementLine else [stmt]
        for small in smalls:
            if type(small) is cst.Pass or (type(small) is cst.Expr and isinstance(
                    small.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis))):
                continue
            if type(small) is cst.Raise and "NotImplementedError" in (dotted(
                    small.exc.func if type(small.exc) is cst.Call else small.exc) or "" if small.exc else ""):
                continue
            return False
    return True


def calls_param(func: cst.FunctionDef, position: int) -> bool:
    """True unless the def in sight *func* never calls its parameter at *position* (0-based, ``self``
    counted) nor hands it on bare to another call: a value it only reads runs nothing.  A position
    past the named parameters (``*args``) may be called."""
    params = [*func.params.posonly_params, *func.params.params]
    if position >= len(params):
        return True
    name = params[position].name.value
    for node in own_nodes(func.body):
        if type(node) is cst.Call:
            if type(node.func) is cst.Name and node.func.value == name:
                return True
            if any(type(a.value) is cst.Name and a.value.value == name for a in node.args):
                return True
    return False
