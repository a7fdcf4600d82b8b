"""Whether a class is an enum: a closed set of members, however many modules its bases span.

One answer for every reader: a loop over an enum's members is bounded (``limits.sources``) and a
request field typed with one holds one of a fixed set (``models.shapes``).
"""
from __future__ import annotations

import libcst as cst

from boundlint import tables
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted


def is_enum_class(expr: cst.BaseExpression, ctx: Context, depth: int = 0) -> bool:
    """True when the Name or Attribute *expr* names a class whose bases lead to ``enum.Enum``: a class
    of this module (through bases of this module or of the project, any depth up to 8), or a project
    class of another module (``index.queries.requests.is_enum``); False for anything else."""
    if depth > 8:
        return False
    if type(expr) is cst.Name:
        cls = ctx.index.classes.get(expr.value)
        if cls is not None:
            return any(_enum_base(b.value, ctx, depth) for b in cls.bases)
    if type(expr) in (cst.Name, cst.Attribute) and ctx.project:
        ref = ctx.project_ref(expr)
        return ref is not None and bool(ctx.project.ask("is_enum", ref))
    return False


def _enum_base(base: cst.BaseExpression, ctx: Context, depth: int) -> bool:
    name = dotted(base)
    if name is None:
        return False
    if name.rsplit(".", 1)[-1] in tables.table("enum-bases", ctx.settings):
        return True
    return is_enum_class(base, ctx, depth + 1)
