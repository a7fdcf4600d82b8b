"""The walk stays in the project, reads only regular files, and any depth or file name works (issue 32)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

GATHER = "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
POSIX_NAMES = pytest.mark.skipif(sys.platform == "darwin" or os.name == "nt",
                                 reason="the file system insists on valid Unicode names")


def boundlint(cwd, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "boundlint", *args], cwd=cwd, capture_output=True, timeout=timeout)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "a.py").write_text(GATHER, encoding="utf-8")
    return root


def test_a_link_out_of_the_project_is_not_followed(project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "far.py").write_text(GATHER, encoding="utf-8")
    (project / "out").symlink_to(outside)
    (project / "far.py").symlink_to(outside / "far.py")
    (project / "sub").mkdir()
    (project / "sub" / "in.py").symlink_to(project / "a.py")  # inside the checked path: followed
    (project / "root").symlink_to("/")
    proc = boundlint(project, "check", "--no-cache", "--show-files", ".")
    assert (proc.returncode, proc.stdout.decode().split()) == (0, ["a.py", "sub/in.py"])
    proc = boundlint(project, "check", "--no-cache", "--verbose", "--output-format", "concise", ".")
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines()[:2] == ["a.py:5:11: BND101 [medium] `asyncio.gather(...)` starts one coroutine "
                                                     "per item of `ids` with no concurrency limit",
                                                     "sub/in.py:5:11: BND101 [medium] `asyncio.gather(...)` starts one "
                                                     "coroutine per item of `ids` with no concurrency limit"]
    skipped = [line for line in proc.stderr.decode().splitlines() if "a symlink out of the checked paths" in line]
    assert skipped == [f"boundlint: skipped {project / 'far.py'}: a symlink out of the checked paths (to {outside / 'far.py'})",
                       f"boundlint: skipped {project / 'out'}: a symlink out of the checked paths (to {outside})",
                       f"boundlint: skipped {project / 'root'}: a symlink out of the checked paths (to /)"]
    # Without --verbose: not a word.
    assert b"symlink" not in boundlint(project, "check", "--no-cache", ".").stderr


@pytest.fixture
def deep_tree(project):
    """1,200 nested folders ``d/d/.../d`` under *project*, removed without recursion afterwards
    (shutil.rmtree, and so pytest's own clean-up, recurses per level)."""
    levels = [str(project)]
    for _ in range(1200):  # os.makedirs itself recurses per level
        levels.append(os.path.join(levels[-1], "d"))
        os.mkdir(levels[-1])
    yield levels[-1]
    for directory in reversed(levels[1:]):
        for name in os.listdir(directory):
            if name != "d":
                os.unlink(os.path.join(directory, name))
        os.rmdir(directory)


def test_1200_nested_folders_check_cached_and_audit(project, deep_tree):
    with open(os.path.join(deep_tree, "deep.py"), "w", encoding="utf-8") as fh:
        fh.write(GATHER)
    deep = "d/" * 1200 + "deep.py"
    for args in (["check", "--no-cache"], ["check"], ["check"]):  # cold cache, then warm
        proc = boundlint(project, *args, "--output-format", "json", ".")
        assert proc.returncode == 1, proc.stderr
        assert sorted((f["path"], f["line"], f["code"]) for f in json.loads(proc.stdout)) == [
            ("a.py", 5, "BND101"), (deep, 5, "BND101")]
    proc = boundlint(project, "audit", "--format", "json", "--quiet", ".")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["files"] == 2


@pytest.mark.parametrize("where", [".gitignore", ".git/info/exclude"])
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_an_ignore_file_that_is_no_regular_file_is_one_line_error(project, where, kind):
    target = project / where
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(kind)
    proc = boundlint(project, "check", "--no-cache", ".", timeout=60)
    what = "a FIFO" if kind == "fifo" else "a character device"
    assert (proc.returncode, proc.stderr.decode()) == (
        2, f"boundlint: error: cannot read {project / where}: not a regular file ({what})\n")


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_baseline_that_is_no_regular_file_is_one_line_error(project, kind):
    if kind == "fifo":
        os.mkfifo(project / "baseline.json")
        name, what = "baseline.json", "a FIFO"
    else:
        name, what = kind, "a character device"
    proc = boundlint(project, "check", "--no-cache", "--baseline", name, ".", timeout=60)
    assert (proc.returncode, proc.stderr.decode()) == (
        2, f"boundlint: error: {name}: cannot read baseline: not a regular file ({what})\n")


def test_an_explicit_config_that_is_a_fifo_is_one_line_error(project):
    os.mkfifo(project / "boundlint.toml")
    proc = boundlint(project, "check", "--no-cache", "--config", "boundlint.toml", ".", timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1 and "not a regular file (a FIFO)" in proc.stderr.decode()


FORMATS = ["full", "concise", "grouped", "github", "gitlab", "json", "json-lines", "sarif"]


@POSIX_NAMES
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_non_utf8_file_name_in_every_format_and_output_file(project, fmt):
    with open(os.fsencode(project) + b"/\xff.py", "w", encoding="utf-8") as fh:
        fh.write(GATHER)
    to_stdout = boundlint(project, "check", "--no-cache", "--output-format", fmt, ".")
    assert to_stdout.returncode == 1 and b"internal error" not in to_stdout.stderr, to_stdout.stderr
    to_file = boundlint(project, "check", "--no-cache", "--output-format", fmt, "-o", "report.out", ".")
    assert to_file.returncode == 1 and to_file.stderr == b""
    written = (project / "report.out").read_bytes()
    assert written == to_stdout.stdout  # the same report, byte for byte
    if fmt in ("full", "concise", "grouped", "github"):
        assert b"\xff.py" in written  # the name's own bytes, as ls prints them
    if fmt == "sarif":
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in json.loads(written)["runs"][0]["results"]]
        assert sorted(uris) == ["%FF.py", "a.py"]  # RFC 3986: the byte percent-encoded
    assert [p.name for p in project.iterdir() if p.name.startswith(".report.out")] == []  # no temporary left


def test_a_source_over_the_size_cap_is_bnd001_not_read(project):
    with open(project / "huge.py", "wb") as fh:
        fh.truncate(257 * 1024 * 1024)  # sparse: no disk used, but 257 MB to read
    proc = boundlint(project, "check", "--no-cache", "--output-format", "concise", "huge.py")
    assert (proc.returncode, proc.stdout.decode().splitlines()[0]) == (
        1, "huge.py:1:1: BND001 cannot check this file: cannot read: larger than 256 MB, the most a source may hold")
