"""Hostile files: whatever a repository holds is reported, never dropped, never a traceback.

Each file goes through the real path (``check_files``: read, decode, parse,
worker process) unless the test is about the text alone.  Positions are
exact: a hostile encoding or line ending must not shift a real finding.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from boundlint.config import Settings
from boundlint.engine import check_file, check_files, check_source

GATHER = "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
GATHER_AT = (5, 11, "BND101")


def run(tmp_path, name: str, data: bytes | str):
    """``(line, column, code)`` set and the findings for one file written with *data*."""
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    [result] = check_files([str(path)], Settings(), jobs=1)
    return {(f.line, f.column, f.code) for f in result.findings}, result.findings


def test_syntax_error_is_bnd001_at_cpythons_position(tmp_path):
    got, findings = run(tmp_path, "broken.py", "import asyncio\n\ndef f(:\n    pass\n")
    assert got == {(3, 7, "BND001")}
    assert findings[0].message == "cannot check this file: syntax error: invalid syntax"


def test_python2_code_is_bnd001(tmp_path):
    got, findings = run(tmp_path, "legacy.py", "import asyncio\nclass A:\n    def f(self):\n        print 'hello', self\n")
    assert got == {(4, 9, "BND001")}
    assert findings[0].message.startswith("cannot check this file: syntax error: Missing parentheses in call to 'print'")


def test_nul_bytes_are_bnd001_at_the_nul(tmp_path):
    got, findings = run(tmp_path, "nul.py", b"import asyncio\nx = (1,\x00 2)\n")
    assert got == {(2, 8, "BND001")}
    assert "null bytes" in findings[0].message


def test_invalid_utf8_without_cookie_is_bnd001_at_the_byte(tmp_path):
    got, findings = run(tmp_path, "latin_no_cookie.py", b"import asyncio\nname = 'caf\xe9'\n")
    assert got == {(2, 12, "BND001")}
    assert findings[0].message == ("cannot check this file: cannot decode: invalid utf-8 byte 0xe9: invalid "
                                   "continuation byte (no coding cookie declares another encoding)")


def test_invalid_utf8_on_the_first_line_is_bnd001_at_the_byte(tmp_path):
    got, _ = run(tmp_path, "first_line.py", b"x = '\xff'\n")
    assert got == {(1, 6, "BND001")}


def test_latin1_cookie_is_decoded_and_positions_count_characters(tmp_path):
    source = ("# -*- coding: latin-1 -*-\nimport asyncio\n\n\nasync def handler(idé):\n"
              "    await asyncio.gather(*[fétch(i) for i in idé])  # é\n")
    got, findings = run(tmp_path, "latin.py", source.encode("latin-1"))
    assert got == {(6, 11, "BND101")}
    assert "`idé`" in findings[0].message


def test_non_text_codec_cookie_is_bnd001_not_a_traceback(tmp_path):
    got, findings = run(tmp_path, "rot.py", b"# coding: rot13\nx = 1\n")
    assert got == {(1, 1, "BND001")}
    assert findings[0].message == ("cannot check this file: cannot decode: coding cookie 'rot13': 'rot13' is not "
                                   "a text encoding; use codecs.decode() to handle arbitrary codecs")


def test_unknown_codec_cookie_is_bnd001(tmp_path):
    got, findings = run(tmp_path, "bogus.py", b"# coding: no-such-codec\nx = 1\n")
    assert got == {(1, 1, "BND001")}
    assert "unknown encoding" in findings[0].message


def test_bom_is_dropped_and_positions_stay(tmp_path):
    got, _ = run(tmp_path, "bom.py", b"\xef\xbb\xbf" + GATHER.encode())
    assert got == {GATHER_AT}


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "lone_cr"])
def test_line_endings_keep_positions(tmp_path, newline):
    got, findings = run(tmp_path, "endings.py", GATHER.replace("\n", newline))
    assert got == {GATHER_AT}
    assert (findings[0].end_line, findings[0].end_column) == (5, 51)


def test_mixed_line_endings_keep_positions(tmp_path):
    text = "import asyncio\r\n\r\n\nasync def handler(ids):\r    await asyncio.gather(*[fetch(i) for i in ids])\n"
    got, _ = run(tmp_path, "mixed.py", text)
    assert got == {GATHER_AT}


def test_form_feeds_and_tabs(tmp_path):
    text = "import asyncio\n\f\n\fasync def handler(ids):\n\tawait asyncio.gather(*[fetch(i) for i in ids])\n"
    got, _ = run(tmp_path, "ff.py", text)
    assert got == {(4, 8, "BND101")}  # a tab is one column, as CPython and flake8 count


@pytest.mark.parametrize("text", ["", "\n\n", "   \n", "# only a comment", "\f"], ids=["empty", "newlines", "spaces", "comment", "formfeed"])
def test_empty_and_blank_files_are_clean(tmp_path, text):
    got, _ = run(tmp_path, "empty.py", text)
    assert got == set()


def test_no_trailing_newline(tmp_path):
    got, _ = run(tmp_path, "eof.py", GATHER.rstrip("\n"))
    assert got == {GATHER_AT}


def test_five_megabyte_file_finishes_with_every_finding(tmp_path):
    # Shaped like generated code (protobuf modules, embedded data): long literal lines among plain code.
    code = ("\n\ndef plain_{i}(items, total=0):\n    for item in items:\n        total += item * 2\n"
            "    return {{'total': total, 'count': len(items)}}\n")
    parts, size, i = ["import asyncio\n"], 0, 0
    while size < 5_000_000:
        part = f"BLOB_{i} = b'" + "\\x%02x" % (i % 256) * 250 + "'\n" if i % 4 else code.format(i=i)
        parts.append(part)
        size += len(part)
        i += 1
    first = len("".join(parts).splitlines()) + 3
    parts.append("\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n")
    path = tmp_path / "huge.py"
    path.write_text("".join(parts), encoding="utf-8")
    assert path.stat().st_size > 5_000_000
    start = time.monotonic()
    result = check_file(str(path), Settings())
    elapsed = time.monotonic() - start
    assert {(f.line, f.column, f.code) for f in result.findings} == {(first + 1, 11, "BND101")}
    assert elapsed < 120, f"{elapsed:.0f} s for a 5 MB file"


def test_long_implicit_string_concatenation_is_checked(tmp_path):
    blob = "".join(f"    b'{i:04d}'\n" for i in range(1000))
    text = f"import asyncio\nDATA = (\n{blob})\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
    got, _ = run(tmp_path, "concat.py", text)
    assert got == {(1007, 11, "BND101")}
    # In-process (the flake8 plugin's path) gives the same answer as the worker.
    assert {(f.line, f.code) for f in check_source(text, "concat.py", Settings())} == {(1007, "BND101")}


def test_directory_named_like_a_module_is_walked_not_read(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "pkg.py" / "inner.py").write_text(GATHER, encoding="utf-8")
    results = check_files_under(tmp_path)
    assert results == {"pkg.py/inner.py": {GATHER_AT}}
    # Named explicitly as a file, a directory is reported, not a traceback.
    assert [f.message for f in check_file(str(tmp_path / "pkg.py"), Settings()).findings] == [
        "cannot check this file: cannot read: is a directory"]


def check_files_under(root) -> dict[str, set]:
    from boundlint.engine import check_paths

    results = check_paths([str(root)], Settings(), jobs=2)
    return {os.path.relpath(r.path, root): {(f.line, f.column, f.code) for f in r.findings} for r in results}


def test_broken_symlink_is_reported(tmp_path):
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "real.py").write_text(GATHER, encoding="utf-8")
    results = check_files_under(tmp_path)
    assert results == {"gone.py": {(1, 1, "BND001")}, "real.py": {GATHER_AT}}


def test_symlink_loops_are_reported_and_directory_loops_end(tmp_path):
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path)  # a directory loop
    (tmp_path / "sub" / "real.py").write_text(GATHER, encoding="utf-8")
    results = check_files_under(tmp_path)
    assert results == {"a.py": {(1, 1, "BND001")}, "b.py": {(1, 1, "BND001")}, "sub/real.py": {GATHER_AT}}
    findings = check_file(str(tmp_path / "a.py"), Settings()).findings
    assert findings[0].message == "cannot check this file: cannot read: Too many levels of symbolic links"


def test_unreadable_file_is_reported(tmp_path):
    path = tmp_path / "secret.py"
    path.write_text(GATHER, encoding="utf-8")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root (as CI does): chmod 0 does not make a file unreadable")
        findings = check_file(str(path), Settings()).findings
        assert [(f.line, f.column, f.code, f.message) for f in findings] == [
            (1, 1, "BND001", "cannot check this file: cannot read: Permission denied")]
    finally:
        path.chmod(0o644)


def test_fifo_named_like_a_module_does_not_block(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "real.py").write_text(GATHER, encoding="utf-8")
    start = time.monotonic()
    results = check_files_under(tmp_path)
    assert time.monotonic() - start < 20
    assert results == {"pipe.py": {(1, 1, "BND001")}, "real.py": {GATHER_AT}}


@pytest.mark.parametrize("name", ["with space.py", "ünïcödé_名前.py", "-dash.py"])
def test_unusual_file_names(tmp_path, name):
    got, findings = run(tmp_path, name, GATHER)
    assert got == {GATHER_AT}
    assert findings[0].path.endswith(name)


def test_unusual_file_names_through_the_cli(tmp_path):
    for name in ("with space.py", "ünïcödé_名前.py"):
        (tmp_path / name).write_text(GATHER, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "-q", str(tmp_path)],
                          capture_output=True, text=True, encoding="utf-8")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{tmp_path}/with space.py:5:11: BND101" in proc.stdout
    assert f"{tmp_path}/ünïcödé_名前.py:5:11: BND101" in proc.stdout


def test_pyi_stub_is_checked(tmp_path):
    stub = "import asyncio\nfrom typing import overload\n\ndef fetch(i: int) -> int: ...\n\nclass A:\n    items: list[int]\n    @overload\n    def g(self, x: int) -> int: ...\n"
    (tmp_path / "api.pyi").write_text(stub, encoding="utf-8")
    (tmp_path / "bad.pyi").write_text("def f(x: int -> int: ...\n", encoding="utf-8")
    results = check_files_under(tmp_path)
    assert results == {"api.pyi": set(), "bad.pyi": {(1, 14, "BND001")}}


def test_unparseable_input_is_never_dropped(tmp_path):
    """Every kind of bad input above, in one folder with a real file: one result each."""
    files = {
        "syntax.py": b"def f(:\n", "py2.py": b"print 'x'\n", "nul.py": b"x = 1\x00\n", "badutf8.py": b"x = '\xff'\n",
        "deep.py": b"x = " + b"(" * 3000 + b"1" + b")" * 3000 + b"\n", "real.py": GATHER.encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    results = check_files_under(tmp_path)
    assert results.pop("real.py") == {GATHER_AT}
    assert {name: {code for _, _, code in got} for name, got in results.items()} == {
        name: {"BND001"} for name in files if name != "real.py"}


def test_the_checked_code_is_never_executed(tmp_path):
    marker = tmp_path / "SIDE_EFFECT"
    module = tmp_path / "evil.py"
    module.write_text(
        "import os, pathlib, sys\n"
        f"pathlib.Path({str(marker)!r}).write_text('executed')\n"
        "os._exit(3)\n"
        "sys.exit(4)\n"
        "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n",
        encoding="utf-8")
    (tmp_path / "test_evil.py").write_text(f"import evil\nexec(open({str(module)!r}).read())\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text("import evil\n", encoding="utf-8")
    results = check_files_under(tmp_path)
    assert results["evil.py"] == {(9, 11, "BND101")}
    assert not marker.exists()
    # The in-process engine (used by the flake8 plugin) does not import it either.
    assert {(f.line, f.code) for f in check_source(module.read_text(), str(module), Settings())} == {(9, "BND101")}
    assert "evil" not in sys.modules
    assert not marker.exists()


def test_parenthesized_annotation_target_is_checked_not_bnd001(tmp_path):
    # Valid Python (the standard library's test_grammar.py has it) that LibCST's grammar rejects.
    text = "import asyncio\n(flag): bool = True\n\n\nasync def handler(ids):\n    (x): int = 1\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
    got, _ = run(tmp_path, "annotated.py", text)
    assert got == {(7, 11, "BND101")}


def test_syntax_libcst_lacks_says_so(monkeypatch):
    import libcst

    def reject(text, *args, **kwargs):
        raise libcst.ParserSyntaxError("error at 1:4: expected one of ...", lines=["x = 1"], raw_line=1, raw_column=4)

    monkeypatch.setattr(libcst, "parse_module", reject)
    [finding] = check_source("import asyncio\nx = 1\n", "ok.py", Settings(), prefilter=False)
    assert (finding.line, finding.column, finding.code) == (1, 5, "BND001")
    assert finding.message == ("cannot check this file: syntax the parser (LibCST) does not support, though "
                               "CPython accepts it: expected one of ...")


def test_unlistable_directory_is_reported(tmp_path):
    private = tmp_path / "private"
    private.mkdir()
    (private / "hidden.py").write_text(GATHER, encoding="utf-8")
    (tmp_path / "real.py").write_text(GATHER, encoding="utf-8")
    private.chmod(0)
    try:
        if os.access(private, os.R_OK):
            pytest.skip("running as root (as CI does): chmod 0 does not make a directory unreadable")
        results = check_files_under(tmp_path)
        assert results == {"private": {(1, 1, "BND001")}, "real.py": {GATHER_AT}}
        assert check_file(str(private), Settings()).findings[0].message == "cannot check this file: cannot read: Permission denied"
    finally:
        private.chmod(0o755)


def test_undecodable_file_name_through_the_cli(tmp_path):
    if sys.platform == "darwin" or os.name == "nt":
        pytest.skip("the file system insists on valid Unicode names")
    with open(os.fsencode(tmp_path) + b"/\xff\xfe.py", "w", encoding="utf-8") as fh:
        fh.write(GATHER)
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "-q", str(tmp_path)],
                          capture_output=True)
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr
    assert os.fsencode(tmp_path) + b"/\xff\xfe.py:5:11: BND101" in proc.stdout


class ReportsElsewhere:
    """A test-only rule that reports nodes outside the statement it is visiting."""

    code, name, hint, message = "BND797", "test-elsewhere", "", "{what}"

    def __init__(self, sink) -> None:
        self.sink = sink

    @classmethod
    def may_apply(cls, text: str, settings=None) -> bool:
        return True

    def visit_Call(self, node, ctx) -> None:
        from boundlint.rules.base import Report

        first, last = ctx.module.body[0], ctx.module.body[-1]
        self.sink.append(Report(self, first, "first statement"))  # another statement: module-wide fallback
        self.sink.append(Report(self, last, "last statement"))  # a top-level statement itself
        self.sink.append(Report(self, node, "the call"))


def test_positions_of_nodes_outside_the_reporting_statement():
    text = "# header\n\nimport asyncio\r\n\n\nx = 1\n\n\ndef f():\n    '''doc\n    string'''\n    return g(1)\n"
    findings = check_source(text, "x.py", Settings(min_severity="low"), [ReportsElsewhere])
    assert [(f.line, f.column, f.end_line, f.message) for f in findings] == [
        (3, 1, 3, "first statement"), (9, 1, 12, "last statement"), (12, 12, 12, "the call")]


def test_the_unvalidated_parse_builds_the_same_tree_and_restores_validation_and_gc():
    import gc

    import libcst as cst

    from boundlint.engine.parse import parse_module

    from conftest import FIXTURES

    text = (FIXTURES / "bnd101_passed_limiter.py").read_text(encoding="utf-8")
    fast = parse_module(text)
    assert fast.deep_equals(cst.parse_module(text)) and fast.code == text
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def (:\n")
    assert gc.isenabled()
    with pytest.raises(cst.CSTValidationError):  # validation is back for nodes built outside the parse
        cst.Name("two words")
