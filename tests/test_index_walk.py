"""The index's one walk of a function body (index/body.py) answers as a walk per question would."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from boundlint.index import body, hooks
from boundlint.index.shapes import absorbs
from boundlint.index.summary import summarize

SOURCE = textwrap.dedent('''
    import asyncio
    from typing import Annotated
    from fastapi import FastAPI, Query
    from app import constants

    app = FastAPI()

    def register(router, store):
        @router.get("/items")
        async def items(limit: Annotated[int, Query(le=constants.MAX)] = 10):
            return await store.page(limit)

        class Hooks:
            def install(self):
                app.add_event_handler("startup", self.warm)

            def warm(self):
                pass

        try:
            asyncio.run(store.ping())
        except Exception:
            pass
        handler = lambda: store.flush()
        return handler

    async def serve(queue, body):
        async with queue.lock:
            item = await queue.get()
        for key in body.keys:
            await send(body.meta, key)
        if (size := len(body.ids)) > 10:
            raise ValueError(size)
        return [x async for x in queue]

    def pick(names, wanted):
        yield from (n for n in names if n in wanted)

    def relay(item, b=None):
        return item

    def forward(body):
        relay(relay(body), b=body)
''')


def _functions(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _own(func) -> list[ast.AST]:
    """Every node of *func*'s own body, nested functions, classes and lambdas left out."""
    out, stack = [], list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _absorbed(func) -> set[int]:
    out, stack = set(), [(node, False) for node in func.body]
    while stack:
        node, under = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if under and isinstance(node, ast.Call):
            out.add(id(node))
        if isinstance(node, ast.Try) and absorbs(node):
            stack.extend((child, True) for child in node.body)
            stack.extend((child, under) for child in node.handlers + node.orelse + node.finalbody)
            continue
        stack.extend((child, under) for child in ast.iter_child_nodes(node))
    return out


def _agrees(func) -> None:
    """``body.walk`` of *func* against one plain walk per question."""
    found = body.walk(func, [a.arg for a in func.args.args])
    everything = [n for stmt in func.body for n in ast.walk(stmt)]
    assert [n for n, _ in found.names] == [n for n in everything if isinstance(n, ast.Name)]
    parents = {id(c): n for n in everything for c in ast.iter_child_nodes(n)}
    assert all(parents.get(id(n)) is p for n, p in found.names)
    assert [id(c) for c in found.calls] == [id(n) for n in everything if isinstance(n, ast.Call)]
    own = _own(func)
    assert {id(r) for r in found.returns} == {id(n) for n in own if isinstance(n, ast.Return)}
    assert found.yields == any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own)
    assert found.bound == {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    assert found.absorbed == _absorbed(func)
    assert found.awaits_other == any(
        isinstance(n, (ast.AsyncWith, ast.AsyncFor)) or (isinstance(n, ast.Await) and not isinstance(n.value, ast.Call))
        or (isinstance(n, ast.comprehension) and n.is_async) for n in own)


def test_walk_answers_each_question_as_its_own_walk_would():
    funcs = _functions(ast.parse(SOURCE))
    assert [f.name for f in funcs][:3] == ["register", "serve", "pick"]
    for func in funcs:
        _agrees(func)
    register, serve = funcs[0], funcs[1]
    found = body.walk(serve, ["queue", "body"])
    assert found.awaits_other and found.bound == {"item", "key", "size", "x"}
    assert [n.id for n, _ in found.names if n.id == "body"] == ["body", "body", "body"]
    walked = body.walk(register, ["router", "store"])
    assert [c.name for c in walked.classes] == ["Hooks"]
    assert len(walked.absorbed) == 2  # asyncio.run(...) and store.ping() in the catch-all try


def test_walk_agrees_on_boundlint_own_sources():
    src = Path(__file__).resolve().parent.parent / "src" / "boundlint"
    count = 0
    for path in sorted(src.rglob("*.py")):
        for func in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            _agrees(func)
            count += 1
    assert count > 500


def test_hooks_read_from_the_walk_as_from_the_tree():
    tree = ast.parse(SOURCE)
    summary = summarize(SOURCE, "app.routes", False)
    # the nested class registers its own method; the parameter's `Query(le=constants.MAX)` hands nothing over
    assert summary["hooks"] == ["app.routes.Hooks.warm"]
    assert "app.constants.MAX" not in summary["passed"]

    def ref(expr):
        name = hooks.dotted(expr)
        return f"x.{name}" if name else None

    walked = {id(f): body.walk(f, []) for f in tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert hooks.links(tree, ref, "app.routes", walked) == hooks.links(tree, ref, "app.routes")


def test_param_reads_keep_their_order_from_the_walk():
    summary = summarize(SOURCE, "app.routes", False)
    reads = summary["functions"]["serve"]["reads"]
    assert reads["body"] == {"read": {"keys": 31, "meta": 32, "ids": 33}, "cleared": {}, "whole": 0, "passed": []}
    # hand-overs in the order ast.walk meets them: the inner call's argument before the outer keyword
    assert summary["functions"]["forward"]["reads"]["body"]["passed"] == [
        ["app.routes.relay", 0, 44], ["app.routes.relay", "b", 44]]
    assert summary["functions"]["serve"]["pool_other"] is True
    assert summary["functions"]["pick"]["returns"] is None
