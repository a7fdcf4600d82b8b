"""The audit report as GitHub-flavoured Markdown."""
from __future__ import annotations

from boundlint.audit.cells import chain_text, fanout_text, field_text, route_text, shown_chain, site_text
from boundlint.audit.model import FAMILIES, AuditReport
from boundlint.report.sarif import rule_doc_uri


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>") or "-"


def _code(text: str) -> str:
    return "`" + text.replace("`", "'") + "`"


def _entries(pairs) -> str:
    """One map cell: each ``(text, chain)`` entry on its line, its evidence chain on the next (``via: ...``)."""
    return "\n".join(text + (f"\nvia: {chain_text(chain)}" if chain else "") for text, chain in pairs)


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def render_markdown(report: AuditReport, top: int | None = None) -> str:
    """The report as Markdown; *top* limits the endpoint map (None or 0: all)."""
    from boundlint import __version__

    s = report.summary
    lines = ["# boundlint audit", ""]
    meta = [f"boundlint {__version__}"]
    if report.created:
        meta.append("audited " + report.created.replace("T", " ").replace("Z", " UTC"))
    if report.paths:
        meta.append("paths: " + ", ".join(_code(p) for p in report.paths))
    lines += [" · ".join(meta) + ".", ""]
    lines += _table(("files", "lines", "time", "findings", "handlers", "with unbounded fan-out"),
                    [(f"{s.files:,}", f"{s.lines:,}", f"{s.seconds:.1f} s", f"{s.findings:,}", f"{s.handlers:,}",
                      f"{s.unbounded_handlers:,}")])
    if any(s.by_severity.values()):
        lines += ["", "Findings per severity: " + ", ".join(f"{k} {v:,}" for k, v in s.by_severity.items() if v) + "."]
    if s.handlers_by_framework:
        lines += ["", "Handlers per framework: " + ", ".join(f"{k} {v}" for k, v in s.handlers_by_framework.items()) + "."]
    if s.by_code:
        lines += ["", "## Findings per code", ""]
        lines += _table(("family", "code", "rule", "count"),
                        [(FAMILIES.get(c[:4], ""), f"[{c}]({rule_doc_uri(c)})", report.rule_names.get(c, ""), str(n))
                         for c, n in s.by_code.items()])
        lines += ["", "## Top files and folders", ""]
        lines += _table(("file", "findings"), [(_code(p), str(n)) for p, n in s.top_files])
        lines += [""]
        lines += _table(("folder", "findings"), [(_code(p), str(n)) for p, n in s.top_folders])
    lines += ["", "## Endpoint exposure map", "", "Riskiest first: unbounded fan-out fed by a request field, then other unbounded fan-out, "
              "unbounded request fields, and log-storm or connection-churn sites: those whose evidence names the handler, "
              "in any module, with the chain (`via:`), and those its own module's calls reach.", ""]
    handlers = report.handlers if not top else report.handlers[:top]
    if handlers:
        rows = []
        for h in handlers:
            rows.append((h.risk, f"{_code(h.name)}<br>{h.path}:{h.line}", route_text(h),
                         _entries((fanout_text(f, h.path), shown_chain(f, h)) for f in h.fanouts),
                         _entries((field_text(f, h.path), shown_chain(f, h)) for f in h.fields),
                         _entries((site_text(x, h.path), shown_chain(x, h)) for x in h.sites)))
        lines += _table(("risk", "handler", "route", "fan-out sites", "request fields", "log-storm / churn sites"), rows)
    else:
        lines.append("No request handlers recognised.")
    hidden = len(report.handlers) - len(handlers)
    if hidden:
        lines += ["", f"{hidden} more handler{'s' if hidden != 1 else ''} not shown (`--top 0` shows all)."]
    if report.unreached:
        lines += ["", "## Not reached from a handler", "",
                  "Findings no request handler of the map reaches (workers, schedulers, consumers, scripts), "
                  "riskiest first.", ""]
        lines += _table(("severity", "place", "code", "function", "message"),
                        [(x.severity, _code(f"{x.path}:{x.line}"), f"[{x.code}]({rule_doc_uri(x.code)})",
                          _code(x.function) if x.function else "", x.message) for x in report.unreached])
    return "\n".join(lines) + "\n"
