"""The project index: roots, module names, the link step, and one odd file never taking it down."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from boundlint.index import queries
from boundlint.index.build import build_index
from boundlint.index.project import find_root, module_names


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_root_is_the_nearest_marker_or_the_parent_of_the_outermost_package(tmp_path):
    write(tmp_path, {"repo/pyproject.toml": "", "repo/src/app/__init__.py": "", "repo/src/app/api.py": "",
                     "loose/pkg/__init__.py": "", "loose/pkg/sub/__init__.py": "", "loose/pkg/sub/m.py": "",
                     "scripts/run.py": ""})
    assert find_root(str(tmp_path / "repo/src/app/api.py")) == (str(tmp_path / "repo" / "src"), True)
    assert find_root(str(tmp_path / "loose/pkg/sub/m.py")) == (str(tmp_path / "loose"), True)
    assert find_root(str(tmp_path / "scripts/run.py")) == (str(tmp_path / "scripts"), False)


def test_module_names_cover_src_layouts_and_namespace_packages(tmp_path):
    write(tmp_path, {"src/app/__init__.py": "", "src/app/api.py": "", "ns/app/__init__.py": "", "ns/app/m.py": ""})
    assert module_names(str(tmp_path / "src/app/api.py"), str(tmp_path)) == ["app.api", "src.app.api"]
    assert module_names(str(tmp_path / "src/app/__init__.py"), str(tmp_path)) == ["app", "src.app"]
    # ns/ has no __init__.py: a namespace package, known by its path below the root too
    assert module_names(str(tmp_path / "ns/app/m.py"), str(tmp_path)) == ["app.m", "ns.app.m"]
    # folders no package chain reaches: the bare stem would name every `hooks.py` alike, so the name
    # below the root comes first
    write(tmp_path, {"pkg/__init__.py": "", "pkg/types/extra/hooks.py": ""})
    assert module_names(str(tmp_path / "pkg/types/extra/hooks.py"), str(tmp_path))[0] == "pkg.types.extra.hooks"


def test_a_folder_without_init_inside_a_package_is_part_of_its_name(tmp_path):
    # app/routers/ and app/models/ have no __init__.py: both `skills.py` must not be named `skills` alone
    write(tmp_path, {"app/__init__.py": "", "app/routers/skills.py": "", "app/models/skills.py": ""})
    assert module_names(str(tmp_path / "app/routers/skills.py"), str(tmp_path)) == ["app.routers.skills", "skills"]
    assert module_names(str(tmp_path / "app/models/skills.py"), str(tmp_path)) == ["app.models.skills", "skills"]


def test_a_launcher_script_inside_a_package_makes_its_folder_an_import_root(tmp_path):
    # site/manage.py runs with site/ first on sys.path: site/core/io.py is `core.io` there
    write(tmp_path, {"site/__init__.py": "", "site/manage.py": "", "site/core/__init__.py": "", "site/core/io.py": "",
                     "other/__init__.py": "", "other/core/__init__.py": "", "other/core/io.py": ""})
    assert module_names(str(tmp_path / "site/core/io.py"), str(tmp_path)) == ["site.core.io", "core.io"]
    assert module_names(str(tmp_path / "site/core/__init__.py"), str(tmp_path)) == ["site.core", "core"]
    # no launcher beside it: only the package chain names it
    assert module_names(str(tmp_path / "other/core/io.py"), str(tmp_path)) == ["other.core.io"]


def test_link_follows_reexports_relative_imports_and_survives_cycles(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "app/__init__.py": "from .core import run_all\nfrom . import limits\n",
        "app/core/__init__.py": "from .fanout import run_all\n",
        "app/core/fanout.py": "from ..a import x\n\nasync def run_all(jobs):\n    return jobs\n",
        "app/limits.py": "import asyncio\nSLOTS = asyncio.Semaphore(4)\n\nasync def slot():\n    async with SLOTS:\n        yield\n",
        "app/a.py": "from app.b import x\n",
        "app/b.py": "from app.a import x\n",
        "app/broken.py": "def f(:\n",
    })
    index = build_index(str(tmp_path), True)
    kind, entry, name = index.resolve("app.run_all")
    assert (kind, os.path.relpath(entry.path, tmp_path), name) == ("function", os.path.join("app", "core", "fanout.py"), "run_all")
    assert index.resolve("app.limits.slot")[0] == "function"
    assert index.resolve("app.a.x") is None  # a cycle of re-exports defines nothing
    assert index.resolve("app.broken.f") is None  # a file ast cannot read has an empty summary
    assert queries.limiter(index, "app.limits.slot").startswith("a limiter in `slot` (")
    assert queries.instance_of(index, "app.limits.SLOTS") == "asyncio.Semaphore"


def test_reader_records_lengths_and_per_item_fills_as_call_provenance():
    """``len(xs)`` (directly, through a name, ``max()``) and a dict filled per item reach the callee's record."""
    from boundlint.index.summary import summarize

    text = (
        "from .work import run, size_pool\n"
        "def main(accounts, ids):\n"
        "    n = len(accounts)\n"
        "    size_pool(accounts, n, max(1, len(ids)), len([1, 2]), min(len(ids), 8))\n"
        "    coros = {}\n"
        "    for i in ids:\n"
        "        coros[i] = fetch(i)\n"
        "    run(coros.values())\n"
    )
    calls = {c["ref"]: c for c in summarize(text, "app.cli", False)["functions"]["main"]["calls"]}
    assert calls["app.work.size_pool"]["args"] == [
        {"param": "accounts"},
        {"len": {"param": "accounts"}, "text": "len(accounts)"},
        {"len": {"param": "ids"}, "text": "len(ids)"},
        None,
        None,
    ]
    assert calls["app.work.run"]["args"] == [{"each": {"param": "ids"}, "call": "fetch", "line": 7}]


