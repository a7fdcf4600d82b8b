"""The report reaches a pipe in full, and a reader who leaves early is noticed (exit 141).

``boundlint check | head -1``: with ``PYTHONUNBUFFERED=1`` (set in many
containers and CI images) Python's stdout used to take the kernel's short
write, when the reader closed the pipe, as the whole report, so the run
exited 1 as if it had been read.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

# 800 findings of about 100 bytes: far more than a pipe holds (64 KiB), so the writer is still
# writing when the reader leaves.
MANY = "import asyncio\n\n\nasync def handler(ids):\n" + "".join(
    f"    await asyncio.gather(*[fetch(i) for i in ids_{i}])\n" for i in range(800))


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_reader_that_leaves_after_one_line_gives_141(tmp_path, unbuffered):
    (tmp_path / "many.py").write_text(MANY, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    proc = subprocess.Popen([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "many.py"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=300) == 141
    assert first == (b"many.py:5:11: BND101 [medium] `asyncio.gather(...)` starts one coroutine per item of `ids_0` "
                     b"with no concurrency limit\n")
    assert err == b""


def test_a_reader_that_stays_gets_every_line(tmp_path):
    (tmp_path / "many.py").write_text(MANY, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "-q", "many.py"],
                          capture_output=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.decode().splitlines() if not line.startswith(" ")]  # no help lines
    assert len(lines) == 800 and lines[-1].startswith("many.py:804:11: BND101 [medium] ")


def test_write_stdout_to_a_text_stream(monkeypatch):
    import io

    from boundlint.output import write_stdout

    sink = io.StringIO()
    monkeypatch.setattr(sys, "stdout", sink)
    write_stdout("a\nb\n")
    assert sink.getvalue() == "a\nb\n"
