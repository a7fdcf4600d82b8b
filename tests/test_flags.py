"""Flag arguments: a constant a call passes rules out the callee's branches that test the parameter
(``index.flags``), in the summary, the dependency queries and the judgement across modules."""
from __future__ import annotations

import ast
import shutil
import textwrap

import libcst as cst

from boundlint.analysis.facts import flag_args
from boundlint.index import flags
from boundlint.index.build import build_index
from boundlint.index.queries import QUERIES
from boundlint.index.summary import summarize
from conftest import FIXTURES


def _test(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


def test_conditions_of_the_tests_on_a_parameter():
    params = frozenset({"flag", "other"})
    assert flags.conditions(_test("flag"), params) == ([["flag", "truthy"]], [["flag", "falsy"]])
    assert flags.conditions(_test("not flag"), params) == ([["flag", "falsy"]], [["flag", "truthy"]])
    assert flags.conditions(_test("flag is None"), params) == ([["flag", "none"]], [["flag", "not_none"]])
    assert flags.conditions(_test("flag is not None"), params) == ([["flag", "not_none"]], [["flag", "none"]])
    # `and`: the body needs every part; `or`: the else needs every part to fail
    assert flags.conditions(_test("names and flag"), params) == ([["flag", "truthy"]], [])
    assert flags.conditions(_test("flag or other"), params) == ([], [["flag", "falsy"], ["other", "falsy"]])
    assert flags.conditions(_test("not (flag or other)"), params) == ([["flag", "falsy"], ["other", "falsy"]], [])
    # a name that is no parameter, or a comparison with a value, says nothing
    assert flags.conditions(_test("local"), params) == ([], [])
    assert flags.conditions(_test("flag == 3"), params) == ([], [])


def test_states_of_constants_and_what_they_rule_out():
    assert [flags.state(_test(t)) for t in ("None", "False", "0", "True", "2.5", "[]", "{'a': 1}", "()", "'x'", "n")] \
        == ["none", "falsy", "falsy", "truthy", "truthy", "falsy", "truthy", "falsy", None, None]
    assert flags.consts(_test("f(a, False, *rest, None, check=True, **kw)")) == {1: "falsy", "check": "truthy"}
    assert flags.ruled_out([["flag", "truthy"]], {"flag": "falsy"}) is True
    assert flags.ruled_out([["flag", "truthy"]], {"flag": "none"}) is True
    assert flags.ruled_out([["flag", "falsy"]], {"flag": "none"}) is False  # None is falsy too
    assert flags.ruled_out([["flag", "none"]], {"flag": "falsy"}) is True
    assert flags.ruled_out([["flag", "not_none"]], {"flag": "none"}) is True
    assert flags.ruled_out([["flag", "not_none"]], {"flag": "truthy"}) is False
    assert flags.ruled_out([["flag", "truthy"]], {"other": "falsy"}) is False


def test_libcst_calls_pass_the_same_states():
    call = cst.parse_expression("f(a, False, None, [], 0, 'x', *rest, 1, check=True)")
    assert flag_args.passed(call) == [[1, "falsy"], [2, "none"], [3, "falsy"], [4, "falsy"], ["check", "truthy"]]
    # a parameter of the caller whose state it knows is passed on as that state
    assert flag_args.passed(cst.parse_expression("f(x, flag, check=flag)"), {"flag": "falsy"}) == [
        [1, "falsy"], ["check", "falsy"]]


def test_the_summary_records_conditions_constants_and_guarded_dependency_calls():
    summary = summarize(textwrap.dedent("""\
        import httpx
        from app import helpers

        def load(names, confirm, refresh=None):
            if confirm:
                helpers.check(names)
            else:
                helpers.skip(names)
            if refresh is None:
                return names
            httpx.get("http://x")
            helpers.keep(names, confirm, force=False)

        def rebinds(confirm):
            confirm = bool(confirm)
            if confirm:
                helpers.check([])

        class Loader:
            @staticmethod
            def make(flag):
                return flag
        """), "app.load", False)
    load = summary["functions"]["load"]
    assert [(c["ref"], c.get("when"), c.get("consts")) for c in load["calls"]] == [
        ("app.helpers.check", [["confirm", "truthy"]], None),
        ("app.helpers.skip", [["confirm", "falsy"]], None),
        ("httpx.get", [["refresh", "not_none"]], None),
        ("app.helpers.keep", [["refresh", "not_none"]], {"force": "falsy"}),
    ]
    # the dependency call after `if refresh is None: return` runs only when a refresh is given
    assert load["dep"] == ["`httpx.get()`", 11]
    assert load["guarded"] == [["dep", "`httpx.get()`", 11, False, [["refresh", "not_none"]]]]
    assert (load.get("dep_open"), load.get("dep_open_out")) == (None, None)
    # a parameter the function rebinds is tested on its own value, not the caller's
    rebinds = summary["functions"]["rebinds"]
    assert rebinds["rebound"] == ["confirm"] and "when" not in rebinds["calls"][-1]
    assert "guarded" not in rebinds and "dep_open" not in rebinds
    assert summary["functions"]["Loader.make"]["static"] is True


def _project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # evidence paths are relative to the working folder
    shutil.copytree(FIXTURES / "projects" / "profiles", tmp_path / "profiles")
    return build_index(str(tmp_path), True)


def test_a_constant_passed_on_rules_out_the_branch_two_calls_down(tmp_path, monkeypatch):
    index = _project(tmp_path, monkeypatch)
    confirm = "`client.get()` in `_confirm_remote` (profiles/loader.py:11)"
    lookup = "profiles.directory.lookup"
    assert QUERIES["failing_dependency"](index, lookup) == confirm  # the default asks
    assert QUERIES["failing_dependency"](index, lookup, [["confirm", "falsy"]]) == ""
    assert QUERIES["failing_dependency"](index, lookup, [[1, "falsy"]]) == ""  # by position
    assert QUERIES["failing_dependency"](index, lookup, [[1, "none"]]) == ""
    assert QUERIES["failing_dependency"](index, lookup, [["confirm", "truthy"]]) == confirm
    assert QUERIES["dependency"](index, lookup, [["confirm", "falsy"]]) == ""
    # a state for another parameter, or a malformed pair, rules nothing out
    assert QUERIES["failing_dependency"](index, lookup, [[0, "falsy"], ["confirm", "maybe"], [True, "falsy"]]) == confirm


def test_a_constant_rules_out_the_callees_own_dependency_call(tmp_path, monkeypatch):
    index = _project(tmp_path, monkeypatch)
    label = "`client.get()` in `label` (profiles/directory.py:16)"
    assert QUERIES["failing_dependency"](index, "profiles.directory.label") == label
    assert QUERIES["failing_dependency"](index, "profiles.directory.label", [[1, "none"]]) == ""
    assert QUERIES["failing_dependency"](index, "profiles.directory.label", [[1, "truthy"]]) == label
    badge = "`client.get()` in `badge` (profiles/loader.py:26)"
    assert QUERIES["failing_dependency"](index, "profiles.loader.badge", [["offline", "truthy"]]) == ""
    assert QUERIES["failing_dependency"](index, "profiles.loader.badge", [["offline", "falsy"]]) == badge


def test_a_caller_that_passes_the_constant_itself_is_read_without_the_branch(tmp_path, monkeypatch):
    _project(tmp_path, monkeypatch)
    (tmp_path / "profiles" / "batch.py").write_text(textwrap.dedent("""\
        from profiles import directory


        def warm(names):
            for name in names:
                directory.lookup(name, confirm=False)


        def warm_checked(names):
            for name in names:
                directory.lookup(name, confirm=True)
        """), encoding="utf-8")
    index = build_index(str(tmp_path), True)
    assert QUERIES["dependency"](index, "profiles.batch.warm") == ""
    assert QUERIES["dependency"](index, "profiles.batch.warm_checked") == (
        "`client.get()` in `_confirm_remote` (profiles/loader.py:11)")


def _def(source: str) -> cst.FunctionDef:
    return cst.parse_module(textwrap.dedent(source)).body[0]


def test_in_sight_states_and_the_nodes_they_rule_out():
    func = _def("""\
        def f(self, key, flag=True, mode=None):
            if flag and key:
                a()
            else:
                b()
            c() if mode is None else d()
            if not flag:
                return
            e()
        """)
    call = cst.parse_expression("obj.f(k, False, mode=0)")
    assert flag_args.states(call, func, 1) == {"flag": "falsy", "mode": "falsy"}
    # the caller's own flag, known to be truthy, handed on by keyword
    assert flag_args.states(cst.parse_expression("obj.f(k, flag=on)"), func, 1, {"on": "truthy"}) == {"flag": "truthy"}
    body = func.body.body
    first, ternary, exit_, last = body[0], body[1].body[0].value, body[2], body[3]
    assert flag_args.not_taken(func.body, {"flag": "falsy", "mode": "falsy"}) == {
        id(first.body), id(ternary.body), id(last)}
    assert flag_args.not_taken(func.body, {"flag": "truthy"}) == {id(exit_.body)}
    assert flag_args.not_taken(func.body, {}) == set()


def test_a_parameter_the_def_rebinds_takes_no_state():
    func = _def("""\
        def f(flag, other):
            flag = flag or default()
            for other in items:
                pass
            if flag:
                a()
        """)
    assert flag_args.states(cst.parse_expression("f(False, None)"), func, 0) == {}


def test_a_flag_handed_on_after_star_args_has_no_known_position(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "work.py").write_text(textwrap.dedent("""\
        import httpx


        def fetch(a, confirm=True, *rest):
            if confirm:
                httpx.get("http://x")


        def by_position(parts, confirm):
            fetch(*parts, confirm)


        def by_keyword(parts, confirm):
            fetch(*parts, confirm=confirm)
        """), encoding="utf-8")
    index = build_index(str(tmp_path), True)
    summary = index.function("pkg.work.by_position")[2]
    assert summary["calls"][0]["starred"] == 0
    # `*parts` may fill `confirm` itself: the flag's position is unknown, the fetch stays
    assert QUERIES["dependency"](index, "pkg.work.by_position", [[1, "falsy"]]) == "`httpx.get()` in `fetch` (pkg/work.py:6)"
    assert QUERIES["dependency"](index, "pkg.work.by_keyword", [[1, "falsy"]]) == ""
