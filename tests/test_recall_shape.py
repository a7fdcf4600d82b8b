"""Issue 14, kinds 5-7: free-form mappings in request models, and a connection per call run per item.

The markers of tests/fixtures/bnd201_free_form.py, bnd401_per_call.py and the
job_service / metrics_agent projects are checked by tests/test_fixtures.py and
tests/test_projects.py; here the evidence chains and the index facts behind
them are asserted exactly.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import FIXTURES

from boundlint.index.summary import summarize

PROJECTS = FIXTURES / "projects"


def _check(tmp_path: Path, name: str, *args: str) -> list[dict]:
    shutil.copytree(PROJECTS / name, tmp_path / name)
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--format", "json",
                           *args, name], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    return json.loads(proc.stdout)


def test_free_form_mapping_of_a_request_model_names_the_route_in_another_module(tmp_path):
    found = _check(tmp_path, "job_service")
    # JobSpec.context is capped by a validator in validators.py that rejects it when its JSON is too large
    assert [(f["path"].replace("\\", "/"), f["line"], f["column"], f["code"]) for f in found] == [
        ("job_service/schemas.py", 17, 5, "BND201"), ("job_service/schemas.py", 21, 5, "BND201")]
    assert found[0]["message"] == "request field `JobSpec.labels` (`dict[str, Any]`) accepts any number of keys"
    assert found[0]["evidence"] == [
        "request field `JobSpec.labels` (job_service/schemas.py:17)",
        "parameter `spec` of `create_job()` POST /jobs (job_service/api.py:11)",
    ]


def test_free_form_mapping_walked_in_the_handler_says_so(tmp_path):
    shutil.copy(FIXTURES / "bnd201_free_form.py", tmp_path / "jobs.py")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--format", "json",
                           "jobs.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    labels = [f for f in json.loads(proc.stdout) if f["line"] == 17]
    assert labels[0]["evidence"] == [
        "request field `JobSpec.labels` (jobs.py:17)",
        "parameter `spec` of `create_job()` POST /jobs (jobs.py:25)",
        "`labels` walked key by key in `create_job()` (jobs.py:26)",
    ]


def test_helpers_run_per_item_by_another_module_carry_the_callers_chain(tmp_path):
    found = {(f["path"].replace("\\", "/"), f["line"], f["code"]): f for f in _check(tmp_path, "metrics_agent")}
    assert sorted(found) == [
        ("metrics_agent/net.py", 12, "BND401"), ("metrics_agent/net.py", 19, "BND402"),
        ("metrics_agent/net.py", 24, "BND401"), ("metrics_agent/net.py", 29, "BND401"),
    ]
    assert found[("metrics_agent/net.py", 12, "BND401")]["evidence"] == [
        "`flush_all()` calls `send_metric()` per item of `samples.items(...)` (metrics_agent/jobs.py:11)"]
    assert found[("metrics_agent/net.py", 19, "BND402")]["evidence"] == [
        "`post_all()` runs `post_event()` per item of `events` through `pool.map(...)` (metrics_agent/jobs.py:16)"]
    assert found[("metrics_agent/net.py", 24, "BND401")]["message"] == (
        "`requests.get(...)` opens a new connection in `fetch_status`, which another module calls per item")
    assert found[("metrics_agent/net.py", 29, "BND401")]["evidence"] == [
        "`consume()` calls `publish()` on every pass of a `while` loop that does not pause (metrics_agent/consumer.py:10)"]


def test_same_module_helper_chain_is_evidence(tmp_path):
    shutil.copy(FIXTURES / "bnd401_per_call.py", tmp_path / "agent.py")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--format", "json",
                           "agent.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    by_line = {f["line"]: f for f in json.loads(proc.stdout)}
    assert by_line[16]["evidence"] == ["`flush()` calls `send_metric()` per item of `samples.items()` (agent.py:23)"]
    assert by_line[37]["message"] == "`boto3.client(...)` opens a new client in `publish`, which `consume` calls on every pass of `while True`"
    assert by_line[49]["message"] == "`SESSION.client(...)` opens a new client in `upload`, which `upload_all` calls per item of `files`"


def test_index_records_pool_runs_gathers_and_paced_loops():
    summary = summarize(textwrap.dedent("""
        import asyncio
        import time

        from .net import fetch, publish


        def run(pool, urls, loop):
            pool.map(fetch, urls)
            for u in urls:
                pool.submit(fetch, u)
            loop.run_in_executor(None, fetch, urls)


        async def spread(urls):
            await asyncio.gather(*(fetch(u) for u in urls))


        def periodic():
            while True:
                publish()
                time.sleep(30)
        """), "agent.jobs", False)
    calls = summary["functions"]["run"]["calls"]
    assert [(c["ref"], c["line"], c["loop"]) for c in calls] == [
        ("agent.net.fetch", 9, {"src": {"param": "urls"}, "text": "urls", "bounded": False, "line": 9, "via": "pool.map(...)"}),
        ("agent.net.fetch", 11, {"src": {"param": "urls"}, "text": "urls", "bounded": False, "line": 10,
                                 "via": "pool.submit(...)"}),
    ]
    gathered = summary["functions"]["spread"]["calls"]
    assert [(c["ref"], c["loop"]["via"]) for c in gathered] == [("agent.net.fetch", "asyncio.gather(...)")]
    periodic = summary["functions"]["periodic"]["calls"]
    assert periodic[0]["loop"] == {"src": None, "text": "while", "bounded": False, "line": 20, "paced": True}


def test_index_reads_a_size_check_through_a_helper():
    summary = summarize(textwrap.dedent("""
        import json


        def reject_large(value, limit):
            size = len(json.dumps(value).encode())
            if size > limit:
                raise ValueError("too large")


        def small(value):
            reject_large(value, 100)
            return value
        """), "app.validators", False)
    assert summary["functions"]["reject_large"]["size_checked"] == ["value"]
    assert summary["functions"]["small"]["size_checked"] == []
