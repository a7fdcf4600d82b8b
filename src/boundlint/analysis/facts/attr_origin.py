"""Where an attribute of ``self`` comes from, when its value is built in one of its class's methods.

``self.jobs = ctx.Queue()`` after ``ctx = multiprocessing.get_context("spawn")``:
the class ``ctx.Queue`` is a method of a standard-library object, so the
attribute holds a standard-library object (an in-process queue, whatever its
name says).  ``stdlib_made(value, owner, attr, ctx)`` reads the method of
*owner* that assigns *value* to ``self.<attr>`` and answers with the text of
the standard-library call that built the head of *value*.  Pure reading of
LibCST nodes and the module index.
"""
from __future__ import annotations

import libcst as cst

from boundlint.kinds import calls
from boundlint.analysis.facts.walk import own_nodes


def _assigns(node: cst.CSTNode, name: str) -> bool:
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else (
        [node.target] if isinstance(node, cst.AnnAssign) else [])
    return any(isinstance(t, cst.Name) and t.value == name for t in targets)


def stdlib_made(value: cst.BaseExpression, owner: str, ctx) -> str:
    """``"multiprocessing.get_context()"`` when *value* (a value assigned to an attribute of
    ``self`` in a method of the class *owner*) is ``head.Cls(...)`` and, in that method, every
    assignment to the plain name ``head`` is a call of a standard-library function that is no
    dependency's; else "".  A name the method does not assign (a parameter, a global) shows nothing."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute) \
            or not isinstance(value.func.value, cst.Name):
        return ""
    head = value.func.value.value
    for method in ctx.index.methods.get(owner, {}).values():
        if not isinstance(method, cst.FunctionDef):
            continue
        nodes = list(own_nodes(method.body))
        if not any(n is value for n in nodes):
            continue
        made = [n.value for n in nodes if isinstance(n, (cst.Assign, cst.AnnAssign)) and _assigns(n, head)]
        if not made or not all(isinstance(m, cst.Call) for m in made):
            return ""
        quals = {ctx.qualname(m.func) or "" for m in made}
        qual = quals.pop() if len(quals) == 1 else ""
        if qual.split(".", 1)[0] in calls.STDLIB and calls.classify(qual, None, None, ctx.settings, verbs=False) == calls.LOCAL:
            return f"{qual}()"
        return ""
    return ""
