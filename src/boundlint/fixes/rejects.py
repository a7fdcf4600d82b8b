"""BND201 ``request-field:dataclass``: a plain dataclass validates nothing, so ``__post_init__`` rejects
a collection longer than N (``if len(self.ids) > N: raise ValueError(...)``), at the start of the
class's own ``__post_init__`` or in a new one.  Not fixable when the class has bases but no
``__post_init__`` of its own (a new one would hide a base's)."""
from __future__ import annotations

import libcst as cst

from boundlint.fixes import nodes as n
from boundlint.fixes.model import Plan
from boundlint.fixes.site import Site


def dataclass_plan(site: Site, stmt) -> Plan | None:
    """The ``Plan`` adding the length check of the field *stmt* to its class; None when not fixable."""
    cls = site.enclosing(stmt, cst.ClassDef)
    if cls is None or not isinstance(stmt, cst.AnnAssign) or not isinstance(cls.body, cst.IndentedBlock):
        return None
    name = n.dotted(stmt.target)
    if not name:
        return None
    count = site.numbers.max_items
    ann = n.code(stmt.annotation.annotation)
    optional = "None" in ann or "Optional" in ann
    test = f"self.{name} is not None and len(self.{name}) > {count}" if optional else f"len(self.{name}) > {count}"
    check = cst.parse_statement(f'if {test}:\n    raise ValueError("{name}: at most {count} items")\n')
    own = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__post_init__"), None)
    if own is None and any(not (isinstance(b.value, cst.Name) and b.value.value == "object") for b in cls.bases):
        return None
    title = f"Cap `{name}` at {count} items: reject a longer one in `__post_init__`"
    if own is not None:
        if not isinstance(own.body, cst.IndentedBlock):
            return None
        return Plan(title, {id(own): lambda updated: _first(updated, check)})
    method = cst.parse_statement(f"def __post_init__(self):\n    {n.code(check).strip().replace(chr(10), chr(10) + '    ')}\n")
    method = method.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    return Plan(title, {id(cls): lambda updated: updated.with_changes(
        body=updated.body.with_changes(body=[*updated.body.body, method]))})


def _first(func: cst.FunctionDef, check: cst.BaseStatement) -> cst.FunctionDef:
    """*func* with *check* as its first statement (after a docstring)."""
    body = list(func.body.body)
    at = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        at = 1
    return func.with_changes(body=func.body.with_changes(body=[*body[:at], check, *body[at:]]))
