"""SARIF carries ``fixes`` for the findings that have one; the log still validates."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from test_sarif import sarif_of, validate

pytest.importorskip("jsonschema")


def test_sarif_fix_of_a_request_field(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.boundlint]\nfix-max-items = 50\n", encoding="utf-8")
    (tmp_path / "api.py").write_text(
        "from pydantic import BaseModel\n\n\nclass LookupRequest(BaseModel):\n    uris: list[str]\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--no-cache", "--format", "sarif", "api.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["fixes"] == [{
        "description": {"text": "Cap `uris` at 50 items: `max_length=50`"},
        "artifactChanges": [{
            "artifactLocation": {"uri": "api.py", "uriBaseId": "%SRCROOT%"},
            "replacements": [
                {"deletedRegion": {"startLine": 1, "startColumn": 1, "endLine": 2, "endColumn": 1},
                 "insertedContent": {"text": "from pydantic import BaseModel, Field\n"}},
                {"deletedRegion": {"startLine": 5, "startColumn": 1, "endLine": 5, "endColumn": 21},
                 "insertedContent": {"text": "    uris: list[str] = Field(max_length=50)\n"}},
            ],
        }],
        "properties": {"applicability": "unsafe"},
    }]


def test_sarif_has_no_fix_for_a_finding_without_one(tmp_path):
    (tmp_path / "m.py").write_text(
        "import asyncio\n\n\nasync def handler(jobs):\n    pending = [fetch(j) for j in jobs]\n"
        "    await asyncio.gather(*pending)\n", encoding="utf-8")
    _, log = sarif_of("m.py", cwd=tmp_path)
    validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "BND101" and "fixes" not in result
