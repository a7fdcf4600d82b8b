"""Volume kinds: derived collections keep their source's provenance; schema fields and signal receivers
bound what a loop walks (exact severities and reasons)."""
from __future__ import annotations

from pathlib import Path

import pytest

from boundlint import tables
from boundlint.config import OPT_IN, Settings
from boundlint.engine import check_source
from boundlint.analysis.facts import configured

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures"


def _judged(name: str) -> dict[tuple[int, str], tuple[str, str]]:
    path = FIXTURES / name
    settings = Settings(extend_select=OPT_IN, min_severity="low")
    return {(f.line, f.code): (f.severity, f.severity_reason)
            for f in check_source(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), settings)}


@pytest.fixture()
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # evidence paths are relative to the working directory


def test_a_method_parameter_every_caller_fills_from_configuration(at_root):
    found = _judged("precision_derived.py")
    assert found[(33, "BND101")] == (
        "low", "the volume is configured: `checks` of `_check_all()`, which every caller fills from "
               "`self.hooks.active_hooks`, set by configuration")
    assert found[(36, "BND101")] == ("medium", "per item: `client.post()`")


def test_gather_results_are_as_many_as_what_it_gathers(at_root):
    found = _judged("precision_derived.py")
    registry = ("low", "the volume is configured: `plugin_registry.get_enabled()`, a read of `plugin_registry`, "
                       "the registry of configured plugins")
    assert found[(40, "BND101")] == registry
    assert found[(45, "BND301")] == registry
    assert found[(53, "BND301")] == (
        "high", "the result of an awaited call, read at run time; per item: a failed result of a dependency call")


def test_filter_walks_its_iterable_and_a_suffix_names_configuration(at_root):
    found = _judged("precision_derived.py")
    assert found[(61, "BND301")] == ("low", "the volume is configured: `self.hooks.active_hooks`, set by configuration")


def test_a_registry_of_a_configured_kind_against_one_of_jobs(at_root):
    found = _judged("precision_derived.py")
    assert found[(71, "BND301")] == (
        "low", "the volume is configured: `callback_manager.get_loggers_for_type()`, a read of `callback_manager`, "
               "the registry of configured callbacks")
    assert found[(76, "BND301")] == ("medium", "per item: catches `httpx.HTTPError`")


def test_schema_fields_and_signal_receivers(at_root):
    found = _judged("precision_schema.py")
    assert found[(27, "BND301")] == ("low", "the volume is fixed: the fields declared by serializer `ProfileSerializer`")
    assert found[(32, "BND301")] == ("medium", "per item: catches `OSError`")
    assert found[(44, "BND301")] == ("medium", "per item: catches `OSError`")
    assert found[(59, "BND301")] == ("low", "the volume is fixed: the fields of the model (`prefs.model_dump()`)")
    assert found[(64, "BND301")] == ("medium", "per item: catches `OSError`")
    assert found[(74, "BND301")] == (
        "low", "the volume is configured: the results of `badge_renderers.send()`, one per receiver connected to "
               "signal `badge_renderers` (tests/fixtures/precision_schema.py:13)")
    assert found[(79, "BND301")] == ("medium", "per item: catches `OSError`")


def test_configured_chain_says_how_it_names_configuration():
    assert configured.configured_chain("settings.repos", None) == "root"
    assert configured.configured_chain("x.replicas", None) == "name"
    assert configured.configured_chain("caps.resolved_callbacks", None) == "suffix"
    assert configured.configured_chain("resolved_callbacks", None) == ""
    assert configured.configured_chain("body.ids", None) == ""


def test_new_tables_are_declared():
    assert {"manager", "registry"} == tables.table("registry-words")
    assert "django.dispatch.Signal" in tables.table("signal-classes")
    assert "rest_framework.serializers.ModelSerializer" in tables.table("serializer-bases")


def test_a_helper_of_the_module_that_returns_configured_parts(at_root):
    found = _judged("precision_derived.py")
    assert found[(96, "BND301")] == (
        "low", "the volume is configured: `settings.callbacks`, set by configuration, returned by `_split_callbacks()`")
    assert found[(102, "BND301")] == ("medium", "per item: catches `httpx.HTTPError`")


