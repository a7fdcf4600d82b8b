"""What a function binds to a local it hands to another function, and what it stores in application state.

Two facts for the project index, read with ``ast`` from what ``reader.FunctionReader`` already walked:

- ``local(reader, arg, prov)``: the provenance of a call's argument that is a local name (neither a
  parameter nor a per-item value): ``{"local": "models", "binds": [[kind, text], ...]}`` (or the
  ``{"param": "request.app.state.X"}`` its last binding gave, with ``binds`` when it has several), one pair per
  binding of that name in the function, *kind* one of ``"state"`` (an application's shared state,
  ``request.app.state.MODELS``), ``"fixed"`` (a constant, or a literal of 1 to ``HANDFUL`` entries
  whose unpacked parts are state or fixed), ``"param"`` (a parameter or an attribute of one, *text*
  its key) or ``"other"`` (also each place the function fills it: ``out.append(x)``); None for anything else;
- ``state_set(reader, stmt)``: for ``X.app.state.<attr> = value``, records ``[attr, kind, text, line]``
  in the function's ``state_sets`` when the value may be request input: ``"param"`` (a parameter
  or an attribute of one, *text* its key) or ``"input"`` (the request's body read there,
  ``await request.json()``).

Pure ``ast``; never raises for a tree ``ast.parse`` made.
"""
from __future__ import annotations

import ast

from boundlint.index.shapes import dotted

HANDFUL = 8  # entries a literal may hold and still be a fixed, small collection
_WRAPPERS = frozenset({"dict", "list", "tuple", "set", "sorted", "frozenset"})
_VIEWS = frozenset({"items", "keys", "values", "copy"})
_FILLS = frozenset({"append", "extend", "update", "add", "insert", "setdefault", "appendleft", "extendleft"})
_BODY_READS = frozenset({"json", "body", "form", "get_json", "read"})


def state_chain(expr: ast.AST) -> str | None:
    """The text of *expr* when it reads an attribute of an application's shared state
    (``request.app.state.MODELS``, ``app.state.MODELS``, ``getattr(request.app.state, "MODELS", None)``),
    through ``dict(...)`` / ``list(...)`` / ``.items()`` / ``.values()`` / ``.copy()``; else None."""
    while isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Name) and func.id == "getattr" and len(expr.args) >= 2 and isinstance(
                expr.args[1], ast.Constant) and isinstance(expr.args[1].value, str):
            base = dotted(expr.args[0])
            return f"{base}.{expr.args[1].value}" if base and _is_state(base + ".x") else None
        if isinstance(func, ast.Name) and func.id in _WRAPPERS and len(expr.args) == 1:
            expr = expr.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in _VIEWS and not expr.args:
            expr = func.value
        else:
            return None
    text = dotted(expr)
    return text if text and _is_state(text) else None


def _is_state(text: str) -> bool:
    """``app.state.<attr>`` is a part of the dotted *text*, with at least one attribute after ``state``."""
    parts = text.split(".")
    return any(parts[i] == "app" and parts[i + 1] == "state" for i in range(len(parts) - 2))


def kind(value: ast.AST, params: list[str]) -> list[str]:
    """``[kind, text]`` of one value bound to a local (see the module doc)."""
    found = state_chain(value)
    if found:
        return ["state", found]
    if isinstance(value, ast.Constant):
        return ["fixed", "a constant"]
    if isinstance(value, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        entries = value.keys if isinstance(value, ast.Dict) else value.elts
        spread = [v for k, v in zip(value.keys, value.values) if k is None] if isinstance(value, ast.Dict) else [
            e.value for e in value.elts if isinstance(e, ast.Starred)]
        if not entries or len(entries) > HANDFUL:  # built empty: as large as what fills it
            return ["other", f"a literal of {len(entries)} entries"]
        kinds = [kind(s, params) for s in spread]
        if any(k[0] not in ("state", "fixed") for k in kinds):
            return ["other", "a literal that unpacks another collection"]
        state = next((k for k in kinds if k[0] == "state"), None)
        count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
        return ["state", state[1]] if state else ["fixed", f"a literal of {count}"]
    text = dotted(value)
    if text and text.split(".", 1)[0] in params and text.split(".", 1)[0] not in ("self", "cls"):
        return ["param", text]
    return ["other", (text or type(value).__name__)[:60]]


def _bindings(reader) -> dict[str, list]:
    """Name -> the values the function binds it to (None for a binding that is no plain assignment:
    a loop target, an unpacking, ``+=``, and for each fill, ``out.append(x)`` or ``out[k] = v``), from
    the names the body walk saw; built once per function."""
    found = getattr(reader, "_local_binds", None)
    if found is None:
        found = {}
        for node, parent in reader.body.names:
            if type(node.ctx) is not ast.Store:
                if (isinstance(parent, ast.Attribute) and parent.attr in _FILLS) or (
                        isinstance(parent, ast.Subscript) and type(parent.ctx) is ast.Store):
                    found.setdefault(node.id, []).append(None)  # `out.append(x)`, `out[k] = v`: filled here
                continue
            if isinstance(parent, ast.Assign) and any(t is node for t in parent.targets):
                value = parent.value
            elif isinstance(parent, ast.AnnAssign) and parent.target is node and parent.value is not None:
                value = parent.value
            else:
                value = None
            found.setdefault(node.id, []).append(value)
        reader._local_binds = found
    return found


def local(reader, arg: ast.AST, prov: dict | None) -> dict | None:
    """The provenance of the call argument *arg*: *prov* (``reader.prov``, which keeps a local's last
    binding only) with the kinds of every binding when *arg* is a local name the function binds and
    *prov* is None, or is application state (``{"param": "request.app.state.X"}``) and the function
    binds the name more than once (see the module doc); *prov* for anything else."""
    if not isinstance(arg, ast.Name) or arg.id in reader.params or (
            prov is not None and not _is_state(prov.get("param") or "")):
        return prov
    values = _bindings(reader).get(arg.id)
    if not values or (prov is not None and len(values) < 2):
        return prov
    return {**(prov or {"local": arg.id}),
            "binds": [kind(v, reader.params) if v is not None else ["other", "a rebinding"] for v in values]}


def state_set(reader, stmt: ast.Assign) -> None:
    """Record in ``reader.out["state_sets"]`` an assignment of application state whose value may be
    request input (see the module doc)."""
    for target in stmt.targets:
        text = dotted(target) if isinstance(target, ast.Attribute) else None
        if not text or not _is_state(text):
            continue
        value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _BODY_READS
                and (dotted(value.func.value) or "").split(".", 1)[0] in reader.params):
            entry = [text.rsplit(".", 1)[-1], "input", dotted(value.func) or "", stmt.lineno]
        else:
            found = kind(value, reader.params)
            if found[0] != "param":
                continue
            entry = [text.rsplit(".", 1)[-1], "param", found[1], stmt.lineno]
        reader.out.setdefault("state_sets", []).append(entry)
