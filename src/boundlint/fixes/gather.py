"""BND101 ``gather``: ``asyncio.gather(*[f(x) for x in xs])`` in an ``async def``, bounded by a semaphore
local to the call (``fix-concurrency`` permits)::

    semaphore = asyncio.Semaphore(N)

    async def bounded(awaitable):
        async with semaphore:
            return await awaitable

    results = await asyncio.gather(*[bounded(f(x)) for x in xs])

Every coroutine is still made at once, but at most N run their work at a time.  Names already used
in the function get a suffix (``semaphore_2``).  ``unsafe``: the calls no longer all run at once, so
the whole takes longer.  Not fixable outside an ``async def`` or in a one-line suite.
"""
from __future__ import annotations

import libcst as cst

from boundlint.fixes import nodes as n
from boundlint.fixes.imports import reference
from boundlint.fixes.model import CHOOSE_NOTE, Plan
from boundlint.fixes.site import Site

_COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp)


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _free(name: str, used: set[str]) -> str:
    """*name*, or ``name_2``, ``name_3`` ... the first that is not among the names *used*."""
    candidate, number = name, 1
    while candidate in used:
        number += 1
        candidate = f"{name}_{number}"
    return candidate


def plan(site: Site) -> Plan | None:
    """The ``Plan`` bounding the gather at the finding's span; None when not fixable."""
    call = site.first(cst.Call)
    if call is None:
        return None
    starred = [a for a in call.args if a.star == "*" and isinstance(a.value, _COMPREHENSIONS)]
    func = site.enclosing(call, cst.FunctionDef, cst.Lambda)
    if not starred or not isinstance(func, cst.FunctionDef) or func.asynchronous is None:
        return None
    stmt = None
    for above in site.module.ancestors(call):
        if isinstance(above, (cst.SimpleStatementSuite, cst.Lambda)):
            return None
        if isinstance(above, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            stmt = above
            break
    if stmt is None or not isinstance(site.module.parent(stmt), cst.IndentedBlock):
        return None
    imports: list = []
    found = reference(site.module.node, ("asyncio",), "Semaphore")
    if found is None:
        return None
    if found[1] is not None:
        imports.append(found[1])
    names = _Names()
    func.visit(names)
    used = names.names
    semaphore, bounded = _free("semaphore", used), _free("bounded", used)
    count = site.numbers.concurrency
    note = "" if site.numbers.concurrency_chosen else f"  {CHOOSE_NOTE}"
    helper = cst.parse_module(
        f"{semaphore} = {found[0]}({count}){note}\n\n"
        f"async def {bounded}(awaitable):\n"
        f"    async with {semaphore}:\n"
        f"        return await awaitable\n").body
    replace = {}
    for arg in starred:
        elt = arg.value.elt
        replace[id(elt)] = lambda updated: cst.Call(cst.Name(bounded), [cst.Arg(updated)])

    def insert(updated):
        first = helper[0].with_changes(leading_lines=updated.leading_lines)
        after = updated.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        return cst.FlattenSentinel([first, helper[1].with_changes(leading_lines=[cst.EmptyLine(indent=False)]), after])

    replace[id(stmt)] = insert
    return Plan(f"Run at most {count} at a time: an `asyncio.Semaphore({count})` around each coroutine",
                replace, imports)
