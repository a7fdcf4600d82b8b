"""What a function binds and hands over, as the volume reader follows it: the values assigned to each
name in its own body, its parameters, its ``return`` values, and the argument a call passes for one
of its parameters."""
from __future__ import annotations

import libcst as cst

from boundlint.facts.literals import item as _item
from boundlint.facts.walk import kids


def assignments(func: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """Name -> values assigned to it in *func*'s own body (nested defs skipped), in one walk."""
    out: dict[str, list[cst.BaseExpression]] = {}
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Nonlocal, cst.Global)):  # a nested def rebinds it: its values are not all here
            for item in node.names:
                out.setdefault(item.name.value, []).append(cst.Name("__rebound__"))
        if isinstance(node, (cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.FunctionDef):
            stack.extend(n for n in kids(node.body) if isinstance(node.body, cst.IndentedBlock))
            continue
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    out.setdefault(t.target.value, []).append(node.value)
                elif isinstance(t.target, (cst.Tuple, cst.List)):  # a, b = pair: b is pair[1]
                    for i, elt in enumerate(t.target.elements):
                        if isinstance(elt, cst.StarredElement):
                            break
                        if isinstance(elt.value, cst.Name):
                            out.setdefault(elt.value.value, []).append(_item(node.value, i))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            out.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            out.setdefault(node.target.value, []).append(node.value)
        stack.extend(kids(node))
    return out


def param(func: cst.FunctionDef, name: str) -> cst.Param | None:
    params = func.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == name:
            return p
    star = params.star_arg
    if isinstance(star, cst.Param) and star.name.value == name:
        return star
    return None


def param_names(func: cst.FunctionDef) -> set[str]:
    params = func.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


def returns(func: cst.FunctionDef) -> list[cst.BaseExpression] | None:
    """The values *func*'s own ``return`` statements hand back (nested defs aside); None when one
    returns nothing or *func* is a generator."""
    out: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(node, cst.Yield):
            return None
        if isinstance(node, cst.Return):
            if node.value is None:
                return None
            out.append(node.value)
        stack.extend(kids(node))
    return out


def argument(call: cst.Call, position: int, name: str) -> cst.BaseExpression | None:
    """The argument *call* passes for the parameter *name* at *position*, else None (also when a
    ``*args`` or ``**kwargs`` may hold it)."""
    positional = []
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            positional.append(arg.value)
        elif arg.keyword.value == name:
            return arg.value
    return positional[position] if position < len(positional) else None
