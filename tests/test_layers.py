"""The layout shows the architecture: no import cycle between top-level packages of src/boundlint,
and ``ast.parse`` only where the engine asks CPython whether a file is Python, plus the places the
one-parse work has still to remove (named here, so that no new one appears)."""
from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "boundlint"
# The project index still reads modules with ``ast`` (its summary pass), and the locator asks it for
# a statement's line: the issue "One flow analysis" removes both.  Nothing else may parse with ``ast``.
AST_PARSE_LEFT = {"index/summary.py": 2, "analysis/locate.py": 1}


def _unit(path: Path) -> str:
    return path.relative_to(SRC).parts[0].removesuffix(".py")


def _imports(path: Path) -> tuple[set[str], int]:
    """The top-level units *path* imports (anywhere in the module, relative imports resolved) and
    its number of ``ast.parse`` calls."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = list(path.relative_to(SRC).parts[:-1])
    units, parses = set(), 0
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                head = [*base, *(node.module.split(".") if node.module else [])]
                names = ["boundlint." + ".".join(head + [a.name]) if head else f"boundlint.{a.name}" for a in node.names]
            else:
                names = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parse" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "ast":
            parses += 1
        for name in names:
            parts = name.split(".")
            if parts[0] == "boundlint" and len(parts) > 1:
                units.add(parts[1])
    return units, parses


def _graph() -> tuple[dict[str, set[str]], dict[str, int]]:
    known = {p.name if p.is_dir() else p.stem for p in SRC.iterdir()
             if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    edges: dict[str, set[str]] = {u: set() for u in known}
    parses: dict[str, int] = {}
    for path in SRC.rglob("*.py"):
        me = _unit(path)
        if me not in known:
            continue
        units, count = _imports(path)
        edges[me] |= {u for u in units if u in known and u != me}
        if count and me != "engine":
            parses[path.relative_to(SRC).as_posix()] = count
    return edges, parses


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more units (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_top_level_packages():
    edges, _ = _graph()
    assert {"analysis", "index", "rules", "config", "noqa", "kinds", "codes"} <= set(edges)
    assert _cycles(edges) == []


def test_the_layers_point_down():
    edges, _ = _graph()
    assert "analysis" not in edges["index"] and "rules" not in edges["index"]
    assert "rules" not in edges["config"] and "config" not in edges["noqa"]
    assert edges["kinds"] <= {"tables"}


def test_ast_parse_only_in_the_engine_and_the_named_places():
    _, parses = _graph()
    assert parses == AST_PARSE_LEFT
