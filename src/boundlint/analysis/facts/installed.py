"""Rows an operator installs, for the volume reader (``analysis.facts.volume``): a read of a table object whose
rows only endpoints behind an operator guard add (``index.queries.installed``)."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted


def operator_rows(call: cst.Call, ctx) -> str:
    """``"the rows `Functions.get_functions_by_type()` reads: rows only operators add: ..."`` when *call*
    reads a project table object whose every row-creating call is an operator's endpoint; else ``""``."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, (cst.Name, cst.Attribute))):
        return ""
    ref = ctx.project_ref(func.value)
    found = ctx.project.ask("operator_rows", ref, func.attr.value) if ref else None
    return f"the rows `{dotted(func) or func.attr.value}()` reads: {found}" if found else ""
