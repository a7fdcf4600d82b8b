"""Property-based hostile input (issue 32): config values, file names from bytes, LSP frames, directory shapes.

A few seconds in CI.  The larger profile:

    BOUNDLINT_HYPOTHESIS_PROFILE=large .venv/bin/python -m pytest tests/test_hostile_properties.py -q

(``large``: 2,000 examples per property, no time limit; ``ci``, the default: 40.)
"""
from __future__ import annotations

import json
import math
import os
import sys
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from boundlint.config import TOP_LEVEL, ConfigError, Settings, settings_from_table
from boundlint.finding import Finding
from boundlint.lsp_frames import MAX_HEADER, FrameParser

settings.register_profile("ci", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("large", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
PROFILE = settings.get_profile(os.environ.get("BOUNDLINT_HYPOTHESIS_PROFILE", "ci"))

# -- config values of every type -----------------------------------------------------------------

toml_scalars = (st.booleans() | st.integers(min_value=-(2 ** 63), max_value=2 ** 63 - 1)
                | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20))
toml_values = st.recursive(toml_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


@PROFILE
@given(key=st.sampled_from(sorted(TOP_LEVEL)), value=toml_values)
def test_any_config_value_is_taken_or_one_line_error(key, value):
    try:
        result = settings_from_table({key: value}, "pyproject.toml")
    except ConfigError as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith("pyproject.toml: ") and key in message
        return
    if key == "timeout":
        assert math.isfinite(result.timeout) and 0 < result.timeout <= 86400


# -- file names from arbitrary bytes -------------------------------------------------------------

names = st.binary(min_size=1, max_size=60).map(lambda b: b.replace(b"/", b"_").replace(b"\0", b"_")).filter(
    lambda b: b not in (b".", b".."))


@pytest.mark.skipif(sys.platform == "darwin" or os.name == "nt", reason="the file system insists on valid Unicode")
@PROFILE
@given(name=names)
def test_any_file_name_renders_in_every_format(name):
    from boundlint.outfile import report_bytes
    from boundlint.report.output import ReportOptions, render

    path = os.fsdecode(name + b".py")
    finding = Finding(path, 5, 11, "BND101", "message", 5, 47, "help", (), "medium", "")
    for fmt in ("full", "concise", "grouped", "github", "gitlab", "json", "json-lines", "sarif"):
        report = render([finding], ReportOptions(output_format=fmt), files=1, sources={}, settings={Settings()})
        data = report_bytes(report)  # what --output-file writes: never an encoding error
        if fmt == "sarif":
            [result] = json.loads(data)["runs"][0]["results"]
            uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            assert uri.isascii() and unquote_to_bytes(uri) == name + b".py"
        elif fmt in ("full", "concise", "grouped"):
            assert b"5:11" in data and b"BND101" in data
            text = os.fsdecode(name)
            if all(c.isprintable() or "\udc80" <= c <= "\udcff" for c in text):  # control characters are escaped
                assert name + b".py:" in data


# -- LSP frames, valid and broken ----------------------------------------------------------------

messages = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "method": st.text(max_size=12),
                                  "params": st.dictionaries(st.text(max_size=6), st.text(max_size=30), max_size=3)})


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def drain(parser: FrameParser, stalled: bool = False) -> list:
    out = []
    while True:
        ok, message = parser.next_message(stalled)
        if not ok:
            return out
        out.append(message)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)])]


@PROFILE
@given(batch=st.lists(messages, min_size=1, max_size=6), cuts=st.lists(st.integers(min_value=0), max_size=8))
def test_valid_frames_in_any_chunks_are_every_message_in_order(batch, cuts):
    parser = FrameParser()
    got = []
    for piece in chunked(b"".join(map(frame, batch)), cuts):
        parser.feed(piece)
        got += drain(parser)
    assert got == batch and parser.errors == [] and not parser.buffer