def test_request_shape_queries_answer_from_other_modules(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "svc/__init__.py": "",
        "svc/kinds.py": "from enum import Enum\n\nclass Tier(str, Enum):\n    LOW = 'low'\n\nclass Strict(Tier):\n    pass\n\nclass Name(str):\n    pass\n",
        "svc/models.py": "class Bulk:\n    pass\n\nclass Payload:\n    pass\n\nclass Handed:\n    pass\n\nclass Fed:\n    pass\n",
        "svc/api.py": (
            "from fastapi import APIRouter, HTTPException\nfrom svc.models import Bulk\n\nrouter = APIRouter()\n\n"
            "@router.post('/bulk')\nasync def bulk(body: Bulk):\n"
            "    if body.ids is not None and len(body.ids) > 10:\n        raise HTTPException(400)\n    return body.notes\n\n"
            "@router.post('/bulk2')\nasync def bulk2(body: Bulk):\n    return body.ids\n"
        ),
        "svc/vendor.py": (
            "from svc.models import Fed, Handed, Payload\n\n"
            "async def send(client, texts, request):\n"
            "    p = Payload(texts=texts)\n    await hook(data=Handed(texts=texts))\n"
            "    Fed(texts=request.json())\n    return await client.post('/x', json=p.model_dump())\n\n"
            "async def hook(data):\n    return data\n"
        ),
        "tests/test_vendor.py": "from svc.models import Bulk\n\ndef test_it():\n    Bulk(ids=[1])\n",
    })
    index = build_index(str(tmp_path), True)
    # one endpoint checks `len(body.ids)` (behind `is not None`), the other nothing
    assert queries.input_len_checks(index, "svc.models.Bulk") == [["ids"], []]
    assert queries.is_enum(index, "svc.kinds.Tier") and queries.is_enum(index, "svc.kinds.Strict")
    assert not queries.is_enum(index, "svc.kinds.Name")
    # filled from keywords in svc/vendor.py; not when handed straight to a call, read off the request, or in tests
    assert [queries.class_uses(index, f"svc.models.{n}")["filled"] for n in ("Payload", "Handed", "Fed", "Bulk")] == [
        True, False, False, False]