def test_a_returned_empty_literal_a_method_of_the_class_and_an_entry_of_a_configured_mapping(at_root):
    found = _judged("precision_derived.py")
    assert found[(124, "BND101")] == (
        "low", "the volume is configured: `config.tiers`, set by configuration, returned by `_eligible()`")
    assert found[(125, "BND101")] == (
        "low", "the volume is configured: `self.config.tiers`, set by configuration, returned by `_pools()`")
    assert found[(126, "BND101")] == ("medium", "per item: `client.get()`")


def test_a_part_of_a_literal_set_a_helper_returns_and_calls_appended_per_item(at_root):
    found = _judged("precision_derived.py")
    assert found[(153, "BND101")] == (
        "low", "the volume is fixed: a literal, a part of which `_wanted` (tests/fixtures/precision_derived.py:131) returns")
    assert found[(160, "BND101")][0] == "medium"


def test_the_index_reads_a_returned_subset_of_a_parameter():
    import ast

    from boundlint.index.returns import returned

    source = (
        "def kept(words, allowed):\n    found = set()\n    for w in words:\n"
        "        if w and w in allowed:\n            found.add(w)\n    return sorted(found)\n"
        "def every(words, allowed):\n    found = set()\n    for w in words:\n            found.add(w)\n"
        "    return sorted(found)\n"
        "def handed(words, allowed):\n    found = set()\n    collect(words, found)\n    return list(found)\n")
    funcs = ast.parse(source).body
    assert [returned(f, ["words", "allowed"]) for f in funcs] == [{"param": "allowed", "subset": True}, None, None]


def test_fills_of_a_collection_built_empty():
    import libcst as cst

    from boundlint.analysis.facts import fills

    func = cst.parse_module(
        "def f(xs, ys):\n    out = []\n    for x in xs:\n        out.append(x)\n    out.extend(ys)\n"
        "    out.append(1)\n    return out\n").body[0]
    found = fills.fills(func, "out")
    assert [(len(loops), added is not None) for loops, added in found] == [(0, False), (0, True), (1, False)]
    looped = cst.parse_module("def f(q):\n    out = []\n    while q:\n        out.append(q.pop())\n").body[0]
    assert fills.fills(looped, "out") is None


def test_every_for_clause_of_a_comprehension_counts(at_root):
    found = _judged("precision_derived.py")
    assert found[(171, "BND301")] == ("medium", "per item: catches `httpx.HTTPError`")


def test_positions_in_a_configured_list_and_a_registry_read_on_self(at_root):
    found = _judged("precision_configured_lookups.py")
    assert found[(23, "BND301")] == (
        "low", "the volume is configured: each item picks an entry of `mirror_urls`: `settings.mirror_urls`, "
               "set by configuration")
    assert found[(34, "BND301")] == ("high", "request input `body` of `evict()`; per item: catches `httpx.HTTPError`")
    assert found[(45, "BND301")] == ("medium", "per item: catches `httpx.HTTPError`")
    assert found[(69, "BND301")] == (
        "low", "the volume is configured: `self.get_registry()`, a read of the registry of configured exporters "
               "that `ExporterRegistry` keeps")
    assert found[(77, "BND301")] == ("medium", "per item: catches `httpx.HTTPError`")


def test_a_registry_read_on_self_needs_a_registry_class_and_a_read_of_the_registry():
    import libcst as cst

    def read(code, owner):
        return configured.registry_read(cst.parse_expression(code), None, owner)

    assert read("self.list_servers", "ServerManager") == (
        "`self.list_servers()`, a read of the registry of configured servers that `ServerManager` keeps")
    assert read("self.get_registry", "MCPServerManager").startswith("`self.get_registry()`")
    assert read("self.all", "PluginRegistry").startswith("`self.all()`")
    assert read("self.get_jobs", "ServerManager") == ""  # another read of the object
    assert read("self.get_registry", "JobManager") == ""  # jobs are no configured kind
    assert read("self.get_registry", None) == ""
