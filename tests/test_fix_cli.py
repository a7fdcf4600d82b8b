"""``check --fix``, ``--unsafe-fixes``, ``--fix-only``, ``--diff`` and standard input, end to end."""
from __future__ import annotations

import io
import os
import sys

from boundlint.cli import main

MODEL = '''from pydantic import BaseModel, Field


class LookupRequest(BaseModel):
    uris: list[str]
    tags: list[str] = Field(default_factory=list)
'''
FIXED = '''from pydantic import BaseModel, Field


class LookupRequest(BaseModel):
    uris: list[str] = Field(max_length=100)
    tags: list[str] = Field(default_factory=list, max_length=100)
'''
CONFIG = "[tool.boundlint]\nfix-max-items = 100\n"


def _project(tmp_path, monkeypatch, text=MODEL):
    (tmp_path / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "api.py").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "api.py"


def test_diff_prints_the_fix_and_changes_nothing(tmp_path, monkeypatch, capsys):
    path = _project(tmp_path, monkeypatch)
    stamp = os.stat(path).st_mtime_ns
    assert main(["check", "--no-cache", "--diff", "--unsafe-fixes", "api.py"]) == 1
    out, err = capsys.readouterr()
    assert out == '''--- a/api.py
+++ b/api.py
@@ -2,5 +2,5 @@
 
 
 class LookupRequest(BaseModel):
-    uris: list[str]
-    tags: list[str] = Field(default_factory=list)
+    uris: list[str] = Field(max_length=100)
+    tags: list[str] = Field(default_factory=list, max_length=100)
'''
    assert err == "Would fix 2 findings in 1 file.\n"
    assert path.read_text(encoding="utf-8") == MODEL and os.stat(path).st_mtime_ns == stamp


def test_diff_without_unsafe_fixes_has_nothing_to_apply(tmp_path, monkeypatch, capsys):
    path = _project(tmp_path, monkeypatch)
    assert main(["check", "--no-cache", "--diff", "api.py"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("Would fix 0 findings in 0 files. 2 findings more have an unsafe fix (it changes behaviour): "
                   "add --unsafe-fixes to apply it.\n")
    assert path.read_text(encoding="utf-8") == MODEL


def test_fix_writes_the_file_then_reports_what_is_left(tmp_path, monkeypatch, capsys):
    path = _project(tmp_path, monkeypatch, MODEL + '''

class PollRequest(BaseModel):
    meta: dict[str, str] = {}  # noqa: BND201
''')
    os.chmod(path, 0o640)
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", "api.py"]) == 0
    out, err = capsys.readouterr()
    assert path.read_text(encoding="utf-8") == FIXED + '''

class PollRequest(BaseModel):
    meta: dict[str, str] = {}  # noqa: BND201
'''
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert err == "Fixed 2 findings in 1 file (0 remaining).\n"
    assert out == "All clear: 1 file checked.\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".boundlint-")]  # no temporary file left


def test_fix_only_reports_nothing_and_exits_zero(tmp_path, monkeypatch, capsys):
    path = _project(tmp_path, monkeypatch)
    assert main(["check", "--no-cache", "--fix-only", "--unsafe-fixes", "api.py"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("", "Fixed 2 findings in 1 file.\n")
    assert path.read_text(encoding="utf-8") == FIXED


def test_fix_leaves_a_noqa_line_alone(tmp_path, monkeypatch, capsys):
    text = MODEL.replace("    uris: list[str]\n", "    uris: list[str]  # noqa: BND201\n")
    path = _project(tmp_path, monkeypatch, text)
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", "api.py"]) == 0
    assert path.read_text(encoding="utf-8") == text.replace(
        "Field(default_factory=list)", "Field(default_factory=list, max_length=100)")
    capsys.readouterr()


def test_fix_touches_no_noqa_line_for_another_fix(tmp_path, monkeypatch, capsys):
    # the cap needs `Field`, whose import would join a line with a bare `# noqa`: no fix then
    text = "from pydantic import BaseModel  # noqa\n\n\nclass LookupRequest(BaseModel):\n    uris: list[str]\n"
    path = _project(tmp_path, monkeypatch, text)
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", "api.py"]) == 1
    assert path.read_text(encoding="utf-8") == text
    assert "BND201" in capsys.readouterr().out


def test_a_file_changed_during_the_run_is_not_written(tmp_path):
    from boundlint.fixes.command import write_if_unchanged

    path = tmp_path / "api.py"
    path.write_text("x = 2\n", encoding="utf-8")
    assert write_if_unchanged(str(path), b"x = 1\n", "x = 3\n") == "it changed on disk during the run"
    assert path.read_text(encoding="utf-8") == "x = 2\n"
    assert write_if_unchanged(str(path), b"x = 2\n", "x = 3\n") is None
    assert path.read_text(encoding="utf-8") == "x = 3\n"


def test_fix_warns_and_skips_a_file_changed_on_disk(tmp_path, monkeypatch, capsys):
    path = _project(tmp_path, monkeypatch)
    from boundlint.fixes import command

    real = command.fix_source

    def edit_meanwhile(*args, **kwargs):
        done = real(*args, **kwargs)
        path.write_text(MODEL + "# edited\n", encoding="utf-8")
        return done

    monkeypatch.setattr(command, "fix_source", edit_meanwhile)
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", "api.py"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith("boundlint: warning: api.py not fixed: it changed on disk during the run\n")
    assert path.read_text(encoding="utf-8") == MODEL + "# edited\n"


def test_fix_with_stdin_writes_the_fixed_text_to_stdout(tmp_path, monkeypatch, capsys):
    _project(tmp_path, monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MODEL.encode())))
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--stdin-filename", "api.py", "-"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (FIXED, "")
    assert (tmp_path / "api.py").read_text(encoding="utf-8") == MODEL  # the file on disk is not the input


def test_fix_with_stdin_reports_what_is_left_on_stderr(tmp_path, monkeypatch, capsys):
    _project(tmp_path, monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MODEL.encode())))
    assert main(["check", "--no-cache", "--fix", "--stdin-filename", "api.py", "-"]) == 1
    out, err = capsys.readouterr()
    assert out == MODEL  # safe fixes only: none of these
    assert err.count("BND201") == 2 and "api.py:5:5: BND201" in err


def test_extend_safe_fixes_lets_fix_apply_without_unsafe_fixes(tmp_path, monkeypatch, capsys):
    path = _project(tmp_path, monkeypatch)
    (tmp_path / "pyproject.toml").write_text(CONFIG + 'extend-safe-fixes = ["BND201"]\n', encoding="utf-8")
    assert main(["check", "--no-cache", "--fix", "api.py"]) == 0
    assert path.read_text(encoding="utf-8") == FIXED
    assert capsys.readouterr().err == "Fixed 2 findings in 1 file (0 remaining).\n"
