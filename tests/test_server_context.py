"""A served call's own context is no dependency, and a servicer's per-item work sets BND203's severity."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from boundlint.config import Settings
from boundlint.engine import check_source
from boundlint.kinds import calls

_SERVICER = """
    import grpc
    import httpx

    from . import shop_pb2_grpc as pb_grpc


    class ShopServicer(pb_grpc.ShopServicer):
        def Reserve(self, request, context: grpc.ServicerContext):
            for item_id in request.item_ids:
                httpx.post("https://stock.internal/reserve", json={"item": item_id})

        def Tag(self, request, context: grpc.ServicerContext):
            tags = {}
            for label in request.labels:
                self._refuse_blank(label, context)
                tags[label] = True
            return tags

        def _refuse_blank(self, label, context: grpc.ServicerContext):
            if not label:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, "blank label")
    """


def _found(source: str, code: str) -> dict[int, tuple[int, str, str]]:
    found = check_source(textwrap.dedent(source), "shop/servicer.py", Settings(min_severity="low"))
    return {f.line: (f.column, f.severity, f.severity_reason) for f in found if f.code == code}


def test_a_servicer_context_method_answers_the_caller():
    assert calls.classify("grpc.ServicerContext.abort", "context", "abort") == calls.LOCAL
    assert calls.classify("grpc.aio.ServicerContext.set_details", "context", "set_details") == calls.LOCAL
    assert calls.classify("grpc.Channel.unary_unary", "channel", "unary_unary") == calls.DEPENDENCY
    assert calls.server_context("grpc.ServicerContext") is True
    assert calls.server_context("grpc.Channel") is False


def test_bnd203_severity_comes_from_the_loop_body():
    assert _found(_SERVICER, "BND203") == {
        10: (24, "high", "request input; per item: `httpx.post()`"),
        15: (22, "medium", "request input"),  # aborting the served call is no dependency call
    }


def test_the_server_contexts_table_can_be_replaced(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.boundlint.tables]\nserver-contexts = []\n', encoding="utf-8")
    path = tmp_path / "shop" / "servicer.py"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(_SERVICER), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--min-severity", "low", "--format", "json",
                           "--no-cache", str(path)], capture_output=True, text=True, cwd=tmp_path)
    found = {(f["line"], f["severity"], f["severity_reason"]) for f in json.loads(proc.stdout) if f["line"] == 15}
    assert found == {(15, "high", "request input; per item: `context.abort()` in `_refuse_blank()`")}
