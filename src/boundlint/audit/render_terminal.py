"""Terminal tables: with ``rich`` when installed (``pip install boundlint[audit]``), plain text otherwise."""
from __future__ import annotations

import io

from boundlint.audit.cells import fanout_text, field_text, handler_title, route_text, site_text
from boundlint.audit.model import FAMILIES, AuditReport


def _summary_rows(report: AuditReport) -> list[tuple[str, str]]:
    s = report.summary
    return [
        ("files", f"{s.files:,}"),
        ("lines", f"{s.lines:,}"),
        ("time", f"{s.seconds:.1f} s"),
        ("findings", f"{s.findings:,}"),
        ("handlers", f"{s.handlers:,} ({', '.join(f'{k} {v}' for k, v in s.handlers_by_framework.items()) or 'none'})"),
        ("handlers with unbounded fan-out", f"{s.unbounded_handlers:,}"),
    ]


def _map_rows(report: AuditReport, top: int | None) -> tuple[list[tuple[str, ...]], int]:
    handlers = report.handlers if not top else report.handlers[:top]
    rows = []
    for h in handlers:
        rows.append((
            h.risk,
            handler_title(h),
            route_text(h),
            "\n".join(fanout_text(f) for f in h.fanouts) or "-",
            "\n".join(field_text(f) for f in h.fields) or "-",
            "\n".join(site_text(s) for s in h.sites) or "-",
        ))
    return rows, len(report.handlers) - len(handlers)


MAP_COLUMNS = ("risk", "handler", "route", "fan-out sites", "request fields", "log-storm / churn sites")


def render_terminal(report: AuditReport, top: int | None = None, color: bool = False) -> str:
    """The report as terminal tables; *top* limits the endpoint map (None or 0: all)."""
    try:
        import rich  # noqa: F401
    except ImportError:
        return render_plain(report, top)
    return _render_rich(report, top, color)


def _render_rich(report: AuditReport, top: int | None, color: bool) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=200 if not color else None,
                      highlight=False, soft_wrap=False)
    summary = Table(title="boundlint audit", box=box.SIMPLE_HEAVY, show_header=False)
    summary.add_column(style="bold")
    summary.add_column()
    for key, value in _summary_rows(report):
        summary.add_row(key, value)
    console.print(summary)
    s = report.summary
    if s.by_code:
        codes = Table(title="Findings per code", box=box.SIMPLE)
        for col, justify in (("family", "left"), ("code", "left"), ("rule", "left"), ("count", "right")):
            codes.add_column(col, justify=justify)
        for code, n in s.by_code.items():
            codes.add_row(FAMILIES.get(code[:4], ""), code, report.rule_names.get(code, ""), f"{n:,}")
        console.print(codes)
        tops = Table(title="Top files and folders by findings", box=box.SIMPLE)
        tops.add_column("file")
        tops.add_column("n", justify="right")
        tops.add_column("folder")
        tops.add_column("n", justify="right")
        for i in range(max(len(s.top_files), len(s.top_folders))):
            f = s.top_files[i] if i < len(s.top_files) else ("", "")
            d = s.top_folders[i] if i < len(s.top_folders) else ("", "")
            tops.add_row(f[0], str(f[1]), d[0], str(d[1]))
        console.print(tops)
    rows, hidden = _map_rows(report, top)
    table = Table(title="Endpoint exposure map (riskiest first)", box=box.SIMPLE_HEAVY, show_lines=True)
    for col in MAP_COLUMNS:
        table.add_column(col, overflow="fold")
    styles = {"high": "bold red", "medium": "yellow", "low": "green"}
    for row in rows:
        table.add_row(Text(row[0], style=styles.get(row[0], "")), *row[1:])
    if rows:
        console.print(table)
    else:
        console.print("No request handlers recognised.")
    if hidden:
        console.print(f"... {hidden} more handler{'s' if hidden != 1 else ''} (--top 0 shows all)")
    return buf.getvalue()


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """A plain-text table; multi-line cells become several lines."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], *(len(part) for part in str(cell).split("\n")))
    out = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
           "  ".join("-" * w for w in widths)]
    for row in rows:
        cells = [str(c).split("\n") for c in row]
        for k in range(max(len(c) for c in cells)):
            out.append("  ".join((c[k] if k < len(c) else "").ljust(w) for c, w in zip(cells, widths)).rstrip())
    return out


def render_plain(report: AuditReport, top: int | None = None) -> str:
    """The terminal report without ``rich``: aligned plain-text tables."""
    lines = ["boundlint audit", ""]
    lines += _table(("", ""), _summary_rows(report))
    s = report.summary
    if s.by_code:
        lines += ["", "Findings per code"]
        lines += _table(("family", "code", "rule", "count"),
                        [(FAMILIES.get(c[:4], ""), c, report.rule_names.get(c, ""), str(n)) for c, n in s.by_code.items()])
        lines += ["", "Top files by findings"] + _table(("file", "count"), [(p, str(n)) for p, n in s.top_files])
        lines += ["", "Top folders by findings"] + _table(("folder", "count"), [(p, str(n)) for p, n in s.top_folders])
    rows, hidden = _map_rows(report, top)
    lines += ["", "Endpoint exposure map (riskiest first)"]
    if rows:
        for row in rows:
            lines += ["", f"[{row[0]}] {row[1]}  {row[2]}"]
            for title, cell in zip(MAP_COLUMNS[3:], row[3:]):
                lines.append(f"  {title}:")
                lines += [f"    {part}" for part in cell.split("\n")]
    else:
        lines.append("No request handlers recognised.")
    if hidden:
        lines += ["", f"... {hidden} more handler{'s' if hidden != 1 else ''} (--top 0 shows all)"]
    return "\n".join(lines) + "\n"
