"""Functions that run until cancelled, and the start-up part of a long-lived service's body: exact values."""
from __future__ import annotations

import ast
import textwrap

import libcst as cst

from boundlint.facts.placement import ONCE, UNKNOWN, ancestors_of, where_runs_why
from boundlint.facts.runs_forever import forever_guards, runs_forever
from boundlint.index import service

LOOPS = textwrap.dedent('''
    async def poll_forever(fetch, interval, once=False):
        while True:
            try:
                await fetch()
            except ConnectionError:
                return
            if once:
                return
            await sleep(interval)

    async def retry(op):
        while True:
            try:
                return await op()
            except ConnectionError:
                await sleep(1)

    async def until_done(queue):
        while True:
            item = await queue.get()
            if item is None:
                break
            await handle(item)

    async def until_empty(queue):
        while True:
            item = await queue.get()
            if item is None:
                return
            await handle(item)

    async def inner_break(batches):
        async with session() as s:
            while 1:
                for batch in batches:
                    if not batch:
                        break
                    await s.send(batch)

    async def skips_when_off(enabled=True):
        if not enabled:
            return
        while True:
            await tick()

    async def skips_on_a_setting():
        if not SETTINGS.on:
            return
        while True:
            await tick()

    class Pump:
        def stop(self):
            self._running = False

        async def run(self):
            while self._running:
                await self.step()

        async def drain(self):
            while self.pending:
                await self.step()
''')


def _defs(source: str) -> dict[str, tuple]:
    module = cst.parse_module(source)
    out = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            out[stmt.name.value] = (stmt, None)
        elif isinstance(stmt, cst.ClassDef):
            for inner in stmt.body.body:
                if isinstance(inner, cst.FunctionDef):
                    out[f"{stmt.name.value}.{inner.name.value}"] = (inner, stmt)
    return out


def _ast_defs(source: str) -> dict[str, list | None]:
    tree = ast.parse(source)
    out = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.AsyncFunctionDef):
            out[stmt.name] = service.forever(stmt, None)
        elif isinstance(stmt, ast.ClassDef):
            for inner in stmt.body:
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{stmt.name}.{inner.name}"] = service.forever(inner, stmt)
    return out


EXPECTED = {
    "poll_forever": [[["once", "truthy"]]],  # the handler's return is an exit on failure
    "retry": None,  # ends on success
    "until_done": None,  # a break of the loop
    "until_empty": None,  # a return on a local: the queue's end
    "inner_break": [],  # the break leaves the inner `for` only
    "skips_when_off": [[["enabled", "falsy"]]],
    "skips_on_a_setting": None,  # returns at once on a setting: no parameter a call could rule out
    "Pump.stop": None,
    "Pump.run": [],  # an instance flag the class sets to a bool: stopped by another method
    "Pump.drain": None,  # a collection, not a flag
}


def test_which_functions_run_until_cancelled_in_the_module():
    defs = _defs(LOOPS)
    assert {name: forever_guards(func, cls) for name, (func, cls) in defs.items()} == EXPECTED


def test_the_index_reads_the_same_shape():
    assert _ast_defs(LOOPS) == EXPECTED


def _call(text: str) -> cst.Call:
    return cst.parse_expression(text)


def test_a_call_that_rules_out_every_guarded_return_keeps_it_running():
    func, _ = _defs(LOOPS)["poll_forever"]
    assert runs_forever(func, _call("poll_forever(fetch, 5, once=False)"), 0) is True
    assert runs_forever(func, _call("poll_forever(fetch, 5, False)"), 0) is True
    assert runs_forever(func, _call("poll_forever(fetch, 5, once=True)"), 0) is False  # one pass, then returns
    assert runs_forever(func, _call("poll_forever(fetch, 5)"), 0) is False  # the default is not read: unknown
    assert runs_forever(func, _call("poll_forever(fetch, 5, once=flag)"), 0) is False
    retry, _ = _defs(LOOPS)["retry"]
    assert runs_forever(retry, _call("retry(op)"), 0) is False
