"""pre-commit with ``args: [--fix, --unsafe-fixes]`` (the README's local hook plus those args, as
docs/fixes.md shows it): the hook writes the fix and fails, since it changed a file; once the fix is
staged it passes."""
from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from test_precommit import git, pre_commit_home, readme_hook_config, run_hooks  # noqa: F401 -- a fixture

MODEL = "from pydantic import BaseModel\n\n\nclass LookupRequest(BaseModel):\n    uris: list[str]\n"


def test_hook_with_fix_writes_the_fix_then_passes(tmp_path, pre_commit_home):  # noqa: F811
    if shutil.which("boundlint", path=str(Path(sys.executable).parent)) is None:  # pragma: no cover
        pytest.skip("the boundlint command is not installed beside this Python")
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    config = readme_hook_config().replace("        require_serial: true\n",
                                          "        require_serial: true\n        args: [--fix, --unsafe-fixes]\n")
    assert "args: [--fix, --unsafe-fixes]" in config
    (project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    (project / "pyproject.toml").write_text("[tool.boundlint]\nfix-max-items = 100\n", encoding="utf-8")
    (project / "api.py").write_text(MODEL, encoding="utf-8")
    git("add", "-A", cwd=project)

    fixed = run_hooks(project, pre_commit_home)
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert re.search(r"^boundlint\.+Failed$", fixed.stdout, re.M), fixed.stdout
    assert "files were modified by this hook" in fixed.stdout
    assert (project / "api.py").read_text(encoding="utf-8") == MODEL.replace(
        "from pydantic import BaseModel", "from pydantic import BaseModel, Field").replace(
        "uris: list[str]", "uris: list[str] = Field(max_length=100)")

    git("add", "-A", cwd=project)
    passed = run_hooks(project, pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
