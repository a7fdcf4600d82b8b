"""BND201: serializers that only their own input methods call request models, and that nothing names.

A DRF serializer with ``validate`` / ``create`` methods or a ``write_only``
field handles input, so it is judged as a request model even when no view in
sight uses it.  When no view, serializer or route of the project can reach it
(its module never names it outside its own definition, and no other module
imports it), no request ever fills it: its findings are ``low``.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis import models as m
from boundlint.analysis.context import Context


def unnamed_models(names: set[str], ctx: Context) -> set[str]:
    """The classes of *names* (defined in the module being checked) that the project never names:
    not in their own module outside their ``class`` statement (a ``Name``, an attribute or a string,
    as in ``__all__``), nor in any import of another module (``named_elsewhere``).  Empty without a
    project index."""
    if not names or not ctx.project:
        return set()
    mentioned = _mentioned(ctx.module, names)
    return {name for name in names - mentioned
            if ctx.project.ask("named_elsewhere", ctx.project.ref(None, name)) == "no"}


def _mentioned(module: cst.Module, names: set[str]) -> set[str]:
    """Names of *names* the module uses anywhere but as the name of their own ``class`` statement."""
    own = {id(node.name) for node in m.iter_nodes(module) if isinstance(node, cst.ClassDef)}
    out: set[str] = set()
    for node in m.iter_nodes(module):
        if isinstance(node, cst.Name) and node.value in names and id(node) not in own:
            out.add(node.value)
        elif isinstance(node, cst.Attribute) and node.attr.value in names:
            out.add(node.attr.value)
        elif isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            if isinstance(value, str):
                out.update(name for name in names if name in value)
    return out
