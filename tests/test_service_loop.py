"""Functions that run until cancelled, and the start-up part of a long-lived service's body: exact values."""
from __future__ import annotations

import ast
import textwrap

import libcst as cst

from boundlint.analysis.facts.placement import ONCE, UNKNOWN, ancestors_of, where_runs_why
from boundlint.analysis.facts.runs_forever import forever_guards, runs_forever
from boundlint.index import service

LOOPS = textwrap.dedent('''
    async def poll_forever(fetch, interval, once=False):
        while True:
            try:
                await fetch()
            except asyncio.CancelledError:
                return
            except ConnectionError:
                log.warning("poll failed")
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

    async def gives_up(fetch):
        while True:
            try:
                await fetch()
            except ConnectionError:
                return

    def drain_queue(q):
        while True:
            try:
                q.get_nowait()
            except queue.Empty:
                break

    def drain_socket(sock):
        try:
            while True:
                sock.recv(4096)
        except BlockingIOError:
            pass

    def drain_quietly(sock):
        with contextlib.suppress(BlockingIOError):
            while True:
                sock.recv(4096)

    async def until_broken(stream):
        with pytest.raises(BrokenPipeError):
            while True:
                await stream.send(b"x")

    async def logs_and_raises(fetch):
        try:
            while True:
                await fetch()
        except Exception:
            log.exception("loop died")
            raise

    async def ticks():
        while True:
            yield now()

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
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[stmt.name] = service.forever(stmt, None)
        elif isinstance(stmt, ast.ClassDef):
            for inner in stmt.body:
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{stmt.name}.{inner.name}"] = service.forever(inner, stmt)
    return out


EXPECTED = {
    "poll_forever": [[["once", "truthy"]]],  # the return on cancellation is the way it ends
    "retry": None,  # ends on success
    "until_done": None,  # a break of the loop
    "until_empty": None,  # a return on a local: the queue's end
    "inner_break": [],  # the break leaves the inner `for` only
    "skips_when_off": [[["enabled", "falsy"]]],
    "skips_on_a_setting": None,  # returns at once on a setting: no parameter a call could rule out
    "gives_up": None,  # returns on the first failure: no service loop
    "drain_queue": None,  # `except queue.Empty: break`: runs until the queue is empty
    "drain_socket": None,  # the try around the loop goes on after BlockingIOError: until nothing is left
    "drain_quietly": None,  # the same through `suppress(...)`
    "until_broken": None,  # the test expects the loop to end on a failure it swallows
    "logs_and_raises": [],  # a failure is raised out of it: it runs until then
    "ticks": None,  # a generator
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


def test_the_index_answers_for_a_call_across_modules(tmp_path, monkeypatch):
    from boundlint.index.build import build_index
    from boundlint.index.service import runs_forever as asked

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    pkg = tmp_path / "svc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "loops.py").write_text(LOOPS, encoding="utf-8")
    index = build_index(str(tmp_path), True)
    facts = index.function("svc.loops.poll_forever")[2]
    assert facts["forever"] == [[["once", "truthy"]]]
    assert "forever" not in index.function("svc.loops.retry")[2]
    assert asked(index, "svc.loops.poll_forever", [["once", "falsy"]]) == "`poll_forever()` (svc/loops.py:2)"
    assert asked(index, "svc.loops.poll_forever", [[2, "falsy"]]) == "`poll_forever()` (svc/loops.py:2)"
    assert asked(index, "svc.loops.poll_forever", [["once", "truthy"]]) is None
    assert asked(index, "svc.loops.poll_forever", []) is None
    assert asked(index, "svc.loops.inner_break", []) == "`inner_break()` (svc/loops.py:35)"
    assert asked(index, "svc.loops.Pump.run", []) == "`run()` (svc/loops.py:102)"
    assert asked(index, "svc.loops.retry", []) is None
    assert asked(index, "svc.loops.missing", []) is None


SERVICE = textwrap.dedent('''
    import anyio

    class Relay:
        async def pump(self, once=False):
            while True:
                await self.step()
                if once:
                    return

        async def step(self):
            for source in self.sources:
                log.info("pass over %s", source)

        async def run(self, limit=10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.pump, False)
                for source in self.sources:
                    tg.start_soon(self.fetch, source)

        async def refresh(self):
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.pump, True)
                for source in self.sources:
                    tg.start_soon(self.fetch, source)

        async def session(self, stream):
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.pump, False)
                for source in stream.sources:
                    tg.start_soon(self.fetch, source)

        async def before(self):
            for source in self.sources:
                await self.fetch(source)
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.pump, False)

        async def passes(self):
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.pump, False)
                while self.sources:
                    tg.start_soon(self.fetch, self.sources.pop())
''')


def _where(source: str, holder: str, callee: str) -> tuple[str, str]:
    """``where_runs_why`` of the last call of *callee* (its text) inside the def *holder*."""
    module = cst.parse_module(source)
    cls = next(s for s in module.body if isinstance(s, cst.ClassDef))
    func = next(s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == holder)
    found, stack = None, [func]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and module.code_for_node(node.func) == callee:
            found = node
        stack.extend(reversed(node.children))
    return where_runs_why("svc/relay.py", [module, *ancestors_of(module, found)], None)


def test_the_start_up_part_of_a_service_body_runs_once_per_start():
    assert _where(SERVICE, "run", "tg.start_soon") == (
        ONCE, "runs once per start: its task group runs `pump()` until cancelled, "
              "so `run()` is a long-lived service's body")
    assert _where(SERVICE, "refresh", "tg.start_soon") == (UNKNOWN, "")  # `pump(True)` returns after one pass
    assert _where(SERVICE, "session", "tg.start_soon") == (UNKNOWN, "")  # started with a stream: per connection
    assert _where(SERVICE, "before", "self.fetch") == (UNKNOWN, "")  # outside the task group
    assert _where(SERVICE, "passes", "tg.start_soon") == (UNKNOWN, "")  # a `while` of its own repeats
    assert _where(SERVICE, "step", "log.info") == (UNKNOWN, "")  # the service loop's own work: every pass
