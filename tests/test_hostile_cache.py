"""The result cache never changes a result (issue 32): races, damaged entries, unusable folders, orphaned workers."""
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

from boundlint.cli import main
from boundlint.engine import check as engine_check

GATHER = "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
CLEAN = "async def handler(ids):\n    return ids\n"
FORKS = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                           reason="the race is injected into forked workers by monkeypatching")


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "a.py").write_text(GATHER, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def findings(capsys, *args: str) -> list[tuple[str, int, int, str]]:
    """``(path, line, column, code)`` of a check run in this process, in order, with its stderr checked."""
    main(["check", "--output-format", "json", *args, "."])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    return [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)]


EXPECTED = [("a.py", 5, 11, "BND101")]


@FORKS
def test_a_file_rewritten_during_its_check_is_not_stored_under_the_old_content(project, capsys, monkeypatch):
    real = engine_check._read

    def read_b(path: str) -> bytes:  # the worker reads B while the disk holds A before and after (A -> B -> A)
        return CLEAN.encode() if path.endswith("a.py") else real(path)

    monkeypatch.setattr(engine_check, "_read", read_b)
    assert findings(capsys) == []  # what B gives: the check saw B
    monkeypatch.setattr(engine_check, "_read", real)
    assert findings(capsys) == EXPECTED  # warm: A's own result, not B's stored under A
    assert findings(capsys, "--no-cache") == EXPECTED


def shard_entries(project: Path):
    for shard in (project / ".boundlint_cache").rglob("*.json"):
        yield shard, json.loads(shard.read_bytes())


@pytest.mark.parametrize("damage", ["line as text", "huge line", "unknown code", "deep question", "evidence of ints",
                                    "bool lines", "short finding", "deep nesting everywhere"])
def test_a_damaged_entry_is_a_miss(project, capsys, damage):
    assert findings(capsys) == EXPECTED
    for shard, data in shard_entries(project):
        for key, entry in data.items():
            item = entry[2][0] if entry[2] else None
            if damage == "line as text" and item:
                item[0] = "5"
            elif damage == "huge line" and item:
                item[0] = 10 ** 30
            elif damage == "unknown code" and item:
                item[2] = "E501"
            elif damage == "deep question":
                entry[3] = {"[" * 5000 + "]" * 5000: "x"}
            elif damage == "evidence of ints" and item:
                item[7] = [1, 2]
            elif damage == "bool lines":
                entry[1] = True
            elif damage == "short finding" and item:
                del item[9]
            elif damage == "deep nesting everywhere":
                data[key] = json.loads("[" * 500 + "]" * 500)
        shard.write_text(json.dumps(data), encoding="utf-8")
    assert findings(capsys) == EXPECTED


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_cache_file_that_is_no_regular_file_is_a_miss(project, kind):
    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "boundlint", "check", "--output-format", "concise", "."],
                              cwd=project, capture_output=True, timeout=60)

    assert run().returncode == 1
    stores = [p for p in (project / ".boundlint_cache").rglob("*") if p.is_file() and p.suffix in (".json", ".marshal",
                                                                                                     ".pickle")]
    assert stores
    for store in stores:
        store.unlink()
        if kind == "fifo":
            os.mkfifo(store)
        else:
            store.symlink_to(kind)
    proc = run()  # before the mend: blocked on the FIFO past 120 s, or read /dev/zero until killed
    assert (proc.returncode, proc.stdout.decode().splitlines()) == (1, [
        "a.py:5:11: BND101 [medium] `asyncio.gather(...)` starts one coroutine per item of `ids` with no concurrency "
        "limit",
        "Found 1 finding in 1 file checked."])
    assert b"internal error" not in proc.stderr


@pytest.mark.parametrize("where", ["a.py/cache", "/proc/version", "file"])
def test_an_unusable_cache_folder_is_said_once_and_the_findings_stay(project, capsys, where):
    if where == "file":
        (project / "file").write_text("in the way\n", encoding="utf-8")
    if where.startswith("/proc") and not os.path.exists(where):
        pytest.skip("no /proc")
    main(["check", "--output-format", "json", "--cache-dir", where, "."])
    out, err = capsys.readouterr()
    assert [(f["path"], f["line"], f["code"]) for f in json.loads(out)] == [("a.py", 5, "BND101")]
    assert err.count("\n") == 1 and err.startswith(f"boundlint: warning: cannot use the cache {where}: ")
    assert err.endswith("; checking without it\n")


def test_a_read_only_project_gives_the_findings_of_a_writable_one(project, capsys):
    expected = findings(capsys, "--no-cache")
    os.chmod(project, 0o555)
    try:
        if os.access(project, os.W_OK):
            pytest.skip("running as root: a read-only folder is still writable (see the --cache-dir cases)")
        main(["check", "--output-format", "json", "."])
        out, err = capsys.readouterr()
    finally:
        os.chmod(project, 0o755)
    assert [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)] == expected
    assert err.startswith("boundlint: warning: cannot use the cache .boundlint_cache: ")


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_their_parent(project):
    slow = "".join(f"def f{i}(x):\n    return [y for y in x if y]\n" for i in range(6000))
    for i in range(4):
        (project / f"slow{i}.py").write_text(slow, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "boundlint", "check", "--no-cache", "--jobs", "2", "."],
                            cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert workers, "no worker started"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(map(_alive, workers)):
            time.sleep(0.2)
        assert [w for w in workers if _alive(w)] == []
    finally:
        for w in _children(proc.pid):
            os.kill(w, signal.SIGKILL)
