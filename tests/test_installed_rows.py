"""Rows only an operator adds (a table object every row-creating call of which is an endpoint behind an
operator guard) are configured; rows any user adds stay input (exact severities, reasons and guards)."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

from boundlint.index.guards import guards

PROJECT = Path(__file__).parent / "fixtures" / "projects" / "plugin_host"


def _judged(root: Path) -> dict[tuple[str, int], tuple[str, str]]:
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--min-severity",
                           "low", "--format", "json", "plugin_host"], cwd=root, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return {(Path(f["path"]).name, f["line"]): (f["severity"], f["severity_reason"]) for f in json.loads(proc.stdout)}


def test_guards_read_parameter_defaults_annotated_extras_and_decorator_dependencies():
    func = ast.parse(
        "@router.post('/x', dependencies=[Depends(auth.require_staff)])\n"
        "async def f(a: Annotated[str, Depends(get_token)], user=Depends(get_admin_user), *, q: str = Query('')):\n"
        "    pass\n").body[0]
    assert guards(func) == ["auth.require_staff", "get_token", "get_admin_user"]


def test_rows_only_operators_add_are_configured_and_users_rows_are_input(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "plugin_host")
    found = _judged(tmp_path)
    assert found[("dispatch.py", 18)] == (
        "low", "the volume is configured: the rows `Webhooks.get_webhooks_by_event()` reads: rows only operators add: "
               "`import_webhook()` POST /webhooks/import behind `get_admin_user` (plugin_host/routes.py:17)")
    assert found[("dispatch.py", 27)] == (
        "high", "the result of an awaited call, read at run time; per item: catches `httpx.HTTPError`")


def test_one_unguarded_row_creator_makes_the_rows_input_again(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "plugin_host")
    routes = tmp_path / "plugin_host" / "routes.py"
    routes.write_text(routes.read_text(encoding="utf-8") + (
        "\n\n@router.post('/webhooks/mine')\n"
        "async def add_my_webhook(form: dict, user=Depends(get_verified_user)):\n"
        "    return await Webhooks.insert_webhook(form)\n"), encoding="utf-8")
    assert _judged(tmp_path)[("dispatch.py", 18)] == (
        "high", "the result of an awaited call, read at run time; per item: catches `httpx.HTTPError`")
