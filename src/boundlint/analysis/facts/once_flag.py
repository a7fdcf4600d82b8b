"""Code behind a once-flag runs once: ``if self._started: return`` then ``self._started = True``.

The LibCST twin of ``index.closures.once_spans``, for the code a finding sits in (the index answers the
same question for its callers).  ``once_flag(chain)`` reads the ancestors of a reported node
(``analysis.facts.placement.ancestors_of``) and names the flag that lets the node run only on the first call.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import own_nodes


def _sets(roots: list[cst.CSTNode], flag: str, truth: bool) -> bool:
    """True when *roots* assign a constant of that *truth* to the name or attribute *flag*
    (``self._started = True`` / ``self._busy = False``)."""
    for root in roots:
        for node in own_nodes(root):
            if isinstance(node, cst.Assign) and any(dotted(t.target) == flag for t in node.targets):
                value = node.value
                if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
                    if (value.value == "True") is truth:
                        return True
                elif isinstance(value, cst.Integer) and (value.value not in ("0", "0x0")) is truth:
                    return True
    return False


def _sets_true(roots: list[cst.CSTNode], flag: str) -> bool:
    return _sets(roots, flag, True)


def _returns_only(node: cst.If) -> bool:
    """``if X: return`` with no ``else``."""
    body = node.body
    if node.orelse is not None or not isinstance(body, cst.IndentedBlock) and not isinstance(body, cst.SimpleStatementSuite):
        return False
    stmts = list(body.body)
    if isinstance(body, cst.IndentedBlock):
        if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine):
            return False
        stmts = list(stmts[0].body)
    return len(stmts) == 1 and isinstance(stmts[0], cst.Return) and stmts[0].value is None


def _stop_flag(node: cst.CSTNode) -> str | None:
    """FLAG of ``if not FLAG: raise ...`` / ``if not FLAG: return`` (no ``else``), else None."""
    if not isinstance(node, cst.If) or node.orelse is not None:
        return None
    test = node.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return None
    body = node.body
    stmts = list(body.body) if isinstance(body, cst.SimpleStatementSuite) else []
    if isinstance(body, cst.IndentedBlock) and len(body.body) == 1 and isinstance(body.body[0], cst.SimpleStatementLine):
        stmts = list(body.body[0].body)
    if len(stmts) != 1 or not (isinstance(stmts[0], cst.Raise) or isinstance(stmts[0], cst.Return) and stmts[0].value is None):
        return None
    return dotted(test.expression)


def once_flag(chain: list[cst.CSTNode]) -> str | None:
    """The flag (``self._started``) that lets the code at the end of *chain* run only on its function's
    first call, else None.

    Either an ``if FLAG: return`` among the statements of an enclosing function before the one that holds
    the code, with ``FLAG = True`` among the statements after it, or an enclosing ``if not FLAG:`` whose
    body sets ``FLAG = True``; not when the function also sets the flag false (``busy = False`` in a
    ``finally``: a reentrancy guard, which lets the next call run again).
    """
    for at, node in enumerate(chain):
        if isinstance(node, cst.If) and isinstance(node.test, cst.UnaryOperation) and isinstance(node.test.operator, cst.Not):
            flag = dotted(node.test.expression)
            if flag and at + 1 < len(chain) and chain[at + 1] is node.body and _sets_true([node.body], flag):
                func = next((n for n in reversed(chain[:at]) if isinstance(n, cst.FunctionDef)), None)
                if func is None or not _sets([func.body], flag, False):
                    return flag
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
            continue
        stmts = list(node.body.body)
        holder = chain[at + 2] if at + 2 < len(chain) and chain[at + 1] is node.body else None
        index = next((i for i, s in enumerate(stmts) if s is holder), None)
        if index is None:
            continue
        for j in range(index):
            guard = stmts[j]
            if isinstance(guard, cst.If) and _returns_only(guard):
                flag = dotted(guard.test)
                if flag and _sets_true(stmts[j + 1:], flag) and not _sets([node.body], flag, False):
                    return flag

    return None


def migration_branch(chain: list[cst.CSTNode]) -> str | None:
    """The migrations flag (``ENABLE_DB_MIGRATIONS``, ``index.migrations``) of an enclosing ``if FLAG:``
    whose body holds the code at the end of *chain*, else None: a migration step runs once per deployment."""
    from boundlint.index.migrations import migration_flag

    for at, node in enumerate(chain[:-1]):
        if isinstance(node, cst.If) and chain[at + 1] is node.body and isinstance(node.test, (cst.Name, cst.Attribute)):
            flag = dotted(node.test)
            if migration_flag(flag):
                return flag
    return None


def stop_flag(chain: list[cst.CSTNode]) -> str | None:
    """The start flag (``self.started``) of a stop that holds the code at the end of *chain*, else None:
    ``if not FLAG: raise`` (or ``return``) among an enclosing function's statements before the one that
    holds the code, ``FLAG = False`` among those after it, and no ``FLAG = True`` in the function (the twin
    of the stop shape of ``index.closures.once_spans``): it runs once per start."""
    for at, node in enumerate(chain):
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
            continue
        stmts = list(node.body.body)
        holder = chain[at + 2] if at + 2 < len(chain) and chain[at + 1] is node.body else None
        index = next((i for i, s in enumerate(stmts) if s is holder), None)
        for j in range(index or 0):
            flag = _stop_flag(stmts[j])
            if flag and _sets(stmts[j + 1:], flag, False) and not _sets_true([node.body], flag):
                return flag
    return None

def seen_guard(func: cst.CSTNode) -> str | None:
    """``"`marker in self._seen` returns early"`` when *func* starts by returning for a key it has already
    recorded (``if marker in self._seen: return`` ... ``self._seen.add(marker)``): what follows runs once
    per key, not once per call, however often a loop calls it; else None."""
    body = getattr(getattr(func, "body", None), "body", ())
    added = {dotted(n.func.value) for n in own_nodes(func) if isinstance(n, cst.Call)
             and isinstance(n.func, cst.Attribute) and n.func.attr.value == "add"}
    for stmt in body[:3]:
        if not isinstance(stmt, cst.If) or not isinstance(stmt.test, cst.Comparison):
            continue
        test = stmt.test
        if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, cst.In):
            continue
        seen = dotted(test.comparisons[0].comparator)
        first = stmt.body.body[0] if isinstance(stmt.body, cst.IndentedBlock) and stmt.body.body else None
        leaves = isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Return)
        if seen and leaves and seen in added:
            return f"`... in {seen}` returns early"
    return None
