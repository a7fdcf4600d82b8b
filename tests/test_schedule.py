"""Large inputs: work is split by size, the time limit grows with the file and counts CPU time,
and a check that did not complete is never cached.

Slow files are simulated with a test-only rule (handed to the forked workers
through a monkeypatched ``engine.enabled_rules``) that burns CPU or sleeps
once per file whose name contains a trigger.
"""
from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from boundlint.engine import pool as engine  # the worker pool: what these tests replace
from boundlint.cache import Cache
from boundlint.config import Settings
from boundlint.engine import check_files, check_files_cached
from boundlint.schedule import SECONDS_PER_MB, cpu_seconds, plan, time_limit

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="slow files are injected into forked workers by monkeypatching")

GATHER = "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
GATHER_AT = (5, 11, "BND101")
LINUX_CPU = pytest.mark.skipif(cpu_seconds(os.getpid()) is None, reason="CPU time of another process is read from /proc")


def codes(result) -> set[tuple[int, int, str]]:
    return {(f.line, f.column, f.code) for f in result.findings}


def slow_once(monkeypatch, tmp_path, action, trigger: str = "slow") -> None:
    """Run *action()* the first time a rule hook sees a file whose name contains *trigger*."""
    real = engine.enabled_rules
    marks = tmp_path / "marks"
    marks.mkdir()

    class SlowHook:
        code, name, hint, message = "BND998", "test-slow", "", ""

        def __init__(self, sink) -> None:
            pass

        @classmethod
        def may_apply(cls, text: str, settings=None) -> bool:
            return True

        def visit_Call(self, node, ctx) -> None:
            name = os.path.basename(ctx.path)
            mark = marks / name
            if trigger in name and not mark.exists():
                mark.write_text("x")
                action()

    monkeypatch.setattr(engine, "enabled_rules", lambda settings: real(settings) + [SlowHook])


def burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def write(tmp_path, name: str, size: int = 0):
    """A file with the GATHER hazard, padded with comment lines to about *size* bytes."""
    text = GATHER + "".join(f"# padding line {i:08d}\n" for i in range(max(0, size - len(GATHER)) // 24))
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# -- splitting the work -----------------------------------------------------------------------

def test_plan_counts_bytes_not_files():
    assert plan([5_000_000, 5_000_000], None, 2) == (2, [[0], [1]])  # two big files: both cores
    jobs, chunks = plan([300] * 5, None, 8)
    assert jobs == 1 and sorted(i for c in chunks for i in c) == [0, 1, 2, 3, 4]  # a few small files: one worker
    jobs, chunks = plan([1000, 9_000_000, 2000, 500_000], None, 4)
    assert jobs == 4 and chunks[:2] == [[1], [3]]  # the largest go first, each alone
    assert plan([10] * 3, 8, 2)[0] == 3  # an explicit count is honoured up to one worker per file
    assert plan([10] * 200, None, 4)[0] == 4
    assert all(len(c) <= 32 for c in plan([10] * 5000, None, 2)[1])
    assert plan([], None, 4) == (0, [])


def test_a_few_large_files_use_every_core(monkeypatch, tmp_path):
    monkeypatch.setattr(engine, "_cores", lambda: 2)
    started = []
    real = engine._start_worker
    monkeypatch.setattr(engine, "_start_worker", lambda *a: started.append(1) or real(*a))
    paths = [write(tmp_path, "a.py", 400_000), write(tmp_path, "b.py", 400_000)]
    results = check_files(paths, Settings())
    assert [codes(r) for r in results] == [{GATHER_AT}] * 2
    assert len(started) == 2


def test_a_handful_of_small_files_start_one_worker(monkeypatch, tmp_path):
    monkeypatch.setattr(engine, "_cores", lambda: 8)
    started = []
    real = engine._start_worker
    monkeypatch.setattr(engine, "_start_worker", lambda *a: started.append(1) or real(*a))
    results = check_files([write(tmp_path, f"m{i}.py") for i in range(5)], Settings())
    assert [codes(r) for r in results] == [{GATHER_AT}] * 5
    assert len(started) == 1


# -- the time limit -----------------------------------------------------------------------------

def test_time_limit_grows_with_size():
    assert SECONDS_PER_MB == 60
    assert time_limit(60, 9_000_000) == 600.0  # a 200,000-line generated module of ~9 MB
    assert time_limit(60, 0) == 60.0
    assert time_limit(1, 500_000) == 31.0
    assert time_limit(0, 10**9) is None and time_limit(None, 10) is None


@LINUX_CPU
def test_a_large_file_gets_a_longer_limit(monkeypatch, tmp_path):
    slow_once(monkeypatch, tmp_path, lambda: burn(2.0))
    small = write(tmp_path, "a_slow.py")  # limit 1 s: skipped
    large = write(tmp_path, "b_slow.py", 100_000)  # limit 1 s + 6 s: checked
    results = check_files([small, large], Settings(timeout=1.0), jobs=1)
    assert codes(results[0]) == {(1, 1, "BND002")}
    assert results[0].findings[0].message == "skipped: checking took longer than 1 s (the per-file time limit)"
    assert codes(results[1]) == {GATHER_AT}


@LINUX_CPU
def test_waiting_for_a_core_does_not_count(monkeypatch, tmp_path):
    # Sleeping stands for a loaded machine: wall-clock time passes, the file uses no CPU.
    slow_once(monkeypatch, tmp_path, lambda: time.sleep(2.5))
    results = check_files([write(tmp_path, "a_slow.py"), write(tmp_path, "b.py")], Settings(timeout=1.0), jobs=1)
    assert [codes(r) for r in results] == [{GATHER_AT}] * 2
    assert not results[0].failed


def test_a_time_limit_skip_is_never_cached_even_when_bnd002_is_not_selected(monkeypatch, tmp_path):
    slow_once(monkeypatch, tmp_path, lambda: time.sleep(60))
    paths = [write(tmp_path, "a.py"), write(tmp_path, "b_slow.py")]
    settings = Settings(select=("BND1",), timeout=1.0)
    cache = Cache(tmp_path / "cache", settings.fingerprint())
    first = check_files_cached(paths, settings, cache, jobs=1)
    assert [codes(r) for r in first] == [{GATHER_AT}, set()]  # BND002 is not selected: nothing shows
    assert first[1].failed
    monkeypatch.undo()  # the next run is fast: the file must be checked again, not served as clean
    again = check_files_cached(paths, settings, Cache(tmp_path / "cache", settings.fingerprint()), jobs=1)
    assert [codes(r) for r in again] == [{GATHER_AT}, {GATHER_AT}]
