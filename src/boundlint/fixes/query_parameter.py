"""BND202 ``query-parameter``: ``max_length=N`` on a FastAPI endpoint's collection parameter.

Added to the parameter's own marker (``Query(...)``, ``Body(...)``, ``Form(...)``, ``File(...)``), as
its default or inside its ``Annotated[...]``; a parameter with no marker is a request body to FastAPI,
so its type becomes ``Annotated[list[X], Body(max_length=N)]`` (a ``Query`` there would move it from
the body to the query string).  ``unsafe``: the endpoint then rejects a longer value (422).
"""
from __future__ import annotations

import libcst as cst

from boundlint.fixes import nodes as n
from boundlint.fixes.imports import reference
from boundlint.fixes.model import Plan
from boundlint.fixes.site import Site

_MARKERS = ("Query", "Body", "Form", "File")


def plan(site: Site) -> Plan | None:
    """The ``Plan`` capping the parameter at the finding's span; None when it has no FastAPI shape."""
    param = site.first(cst.Param)
    if param is None or param.annotation is None:
        return None
    count = site.numbers.max_items
    name = param.name.value
    title = f"Cap `{name}` at {count} items: `max_length={count}`"
    size = n.expr(str(count))
    replace = {}
    if isinstance(param.default, cst.Call) and n.short(param.default.func) in _MARKERS:
        replace[id(param.default)] = lambda updated: n.with_kwarg(updated, "max_length", size)
        return _noted(site, param, Plan(title, replace))
    ann = param.annotation.annotation
    if isinstance(ann, cst.Subscript) and n.short(ann.value) == "Annotated":
        for el in list(ann.slice)[1:]:
            value = el.slice.value if isinstance(el.slice, cst.Index) else None
            if isinstance(value, cst.Call) and n.short(value.func) in _MARKERS:
                replace[id(value)] = lambda updated: n.with_kwarg(updated, "max_length", size)
                return _noted(site, param, Plan(title, replace))
    imports: list = []
    body = reference(site.module.node, ("fastapi",), "Body")
    if body is None:
        return None
    if body[1] is not None:
        imports.append(body[1])
    marker = n.expr(f"{body[0]}(max_length={count})")
    if isinstance(ann, cst.Subscript) and n.short(ann.value) == "Annotated":
        replace[id(ann)] = lambda updated: n.with_element(updated, marker)
    else:
        annotated = reference(site.module.node, ("typing", "typing_extensions"), "Annotated")
        if annotated is None:
            return None
        if annotated[1] is not None:
            imports.append(annotated[1])
        replace[id(ann)] = lambda updated: n.annotated(updated, marker, annotated[0])
    return _noted(site, param, Plan(title + " (`Body(max_length=...)`)", replace, imports))


def _noted(site: Site, param: cst.Param, plan: Plan) -> Plan:
    """*plan*, with the default-number note on the parameter's line when it is a line of its own."""
    if site.numbers.max_items_chosen:
        return plan
    comma = param.comma
    if isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace):
        trailing = comma.whitespace_after.first_line
        if trailing.comment is None:
            from boundlint.fixes.model import CHOOSE_NOTE

            plan.replace[id(comma)] = lambda updated: updated.with_changes(
                whitespace_after=updated.whitespace_after.with_changes(first_line=cst.TrailingWhitespace(
                    whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(CHOOSE_NOTE),
                    newline=trailing.newline)))
    return plan
