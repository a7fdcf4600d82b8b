"""What a function binds and hands over, as the volume reader follows it: the values assigned to each
name in its own body, its parameters, its ``return`` values, and the argument a call passes for one
of its parameters."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.facts.literals import item as _item
from boundlint.analysis.facts.walk import kids, leaf_types

_DECLARES = leaf_types(cst.Nonlocal, cst.Global)
_CLASS_OR_LAMBDA = leaf_types(cst.ClassDef, cst.Lambda)
_SEQUENCES = leaf_types(cst.Tuple, cst.List)
_SCOPES = leaf_types(cst.FunctionDef, cst.Lambda, cst.ClassDef)


def assignments(func: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """Name -> values assigned to it in *func*'s own body (nested defs skipped), in one walk."""
    out: dict[str, list[cst.BaseExpression]] = {}
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        node = stack.pop()
        if type(node) in _DECLARES:  # a nested def rebinds it: its values are not all here
            for item in node.names:
                out.setdefault(item.name.value, []).append(cst.Name("__rebound__"))
        if type(node) in _CLASS_OR_LAMBDA:
            continue
        if type(node) is cst.FunctionDef:
            stack.extend(n for n in kids(node.body) if type(node.body) is cst.IndentedBlock)
            continue
        if type(node) is cst.Assign:
            for t in node.targets:
                if type(t.target) is cst.Name:
                    out.setdefault(t.target.value, []).append(node.value)
                elif type(t.target) in _SEQUENCES:  # a, b = pair: b is pair[1]
                    for i, elt in enumerate(t.target.elements):
                        if type(elt) is cst.StarredElement:
                            break
                        if type(elt.value) is cst.Name:
                            out.setdefault(elt.value.value, []).append(_item(node.value, i))
        elif type(node) is cst.AnnAssign and type(node.target) is cst.Name and node.value is not None:
            out.setdefault(node.target.value, []).append(node.value)
        elif type(node) is cst.NamedExpr and type(node.target) is cst.Name:
            out.setdefault(node.target.value, []).append(node.value)
        stack.extend(kids(node))
    return out


def param(func: cst.FunctionDef, name: str) -> cst.Param | None:
    params = func.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == name:
            return p
    star = params.star_arg
    if type(star) is cst.Param and star.name.value == name:
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
        if type(node) in _SCOPES:
            continue
        if type(node) is cst.Yield:
            return None
        if type(node) is cst.Return:
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
