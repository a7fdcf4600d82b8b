"""Bad input, clearly said: every missing path named, a binary file called binary, a TOML error's line,
and a did-you-mean that names a key or code family that exists."""
from __future__ import annotations

import pytest

from boundlint.cli import main


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _err(capsys, *args) -> tuple[int, str]:
    status = main(["check", "--no-cache", *args])
    return status, capsys.readouterr().err


def test_every_missing_path_is_named(project, capsys):
    assert _err(capsys, "nope1", "a.py", "nope2") == (2, "boundlint: error: paths do not exist: nope1, nope2\n")
    assert _err(capsys, "nope1", "a.py") == (2, "boundlint: error: path does not exist: nope1\n")


def test_a_binary_py_file_is_said_to_look_binary(project, capsys):
    (project / "blob.py").write_bytes(b"PK\x03\x04\x00\x00binary\xff\xfe")
    assert main(["check", "--no-cache", "--output-format", "concise", "-q", "blob.py"]) == 1
    assert capsys.readouterr().out == ("blob.py:1:5: BND001 cannot check this file: the file looks binary: source code "
                                       "cannot contain null bytes\n")


def test_a_toml_error_gives_its_line(project, capsys):
    (project / "pyproject.toml").write_text('[tool.boundlint]\nselect = ["BND1"\nfoo = 1\n', encoding="utf-8")
    status, err = _err(capsys, "a.py")
    assert status == 2 and err.startswith("boundlint: error: pyproject.toml: invalid TOML: ") and "line 3" in err


def test_did_you_mean_names_the_extend_form_of_a_table(project, capsys):
    (project / "pyproject.toml").write_text('[tool.boundlint.tables]\nextend-sleep = ["x"]\n', encoding="utf-8")
    status, err = _err(capsys, "a.py")
    assert status == 2 and "unknown table 'extend-sleep' in [tool.boundlint.tables]; did you mean 'extend-sleeps'?" in err


def test_a_code_of_no_family_lists_the_families(project, capsys):
    (project / "pyproject.toml").write_text('[tool.boundlint]\nselect = ["BND77"]\n', encoding="utf-8")
    status, err = _err(capsys, "a.py")
    assert status == 2
    assert err == ("boundlint: error: pyproject.toml: tool.boundlint.select: unknown rule code or prefix 'BND77': no "
                   "family BND7; the families are BND0 (unchecked files), BND1 (fan-out), BND2 (request shape), "
                   "BND3 (log storms and retries), BND4 (connection churn), BND9 (noqa)\n")
    # Within a family, the nearest code.
    assert _err(capsys, "--isolated", "--select", "BND1001", "a.py") == (
        2, "boundlint: error: --select: unknown rule code or prefix 'BND1001'; did you mean 'BND101'?\n")


def test_a_directory_that_cannot_be_read_is_no_file(project, capsys, monkeypatch):
    """A folder the walk could not list is kept as a path (so it is reported): it is said to be a directory,
    and it is not counted as a checked file.  As root no folder is unreadable: the walk is made to fail."""
    import os

    from boundlint import files

    (project / "locked").mkdir()
    (project / "locked" / "m.py").write_text("x = 1\n", encoding="utf-8")
    real = files._walk

    def walk(root_dir, full_root, unlistable):
        for entry in real(root_dir, full_root, unlistable):
            if entry[0].endswith("locked"):
                unlistable(PermissionError(13, "Permission denied", entry[0]))
                entry[2][:] = []
                continue
            yield entry

    monkeypatch.setattr(files, "_walk", walk)
    from boundlint.engine import check as engine_check

    monkeypatch.setattr(engine_check, "_listing_error", lambda path: "Permission denied")  # as it is for a user
    assert main(["check", "--no-cache", "-j", "1", "--output-format", "full", "."]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "locked:1:1: BND001 cannot list this directory: Permission denied"
    assert "cannot check this file" not in out[0]
    assert out[1] == "    help: make it readable, or exclude it in [tool.boundlint]"
    assert out[-1] == "Found 1 finding in 1 file checked."  # a.py; the folder is no file
    assert os.path.isdir("locked")


def test_a_named_file_that_exclude_matches_says_which_config_excluded_it(project, capsys):
    (project / "migrations").mkdir()
    (project / "migrations" / "m1.py").write_text("x = 1\n", encoding="utf-8")
    (project / "pyproject.toml").write_text('[tool.boundlint]\nextend-exclude = ["migrations/"]\n', encoding="utf-8")
    assert _err(capsys, "migrations/m1.py") == (0, (
        "boundlint: warning: migrations/m1.py is not checked: it matches the `extend-exclude` pattern 'migrations/' "
        "of pyproject.toml\nboundlint: warning: No Python files found under the given path(s)\n"))
    assert _err(capsys, "--exclude", "a.py", "a.py")[1].startswith(
        "boundlint: warning: a.py is not checked: it matches the `exclude` pattern 'a.py' of the command line\n")
    # With other files checked (pre-commit naming excluded files among staged ones), only --verbose says it.
    assert _err(capsys, "migrations/m1.py", "a.py") == (0, "")
    assert "migrations/m1.py is not checked" in _err(capsys, "--verbose", "migrations/m1.py", "a.py")[1]
