"""Import-aware name resolution: every import form resolves to the canonical qualified name."""
from __future__ import annotations

import libcst as cst
import pytest

from boundlint.analysis.names import ImportTable


def table(source: str) -> ImportTable:
    t = ImportTable()
    for stmt in cst.parse_module(source).body:
        for small in getattr(stmt, "body", ()):
            if isinstance(small, cst.Import):
                t.add_import(small)
            elif isinstance(small, cst.ImportFrom):
                t.add_import_from(small)
    return t


@pytest.mark.parametrize(("source", "expr", "expected"), [
    ("import asyncio", "asyncio.gather", "asyncio.gather"),
    ("import asyncio as aio", "aio.gather", "asyncio.gather"),
    ("from asyncio import gather as g", "g", "asyncio.gather"),
    ("from asyncio.tasks import gather", "gather", "asyncio.gather"),
    ("from concurrent import futures", "futures.ThreadPoolExecutor", "concurrent.futures.ThreadPoolExecutor"),
    ("import concurrent.futures", "concurrent.futures.ProcessPoolExecutor", "concurrent.futures.ProcessPoolExecutor"),
    ("import concurrent.futures as cf", "cf.ThreadPoolExecutor", "concurrent.futures.ThreadPoolExecutor"),
    ("from multiprocessing.dummy import Pool", "Pool", "multiprocessing.ThreadPool"),
    ("from anyio import create_task_group as ctg", "ctg", "anyio.create_task_group"),
    ("import trio", "trio.open_nursery", "trio.open_nursery"),
    ("from threading import Thread", "Thread", "threading.Thread"),
    ("from .local import gather", "gather", ".local.gather"),
    ("import asyncio", "gather", None),
    ("import asyncio", "loop.create_task", None),
])
def test_resolve(source, expr, expected):
    assert table(source).resolve(cst.parse_expression(expr)) == expected


def test_later_import_wins():
    t = table("from asyncio import wait\nfrom concurrent.futures import wait\n")
    assert t.resolve(cst.Name("wait")) == "concurrent.futures.wait"
