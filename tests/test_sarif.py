"""``--format sarif`` validates against the official SARIF 2.1.0 schema, and says what GitHub needs.

The schema is vendored under tests/data (see its README).  When Microsoft's
SARIF Multitool is installed (npm ``@microsoft/sarif-multitool``; point
``SARIF_MULTITOOL`` at it or put ``sarif-multitool`` on PATH), its stricter
``validate`` must report no error and no warning either.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from boundlint.engine import enabled_rules
from boundlint.config import Settings
from boundlint.finding import Finding
from boundlint.report.sarif import format_sarif
from conftest import FIXTURES

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
CASES = ROOT.parent / "shared" / "cases"


def validate(log: dict) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def sarif_of(*paths: str, cwd: Path = ROOT) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--format", "sarif", *paths],
                          cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_the_vendored_schema_is_the_official_one():
    assert SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(SCHEMA)


def test_schema_rejects_a_broken_log():
    with pytest.raises(AssertionError):
        validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})


@pytest.mark.skipif(not CASES.is_dir(), reason="needs ../shared/cases beside the checkout")
def test_shared_cases_validate():
    status, log = sarif_of(str(CASES))
    assert status == 1
    validate(log)
    run = log["runs"][0]
    assert run["results"], "the incident cases have findings"
    # Files outside the working directory are still relative, to their common directory.
    # The path as given, made absolute: a symlinked ../shared keeps the user's spelling.
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == Path(os.path.abspath(CASES)).as_uri() + "/"
    for result in run["results"]:
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"


def test_fixtures_validate_with_rule_metadata():
    status, log = sarif_of(str(FIXTURES.relative_to(ROOT)))
    assert status == 1
    validate(log)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "boundlint" and driver["version"]
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(ids) and "BND101" in ids and "BND900" in ids  # BND900 is on by default
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert rule["helpUri"].endswith(f"/docs/rules/{rule['id']}.md")
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert not location["artifactLocation"]["uri"].startswith(("/", "file:"))
        assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1


def test_regions_are_one_based_and_match_the_json_output(tmp_path):
    (tmp_path / "m.py").write_text(
        "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*(fetch(i) for i in ids))\n\n\n"
        "async def fetch(i):\n    return await client.get(i)\n", encoding="utf-8")
    _, log = sarif_of("m.py", cwd=tmp_path)
    validate(log)
    (result,) = log["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "m.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 5, "startColumn": 11, "endLine": 5, "endColumn": 51,
                                  "snippet": {"text": "asyncio.gather(*(fetch(i) for i in ids))"}}
    assert location["contextRegion"]["snippet"]["text"] == "    await asyncio.gather(*(fetch(i) for i in ids))\n"
    assert result["ruleId"] == "BND101" and result["level"] == "warning"
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"


def test_empty_run_validates():
    log = json.loads(format_sarif([], {cls.code: cls for cls in enabled_rules(Settings())}))
    validate(log)
    assert log["runs"][0]["results"] == []


def test_odd_paths_are_escaped(tmp_path):
    finding = Finding(str(tmp_path / "dir with space" / "m%.py"), 1, 1, "BND001", "cannot check this file: x", 1, 1)
    log = json.loads(format_sarif([finding], {}, cwd=str(tmp_path)))
    validate(log)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "dir%20with%20space/m%25.py"


def _multitool() -> str | None:
    return os.environ.get("SARIF_MULTITOOL") or shutil.which("sarif-multitool")


@pytest.mark.skipif(_multitool() is None, reason="SARIF Multitool not installed (npm @microsoft/sarif-multitool)")
def test_sarif_multitool_validate(tmp_path):
    paths = [str(FIXTURES)] + ([str(CASES)] if CASES.is_dir() else [])
    _, log = sarif_of(*paths)
    (tmp_path / "log.sarif").write_text(json.dumps(log), encoding="utf-8")
    out = tmp_path / "validation.sarif"
    proc = subprocess.run([_multitool(), "validate", str(tmp_path / "log.sarif"), "-o", str(out),
                           "--level", "Error", "Warning"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    problems = json.loads(out.read_text(encoding="utf-8"))["runs"][0].get("results", [])
    assert not problems, [(p["ruleId"], p["message"]) for p in problems]
