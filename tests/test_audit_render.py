"""The audit's renderers: the terminal report at 80 columns, the HTML page's header and rule links, no
literal backticks, and screenshots of both in headless Chromium."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boundlint import __version__
from boundlint.audit import collect, render
from boundlint.audit.layout import Styled, fit, shorten, wrap
from boundlint.audit.model import build_report, report_from_dict
from boundlint.audit.render_html import inline
from boundlint.audit.render_terminal import render_plain, render_terminal, terminal_width
from boundlint.config import Settings
from boundlint.report.sarif import rule_descriptor, rule_doc_uri
from boundlint.rules.base import all_rules

HERE = Path(__file__).parent
APP = HERE / "fixtures_audit"
CHROMIUM = "/usr/bin/chromium"
CREATED = "2026-12-01T14:21:43Z"

LONG_PATH = "customer_accounts/notification_preferences/subscription_management/bulk_synchronisation_views.py"
LONG_NAMES = '''import asyncio
import logging

import httpx
from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI()
logger = logging.getLogger(__name__)


class BulkNotificationPreferenceSynchronisationRequest(BaseModel):
    subscriber_account_identifiers: list[str]
    notification_channel_preferences: list[str]
    suppressed_marketing_campaign_identifiers: list[str]


async def synchronise_notification_preferences_for_one_subscriber(subscriber_account_identifier: str):
    async with httpx.AsyncClient() as client:
        try:
            return await client.post(subscriber_account_identifier)
        except Exception:
            logger.exception("synchronisation failed for %s", subscriber_account_identifier)


@app.post("/customer-accounts/notification-preferences/bulk-synchronisation-with-external-providers")
async def bulk_synchronise_notification_preferences_with_external_providers(
        synchronisation_request: BulkNotificationPreferenceSynchronisationRequest):
    await asyncio.gather(*(synchronise_notification_preferences_for_one_subscriber(i)
                           for i in synchronisation_request.subscriber_account_identifiers))
    for channel in synchronisation_request.notification_channel_preferences:
        asyncio.create_task(synchronise_notification_preferences_for_one_subscriber(channel))


@app.post("/customer-accounts/notification-preferences/export")
async def export_notification_preferences(synchronisation_request: BulkNotificationPreferenceSynchronisationRequest):
    for campaign in synchronisation_request.suppressed_marketing_campaign_identifiers:
        asyncio.create_task(synchronise_notification_preferences_for_one_subscriber(campaign))


@app.get("/customer-accounts/health")
async def health():
    return {"ok": True}
'''
# Every name of the fixture that the report may show: none may be cut across two lines.
IDENTIFIERS = sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]{3,}", LONG_NAMES + LONG_PATH + " GetPosts hydrate")))


def _report(root: Path, paths: list[str]):
    results, seconds = collect([str(root)], Settings(), root=None, jobs=1)
    rep = build_report(results, seconds, str(root), {c: cls.name for c, cls in all_rules().items()})
    rep.paths, rep.created, rep.summary.seconds = paths, CREATED, 0.25
    return rep


@pytest.fixture(scope="module")
def long_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("long")
    (root / LONG_PATH).parent.mkdir(parents=True)
    (root / LONG_PATH).write_text(LONG_NAMES)
    return _report(root, ["services/customer_accounts", "services/shared/notification_preferences_helpers"])


@pytest.fixture(scope="module")
def app_report():
    return _report(APP, ["tests/fixtures_audit"])


def _split_names(lines: list[str]) -> list[tuple[str, str, str]]:
    """``(identifier, end of one line, start of the next)`` wherever a name is cut across two lines."""
    out = []
    for a, b in zip(lines, lines[1:]):
        tail = re.search(r"\w*$", a.rstrip()).group()
        head = re.match(r"\w*", b.lstrip()).group()
        if not tail or not head:
            continue
        for name in IDENTIFIERS:
            for k in range(1, len(name)):
                rest = name[k:]
                if tail.endswith(name[:k]) and (head.startswith(rest) or rest.startswith(head)):
                    out.append((name, tail, head))
    return out


def test_split_names_sees_a_cut_name():
    cuts = _split_names(["x bulk_synchro", "  nise_notification_prefer", "ences_with"])
    assert {(tail, head) for _, tail, head in cuts} == {("bulk_synchro", "nise_notification_prefer"),
                                                        ("nise_notification_prefer", "ences_with")}
    assert "bulk_synchronise_notification_preferences_with_external_providers" in {name for name, _, _ in cuts}
    assert _split_names(["over request", "field query"]) == []


def _blocks(text: str) -> list[list[str]]:
    """The handler blocks of the exposure map: runs of lines after its title, split at blank lines."""
    lines = text.split("\n")
    start = lines.index("Endpoint exposure map (riskiest first)") + 1
    blocks, current = [], []
    for line in lines[start:]:
        if line.startswith("Not reached from a handler ("):
            break
        if line:
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    return [b for b in blocks if re.match(r"(HIGH|MEDIUM|LOW) ", b[0])]


# -- layout ------------------------------------------------------------------------------

def test_wrap_breaks_at_spaces_and_long_words_at_slash_or_dot():
    lines = wrap(Styled.of("see customer_accounts/notification_preferences/views.py now"), 30)
    assert [x.text for x in lines] == ["see", "customer_accounts/", "notification_preferences/", "views.py now"]
    assert [x.text for x in wrap(Styled.of("name  route  where"), 13)] == ["name  route", "where"]


def test_shorten_cuts_in_the_middle_at_a_boundary():
    s = shorten(Styled.of("customer_accounts/notification_preferences/views.py", "code"), 30)
    assert s.text == "customer_accoun…ences/views.py" and len(s) == 30
    assert shorten(Styled.of("customer_accounts/notification_preferences/views.py"), 24).text == "customer_…ences/views.py"
    assert set(s.styles) == {"code"}
    assert shorten(Styled.of("short"), 30).text == "short"


def test_fit_shortens_long_words_then_cuts_and_keeps_the_code():
    text = Styled.of("L1 asyncio.gather UNBOUNDED over synchronisation_request.subscriber_account_identifiers "
                     "-> hydrate [BND101]")
    assert [x.text for x in fit(text, 60, 3)] == [
        "L1 asyncio.gather UNBOUNDED over",
        "synchronisation_request.subscriber_account_identifiers ->", "hydrate [BND101]"]
    assert [x.text for x in fit(text, 60, 2)] == [
        "L1 asyncio.gather UNBOUNDED over synchronisat…identifiers ->", "hydrate [BND101]"]
    assert [x.text for x in fit(text, 64, 1)] == ["L1 asyncio.gather UNBOUNDED over synchronis…entifiers … [BND101]"]
    assert [x.text for x in fit(text, 60, 1)] == ["L1 asyncio.gather UNBOUNDED over … [BND101]"]


@given(st.lists(st.text(alphabet="ab_./", min_size=1, max_size=30), min_size=1, max_size=12), st.integers(8, 40))
def test_wrap_keeps_every_line_within_width_and_every_fitting_word_whole(words, width):
    lines = [x.text for x in wrap(Styled.of(" ".join(words)), width)]
    assert all(len(line) <= width for line in lines)
    for word in words:
        if len(word) <= width:
            assert any(word in line.split(" ") for line in lines)


# -- terminal ------------------------------------------------------------------------------

# Wrapped, never cut: every name whole, a long route or path broken after a `/`; at most 4 entries a handler.
LONG_BLOCKS = [['HIGH    bulk_synchronise_notification_preferences_with_external_providers',
  '        fastapi POST',
  '        /customer-accounts/notification-preferences/',
  '        bulk-synchronisation-with-external-providers',
  '        customer_accounts/notification_preferences/subscription_management/',
  '        bulk_synchronisation_views.py:27',
  '  fan-out  L29 asyncio.gather UNBOUNDED over',
  '           synchronisation_request.subscriber_account_identifiers ->',
  '           synchronise_notification_preferences_... [BND101]',
  '           L32 asyncio.create_task UNBOUNDED over',
  '           synchronisation_request.notification_channel_preferences ->',
  '           synchronise_notification_preferences_... [BND102]',
  '  field    BulkNotificationPreferenceSynchronisationRequest.',
  '           subscriber_account_identifiers (list[str]): no size limit [BND201]',
  '           BulkNotificationPreferenceSynchronisationRequest.',
  '           notification_channel_preferences (list[str]): no size limit [BND201]',
  '           + 3 more: 1 field, 2 sites; --output-format html lists all'],
 ['HIGH    export_notification_preferences',
  '        fastapi POST /customer-accounts/notification-preferences/export',
  '        customer_accounts/notification_preferences/subscription_management/',
  '        bulk_synchronisation_views.py:36',
  '  fan-out  L38 asyncio.create_task UNBOUNDED over',
  '           synchronisation_request.suppressed_marketing_campaign_identifiers ->',
  '           synchronise_notification_preferences_... [BND102]',
  '  field    BulkNotificationPreferenceSynchronisationRequest.',
  '           subscriber_account_identifiers (list[str]): no size limit',
  '           BulkNotificationPreferenceSynchronisationRequest.',
  '           notification_channel_preferences (list[str]): no size limit',
  '           BulkNotificationPreferenceSynchronisationRequest.',
  '           suppressed_marketing_campaign_identifiers (list[str]): no size limit',
  '           + 2 more: 2 sites; --output-format html lists all'],
 ['LOW     health  fastapi GET /customer-accounts/health',
  '        customer_accounts/notification_preferences/subscription_management/',
  '        bulk_synchronisation_views.py:42']]


def test_terminal_at_80_columns_long_names(long_report):
    text = render_plain(long_report, top=0, width=80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert _split_names(lines) == []
    assert "`" not in text
    blocks = _blocks(text)
    assert blocks == LONG_BLOCKS
    assert lines[:4] == [f"boundlint audit (boundlint {__version__}, 2026-12-01 14:21:43 UTC)",
                         "  paths                            services/customer_accounts,",
                         "                                   services/shared/",
                         "                                   notification_preferences_helpers"]
    assert "…" not in text
    assert lines[lines.index("Top files by findings") + 2:lines.index("Top files by findings") + 4] == [
        "  customer_accounts/notification_preferences/subscription_management/          8",
        "  bulk_synchronisation_views.py"]


def test_terminal_app_blocks_at_80_columns(app_report):
    text = render_plain(app_report, top=0, width=80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80 and _split_names(lines) == [] and "`" not in text
    assert "…" not in text  # wrapped, never cut
    blocks = _blocks(text)
    assert len(blocks) == 15
    assert blocks[0] == [
        "HIGH    PostsServicer.GetPosts  grpc rpc GetPosts  grpc_service.py:24",
        "  fan-out  L25 asyncio.gather UNBOUNDED over request.uris -> hydrate [BND101]",
        "  field    request.uris (repeated): no size limit [BND203]",
        "  site     L13 BND401 (in hydrate): redis.Redis.from_url(...) opens a new client",
        "           in hydrate, which asyncio.gather(...) in GetPosts runs per item",
        "           L17 BND302 (in hydrate): logger.error(...) logs an error for every",
        "           failed item: hydrate runs per item of asyncio.gather(...) in GetPosts",
    ]
    assert blocks[2][1] == "  fan-out  L21 pool.map UNBOUNDED over ids (from query id) -> render [BND104]"


@pytest.mark.parametrize("width", [40, 60, 100, 120])
def test_terminal_other_widths(long_report, width):
    text = render_plain(long_report, top=0, width=width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "…" not in text  # wrapped, never cut
    if width >= 80:  # a 66-character name fits whole from 80 columns on; narrower, it wraps
        assert _split_names(lines) == []
    entries = [b for b in _blocks(text) if b[0].startswith("HIGH")]
    # At most 4 entries a handler: the first block shows 2 fan-outs and 2 fields, then counts the rest.
    note = " ".join(line.strip() for line in entries[0][-3:])
    assert note.endswith("+ 3 more: 1 field, 2 sites; --output-format html lists all")


def test_terminal_width_from_environment(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert terminal_width() == 100
    monkeypatch.setenv("COLUMNS", "300")
    assert terminal_width() == 120
    assert (terminal_width(20), terminal_width(80)) == (40, 80)


def test_cli_terminal_report_follows_COLUMNS(long_report, tmp_path):
    (tmp_path / LONG_PATH).parent.mkdir(parents=True)
    (tmp_path / LONG_PATH).write_text(LONG_NAMES)
    env = dict(os.environ, COLUMNS="80", SOURCE_DATE_EPOCH="1796134903")
    # Run where the report's paths start, so that they are spelled as in long_report.
    proc = subprocess.run([sys.executable, "-m", "boundlint", "audit", "--isolated", "-j", "1", "--no-cache", "."],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == f"boundlint audit (boundlint {__version__}, 2026-12-01 14:21:43 UTC)"
    assert max(len(line) for line in lines) <= 80
    assert _blocks(proc.stdout) == LONG_BLOCKS


def test_terminal_colour_styles_code_spans_without_backticks(app_report):
    text = render_terminal(app_report, top=1, color=True, width=80)
    assert "`" not in text
    assert "\x1b[36mredis.Redis.from_url(...)\x1b[0m" in text  # a code span, in cyan
    assert "\x1b[1;31mUNBOUNDED\x1b[0m" in text
    assert re.sub(r"\x1b\[[0-9;]*m", "", text) == render_plain(app_report, top=1, width=80)


# -- HTML and Markdown ------------------------------------------------------------------

class _Page(HTMLParser):
    """Visible text, the meta line, links ``(href, text)`` and the text of ``<code>`` elements."""

    def __init__(self):
        super().__init__()
        self.text: list[str] = []
        self.links: list[tuple[str, str]] = []
        self.codes: list[str] = []
        self.meta = ""
        self._stack: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self._stack.append((tag, dict(attrs)))
        if tag == "a":
            self.links.append((dict(attrs)["href"], ""))
        elif tag == "code":
            self.codes.append("")

    def handle_endtag(self, tag):
        while self._stack and self._stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        tags = [t for t, _ in self._stack]
        if "script" in tags or "style" in tags or "title" in tags:
            return
        self.text.append(data)
        if "a" in tags:
            self.links[-1] = (self.links[-1][0], self.links[-1][1] + data)
        if "code" in tags:
            self.codes[-1] += data
        if any(t == "p" and a.get("class") == "meta" for t, a in self._stack):
            self.meta += data


def test_inline_html_code_spans_and_rule_links():
    assert inline("`a<b` & BND101 `x") == (
        f'<code>a&lt;b</code> &amp; <a class="rule" href="{rule_doc_uri("BND101")}">BND101</a> x')


def test_html_meta_links_and_no_backticks(app_report):
    page = _Page()
    page.feed(render(app_report, "html"))
    assert page.meta == f"boundlint {__version__} · audited 2026-12-01 14:21:43 UTC · paths: tests/fixtures_audit"
    visible = " ".join(page.text)
    assert "`" not in visible
    assert "Field(max_...)" in page.codes and "redis.Redis.from_url(...)" in page.codes
    mentioned = re.findall(r"\bBND\d{3}\b", visible)
    linked = [text for _, text in page.links]
    assert sorted(mentioned) == sorted(linked) and len(linked) == 8 + 13  # per-code table + map entries
    registry = all_rules()
    for href, code in page.links:
        assert href == rule_descriptor(registry[code])["helpUri"] == rule_doc_uri(code)


def test_markdown_meta_and_rule_links(app_report):
    lines = render(app_report, "markdown").splitlines()
    assert lines[2] == f"boundlint {__version__} · audited 2026-12-01 14:21:43 UTC · paths: `tests/fixtures_audit`."
    assert f"| unbounded fan-out | [BND101]({rule_doc_uri('BND101')}) | unbounded-gather | 2 |" in lines


# -- screenshots -------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (Debian package `chromium`)")


def _screenshot(page: Path, size: tuple[int, int], tmp_path: Path):
    """A PIL image of *page* rendered by headless Chromium at *size*; copied to $BOUNDLINT_AUDIT_SCREENSHOT/."""
    image = pytest.importorskip("PIL.Image")
    shot = page.with_suffix(".png")
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", f"--window-size={size[0]},{size[1]}",
         page.as_uri()],
        capture_output=True, text=True, timeout=180)
    assert shot.exists(), proc.stderr[-2000:]
    keep = os.environ.get("BOUNDLINT_AUDIT_SCREENSHOT")
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(shot, keep)
    return image.open(shot).convert("RGB")


def _near(img, rgb: tuple[int, int, int], box=None, tolerance: int = 30) -> int:
    """Pixels of *img* (within *box*) whose colour is within *tolerance* of *rgb* in every channel."""
    region = img.crop(box) if box else img
    return sum(n for n, c in region.getcolors(1 << 24) if all(abs(a - b) <= tolerance for a, b in zip(c, rgb)))


@needs_chromium
def test_html_screenshot_shows_meta_line_and_rule_links(app_report, tmp_path):
    html = render(app_report, "html")
    page = tmp_path / "audit.html"
    page.write_text(html, encoding="utf-8")
    img = _screenshot(page, (1280, 2000), tmp_path)
    assert img.size == (1280, 2000) and len(img.getcolors(1 << 24)) > 50
    assert _near(img, (0x05, 0x50, 0xae)) > 200  # rule links, in their colour
    assert _near(img, (0x82, 0x07, 0x1e)) > 100  # the "high" risk badges
    # The page without its meta line differs from the first row the line takes, under the title.
    meta = re.search(r'<p class="meta">.*?</p>', html).group()
    bare = tmp_path / "bare.html"
    bare.write_text(html.replace(meta, ""), encoding="utf-8")
    other = _screenshot(bare, (1280, 2000), tmp_path)
    from PIL import ImageChops

    top = ImageChops.difference(img, other).getbbox()[1]
    assert 40 <= top <= 90, top
    assert _near(img, (0x57, 0x60, 0x6a), (0, top, 1280, top + 20), tolerance=40) > 100  # grey text there


def _svg_lines(svg: str) -> list[str]:
    """The text lines of a rich SVG export: its ``<text>`` runs grouped by ``y`` and placed by ``x``.

    Rich leaves plain spaces out of the SVG, so a run's column is its ``x`` over the cell width.
    """
    runs = [el for el in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text") if "line-" in el.get("clip-path", "")]
    cell = next(float(el.get("textLength")) / len(el.text) for el in runs if el.text and el.text.strip())
    rows: dict[float, str] = {}
    for el in runs:
        text = (el.text or "").replace("\xa0", " ").rstrip("\n")
        line = rows.get(float(el.get("y")), "")
        col = round(float(el.get("x")) / cell)
        rows[float(el.get("y"))] = line.ljust(col)[:col] + text if text else line
    return [line.rstrip() for _, line in sorted(rows.items())]


@needs_chromium
def test_terminal_screenshot_at_80_columns(long_report, app_report, tmp_path):
    from rich.console import Console

    from boundlint.audit.render_terminal import print_report

    console = Console(record=True, width=80, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    print_report(long_report, console, top=0)
    print_report(app_report, console, top=3)
    svg = console.export_svg(title="boundlint audit")
    svg = re.sub(r"@font-face\s*{[^}]*}", "", svg)  # rich links web fonts; the test runs offline
    expected = (render_plain(long_report, 0, 80) + render_plain(app_report, 3, 80)).splitlines()
    assert _svg_lines(svg) == [line.rstrip() for line in expected]
    page = tmp_path / "terminal.svg"
    page.write_text(svg, encoding="utf-8")
    img = _screenshot(page, (1000, 2200), tmp_path)
    assert len(img.getcolors(1 << 24)) > 50
    assert _near(img, (0xcc, 0x55, 0x55), tolerance=50) > 100  # red HIGH and UNBOUNDED


def test_cli_report_carries_date_and_paths(monkeypatch, capsys):
    from boundlint.cli import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796134903")
    assert main(["audit", "--isolated", "-j", "1", "--format", "json", str(APP / "flask_app.py"), str(APP / "shop")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["created"], data["paths"]) == (CREATED, [str(APP / "flask_app.py"), str(APP / "shop")])
    again = report_from_dict(data)
    assert (again.created, again.paths) == (CREATED, data["paths"])
    for bad in ("soon", "9" * 30):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", bad)
        assert main(["audit", "--isolated", "-j", "1", "--format", "json", str(APP / "flask_app.py")]) == 0
        created = json.loads(capsys.readouterr().out)["created"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", created) and created != CREATED


def test_cli_terminal_report_on_an_ascii_pipe(tmp_path):
    (tmp_path / LONG_PATH).parent.mkdir(parents=True)
    (tmp_path / LONG_PATH).write_text(LONG_NAMES)
    env = dict(os.environ, COLUMNS="80", PYTHONIOENCODING="ascii")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "audit", "--isolated", "-j", "1", str(tmp_path)],
                          capture_output=True, timeout=120, env=env)
    assert proc.returncode == 0 and proc.stderr == b""
    assert b"?" not in proc.stdout  # nothing the pipe's encoding lacks: no ellipsis, the text wraps
    assert b"           synchronisation_request.subscriber_account_identifiers ->\n" in proc.stdout
