"""The names a fix writes, and the imports it adds: once, merged into an existing ``from X import``.

``reference(module, ("pydantic",), "Field")`` says how the module can name
``pydantic.Field`` (``Field``, ``F`` for ``import ... as F``, ``pydantic.Field``)
and which import that needs, if any; ``add_imports`` adds them.
"""
from __future__ import annotations

import libcst as cst


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _top_imports(module: cst.Module):
    """``(statement, small statement)`` of every top-level ``import`` / ``from ... import``."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    yield stmt, small


def top_level_names(module: cst.Module) -> set[str]:
    """Names the module binds at its top level: imports, functions, classes, assignment targets."""
    names: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        names.add(_dotted(alias.asname.name) if alias.asname else _dotted(alias.name).split(".")[0])
                elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        names.add(_dotted(alias.asname.name) if alias.asname else _dotted(alias.name))
                elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    names.update(t.value for t in targets if isinstance(t, cst.Name))
    return names


def reference(module: cst.Module, sources: tuple[str, ...], name: str) -> tuple[str, tuple[str, str] | None] | None:
    """How *module* names *name* of one of the modules *sources* (the first is the one to import from):
    ``(code, import needed or None)``; None when *name* is bound to something else already."""
    for _, small in _top_imports(module):
        if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative \
                and _dotted(small.module) in sources and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                if _dotted(alias.name) == name:
                    return (_dotted(alias.asname.name) if alias.asname else name), None
    for _, small in _top_imports(module):
        if isinstance(small, cst.Import):
            for alias in small.names:
                if _dotted(alias.name) in sources:
                    local = _dotted(alias.asname.name) if alias.asname else _dotted(alias.name)
                    return f"{local}.{name}", None
    if name in top_level_names(module):
        return None
    return name, (sources[0], name)


def module_reference(module: cst.Module, source: str) -> tuple[str, tuple[str, None] | None] | None:
    """How *module* names the module *source* itself (``grpc``): ``(code, import needed or None)``; None
    when the name is bound to something else."""
    for _, small in _top_imports(module):
        if isinstance(small, cst.Import):
            for alias in small.names:
                if _dotted(alias.name) == source:
                    return (_dotted(alias.asname.name) if alias.asname else source), None
    if source.split(".")[0] in top_level_names(module):
        return None
    return source, (source, None)


def add_imports(module: cst.Module, needed: list[tuple[str, str | None]]) -> cst.Module:
    """*module* with the imports *needed* (``(module, name)``; name None: ``import module``), each once:
    a name joins an existing top-level ``from module import ...``; a new statement goes after the
    module's leading imports (after its docstring and ``__future__`` imports when it has none)."""
    wanted: list[tuple[str, str | None]] = []
    for item in needed:
        if item not in wanted:
            wanted.append(item)
    body = list(module.body)
    new_lines: list[cst.SimpleStatementLine] = []
    for source, name in wanted:
        if name is None:
            if not _imports(body, source) and not any(cst.Module(body=[line]).code == f"import {source}\n"
                                                      for line in new_lines):
                new_lines.append(cst.parse_statement(f"import {source}\n"))
            continue
        for index, stmt in enumerate(body):
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if (isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative
                    and _dotted(small.module) == source and not isinstance(small.names, cst.ImportStar)):
                if any(_dotted(a.name) == name for a in small.names):
                    break
                from boundlint.fixes.nodes import _appended

                first = small.lpar.whitespace_after if small.lpar else cst.SimpleWhitespace("")
                names = _appended(list(small.names), cst.ImportAlias(cst.Name(name)), first)
                body[index] = stmt.with_changes(body=[small.with_changes(names=names)])
                break
        else:
            line = cst.parse_statement(f"from {source} import {name}\n")
            if not any(cst.Module(body=[n]).code == cst.Module(body=[line]).code for n in new_lines):
                new_lines.append(line)
    if not new_lines:
        return module.with_changes(body=body)
    at = _insert_at(body)
    return module.with_changes(body=body[:at] + new_lines + body[at:])


def _imports(body, source: str) -> bool:
    return any(isinstance(s, cst.Import) and any(_dotted(a.name) == source for a in s.names)
               for stmt in body if isinstance(stmt, cst.SimpleStatementLine) for s in stmt.body)


def _insert_at(body: list) -> int:
    """Where new imports go: after the last of the module's leading imports, else after its docstring and
    ``from __future__`` imports."""
    at = 0
    for index, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            break
        small = stmt.body[0]
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            at = index + 1
        elif index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            at = 1
        else:
            break
    return at
