"""The ``once_callers`` query: a function runs once when every caller the project shows is a once-context."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

from boundlint.index import queries
from boundlint.index.build import build_index
from boundlint.index.view import ProjectView, still_valid
from conftest import FIXTURES

HOOKS = '''\
from contextlib import asynccontextmanager

from fastapi import FastAPI

from . import work


@asynccontextmanager
async def lifespan(app):
    await work.restore()
    await work.ping()
    yield
    await work.d1()


async def stop():
    await work.drain()


async def warm():
    await work.warm_up()


def main():
    work.serve()


app = FastAPI(lifespan=lifespan, on_startup=[warm])
app.add_event_handler("shutdown", stop)


@app.get("/ping")
async def ping_route():
    await work.ping()


@asynccontextmanager
async def session():
    await work.open_all()
    yield


@app.get("/items")
async def items():
    async with session():
        pass
'''

WORK = '''\
async def restore():
    await walk(0)


async def walk(n):  # recursive: its self-call runs only when restore() runs
    await walk(n + 1)
    await other(n)


async def other(n):  # a cycle with walk(): terminates, decided by walk's callers
    await walk(n)


async def ping():
    pass


async def drain():
    pass


async def warm_up():
    pass


def serve():
    pass


async def lonely():
    pass


async def spin_a():
    await spin_b()


async def spin_b():  # a cycle no once-context enters
    await spin_a()


async def d1():
    await d2()


async def d2():
    await d3()


async def d3():
    await d4()


async def d4():
    await d5()


async def d5():
    pass


async def open_all():
    pass
'''


def _project(tmp_path, **extra: str):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    pkg = tmp_path / "app"
    pkg.mkdir(exist_ok=True)
    files = {"__init__.py": "", "hooks.py": HOOKS, "work.py": WORK, **extra}
    for name, text in files.items():
        path = pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return build_index(str(tmp_path), True)


def test_hooks_by_name_decorator_and_registration_make_their_callees_run_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _project(tmp_path)
    assert queries.once_callers(index, "app.work.restore") == ["`lifespan()` (app/hooks.py:10)"]
    assert queries.once_callers(index, "app.work.drain") == ["`stop()` (app/hooks.py:17)"]  # add_event_handler
    assert queries.once_callers(index, "app.work.warm_up") == ["`warm()` (app/hooks.py:21)"]  # on_startup=[...]


def test_one_caller_of_another_role_or_none_at_all_is_not_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _project(tmp_path)
    assert queries.once_callers(index, "app.work.ping") is None  # also a GET handler's
    assert queries.once_callers(index, "app.work.lonely") is None  # no known caller: unknown
    assert queries.once_callers(index, "app.work.serve") is None  # main() is an entry point
    # a context manager is once by its decorator, but a GET handler enters it per request
    assert queries.once_callers(index, "app.work.open_all") is None
    assert queries.once_callers(index, "app.work.missing") is None


def test_recursion_and_cycles_terminate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _project(tmp_path)
    assert queries.once_callers(index, "app.work.walk") == [
        "`restore()` (app/work.py:2), only called from `lifespan()` (app/hooks.py:10)"]
    assert queries.once_callers(index, "app.work.other") == [
        "`walk()` (app/work.py:7), only called from `restore()` (app/work.py:2), "
        "only called from `lifespan()` (app/hooks.py:10)"]
    assert queries.once_callers(index, "app.work.spin_a") is None


def test_callers_are_followed_three_levels_and_no_further(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _project(tmp_path)
    # lifespan() -> d1() -> d2() -> d3() -> d4() -> d5()
    assert queries.once_callers(index, "app.work.d4") == [
        "`d3()` (app/work.py:51), only called from `d2()` (app/work.py:47), only called from "
        "`d1()` (app/work.py:43), only called from `lifespan()` (app/hooks.py:13)"]
    assert queries.once_callers(index, "app.work.d5") is None  # past the depth: unknown


def test_a_while_loop_a_scheduler_or_a_test_decide_as_they_should(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    extra = {
        "jobs.py": ("from .work import drain, lonely, warm_up\n\n\nasync def startup(scheduler):\n"
                    "    while True:\n        await drain()\n    scheduler.add_job(warm_up, 'interval')\n"
                    "    await lonely()\n"),
        "tests/test_work.py": "from app.work import restore\n\n\nasync def test_restore():\n    await restore()\n",
    }
    index = _project(tmp_path, **extra)
    assert queries.once_callers(index, "app.work.drain") is None  # also on every pass of a start-up's loop
    assert queries.once_callers(index, "app.work.warm_up") is None  # a scheduler runs it on its clock
    assert queries.once_callers(index, "app.work.lonely") == ["`startup()` (app/jobs.py:8)"]
    assert queries.once_callers(index, "app.work.restore") == ["`lifespan()` (app/hooks.py:10)"]  # tests aside


def test_the_answer_is_recorded_and_a_new_caller_invalidates_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _project(tmp_path)
    view = ProjectView(index, index.modules["app.work"])
    assert view.ask("once_callers", "app.work.drain") == ["`stop()` (app/hooks.py:17)"]
    own_names = json.dumps(["module_names", index.modules["app.work"].path])  # recorded with every view
    assert list(view.consulted) == [own_names, '["once_callers", "app.work.drain"]']
    assert still_valid(index, view.consulted)
    changed = _project(tmp_path, **{"api.py": "from .work import drain\n\n\ndef flush():\n    return drain()\n"})
    assert not still_valid(changed, view.consulted)


def test_the_reason_names_the_callers_through_the_command_line(tmp_path):
    shutil.copytree(FIXTURES / "projects" / "gateway", tmp_path / "gateway")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--min-severity", "low",
                           "--output-format", "json", "gateway"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    reasons = {(f["path"], f["line"], f["code"]): (f["severity"], f["severity_reason"]) for f in json.loads(proc.stdout)}
    assert reasons[("gateway/routes.py", 17, "BND101")] == (
        "low", "runs once: only called from `lifespan()` (gateway/app.py:14)")
    assert reasons[("gateway/routes.py", 37, "BND101")] == (
        "low", "runs once: only called from `stop()` (gateway/app.py:25)")
    assert reasons[("gateway/routes.py", 70, "BND101")] == (
        "low", "runs once: only called from `lifespan()` (gateway/app.py:21)")
    assert reasons[("gateway/routes.py", 27, "BND101")][0] == "medium"  # a request handler calls it too



START = '''\
from contextlib import asynccontextmanager
from functools import cache

from fastapi import FastAPI

from . import tasks


def create_app(scheduler):
    async def warm():
        await tasks.migrate()

    async def nightly():
        await tasks.nightly()

    def poll():
        tasks.poll()

    while scheduler.running:
        poll()

    @asynccontextmanager
    async def lifespan(app):
        await warm()
        yield

    app = FastAPI(lifespan=lifespan)
    scheduler.add_job(nightly, "cron")

    @app.get("/ping")
    async def ping_route():
        await tasks.pong()

    return app


@cache
def plugins():
    return tasks.load()


def by_group(group):
    return tasks.group()


class Store:
    def __init__(self):
        self.ready = False

    def prepare(self):
        if not self.ready:
            tasks.columns()
            self.ready = True
        tasks.after()
'''

TASKS = "".join(f"async def {n}():\n    pass\n\n\n" for n in ("migrate", "nightly", "pong", "load", "group", "columns", "after", "poll"))


def test_closures_memoized_loaders_and_once_flags_run_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _project(tmp_path, **{"start.py": START, "tasks.py": TASKS})
    # create_app() runs lifespan (a hook), which runs warm(): their calls are create_app()'s own
    assert queries.once_callers(index, "app.tasks.migrate") == ["`warm()` in `create_app()` (app/start.py:11)"]
    # a nested function handed to a scheduler, or a nested route, runs on its own schedule
    assert queries.once_callers(index, "app.tasks.nightly") is None
    assert queries.once_callers(index, "app.tasks.pong") is None
    assert queries.once_callers(index, "app.tasks.poll") is None  # run on every pass of create_app()'s loop
    # @cache without parameters: once per process; with a parameter, once per argument
    assert queries.once_callers(index, "app.tasks.load") == ["`plugins()` (app/start.py:39)"]
    assert queries.once_callers(index, "app.tasks.group") is None
    facts = index.modules["app.start"].summary["functions"]
    assert (facts["plugins"]["role"], facts["plugins"]["memoized"]) == ("once", True)
    assert (facts["by_group"]["role"], facts["by_group"]["memoized"]) == (None, False)
    # under `if not self.ready:` that sets it: once whoever calls prepare(); after the block: not shown
    assert facts["Store.prepare"]["once_spans"] == [[52, 53, "self.ready"]]
    assert queries.once_callers(index, "app.tasks.columns") == [
        "`Store.prepare()` (app/start.py:52) under the once-flag `self.ready`"]
    assert queries.once_callers(index, "app.tasks.after") is None


def test_a_memoized_loader_is_once_even_when_requests_call_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    extra = {"loader.py": ("from functools import lru_cache\n\nfrom . import work\n\n\n@lru_cache(maxsize=None)\n"
                           "def catalog():\n    return work.lonely()\n"),
             "api.py": ("from fastapi import FastAPI\n\nfrom .loader import catalog\n\napp = FastAPI()\n\n\n"
                        "@app.get('/catalog')\ndef read():\n    return catalog()\n")}
    index = _project(tmp_path, **extra)
    assert queries.once_callers(index, "app.work.lonely") == ["`catalog()` (app/loader.py:8)"]


MIGRATE = '''\
from concurrent.futures import ThreadPoolExecutor

from . import work

ENABLE_DB_MIGRATIONS = True


class Client:
    def __init__(self, names):
        if ENABLE_DB_MIGRATIONS:
            with ThreadPoolExecutor(4) as pool:
                list(pool.map(work.backfill, names))
        else:
            work.skip()
        work.after()

    def search(self, names):
        with ThreadPoolExecutor(4) as pool:
            return [pool.submit(work.lookup, n) for n in names]
'''

MIGRATE_WORK = '''\
def backfill(name):
    pass


def skip():
    pass


def after():
    pass


def lookup(name):
    pass
'''


def test_a_migrations_flag_makes_its_branch_once_and_a_pool_runs_what_it_is_handed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = _project(tmp_path, **{"store.py": MIGRATE, "work.py": MIGRATE_WORK})
    facts = index.modules["app.store"].summary["functions"]
    assert facts["Client.__init__"]["once_spans"] == [[11, 12, "ENABLE_DB_MIGRATIONS", "migrations"]]
    # pool.map(work.backfill, names) under the flag: a call per item, in a migration step
    assert queries.once_callers(index, "app.work.backfill") == [
        "`Client.__init__()` (app/store.py:12) under the migrations flag `ENABLE_DB_MIGRATIONS`"]
    assert queries.once_callers(index, "app.work.skip") is None  # the `else`: no migration
    assert queries.once_callers(index, "app.work.after") is None  # after the block: every construction
    assert queries.once_callers(index, "app.work.lookup") is None  # handed to a pool per search
    assert "app.work.backfill" not in index.modules["app.store"].summary["passed"]


def test_a_registrar_call_registers_its_function_and_a_hook_handed_elsewhere_stays_handed_over(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    server = (FIXTURES / "projects" / "listeners" / "server.py").read_text(encoding="utf-8")
    index = _project(tmp_path, **{"server.py": server})
    summary = index.modules["app.server"].summary
    assert summary["hooks"] == ["app.server.Server._bind_all", "app.server.refresh", "app.server.warm_caches"]
    assert summary["passed"] == ["app.server.refresh"]  # app.add_route(refresh, ...)
    assert queries.once_callers(index, "app.server.warm_caches") == [
        "its registration as a start-up or shutdown hook of `warm_caches()`"]
    assert queries.once_callers(index, "app.server.Server._bind_all") == [
        "its registration as a start-up or shutdown hook of `Server._bind_all()`"]
    assert queries.once_callers(index, "app.server.refresh") is None


def test_a_stop_that_clears_its_start_flag_runs_once_per_start_through_an_attribute_of_its_object(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = FIXTURES / "projects" / "shutdown"
    extra = {name: (folder / name).read_text(encoding="utf-8") for name in ("canceller.py", "runner.py")}
    index = _project(tmp_path, **extra)
    facts = index.modules["app.runner"].summary["functions"]
    assert facts["Runner.stop"]["once_spans"] == [[28, 29, "self.started", "stop"]]
    assert facts["Runner.flush"]["once_spans"] == []  # sets the flag back: a reentrancy guard
    # self._canceller = Canceller(...) in start(): the calls through it are call sites of Canceller's methods
    assert facts["Runner.stop"]["attr_calls"] == [
        {"ref": "app.canceller.Canceller.cancel_all", "line": 29, "col": 15, "loop": None}]
    assert facts["Runner.poll"]["attr_calls"][0]["loop"] == {"text": "while", "bounded": False}
    assert queries.once_callers(index, "app.canceller.Canceller.cancel_all") == [
        "`Runner.stop()` (app/runner.py:29) under the flag `self.started`, which it clears: once per start"]
    assert queries.once_callers(index, "app.canceller.Canceller.cancel_stale") is None  # every pass of poll()
