"""BND2xx settings: the request-model patterns, extra model bases and extra endpoint decorators reach the rules."""
from __future__ import annotations

import textwrap

from boundlint.config import Settings
from conftest import found

MODEL = textwrap.dedent("""
    from pydantic import BaseModel
    from shared.contracts import Contract

    class LookupRequest(BaseModel):
        uris: list[str]

    class Envelope(BaseModel):
        uris: list[str]

    class SearchArgs(Contract):
        terms: list[str]
    """)

ENDPOINT = textwrap.dedent("""
    from myframework import route

    @route("/posts")
    def get_posts(ids: list[str]):
        return ids
    """)


def _settings(**options: object) -> Settings:
    return Settings(select=("BND2",), extra=tuple(options.items()))


def test_default_patterns():
    assert found(MODEL, "m.py", _settings()) == {(6, 5, "BND201")}


def test_request_model_patterns_option():
    got = found(MODEL, "m.py", _settings(**{"request-model-patterns": ["Envelope", "*Args"]}))
    assert got == {(9, 5, "BND201")}


def test_extra_model_bases_option():
    got = found(MODEL, "m.py", _settings(**{"request-model-patterns": ["*Args"], "extra-model-bases": ["shared.contracts.Contract"]}))
    assert got == {(12, 5, "BND201")}


def test_extra_endpoint_decorators_option():
    assert found(ENDPOINT, "m.py", _settings()) == set()
    got = found(ENDPOINT, "m.py", _settings(**{"extra-endpoint-decorators": ["myframework.route"]}))
    assert got == {(5, 15, "BND202")}


def test_client_modules_send_their_requests():
    # Name-matched models of a client package or module are outbound; elsewhere they are judged.
    for path in ("svc/clients/search.py", "svc/sdk/v1/search.py", "svc/search_client.py", "svc/client.py"):
        assert found(MODEL, path, _settings()) == set(), path
    for path in ("svc/api/search.py", "svc/clientele.py", "svc/client_api/search.py"):
        assert found(MODEL, path, _settings()) == {(6, 5, "BND201")}, path
