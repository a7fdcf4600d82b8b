"""BND203 ``servicer-loop``: a length check before a gRPC servicer iterates a repeated request field.

Inserted before the statement that iterates it, in the same block::

    if len(request.uris) > N:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "uris: at most N items")

(``await context.abort(...)`` in a ``grpc.aio`` servicer).  The servicer method is the enclosing
function taking ``(self, request, context)``; the check goes in the innermost function holding the
loop, which must be async when the method is.  Not fixable: a grpclib servicer (``(self, stream)``),
an iteration of the whole request, one inside a one-line suite or an ``elif`` test.  ``unsafe``: the
method then rejects a longer request with INVALID_ARGUMENT.
"""
from __future__ import annotations

import libcst as cst

from boundlint.fixes import nodes as n
from boundlint.fixes.imports import module_reference, reference
from boundlint.fixes.model import Plan
from boundlint.fixes.site import Site


def _params(func: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in func.params.params]


def plan(site: Site) -> Plan | None:
    """The ``Plan`` inserting the check before the iteration at the finding's span; None when not fixable."""
    if not site.nodes:
        return None
    target = site.nodes[-1]
    if not isinstance(target, (cst.Attribute, cst.Name)):
        return None
    method = next((f for f in (target, *site.module.ancestors(target))
                   if isinstance(f, cst.FunctionDef) and len(_params(f)) == 3 and _params(f)[0] == "self"), None)
    if method is None:
        return None
    request, context = _params(method)[1:]
    if n.dotted(target) in (request, "", "self"):
        return None  # the whole request, or no field of it
    inner = site.enclosing(target, cst.FunctionDef)
    is_async = method.asynchronous is not None
    if is_async and inner.asynchronous is None:
        return None  # `await context.abort(...)` cannot go in a plain function
    stmt = _statement(site, target)
    if stmt is None or not isinstance(site.module.parent(stmt), (cst.IndentedBlock, cst.Module)):
        return None
    imports: list = []
    code = reference(site.module.node, ("grpc",), "StatusCode")
    if code is None or code[1] is not None:
        module = module_reference(site.module.node, "grpc")
        if module is None:
            return None
        code = (f"{module[0]}.StatusCode", module[1])
    if code[1] is not None:
        imports.append(code[1])
    count = site.numbers.max_items
    field = n.dotted(target).rsplit(".", 1)[-1]
    text = n.code(target)
    abort = f'{"await " if is_async else ""}{context}.abort({code[0]}.INVALID_ARGUMENT, "{field}: at most {count} items")'
    check = cst.parse_statement(f"if len({text}) > {count}:\n    {abort}\n")
    if not site.numbers.max_items_chosen:
        from boundlint.fixes.model import CHOOSE_NOTE

        check = check.with_changes(body=check.body.with_changes(header=cst.TrailingWhitespace(
            whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(CHOOSE_NOTE))))
    title = f"Reject more than {count} `{field}`: `{context}.abort(INVALID_ARGUMENT, ...)` before the loop"

    def insert(updated):
        leading = updated.leading_lines
        return cst.FlattenSentinel([check.with_changes(leading_lines=leading), updated.with_changes(leading_lines=[])])

    return Plan(title, {id(stmt): insert}, imports)


def _statement(site: Site, node: cst.CSTNode):
    """The statement holding *node* in its own line or header; None when *node* is in a one-line suite."""
    for above in site.module.ancestors(node):
        if isinstance(above, cst.SimpleStatementSuite):
            return None
        if isinstance(above, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return above
    return None
