"""The audit report as one self-contained HTML page.

No network assets: the style sheet and the small table-sorting script are
inline, and every table is complete HTML, so the page reads the same with
JavaScript off (sorting is an extra: click a column header).
"""
from __future__ import annotations

import re
from html import escape

from boundlint.audit.cells import chain_text, code_spans, fanout_text, field_text, shown_chain, site_text
from boundlint.audit.model import FAMILIES, AuditReport
from boundlint.report.sarif import rule_doc_uri

_CODE = re.compile(r"\bBND\d{3}\b")

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d232a;background:#fff}
h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d8dee4;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0;width:100%}
th,td{border:1px solid #d8dee4;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f7;cursor:pointer;white-space:nowrap}
th[aria-sort]::after{content:" \\2195";color:#888}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td{overflow-wrap:anywhere}
table.map{table-layout:fixed}table.map th{white-space:normal}
table.map th:nth-child(1){width:72px}table.map th:nth-child(2){width:16%}table.map th:nth-child(3){width:10%}
table.map th:nth-child(4){width:26%}table.map th:nth-child(5){width:16%}table.map th:nth-child(6){width:24%}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0 4px}
.card{border:1px solid #d8dee4;border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:20px}
.card span{color:#57606a;font-size:12px}
.risk{font-weight:700;border-radius:4px;padding:1px 6px;white-space:nowrap}
.high{background:#ffd7d5;color:#82071e}.medium{background:#fff1c2;color:#6b4a00}.low{background:#dafbe1;color:#116329}
ul{margin:0;padding-left:16px}li{margin:1px 0}
.unb{color:#a40e26;font-weight:600}.ok{color:#1a7f37}li.via{list-style:none;color:#57606a;font-size:12px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f5f7;padding:0 3px;border-radius:3px}
.small{color:#57606a;font-size:12px}
.meta{color:#57606a;margin:0 0 10px}.meta code{font-size:13px}
a.rule{color:#0550ae;text-decoration:none;font-weight:600}a.rule:hover{text-decoration:underline}
.split{display:grid;grid-template-columns:1fr 1fr;gap:16px}
"""

_JS = """
document.querySelectorAll("table.sortable").forEach(function(table){
  table.querySelectorAll("th").forEach(function(th, col){
    th.setAttribute("aria-sort","none");
    th.addEventListener("click", function(){
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function(h){h.setAttribute("aria-sort","none");});
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      rows.sort(function(a, b){
        var x = a.cells[col].getAttribute("data-key") || a.cells[col].textContent;
        var y = b.cells[col].getAttribute("data-key") || b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
"""


_RANK = {"high": 3, "medium": 2, "low": 1}


def rule_link(code: str) -> str:
    """``<a>`` to the rule page of *code*: the URL SARIF gives as the rule's ``helpUri``."""
    return f'<a class="rule" href="{escape(rule_doc_uri(code))}">{escape(code)}</a>'


def inline(text: str) -> str:
    """*text* as escaped HTML: Markdown-style `code` spans as ``<code>``, rule codes linked to their pages."""
    out = []
    for segment, is_code in code_spans(text):
        if is_code:
            out.append(f"<code>{escape(segment)}</code>")
            continue
        pos = 0
        for m in _CODE.finditer(segment):
            out.append(escape(segment[pos:m.start()]) + rule_link(m.group()))
            pos = m.end()
        out.append(escape(segment[pos:]))
    return "".join(out)


def _list(items: list[tuple[str, str]]) -> str:
    if not items:
        return '<span class="small">none</span>'
    return "<ul>" + "".join(f'<li class="{cls}">{inline(text)}</li>' for cls, text in items) + "</ul>"


def _with_chains(entries) -> list[tuple[str, str]]:
    """``(class, text)`` list items: each ``(class, text, chain)`` entry, then its evidence chain as a ``via`` item."""
    out = []
    for cls, text, chain in entries:
        out.append((cls, text))
        if chain:
            out.append(("via", "via: " + chain_text(chain)))
    return out


def _table(headers: list[tuple[str, bool]], rows: list[list[str]], sortable: bool = True, cls: str = "") -> str:
    head = "".join(f'<th class="num">{escape(h)}</th>' if num else f"<th>{escape(h)}</th>" for h, num in headers)
    body = "".join("<tr>" + "".join(rows_cell for rows_cell in row) + "</tr>" for row in rows)
    classes = " ".join(c for c in ("sortable" if sortable else "", cls) if c)
    return f'<table class="{classes}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _td(text: str, num: bool = False, key: str | None = None) -> str:
    attrs = ' class="num"' if num else ""
    if key is not None:
        attrs += f' data-key="{escape(key)}"'
    return f"<td{attrs}>{escape(text)}</td>"


def _meta(report: AuditReport) -> str:
    """The line under the title: boundlint version, date of the audit, audited paths."""
    from boundlint import __version__

    parts = [f"boundlint {escape(__version__)}"]
    if report.created:
        when = escape(report.created.replace("T", " ").replace("Z", " UTC"))
        parts.append(f'audited <time datetime="{escape(report.created)}">{when}</time>')
    if report.paths:
        parts.append("paths: " + ", ".join(f"<code>{escape(p)}</code>" for p in report.paths))
    return '<p class="meta">' + " · ".join(parts) + "</p>"


def _unreached(report: AuditReport) -> list[str]:
    """The "not reached from a handler" section: every finding the map does not show, riskiest first."""
    if not report.unreached:
        return []
    rows = [[f'<td data-key="{_RANK.get(x.severity, 0)}"><span class="risk {x.severity}">{escape(x.severity)}</span></td>',
             _td(f"{x.path}:{x.line}", key=f"{x.path}:{x.line:09d}"), f"<td>{rule_link(x.code)}</td>",
             f"<td><code>{escape(x.function)}</code></td>" if x.function else _td(""), f"<td>{inline(x.message)}</td>"]
            for x in report.unreached]
    return ["<h2>Not reached from a handler</h2>",
            '<p class="small">Findings no request handler of the map reaches (workers, schedulers, consumers, '
            "scripts), riskiest first.</p>",
            _table([("severity", False), ("place", False), ("code", False), ("function", False), ("message", False)],
                   rows)]


def render_html(report: AuditReport) -> str:
    """The whole page as a string: summary cards, exposure map, findings per code, top files and folders."""
    s = report.summary
    cards = [
        (f"{s.files:,}", "files"), (f"{s.lines:,}", "lines"), (f"{s.seconds:.1f} s", "time"),
        (f"{s.findings:,}", "findings"),
        *((f"{n:,}", name) for name, n in s.by_severity.items() if n),
        (f"{s.handlers:,}", "request handlers"),
        (f"{s.unbounded_handlers:,}", "handlers with unbounded fan-out"),
    ]
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(' '.join(['boundlint audit', *report.paths]))}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>boundlint audit</h1>", _meta(report),
        '<div class="cards">' + "".join(f"<div class=\"card\"><b>{escape(v)}</b><span>{escape(k)}</span></div>" for v, k in cards) + "</div>",
    ]
    if s.handlers_by_framework:
        parts.append('<p class="small">Handlers per framework: '
                     + escape(", ".join(f"{k} {v}" for k, v in s.handlers_by_framework.items())) + "</p>")
    parts.append("<h2>Endpoint exposure map</h2>")
    parts.append('<p class="small">Riskiest first: unbounded fan-out fed by a request field, then other unbounded '
                 "fan-out, unbounded request fields, and log-storm or connection-churn sites: those whose evidence names the "
                 "handler, in any module, with the chain (via), and those its own module's calls reach.</p>")
    if report.handlers:
        rows = []
        for h in report.handlers:
            fan = _with_chains(("ok" if f.bounded else "unb", fanout_text(f, h.path), shown_chain(f, h)) for f in h.fanouts)
            fields = _with_chains(("ok" if f.limit is not None else "unb", field_text(f, h.path), shown_chain(f, h))
                                  for f in h.fields)
            sites = _with_chains(("unb", site_text(x, h.path), shown_chain(x, h)) for x in h.sites)
            rows.append([
                f'<td data-key="{_RANK.get(h.risk, 0)}{h.score:09d}"><span class="risk {h.risk}">{escape(h.risk)}</span></td>',
                f'<td data-key="{escape(h.name)}"><code>{escape(h.name)}</code><br><span class="small">{escape(h.path)}:{h.line}</span></td>',
                _td(f"{h.framework} {h.route}".strip()),
                f"<td>{_list(fan)}</td>", f"<td>{_list(fields)}</td>", f"<td>{_list(sites)}</td>",
            ])
        parts.append(_table([("risk", False), ("handler", False), ("route", False), ("fan-out sites", False),
                             ("request fields", False), ("log-storm / churn sites", False)], rows, cls="map"))
    else:
        parts.append("<p>No request handlers recognised.</p>")
    parts += _unreached(report)
    parts.append("<h2>Findings</h2>")
    if s.by_code:
        fam_rows = [[_td(k), _td(FAMILIES.get(k, "")), _td(f"{v:,}", True, str(v))] for k, v in s.by_family.items()]
        code_rows = [[_td(FAMILIES.get(c[:4], "")), f"<td>{rule_link(c)}</td>", _td(report.rule_names.get(c, "")),
                      _td(f"{n:,}", True, str(n))]
                     for c, n in s.by_code.items()]
        parts.append('<div class="split"><div>' + _table([("family", False), ("name", False), ("count", True)], fam_rows)
                     + "</div><div>" + _table([("family", False), ("code", False), ("rule", False), ("count", True)], code_rows)
                     + "</div></div>")
        file_rows = [[_td(p), _td(f"{n:,}", True, str(n))] for p, n in s.top_files]
        folder_rows = [[_td(p), _td(f"{n:,}", True, str(n))] for p, n in s.top_folders]
        parts.append("<h2>Top files and folders by findings</h2>")
        parts.append('<div class="split"><div>' + _table([("file", False), ("findings", True)], file_rows)
                     + "</div><div>" + _table([("folder", False), ("findings", True)], folder_rows) + "</div></div>")
    else:
        parts.append("<p>No findings.</p>")
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts) + "\n"
