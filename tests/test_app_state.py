"""An application's shared state (``request.app.state.X``) is configured, not request input, and a
parameter is judged by the locals every caller in the project passes for it (tests/fixtures/projects/relay_hub)."""
from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import libcst as cst

from boundlint.analysis.facts import self_extend
from boundlint.index import local_binds
from boundlint.index.build import build_index
from boundlint.index.queries import QUERIES

PROJECT = Path(__file__).parent / "fixtures" / "projects" / "relay_hub"


def _judged(tmp_path: Path) -> dict[tuple[str, int], tuple[str, str]]:
    shutil.copytree(PROJECT, tmp_path / "relay_hub")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--min-severity",
                           "low", "--format", "json", "--select", "BND301", "relay_hub"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    return {(Path(f["path"]).name, f["line"]): (f["severity"], f["severity_reason"]) for f in json.loads(proc.stdout)}


def test_callers_passing_app_state_or_a_one_entry_literal_bound_the_loop(tmp_path):
    found = _judged(tmp_path)
    assert found[("hooks.py", 23)] == (
        "low", "the volume is configured: `subs` of `matching()`, passed `subs`, which every call of "
               "`notify_installed()` fills from a local bound only to a literal of 1 entry or application state "
               "`request.app.state.SUBSCRIBERS`, shared by every request (relay_hub/routes.py:22) by every caller "
               "(relay_hub/hooks.py:16), returned by `matching()`")


def test_state_filled_from_the_body_a_body_field_or_a_body_read_stay_reported(tmp_path):
    found = _judged(tmp_path)
    reported = ("medium", "per item: catches `httpx.HTTPError`")
    assert found[("hooks.py", 32)] == reported  # app.state.OVERRIDES = body.overrides
    assert found[("hooks.py", 41)] == reported  # body.targets
    assert found[("hooks.py", 50)] == reported  # a local one branch reads from `await request.json()`
    assert found[("hooks.py", 62)] == reported  # grows by one per pass of a loop
    assert sorted(found) == [("hooks.py", 23), ("hooks.py", 32), ("hooks.py", 41), ("hooks.py", 50), ("hooks.py", 62)]


def test_the_index_records_every_binding_of_a_local_and_state_stored_from_input():
    index = build_index(str(PROJECT.parent), True, None, extra=(str(PROJECT / "hooks.py"),))
    passed = QUERIES["passed"](index, "relay_hub.hooks.notify_installed", "payload")
    assert passed[0]["text"] is None and "binds" not in passed[0]  # a call's result: unknown
    subs = QUERIES["passed"](index, "relay_hub.hooks.notify_installed", "subs")
    assert [(c["text"], c["input"], c["caller"], c.get("binds")) for c in subs] == [
        ("request.app.state.SUBSCRIBERS", False, "relay_hub.routes.publish",
         [["fixed", "a literal of 1 entry"], ["state", "request.app.state.SUBSCRIBERS"]]),
        ("request.app.state.SUBSCRIBERS", False, "relay_hub.routes.replay", None),
    ]
    listed = QUERIES["passed"](index, "relay_hub.hooks.notify_listed", "targets")
    assert listed[0]["binds"] == [["other", "Subscript"], ["fixed", "a literal of 1 entry"]]
    stored = QUERIES["state_input"](index, "OVERRIDES")
    assert stored.startswith("`set_overrides()` stores `body.overrides` in `app.state.OVERRIDES` (")
    assert stored.endswith("relay_hub/routes.py:39)")
    assert QUERIES["state_input"](index, "SUBSCRIBERS") is None


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def test_binding_kinds():
    params = ["request", "body"]
    assert local_binds.kind(_expr("request.app.state.MODELS"), params) == ["state", "request.app.state.MODELS"]
    assert local_binds.kind(_expr("dict(request.app.state.MODELS.items())"), params) == [
        "state", "request.app.state.MODELS"]
    assert local_binds.kind(_expr("getattr(request.app.state, 'MODELS', None)"), params) == [
        "state", "request.app.state.MODELS"]
    assert local_binds.kind(_expr("{**dict(request.app.state.M.items()), k: v}"), params) == [
        "state", "request.app.state.M"]
    assert local_binds.kind(_expr("{k: v}"), params) == ["fixed", "a literal of 1 entry"]
    assert local_binds.kind(_expr("[*body.ids, 1]"), params) == ["other", "a literal that unpacks another collection"]
    assert local_binds.kind(_expr(repr(list(range(9)))), params) == ["other", "a literal of 9 entries"]
    assert local_binds.kind(_expr("body.ids"), params) == ["param", "body.ids"]
    assert local_binds.kind(_expr("request.state.model"), params) == ["param", "request.state.model"]
    assert local_binds.state_chain(_expr("app.state")) is None


def _values(source: str, name: str):
    func = cst.parse_module(source).body[0]
    from boundlint.analysis.facts import bindings

    return func, bindings.assignments(func)[name]


def test_a_rebinding_to_itself_plus_a_few_items_counts_only_outside_loops():
    func, values = _values("def f(xs):\n    out = g(xs)\n    if xs:\n        out = [1] + out\n    return out\n", "out")
    assert [cst.Module([]).code_for_node(v) for v in self_extend.drop(func, "out", values)] == ["g(xs)"]
    func, values = _values("def f(xs):\n    out = g(xs)\n    for x in xs:\n        out = out + [x]\n", "out")
    assert len(self_extend.drop(func, "out", values)) == 2
    func, values = _values("def f(xs):\n    out = g(xs)\n    out = out + [*xs]\n", "out")
    assert len(self_extend.drop(func, "out", values)) == 2


def test_a_local_filled_after_it_is_bound_is_no_small_literal():
    tree = ast.parse("def f(body):\n    out = [1]\n    for r in body.rows:\n        out.append(r)\n    g(out)\n"
                     "    empty = []\n    g(empty)\n")

    class Reader:  # what local_binds reads of a FunctionReader
        params = ["body"]

    from boundlint.index.body import walk

    reader = Reader()
    reader.body = walk(tree.body[0], reader.params)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "g"]
    assert local_binds.local(reader, calls[0].args[0], None) == {
        "local": "out", "binds": [["fixed", "a literal of 1 entry"], ["other", "a rebinding"]]}
    assert local_binds.local(reader, calls[1].args[0], None) == {
        "local": "empty", "binds": [["other", "a literal of 0 entries"]]}
