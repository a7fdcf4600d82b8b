"""The README a newcomer reads: its two set-up commands, the test command CI runs, and what it links."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _setup_commands() -> list[str]:
    """The README's set-up commands: the shell lines that make a virtualenv."""
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    return [line for block in blocks for line in block.splitlines() if line.startswith("python3 -m venv")]


def test_readme_has_exactly_two_set_up_commands():
    first, tests = _setup_commands()
    assert first == "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/boundlint check examples/"
    assert tests == ("python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
                     ".venv/bin/python -m pytest -n auto -m \"not slow\"")


def test_ci_runs_the_readme_test_command_and_the_slow_tests():
    _, tests = _setup_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci
    assert ".venv/bin/python -m pytest -n auto -m slow" in ci


def test_xdist_is_in_the_test_extra_and_the_slow_marker_is_registered():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(req.startswith("pytest-xdist") for req in project["project"]["optional-dependencies"]["test"])
    markers = project["tool"]["pytest"]["ini_options"]["markers"]
    assert [m.split(":")[0] for m in markers] == ["slow"]


def test_every_slow_entry_names_a_test():
    from conftest import SLOW

    for entry in SLOW:
        path, _, name = entry.partition("::")
        text = (ROOT / "tests" / path).read_text(encoding="utf-8")
        assert not name or f"def {name}(" in text, entry


def test_contributing_names_the_quick_subset_and_the_slow_tests():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    quick = re.search(r"`(\.venv/bin/python -m pytest -n auto -m \"not slow\" tests/[^`]+)`", text).group(1)
    for path in shlex.split(quick)[7:]:
        assert (ROOT / path).is_file(), path
    assert "`.venv/bin/python -m pytest -n auto -m slow`" in text


def test_readme_is_a_five_minute_read_with_the_newcomer_sections():
    words = len(re.sub(r"```.*?```", "", README, flags=re.S).split())
    assert words <= 1600, words
    headings = re.findall(r"^##+ (.+)$", README, re.M)
    for needed in ("Install and first run", "Reading a finding", "Configuration", "CI and pre-commit", "pre-commit",
                   "Editors", "Adopting it in a large codebase: baselines", "Suppressing findings: noqa"):
        assert needed in headings, needed
    for extra in ("lsp", "audit", "flake8", "test"):
        assert f"| `{extra}` |" in README, extra
    assert "../shared" in README


def test_severity_and_run_once_prose_live_in_docs():
    severity = (ROOT / "docs" / "severity.md").read_text(encoding="utf-8")
    assert "| `high` |" in severity and "Code also runs once" in severity
    assert "Code also runs once" not in README and "| `high` |" not in README


@pytest.mark.parametrize("doc", ["README.md", "CONTRIBUTING.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))])
def test_relative_links_resolve(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    base = (ROOT / doc).parent
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        assert (base / target).exists(), f"{doc} links {target}"


def test_rule_links_point_at_pages_in_the_repository_docs():
    from boundlint.report.sarif import RULE_DOC_URI, rule_doc_uri
    from boundlint.rules.base import all_rules

    for code in all_rules():
        uri = rule_doc_uri(code)
        assert uri == RULE_DOC_URI.format(code=code)
        page = uri.split("/blob/main/", 1)[1]
        assert (ROOT / page).is_file(), uri


def test_install_hints_work_from_a_checkout():
    import subprocess
    import sys

    for path in [*ROOT.joinpath("src").rglob("*.py"), ROOT / "README.md", *ROOT.joinpath("docs").rglob("*.md")]:
        assert "boundlint[" not in path.read_text(encoding="utf-8"), path
    proc = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pygls'] = None; "
                           "from boundlint.cli import main; sys.exit(main(['server']))"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "pip install '.[lsp]'" in proc.stderr


def test_rule_pages_open_with_what_they_flag_the_example_and_the_fix_and_end_with_the_limits():
    from boundlint.rules.base import all_rules

    for code, cls in all_rules().items():
        headings = re.findall(r"^## (.+)$", cls.doc(), re.M)
        assert headings[0] == "What it flags", code
        assert headings.index("Fix") < 4 and (not cls.invalid or headings[1] == "Example"), (code, headings)
        lists = [h for h in headings if h.startswith("What counts as")]
        assert lists and headings[-len(lists):] == lists, (code, headings)


def test_sarif_short_description_is_one_sentence():
    from boundlint.report.sarif import _first_sentence, rule_descriptor
    from boundlint.rules.base import all_rules

    for code, cls in all_rules().items():
        short = rule_descriptor(cls)["shortDescription"]["text"]
        assert short != cls.name and short.endswith(".") and _first_sentence(short) == short, (code, short)
    assert _first_sentence("Flags x (a `y.z` call; see b). More text.") == "Flags x (a `y.z` call; see b)."
    assert _first_sentence("Flags a call, e.g. this one: then more") == "Flags a call, e.g. this one."