broken_frames = st.one_of(
    st.binary(max_size=80),
    st.builds(lambda n, body: b"Content-Length: %d\r\n\r\n%s" % (n, body), st.integers(min_value=0, max_value=10 ** 20),
              st.binary(max_size=40)),
    st.builds(lambda body: b"Content-Length: " + body, st.binary(max_size=30)),
    st.just(b"Content-Length: 100000000000000\r\n\r\n{}"),
)


@PROFILE
@given(garbage=broken_frames, before=st.lists(messages, max_size=2), last=messages,
       cuts=st.lists(st.integers(min_value=0), max_size=6))
def test_after_broken_frames_the_next_message_is_recovered(garbage, before, last, cuts):
    parser = FrameParser(max_body=1 << 20)
    data = b"".join(map(frame, before)) + garbage + frame(last)
    got = []
    for piece in chunked(data, cuts):
        parser.feed(piece)
        got += drain(parser)
        assert len(parser.buffer) <= len(data)
    got += drain(parser, stalled=True)  # no more input: what is left is judged on what came
    got += drain(parser, stalled=True)
    assert got[: len(before)] == before
    assert last in got[len(before):]
    assert len(parser.buffer) <= MAX_HEADER


# -- directory shapes: depth, links, special files -----------------------------------------------

shapes = st.lists(st.tuples(st.sampled_from(["dir", "file", "link-in", "link-out", "link-root", "link-loop", "fifo",
                                             "broken"]), st.integers(min_value=0, max_value=8)), max_size=14)


@pytest.mark.skipif(os.name == "nt", reason="FIFOs and symlinks")
@PROFILE
@given(shape=shapes, depth=st.integers(min_value=0, max_value=300))
def test_any_directory_shape_is_walked_inside_the_root(tmp_path_factory, shape, depth):
    from boundlint.files import LEFT_ROOTS, PathError, discover

    base = tmp_path_factory.mktemp("shape")
    root, outside = base / "root", base / "outside"
    outside.mkdir()
    (outside / "far.py").write_text("x = 1\n", encoding="utf-8")
    here = root
    here.mkdir()
    for _ in range(depth):  # a deep chain, without os.makedirs's recursion
        here = here / "d"
        here.mkdir()
    folders = [root, here]
    for number, (kind, where) in enumerate(shape):
        parent = folders[where % len(folders)]
        target = parent / f"n{number}.py"
        if kind == "dir":
            target.mkdir()
            folders.append(target)
        elif kind == "file":
            target.write_text("x = 1\n", encoding="utf-8")
        elif kind == "link-in":
            target.symlink_to(folders[(where + 1) % len(folders)])
        elif kind == "link-out":
            target.symlink_to(outside)
        elif kind == "link-root":
            target.symlink_to("/")
        elif kind == "link-loop":
            target.symlink_to(target)
        elif kind == "fifo":
            os.mkfifo(target)
        else:
            target.symlink_to(base / "nowhere")
    LEFT_ROOTS.clear()
    try:
        found = discover([str(root)])
    except PathError as exc:
        assert "\n" not in str(exc)
        return
    real_root = os.path.realpath(root)
    for path in found:
        full = os.path.realpath(path)
        assert full == real_root or full.startswith(real_root + os.sep) or not os.path.exists(path), path
    assert all(path.endswith(".py") for path in found)


def test_a_long_body_arriving_slowly_is_waited_for_not_dropped():
    parser = FrameParser()
    data = frame({"jsonrpc": "2.0", "method": "m", "params": {"text": "x" * 100_000}})
    parser.feed(data[:50_000])
    assert drain(parser, stalled=True) == []  # a pause mid-body: still waiting
    parser.feed(data[50_000:])
    assert [m["params"]["text"] for m in drain(parser)] == ["x" * 100_000] and parser.errors == []


def test_a_body_claiming_100_tb_is_never_allocated():
    parser = FrameParser()
    parser.feed(b"Content-Length: 100000000000000\r\n\r\n{}" + frame({"jsonrpc": "2.0", "method": "after"}))
    assert [m["method"] for m in drain(parser)] == ["after"]
    assert parser.errors == ["a broken frame skipped: a Content-Length of 100000000000000 bytes "
                             "(more than the 67108864 taken)"]
