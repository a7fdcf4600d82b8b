"""The per-item, per-request and run-time-data fixpoints over the project's call graph (index.queries.reach, rows)."""
from __future__ import annotations

import textwrap

import pytest

from boundlint.index import build
from boundlint.index.queries.reach import REACH_STEPS, per_item_through, per_item_wrapped, per_run_through
from boundlint.index.queries.rows import gives_rows


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    build.reset()

    def make(**modules: str):
        (tmp_path / "app").mkdir(exist_ok=True)
        (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
        for name, text in modules.items():
            (tmp_path / "app" / f"{name}.py").write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return build.index_for(str(tmp_path / "app" / "__init__.py"))

    yield make
    build.reset()


def _chain(levels: int) -> str:
    defs = [f"def level{i}(x):\n    level{i + 1}(x)\n" for i in range(1, levels)]
    return "\n\n".join([*defs, f"def level{levels}(x):\n    return x\n"])


def test_a_chain_of_plain_calls_of_any_module_runs_per_item(project):
    index = project(jobs="""
        from .helpers import level1

        def run(rows):
            for row in rows:
                level1(row)
        """, helpers=_chain(3))
    assert per_item_through(index, "app.helpers.level3") == [
        "`run()` calls `level1()` per item of `rows` (app/jobs.py:5)",
        "`level1()` calls `level2()` (app/helpers.py:2)",
        "`level2()` calls `level3()` (app/helpers.py:6)",
    ]


def test_the_chain_is_capped_at_reach_steps(project):
    index = project(jobs="""
        from .helpers import level1

        def run(rows):
            for row in rows:
                level1(row)
        """, helpers=_chain(REACH_STEPS + 1))
    assert len(per_item_through(index, f"app.helpers.level{REACH_STEPS}")) == REACH_STEPS
    assert per_item_through(index, f"app.helpers.level{REACH_STEPS + 1}") is None


def test_recursion_is_no_caller_and_the_shortest_chain_wins(project):
    index = project(jobs="""
        from .helpers import deep, leaf

        def run(rows):
            for row in rows:
                deep(row)
                leaf(row)
        """, helpers="""
        def deep(x):
            middle(x)

        def middle(x):
            leaf(x)
            middle(x)

        def leaf(x):
            return x
        """)
    assert per_item_through(index, "app.helpers.leaf") == ["`run()` calls `leaf()` per item of `rows` (app/jobs.py:6)"]
    assert per_item_through(index, "app.helpers.middle") == [
        "`run()` calls `deep()` per item of `rows` (app/jobs.py:5)",
        "`deep()` calls `middle()` (app/helpers.py:2)",
    ]


def test_a_single_call_or_a_fixed_loop_is_not_per_item(project):
    index = project(jobs="""
        from .helpers import level1

        def once(row):
            level1(row)

        def fixed():
            for row in ("a", "b"):
                level1(row)
        """, helpers=_chain(2))
    assert per_item_through(index, "app.helpers.level2") is None


def test_a_decorators_wrapper_runs_per_item_when_what_it_decorates_does(project):
    index = project(db="""
        def with_conn(fn):
            def wrapper(*args):
                return fn(None, *args)
            return wrapper
        """, prices="""
        from .db import with_conn

        @with_conn
        def upsert(conn, sku):
            return sku

        @with_conn
        def audit(conn, count):
            return count
        """, jobs="""
        from .prices import audit, upsert

        def sync(rows):
            for row in rows:
                upsert(row)
            audit(len(rows))
        """)
    assert per_item_wrapped(index, "app.db.with_conn") == [
        "`sync()` calls `upsert()` per item of `rows` (app/jobs.py:5)",
        "`upsert()` is wrapped by `@with_conn` (app/prices.py:4)",
    ]


def test_roles_seed_the_per_request_and_per_message_chains(project):
    index = project(routes="""
        from fastapi import APIRouter

        from .store import lookup

        router = APIRouter()

        @router.get("/items/{key}")
        def get_item(key: str):
            return lookup(key)
        """, tasks="""
        from celery import shared_task

        from .store import save

        @shared_task
        def store(key):
            save(key)
        """, store="""
        def lookup(key):
            return key

        def save(key):
            return key

        def unused(key):
            return key
        """)
    assert per_run_through(index, "app.store.lookup") == [
        "`get_item()` runs once per request (app/routes.py:8)",
        "`get_item()` calls `lookup()` (app/routes.py:9)",
    ]
    assert per_run_through(index, "app.store.save") == [
        "`store()` runs once per message (app/tasks.py:6)",
        "`store()` calls `save()` (app/tasks.py:7)",
    ]
    assert per_run_through(index, "app.store.unused") is None


def test_rows_a_function_hands_back_reach_through_other_functions(project):
    index = project(repo="""
        def pending(conn):
            with conn.cursor() as cur:
                cur.execute("SELECT 1")
                return cur.fetchall()

        def sorted_pending(conn):
            return sorted(pending(conn))

        def channels():
            return ["email", "sms"]
        """, jobs="""
        from .repo import channels, sorted_pending

        def drain(conn, send):
            for row in sorted_pending(conn):
                send(row)

        def notify(send):
            for name in channels():
                send(name)
        """)
    found = "`cur.fetchall()` in `pending()` (app/repo.py:4)"
    assert gives_rows(index, "app.repo.pending") == found
    assert gives_rows(index, "app.repo.sorted_pending") == found
    assert gives_rows(index, "app.repo.channels") is None


def test_a_tests_loop_is_no_per_item_caller(project):
    index = project(test_jobs="""
        from .helpers import level1

        def test_many(rows):
            for row in rows:
                level1(row)
        """, helpers=_chain(2))
    assert per_item_through(index, "app.helpers.level1") is None
    assert per_item_through(index, "app.helpers.level2") is None
