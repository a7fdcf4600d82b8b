"""``# noqa`` cannot lie: a malformed BND code suppresses nothing and is reported (BND900), in both entry points.

``boundlint check`` reads ``# noqa`` as flake8 does (the first ``# noqa`` of
the line, one space, codes compared case-sensitively, a code hides the codes
it prefixes), except where flake8 reads a malformed code as more than was
written.  The last test runs one file through both and compares.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from boundlint.config import Settings
from boundlint.engine import check_source
from boundlint.noqa import suppressed

GATHER = "    await asyncio.gather(*(fetch(i) for i in ids))"


@pytest.mark.parametrize(("comment", "hidden"), [
    ("# noqa", True),
    ("# noqa: BND101", True),
    ("# noqa: BND1", True),
    ("# noqa: BND", True),  # no digits: flake8 reads a bare noqa
    ("# noqa:BND101,E501", True),
    ("# NOQA: E501 BND101", True),
    ("# noqa: BND101 -- reason", True),
    ("# noqa:  BND101", True),  # two spaces: flake8 reads a bare noqa
    ("# noqa: E501", False),
    ("# noqa: BND102", False),
    ("# noqa: BND1O1", False),  # letter O
    ("# noqa: BND10l", False),  # letter l: flake8 reads BND10
    ("# noqa: BNDl01", False),
    ("# noqa: BND9999", False),
    ("# noqa: BND1001", False),
    ("# noqa: bnd101", False),  # flake8 compares codes case-sensitively
    ("# noqa: BND-101", False),  # flake8 reads a bare noqa
    ("# noqa: BND1_01", False),
    ("#noqa: BND101", False),  # flake8 needs "# noqa"
    ("#noqa", False),
    ("# noqa: E501  # noqa: BND101", False),  # only the first counts
])
def test_what_a_comment_suppresses(comment, hidden):
    assert suppressed(f"{GATHER}  {comment}", "BND101") is hidden


@pytest.mark.parametrize(("comment", "message"), [
    ("# noqa: BND1O1", "`# noqa` names `BND1O1`, which is no boundlint code or prefix; did you mean `BND101`?"),
    ("# noqa: BND10l", "`# noqa` names `BND10l`, which is no boundlint code or prefix; did you mean `BND101`?"),
    ("# noqa: bnd101", "`# noqa` names `bnd101`, which is no boundlint code or prefix; did you mean `BND101`?"),
    ("# noqa: BND-101", "`# noqa` names `BND-101`, which is no boundlint code or prefix; did you mean `BND101`?"),
    ("# noqa: BND1001", "`# noqa` names `BND1001`, which is no boundlint code or prefix; did you mean `BND101`?"),
    ("# noqa: bnd1", "`# noqa` names `bnd1`, which is no boundlint code or prefix; did you mean `BND1`?"),
    ("# noqa: BND9999", "`# noqa` names `BND9999`, which is no boundlint code or prefix"),
    ("#noqa: BND101", "`#noqa` is no suppression: write `# noqa`, with one space"),
])
def test_reported_by_default_with_did_you_mean(comment, message):
    text = f"import asyncio\n\n\nasync def handler(ids):\n{GATHER}  {comment}\n"
    found = [(f.line, f.column, f.code, f.message) for f in check_source(text, "m.py", Settings())]
    assert found[0][:3] == (5, 11, "BND101")
    assert found[1:] == [(5, 53 if comment.startswith("#noqa") else 61, "BND900", message)]


def test_other_tools_codes_are_left_alone():
    text = "x = 1  # noqa: e501, RUF100, B0O1\ny = 2  #noqa: E501\nz = 3  # noqa: BND101 -- BND1O1 in prose\n"
    assert check_source(text, "m.py", Settings()) == []


def test_an_ignored_bnd900_still_suppresses_nothing():
    text = f"import asyncio\n\n\nasync def handler(ids):\n{GATHER}  # noqa: BND1O1\n"
    found = check_source(text, "m.py", Settings(extend_ignore=("BND900",)))
    assert [(f.line, f.column, f.code) for f in found] == [(5, 11, "BND101")]


# -- the command and the flake8 plugin, on one file ---------------------------------------

COMMENTS = [
    "",                                  # 5
    "# noqa",                            # 6
    "# noqa: BND101",                    # 7
    "# noqa: BND1",                      # 8
    "# noqa:BND101,E501",                # 9
    "# NOQA: BND101",                    # 10
    "# noqa: E501",                      # 11
    "# noqa: BND102",                    # 12
    "# noqa: BND1O1",                    # 13
    "# noqa: BND9999",                   # 14
    "# noqa: bnd101",                    # 15
    "# noqa: BND101, BND1O1",            # 16
    "#noqa: BND101",                     # 17
    "# noqa: E501  # noqa: BND101",      # 18
    "# noqa:  BND101",                   # 19
    "# noqa: BND10l",                    # 20
    "# noqa: BND-101",                   # 21
]
BOTH = {(5, "BND101"), (11, "BND101"), (12, "BND101"), (13, "BND101"), (13, "BND900"), (14, "BND101"),
        (14, "BND900"), (15, "BND101"), (15, "BND900"), (16, "BND900"), (17, "BND101"), (17, "BND900"),
        (18, "BND101"), (20, "BND900"), (26, "BND101")}
# A multi-line string or a backslash continuation reads the whole span (lines 22-25), as in flake8;
# the lines of a bracketed expression stay separate (26-27).
SPANS = (
    '    await asyncio.gather(*(fetch(i, """\n'
    '    """) for i in ids))  # noqa: BND101\n'
    "    await asyncio.gather(*(fetch(i) for i in ids)) or \\\n"
    "        None  # noqa: BND101\n"
    "    await asyncio.gather(*(fetch(i) for i in ids),\n"
    "                         return_exceptions=True)  # noqa: BND101\n"
)
# Where flake8 reads more than was written: BND10l as the prefix BND10, BND-101 as a bare noqa.
CLI_ONLY = {(20, "BND101"), (21, "BND101"), (21, "BND900")}


@pytest.fixture(scope="module")
def module(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("noqa")
    body = "".join(f"{GATHER}  {c}".rstrip() + "\n" for c in COMMENTS) + SPANS
    (root / "m.py").write_text(f"import asyncio\n\n\nasync def handler(ids):\n{body}\n\nasync def fetch(i, j=None):\n"
                               "    return await client.get(i)\n", encoding="utf-8")
    return root


def test_boundlint_check_suppressions(module):
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--format",
                           "json", "m.py"], cwd=module, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert {(f["line"], f["code"]) for f in json.loads(proc.stdout)} == BOTH | CLI_ONLY


def test_flake8_plugin_suppressions(module):
    pytest.importorskip("flake8")
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "BND", "m.py"], cwd=module,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    found = {(int(line.split(":")[1]), line.split(" ")[1]) for line in proc.stdout.splitlines()}
    assert found == BOTH
    # The one place flake8 still hides BND101 behind a malformed code, the BND900 report shows the comment.
    assert "m.py:20:61: BND900 `# noqa` names `BND10l`, which is no boundlint code or prefix; did you mean " \
           "`BND101`?" in proc.stdout.splitlines()


def test_readme_example_is_real_output():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    shown = [line for line in readme.splitlines() if line.startswith("app.py:5:61: BND900 ")]
    text = f"import asyncio\n\n\nasync def handler(ids):\n{GATHER}  # noqa: BND1O1\n"
    f = [f for f in check_source(text, "app.py", Settings()) if f.code == "BND900"][0]
    assert shown == [f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}"]
