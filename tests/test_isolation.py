"""No input takes the run down: failures inside rules, the parser or a worker stay with one file.

Failures are injected with test-only rules (plain classes handed to the
engine through a monkeypatched ``engine.enabled_rules``; they never enter
the rule registry) and, for the worker pool, inherited by the forked workers.
Every test checks that the other files' findings are still reported.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boundlint.engine import pool as engine  # the worker pool: what these tests replace
from boundlint.config import Settings
from boundlint.engine import check_files, check_source

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="failures are injected into forked workers by monkeypatching")

FIXTURES = Path(__file__).parent / "fixtures"
GATHER = "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
GATHER_AT = (5, 11, "BND101")


def codes(result) -> set[tuple[int, int, str]]:
    return {(f.line, f.column, f.code) for f in result.findings}


def only(findings, code: str):
    found = [f for f in findings if f.code == code]
    assert len(found) == 1, findings
    return found[0]


class Hook:
    """A test-only rule: ``action(path)`` runs on every call in files whose name contains ``trigger``."""

    code, name, hint, message = "BND998", "test-hook", "", ""
    trigger = "bad"

    def __init__(self, sink) -> None:
        self.sink = sink

    @classmethod
    def may_apply(cls, text: str, settings=None) -> bool:
        return True

    @staticmethod
    def action(path: str) -> None:
        raise ValueError("boom\nwith a second line")

    def visit_Call(self, node, ctx) -> None:
        if self.trigger in os.path.basename(ctx.path):
            type(self).action(ctx.path)


def with_hook(monkeypatch, action, trigger: str = "bad", event: str = "visit_Call") -> type:
    """Install a Hook subclass running *action* on *event* for files named with *trigger*."""
    real = engine.enabled_rules

    def hook(self, node, ctx) -> None:
        if trigger in os.path.basename(ctx.path):
            action(ctx.path)

    cls = type("InjectedHook", (Hook,), {"action": staticmethod(action), "trigger": trigger, event: hook})
    if event != "visit_Call":
        cls.visit_Call = lambda self, node, ctx: None
    monkeypatch.setattr(engine, "enabled_rules", lambda settings: real(settings) + [cls])
    return cls


def write_tree(tmp_path, names) -> list[str]:
    paths = []
    for name in names:
        p = tmp_path / name
        p.write_text(GATHER, encoding="utf-8")
        paths.append(str(p))
    return paths


# -- a Python exception inside a rule ------------------------------------------------

def test_rule_exception_is_bnd002_and_the_other_rules_still_report(monkeypatch):
    def boom(path):
        raise ValueError("boom\nwith a second line")

    with_hook(monkeypatch, boom)
    findings = check_source(GATHER, "bad.py", Settings(), engine.enabled_rules(Settings()))
    assert {(f.line, f.column, f.code) for f in findings} == {GATHER_AT, (1, 1, "BND002")}
    error = only(findings, "BND002")
    assert error.message.startswith("rule BND998 (test-hook) failed: ValueError: boom with a second line at test_isolation.py:")
    assert "\n" not in error.message
    assert "report" in error.hint


def test_rule_exception_in_a_worker_leaves_other_files_alone(monkeypatch, tmp_path):
    def boom(path):
        raise KeyError("missing")

    with_hook(monkeypatch, boom)
    paths = write_tree(tmp_path, ["a.py", "bad.py", "c.py"])
    results = check_files(paths, Settings(), jobs=2)
    assert [os.path.basename(r.path) for r in results] == ["a.py", "bad.py", "c.py"]
    assert codes(results[0]) == codes(results[2]) == {GATHER_AT}
    assert codes(results[1]) == {GATHER_AT, (1, 1, "BND002")}
    assert "rule BND998 (test-hook) failed: KeyError: 'missing'" in only(results[1].findings, "BND002").message


def test_system_exit_from_a_rule_does_not_end_the_worker(monkeypatch, tmp_path):
    def leave(path):
        sys.exit(3)

    with_hook(monkeypatch, leave)
    paths = write_tree(tmp_path, ["a.py", "bad.py", "c.py"])
    results = check_files(paths, Settings(), jobs=1)
    assert codes(results[0]) == codes(results[2]) == {GATHER_AT}
    assert only(results[1].findings, "BND002").message.startswith("internal error: SystemExit: 3")


# -- native crashes --------------------------------------------------------------------

def test_native_crash_is_contained_and_reported(monkeypatch, tmp_path):
    def segfault(path):
        os.kill(os.getpid(), signal.SIGSEGV)

    with_hook(monkeypatch, segfault)
    paths = write_tree(tmp_path, ["a.py", "b_bad.py", "c.py", "d.py"])
    results = check_files(paths, Settings(), jobs=1)  # one worker: the rest of its chunk must be requeued
    assert [codes(r) for r in results] == [{GATHER_AT}, {(1, 1, "BND001")}, {GATHER_AT}, {GATHER_AT}]
    assert results[1].findings[0].message == "cannot check this file: the parser crashed (SIGSEGV)"


def test_crash_on_the_last_file_of_the_last_chunk(monkeypatch, tmp_path):
    def abort(path):
        os.abort()

    with_hook(monkeypatch, abort)
    names = [f"f{i:02d}.py" for i in range(20)] + ["zz_bad.py"]
    results = check_files(write_tree(tmp_path, names), Settings(), jobs=2)
    assert len(results) == 21
    assert all(codes(r) == {GATHER_AT} for r in results[:-1])
    assert results[-1].findings[0].message == "cannot check this file: the parser crashed (SIGABRT)"


def test_deeply_nested_brackets_never_reach_the_native_parser(tmp_path):
    # The kind of ../shared/cases/bad-input/deep_parens.py, generated here.
    deep = tmp_path / "deep_parens.py"
    deep.write_text("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n", encoding="utf-8")
    paths = [str(deep)] + write_tree(tmp_path, ["real.py"])
    results = check_files(paths, Settings(), jobs=2)
    assert codes(results[0]) == {(1, 205, "BND001")}
    assert results[0].findings[0].message == "cannot check this file: syntax error: too many nested parentheses"
    assert codes(results[1]) == {GATHER_AT}
    # In-process too (the flake8 plugin has no worker to lose): no crash, same answer.
    assert check_source(deep.read_text(), "deep.py", Settings())[0].code == "BND001"


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = "import asyncio\nPATTERN = '" + "(" * 500 + "'\n" + GATHER.split("\n", 1)[1]
    assert {(f.line, f.code) for f in check_source(text, "s.py", Settings())} == {(6, "BND101")}


# -- hangs and the per-file time limit -------------------------------------------------

def test_hang_becomes_a_time_limit_skip(monkeypatch, tmp_path):
    def hang(path):
        time.sleep(60)

    with_hook(monkeypatch, hang, trigger="slow")
    paths = write_tree(tmp_path, ["a.py", "b_slow.py", "c.py"])
    start = time.monotonic()
    results = check_files(paths, Settings(timeout=1.0), jobs=1)
    assert time.monotonic() - start < 15
    assert codes(results[0]) == codes(results[2]) == {GATHER_AT}
    assert codes(results[1]) == {(1, 1, "BND002")}
    assert results[1].findings[0].message == "skipped: checking took longer than 1 s (the per-file time limit)"


def test_time_limit_while_other_workers_are_busy(monkeypatch, tmp_path):
    def hang(path):
        time.sleep(60)

    with_hook(monkeypatch, hang, trigger="slow")
    names = [f"f{i:02d}.py" for i in range(30)] + ["m_slow.py", "n_slow.py"]
    results = check_files(write_tree(tmp_path, names), Settings(timeout=1.0), jobs=2)
    by_name = {os.path.basename(r.path): codes(r) for r in results}
    assert by_name.pop("m_slow.py") == by_name.pop("n_slow.py") == {(1, 1, "BND002")}
    assert by_name == {name: {GATHER_AT} for name in names if "slow" not in name}


# -- RecursionError and MemoryError ------------------------------------------------------

def test_recursion_error_in_the_traversal_keeps_what_was_found(monkeypatch):
    def deep(path):
        raise RecursionError("maximum recursion depth exceeded")

    with_hook(monkeypatch, deep, event="leave_Module")
    findings = check_source(GATHER, "bad.py", Settings(), engine.enabled_rules(Settings()))
    assert {(f.line, f.column, f.code) for f in findings} == {GATHER_AT, (1, 1, "BND002")}
    assert only(findings, "BND002").message == "file too deeply nested to analyse"


def test_recursion_and_memory_errors_in_the_parser(monkeypatch, tmp_path):
    import libcst

    real = libcst.parse_module

    def parse(text, *args, **kwargs):
        if "RECURSE" in text:
            raise RecursionError("maximum recursion depth exceeded")
        if "MEMORY" in text:
            raise MemoryError()
        return real(text, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", parse)
    (tmp_path / "r.py").write_text(GATHER + "RECURSE = 1\n", encoding="utf-8")
    (tmp_path / "m.py").write_text(GATHER + "MEMORY = 1\n", encoding="utf-8")
    paths = [str(tmp_path / "r.py"), str(tmp_path / "m.py")] + write_tree(tmp_path, ["z.py"])
    results = {os.path.basename(r.path): r for r in check_files(paths, Settings(), jobs=2)}
    assert [f.message for f in results["r.py"].findings] == ["cannot check this file: too deeply nested to parse"]
    assert [f.message for f in results["m.py"].findings] == ["cannot check this file: too large to parse"]
    assert codes(results["z.py"]) == {GATHER_AT}


def test_memory_error_in_a_rule_is_bnd002(monkeypatch):
    def oom(path):
        raise MemoryError()

    with_hook(monkeypatch, oom)
    findings = check_source(GATHER, "bad.py", Settings(), engine.enabled_rules(Settings()))
    assert {(f.line, f.code) for f in findings} == {(5, "BND101"), (1, "BND002")}
    assert only(findings, "BND002").message.startswith("rule BND998 (test-hook) failed: MemoryError")


def test_failure_outside_any_rule_is_bnd002(monkeypatch):
    import boundlint.analysis.context as context

    def broken(*args, **kwargs):
        raise AttributeError("context exploded")

    monkeypatch.setattr(context, "Context", broken)
    findings = check_source(GATHER, "x.py", Settings())
    assert [f.code for f in findings] == ["BND002"]
    assert findings[0].message.startswith("internal error: AttributeError: context exploded at test_isolation.py:")


# -- the worker pool itself ----------------------------------------------------------------

def test_worker_that_dies_before_start_is_replaced_and_nobody_is_blamed(monkeypatch, tmp_path):
    marker = tmp_path / "died-once"
    real = engine.enabled_rules

    def rules_or_die(settings):
        if not marker.exists():
            marker.write_text("x")
            os._exit(7)  # dies before it sends "start" for its first file
        return real(settings)

    monkeypatch.setattr(engine, "enabled_rules", rules_or_die)
    paths = write_tree(tmp_path, ["a.py", "b.py", "c.py"])
    results = check_files(paths, Settings(), jobs=1)
    assert marker.exists()
    assert [codes(r) for r in results] == [{GATHER_AT}] * 3


def test_workers_that_always_die_still_end_the_run_with_every_file_reported(monkeypatch, tmp_path):
    monkeypatch.setattr(engine, "enabled_rules", lambda settings: os._exit(7))
    paths = write_tree(tmp_path, ["a.py", "b.py"])
    results = check_files(paths, Settings(), jobs=1)
    assert [[f.message for f in r.findings] for r in results] == [
        ["cannot check this file: the parser crashed (exit status 7)"]] * 2


def test_no_worker_process_can_start_checks_in_process(monkeypatch, tmp_path):
    def no_fork(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(engine, "_start_worker", no_fork)
    results = check_files(write_tree(tmp_path, ["a.py", "b.py"]), Settings(), jobs=2)
    assert [codes(r) for r in results] == [{GATHER_AT}] * 2


def test_unpicklable_result_is_reported_not_lost(tmp_path):
    paths = write_tree(tmp_path, ["a.py"])
    results = check_files(paths, Settings(), jobs=1, collectors=[UnpicklableCollector])
    assert [f.code for f in results[0].findings] == ["BND002"]
    assert results[0].findings[0].message.startswith("internal error: result not sent:")


class UnpicklableCollector:
    """A collector whose facts cannot cross the pipe (a lambda)."""

    name = "unpicklable"

    def facts(self, position):
        return lambda: None


def test_ctrl_c_stops_every_worker_at_once(monkeypatch, tmp_path):
    def hang(path):
        time.sleep(60)

    with_hook(monkeypatch, hang, trigger="slow")
    paths = write_tree(tmp_path, ["a.py", "b_slow.py", "c_slow.py", "d.py"])

    def interrupt(done, total):
        raise KeyboardInterrupt

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        check_files(paths, Settings(timeout=120), jobs=2, progress=interrupt)
    assert time.monotonic() - start < 10
    assert multiprocessing.active_children() == []


def test_explicit_jobs_are_honoured_and_results_come_in_path_order(monkeypatch, tmp_path):
    names = [f"f{i}.py" for i in range(12)]
    paths = write_tree(tmp_path, names)
    started = []
    real = engine._start_worker
    monkeypatch.setattr(engine, "_start_worker", lambda *a: started.append(1) or real(*a))
    seen = []
    results = check_files(list(reversed(paths)), Settings(), jobs=3, progress=lambda d, t: seen.append((d, t)))
    assert [r.path for r in results] == sorted(paths)
    assert seen[-1] == (12, 12)
    assert len(started) == 3  # the default would use one worker for a dozen files


# -- the run as a whole: determinism, what it writes, how it fails ----------------------------

def boundlint(*args: str, cwd=None, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "boundlint", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def hostile_tree(root) -> None:
    """The fixtures plus bad input (deep nesting, a syntax error, bad bytes) in one folder."""
    import shutil

    shutil.copytree(FIXTURES, root / "fixtures")
    (root / "bad").mkdir()
    (root / "bad" / "deep_parens.py").write_text("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (root / "bad" / "syntax.py").write_text("def f(:\n")
    (root / "bad" / "bytes.py").write_bytes(b"x = '\xff'\n")


def test_same_output_in_the_same_order_with_one_and_two_jobs(tmp_path):
    hostile_tree(tmp_path)
    one = boundlint("check", "--isolated", "--no-cache", "--format", "json", "--jobs", "1", ".", cwd=tmp_path)
    two = boundlint("check", "--isolated", "--no-cache", "--format", "json", "--jobs", "2", ".", cwd=tmp_path)
    assert one.returncode == two.returncode == 1, one.stderr + two.stderr
    assert one.stderr == two.stderr == ""
    assert one.stdout == two.stdout
    findings = json.loads(one.stdout)
    assert len(findings) > 100
    bad = [f for f in findings if os.path.normpath(f["path"]).startswith("bad" + os.sep)]
    assert {f["code"] for f in bad} == {"BND001"}
    assert len({f["path"] for f in bad}) == 3


def snapshot(root) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            out[os.path.relpath(full, root)] = (st.st_size, st.st_mtime_ns)
    return out


def test_writes_nothing_outside_its_cache_dir_and_output_file(tmp_path):
    tree, home, tmp, cache = tmp_path / "tree", tmp_path / "home", tmp_path / "tmp", tmp_path / "cache"
    for d in (tree, home, tmp):
        d.mkdir()
    hostile_tree(tree)
    (tree / "pyproject.toml").write_text("[tool.boundlint]\nextend-exclude = []\n")
    before = snapshot(tree)
    env = dict(os.environ, HOME=str(home), TMPDIR=str(tmp), XDG_CACHE_HOME=str(home / ".cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = tmp_path / "report.json"
    for extra in ([], ["--no-cache"]):
        proc = boundlint("check", "--format", "json", "--cache-dir", str(cache), "--output-file", str(out), *extra, ".",
                         cwd=tree, env=env)
        assert proc.returncode == 1, proc.stderr
        assert json.loads(out.read_text())
    assert snapshot(tree) == before  # no __pycache__, no cache, nothing in the checked tree
    assert os.listdir(home) == [] and os.listdir(tmp) == []
    assert sorted(os.listdir(tmp_path)) == ["cache", "home", "report.json", "tmp", "tree"]


@pytest.mark.parametrize("args, message", [
    (["check", "--no-such-flag"], "boundlint: error: unrecognized arguments: --no-such-flag"),
    (["check", "no/such/path.py"], "boundlint: error: path does not exist: no/such/path.py"),
    (["check", "--jobs", "0", "."], "boundlint: error: --jobs must be at least 1"),
    (["check", "--jobs", "many", "."], "boundlint: error: argument --jobs/-j: invalid int value: 'many'"),
    (["check", "--timeout", "0", "."], "boundlint: error: --timeout must be a positive number of seconds up to 86400, got 0.0"),
    (["check", "--format", "xml", "."], None),
    (["frobnicate"], None),
])
def test_usage_errors_exit_2_with_one_line(tmp_path, args, message):
    proc = boundlint(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("boundlint: error: ")
    if message is not None:
        assert proc.stderr.strip() == message


def test_config_error_exits_2_naming_the_key_and_the_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.boundlint]\nselct = ['BND1']\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = boundlint("check", "a.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1
    assert "selct" in proc.stderr and "pyproject.toml" in proc.stderr


def test_timeout_flag_reaches_the_workers(monkeypatch, tmp_path):
    from boundlint import cli

    def hang(path):
        time.sleep(60)

    with_hook(monkeypatch, hang, trigger="slow")
    write_tree(tmp_path, ["a.py", "b_slow.py"])
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    status = cli.main(["check", "--isolated", "--no-cache", "-q", "--timeout", "1", "."])
    assert status == 1
    assert time.monotonic() - start < 15


SHARED_CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"


@pytest.mark.skipif(not (SHARED_CASES / "bad-input").is_dir(), reason="../shared/cases is not beside this checkout")
def test_incident_cases_with_bad_input_in_one_run(tmp_path):
    """Acceptance: one ``boundlint check`` over the cases and bad-input reports both, in full."""
    import re
    import shutil

    shutil.copytree(SHARED_CASES, tmp_path / "cases")
    proc = boundlint("check", "--isolated", "--no-cache", "--format", "json", "cases", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    got = {(os.path.normpath(f["path"]), f["line"], f["code"][:4]) for f in json.loads(proc.stdout)}
    families = {"FANOUT": "BND1", "REQUEST-SHAPE": "BND2", "LOG-IN-LOOP": "BND3", "CONN-PER-ITEM": "BND4"}
    want = {(os.path.join("cases", "bad-input", "deep_parens.py"), 1, "BND0")}
    for case in sorted((tmp_path / "cases").rglob("*.py")):  # projects/ included: multi-module cases
        for lineno, line in enumerate(case.read_text(encoding="utf-8").splitlines(), 1):
            m = re.search(r"#\s*expect:\s*([A-Z0-9, -]+)", line)
            for fam in (m.group(1).split(",") if m else ()):
                fam = fam.strip()  # a family (FANOUT) or, for rules finer than a family, a code (BND303)
                want.add((os.path.relpath(case, tmp_path), lineno, fam[:4] if fam.startswith("BND") else families[fam]))
    assert got == want


def test_a_prefilter_that_raises_runs_the_rule_instead(monkeypatch):
    def boom(path):
        raise ValueError("hook")

    cls = with_hook(monkeypatch, boom)

    def broken_prefilter(text, settings=None):
        raise TypeError("prefilter")

    cls.may_apply = staticmethod(broken_prefilter)
    findings = check_source(GATHER, "bad.py", Settings(), engine.enabled_rules(Settings()))
    assert {(f.line, f.column, f.code) for f in findings} == {GATHER_AT, (1, 1, "BND002")}
    assert only(findings, "BND002").message.startswith("rule BND998 (test-hook) failed: ValueError: hook")
