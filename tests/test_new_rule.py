"""scripts/new_rule.py starts a rule that registers, documents itself and reports on its fixture."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "tests" / "fixtures").mkdir(parents=True)
    return root


def script(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "new_rule.py"), *args, "--root", str(root)],
                          capture_output=True, text=True, timeout=120)


def test_new_rule_registers_and_reports_on_its_fixture(tmp_path):
    root = _copy(tmp_path)
    proc = script(root, "BND105", "unbounded-demo-hazard")
    assert proc.returncode == 0, proc.stderr
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    check = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--output-format",
                            "json", "tests/fixtures/bnd105.py"], cwd=root, env=env, capture_output=True, text=True,
                           timeout=120)
    found = [(f["line"], f["column"], f["code"]) for f in json.loads(check.stdout)]
    assert found == [(6, 9, "BND105")]
    doc = subprocess.run([sys.executable, "-m", "boundlint", "rule", "BND105"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=120).stdout
    assert doc.startswith("# BND105 unbounded-demo-hazard\n") and "## What counts as a limit" in doc


def test_new_rule_refuses_a_taken_code_and_writes_nothing(tmp_path):
    root = _copy(tmp_path)
    proc = script(root, "BND101", "another-gather")
    assert proc.returncode == 2
    assert proc.stderr == "new_rule.py: error: BND101 is taken by UnboundedGather; codes are never reused\n"
    assert not (root / "tests" / "fixtures" / "bnd101.py").exists()