def test_taken_as_input_needs_the_project_in_sight(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "svc/__init__.py": "",
        "svc/types/models.py": (  # a namespace folder: no __init__.py
            "from typing import Union\n\nfrom pydantic import BaseModel, RootModel\n\n"
            "class Item(BaseModel):\n    pass\n\nclass Body(BaseModel):\n    items: list['Item']\n    batch: 'Batch'\n\n"
            "class Base(BaseModel):\n    pass\n\nclass Query(Base):\n    pass\n\nclass Read(BaseModel):\n    pass\n\n"
            "class Outbound(BaseModel):\n    pass\n\nclass OnlyTested(BaseModel):\n    pass\n\n"
            "class Variant(BaseModel):\n    pass\n\nclass Rooted(BaseModel):\n    pass\n\n"
            "AnyVariant = Union[Variant, Item]\n\nclass Holder(BaseModel):\n    variant: AnyVariant\n\n"
            "class Roots(RootModel[list[Rooted]]):\n    pass\n\nclass Batch(BaseModel):\n    holder: Holder\n    roots: Roots\n"
        ),
        "svc/api.py": (
            "from fastapi import APIRouter, Depends, Request\nfrom svc.types.models import *\n\nrouter = APIRouter()\n\n"
            "@router.post('/a')\nasync def a(body: Body):\n    return body\n\n"
            "@router.get('/b')\nasync def b(q: Query = Depends()):\n    return q\n\n"
            "async def c(request: Request):\n    return Read.model_validate(await request.json())\n"
        ),
        "svc/vendor.py": (
            "from svc.types.models import Outbound\n\n"
            "async def send(client):\n    request = Outbound()\n    return await client.post('/x', json=request)\n"
        ),
        "tests/test_api.py": "from svc.types.models import OnlyTested\n\ndef test_it(request):\n    OnlyTested()\n",
        "loose/schemas.py": "from pydantic import BaseModel\n\nclass Alone(BaseModel):\n    pass\n",
    })
    index = build_index(str(tmp_path), True)
    answers = {n: queries.taken_as_input(index, f"svc.types.models.{n}")
               for n in ("Body", "Item", "Query", "Base", "Read", "Outbound", "OnlyTested", "Variant", "Rooted")}
    # a body through a star import, the model it nests by a string annotation, a `Depends()` query model and
    # its base, a model a request handler reads the body into; not a payload built in a local named `request`,
    # nor one only a test mentions; through a type alias and a root model's item type
    assert answers == {"Body": "yes", "Item": "yes", "Query": "yes", "Base": "yes", "Read": "yes",
                       "Outbound": "no", "OnlyTested": "no", "Variant": "yes", "Rooted": "yes"}
    assert queries.taken_as_input(index, "tests.test_api.test_it") == "unknown"  # not a class
    alone = build_index(str(tmp_path / "loose"), False)
    assert queries.taken_as_input(alone, "schemas.Alone") == "unknown"  # a loose module: the project is not in sight


def test_named_elsewhere_sees_imports_of_the_class_and_of_its_module(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "app/__init__.py": "",
        "app/shapes.py": "class Used:\n    pass\n\nclass Inner:\n    pass\n\nclass Orphan:\n    pass\n",
        "app/views.py": "from app.shapes import Used\n",
        "app/jobs.py": "def run():\n    from app.shapes import Inner as Alias\n    return Alias()\n",
        "other/__init__.py": "",
        "other/shapes.py": "class Reached:\n    pass\n",
        "other/views.py": "from other import shapes\n\ndef get():\n    return shapes.Reached()\n",
        "loose/schemas.py": "class Alone:\n    pass\n",
    })
    index = build_index(str(tmp_path), True)
    answers = {ref: queries.named_elsewhere(index, ref) for ref in (
        "app.shapes.Used", "app.shapes.Inner", "app.shapes.Orphan", "other.shapes.Reached", "app.views.Used")}
    # imported by name (also renamed, inside a function), by nobody, reachable as an attribute of its module;
    # a re-import resolves to the class it names
    assert answers == {"app.shapes.Used": "yes", "app.shapes.Inner": "yes", "app.shapes.Orphan": "no",
                       "other.shapes.Reached": "unknown", "app.views.Used": "yes"}
    assert queries.named_elsewhere(index, "app.jobs.run") == "unknown"  # not a class
    alone = build_index(str(tmp_path / "loose"), False)
    assert queries.named_elsewhere(alone, "schemas.Alone") == "unknown"  # a loose module: the project is not in sight


def test_reader_records_what_a_function_returns():
    """A handful of literal items (also filtered, copied or chosen by ``if``), or a parameter handed back."""
    from boundlint.index.summary import summarize

    text = (
        "def formats(zipped):\n    return ('tgz', 'zip') if zipped else ('tar',)\n\n"
        "def names(a, b):\n    return tuple(dict.fromkeys(n for n in (a, b) if n))\n\n"
        "def unwrap(v):\n    if v is None:\n        raise ValueError\n    return v\n\n"
        "def ids(body):\n    return [*body.ids, 'x']\n\n"
        "def many():\n    return [1, 2, 3, 4, 5, 6, 7, 8, 9]\n\n"
        "def walk(xs):\n    for x in xs:\n        yield x\n    return [1]\n\n"
        "def pick(a, b):\n    if a:\n        return a\n    return b\n\n"
        "def load(v):\n    v = fetch(v)\n    return v\n"
    )
    functions = summarize(text, "app.kinds", False)["functions"]
    assert [functions[n]["returns"] for n in ("formats", "names", "unwrap", "ids", "many", "walk", "pick", "load")] == [
        {"fixed": 2}, {"fixed": 2}, {"param": "v"}, None, None, None, None, None]


