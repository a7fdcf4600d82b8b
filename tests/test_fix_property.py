"""The fixes never break code: over every BND2xx fixture (a copy), ``check --fix --unsafe-fixes``

- leaves every file compilable;
- removes the fixed findings: nothing it could fix is reported afterwards;
- adds no new finding (by path, code and message: lines move when a fix adds an import);
- is idempotent: a second ``--fix`` changes no byte, and ``--diff`` then has nothing to say (exit 0).
"""
from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from boundlint.cli import main
from boundlint.fixes.apply import fixes_for
from conftest import FIXTURES


def _bnd2_fixtures() -> list[Path]:
    files = [p for p in FIXTURES.glob("*.py") if "error: BND2" in p.read_text(encoding="utf-8")]
    projects = sorted({p.relative_to(FIXTURES / "projects").parts[0] for p in (FIXTURES / "projects").rglob("*.py")
                       if "error: BND2" in p.read_text(encoding="utf-8")})
    return sorted(files) + [FIXTURES / "projects" / name for name in projects]


def _findings(capsys, *args) -> list[dict]:
    capsys.readouterr()
    main(["check", "--no-cache", "--exit-zero", "--output-format", "json", "-j", "2", *args])
    return json.loads(capsys.readouterr().out)


def _texts(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_fix_property_over_every_bnd2_fixture(tmp_path, monkeypatch, capsys):
    sources = _bnd2_fixtures()
    assert len(sources) > 40
    work = tmp_path / "copy"
    for src in sources:
        if src.is_dir():
            shutil.copytree(src, work / "projects" / src.name)
        else:
            work.mkdir(exist_ok=True)
            shutil.copy(src, work / src.name)
    monkeypatch.chdir(work)
    before = _findings(capsys, ".")
    originals = _texts(work)
    assert main(["check", "--no-cache", "--fix-only", "--unsafe-fixes", "-j", "2", "."]) == 0
    fixed = _texts(work)
    changed = [name for name in fixed if fixed[name] != originals[name]]
    assert len(changed) > 30
    for name, data in fixed.items():
        compile(data, name, "exec", dont_inherit=True)
    after = _findings(capsys, ".")
    key = lambda f: (f["path"], f["code"], f["message"])  # noqa: E731
    assert not Counter(map(key, after)) - Counter(map(key, before)), "a fix added a finding"
    fixable_before = sum(f["code"].startswith("BND2") for f in before)
    assert len([f for f in after if f["code"].startswith("BND2")]) < fixable_before / 4
    # nothing left that a fix could still change: the fixed findings are gone
    from boundlint.finding import Finding

    by_path: dict[str, list] = {}
    for f in after:
        by_path.setdefault(f["path"], []).append(f)
    from boundlint.config import Settings
    from boundlint.engine import check_source

    for path in by_path:
        text = Path(path).read_text(encoding="utf-8")
        left = check_source(text, path, Settings())
        assert all(isinstance(f, Finding) for f in left)
        assert not [fix for fix in fixes_for(text, left, Settings(), path).fixes if fix.edits], path
    # idempotent
    capsys.readouterr()
    assert main(["check", "--no-cache", "--fix-only", "--unsafe-fixes", "-j", "2", "."]) == 0
    assert _texts(work) == fixed
    assert main(["check", "--no-cache", "--diff", "--unsafe-fixes", "-j", "2", "."]) == 0
    assert capsys.readouterr().out == ""