def test_construction_and_caller_queries(tmp_path, monkeypatch):
    """``constructed``: which constructions pass an ``__init__`` parameter; ``passed``: what callers pass."""
    write(tmp_path, {
        "pyproject.toml": "",
        "svc/__init__.py": "",
        "svc/work.py": (
            "class Runner:\n    def __init__(self, name, sinks=None):\n        self.sinks = sinks or []\n\n"
            "async def pull(mirrors):\n    return mirrors\n"
        ),
        "svc/main.py": (
            "from fastapi import APIRouter\nfrom svc.work import Runner, pull\n\nrouter = APIRouter()\n\n"
            "def start():\n    Runner('a')\n    Runner('b', sinks=['x'])\n\n"
            "async def nightly(settings):\n    await pull(settings.mirrors)\n\n"
            "@router.post('/pull')\nasync def given(body: list):\n    await pull(body.mirrors)\n"
        ),
    })
    monkeypatch.chdir(tmp_path)
    index = build_index(str(tmp_path), True)
    assert queries.constructed(index, "svc.work.Runner", "sinks") == {"built": 2, "passing": ["svc/main.py:8"]}
    assert queries.constructed(index, "svc.work.Runner", "other") is None
    answer = [(c["text"], c["input"]) for c in queries.passed(index, "svc.work.pull", "mirrors")]
    assert sorted(answer) == [("body.mirrors", True), ("settings.mirrors", False)]
    assert queries.returns(index, "svc.work.pull") == {"param": "mirrors", "position": 0,
                                                        "where": "`pull` (svc/work.py:5)"}


def test_request_inputs_capped_by_a_called_check_or_left_unread(tmp_path):
    """tests/fixtures/projects/inbox: which fields each route rejects when oversized (itself, through an alias,
    through a function it or the service it hands the form to calls) and which it reads or clears."""
    import shutil

    shutil.copytree(Path(__file__).parent / "fixtures" / "projects" / "inbox", tmp_path / "inbox")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    index = build_index(str(tmp_path), True)
    models = "inbox.models.notes"
    # check_attachments(body.attachments) in the route; check_prefs(form.prefs) in the service it hands `body` to
    assert queries.input_len_checks(index, f"{models}.NoteForm") == [["attachments", "prefs"], ["attachments", "prefs"]]
    assert queries.input_len_checks(index, f"{models}.BulkArchive") == [["note_ids"]]  # `note_ids = body.note_ids`
    assert queries.input_len_checks(index, f"{models}.BulkPin") == [[]]  # checked only after the per-item loop
    assert queries.input_len_checks(index, f"{models}.DraftForm") == [[], []]  # the check there only logs
    assert queries.input_len_checks(index, "inbox.routers.drafts.ReactionForm") == [["extra"]]  # len(json.dumps(...))
    reads = {e["func"]: (e["read"], e["cleared"]) for e in queries.input_field_reads(index, f"{models}.NoteForm")}
    assert reads == {
        "create_note": (["attachments", "labels", "prefs", "title"], ["meta"]),
        "update_note": (["attachments", "labels", "prefs", "title"], ["meta"]),
    }
    drafts = {e["func"]: (e["read"], e["cleared"]) for e in queries.input_field_reads(index, f"{models}.DraftForm")}
    assert drafts == {"save_draft": (["attachments", "meta"], []), "reset_draft": (["attachments"], ["meta"])}
    assert queries.input_field_reads(index, f"{models}.MemoForm") is None  # PinnedMemoForm derives from it
    # the route's upload reader is found under the module's full name (routers/ has no __init__.py)
    assert queries.size_checked(index, "inbox.routers.notes.read_uploads", 0).startswith("`read_uploads` (")


def _summaries_in_daemon(queue, misses) -> None:
    from boundlint.index import build

    queue.put(build._summarize_all(misses))


def test_a_daemonic_worker_summarises_a_large_project_itself(monkeypatch):
    # flake8 -j runs plugins in daemonic workers, which may not start a pool; 64+ modules used to try one
    import multiprocessing

    from boundlint.index import build

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    misses = [(f"def f{i}(items):\n    return items\n", f"pkg.m{i}", False) for i in range(build._PARALLEL_FROM)]
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    worker = context.Process(target=_summaries_in_daemon, args=(queue, misses), daemon=True)
    worker.start()
    worker.join(60)
    assert worker.exitcode == 0
    got = queue.get(timeout=5)
    assert len(got) == len(misses)
    assert got[3] == build.summary_of(*misses[3])
    assert got[3]["functions"]["f3"]["params"] == ["items"]
