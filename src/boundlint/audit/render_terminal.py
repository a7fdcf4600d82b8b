"""The terminal report: laid out for a given width, coloured with ``rich`` when it is installed.

Every line fits the width (80 columns when the output is not a terminal):
text wraps and is never cut (see ``layout``).  Each handler of the exposure
map shows a title, then at most ``HANDLER_ENTRIES`` of its fan-out sites,
request fields and log-storm / churn sites, riskiest first (each followed by
a ``via`` line of the places its evidence chain passes through, when that
adds a place the row does not name); the others are counted on a last
``+ N more`` line.  Markdown-style `code` spans in
messages lose their backticks (and are coloured when colour is on).
"""
from __future__ import annotations

import io
import re
import shutil

from boundlint.audit.cells import chain_places, code_spans, fanout_text, field_text, route_text, site_text, where
from boundlint.audit.layout import Styled, join, wrap
from boundlint.audit.model import FAMILIES, AuditReport, FanOut, Handler

HANDLER_ENTRIES = 4  # map entries shown per handler; the others are counted
MIN_WIDTH, MAX_WIDTH = 40, 120
_LABEL = 9  # width of the "fan-out" / "field" / "site" column
_INDENT = "  "
_MARKS = re.compile(r"\bUNBOUNDED\b|\bBND\d{3}\b|\bbounded\b")
# rich styles of the layout's style names.
STYLES = {
    "high": "bold red", "medium": "bold yellow", "low": "bold green", "title": "bold", "label": "dim",
    "code": "cyan", "UNBOUNDED": "bold red", "bounded": "green", "rule": "bold", "dim": "dim",
}


def terminal_width(width: int | None = None) -> int:
    """*width*, else the terminal's (``COLUMNS`` first, 80 when not a terminal), kept within 40..120."""
    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    return max(MIN_WIDTH, min(MAX_WIDTH, width))


def message(text: str) -> Styled:
    """*text* with backticks removed: code spans styled ``code``, ``UNBOUNDED`` / ``bounded`` / codes marked."""
    out = Styled("", ())
    for segment, is_code in code_spans(text):
        if is_code:
            out = out + Styled.of(segment, "code")
            continue
        pos = 0
        for m in _MARKS.finditer(segment):
            out = out + Styled.of(segment[pos:m.start()])
            out = out + Styled.of(m.group(), "rule" if m.group().startswith("BND") else m.group())
            pos = m.end()
        out = out + Styled.of(segment[pos:])
    return out


def _pad(s: Styled, n: int) -> Styled:
    return s + Styled.of(" " * max(n - len(s), 0))


def _key_values(rows: list[tuple[str, str]], width: int) -> list[Styled]:
    """``key  value`` rows; a value too long wraps under itself (under its key when the width is small)."""
    key_w = max(len(k) for k, _ in rows) + 2
    stacked = width - len(_INDENT) - key_w < 24
    value_indent = _INDENT * 2 if stacked else _INDENT + " " * key_w
    out = []
    for key, value in rows:
        lines = wrap(message(value), width - len(value_indent))
        if stacked:
            out.append(Styled.of(_INDENT) + Styled.of(key, "title"))
            out += [Styled.of(value_indent) + line for line in lines]
            continue
        out.append(Styled.of(_INDENT) + _pad(Styled.of(key, "title"), key_w) + lines[0])
        out += [Styled.of(value_indent) + line for line in lines[1:]]
    return out


def _columns(headers: tuple[str, ...], rows: list[tuple[str, ...]], width: int, flex: tuple[int, ...],
             right: tuple[int, ...] = ()) -> list[Styled]:
    """An aligned table; when it is too wide, the *flex* columns (in that order) get narrower and their
    cells wrap onto more lines (broken after ``/`` or ``.``), never cut."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    for floor in (12, 6):
        for col in flex:
            over = len(_INDENT) + sum(widths) + 2 * (len(widths) - 1) - width
            if over > 0:
                widths[col] = max(widths[col] - over, min(widths[col], floor))

    def lines(cells, style=None):
        wrapped = [wrap(Styled.of(cell, style), w) for cell, w in zip(cells, widths)]
        out = []
        for n in range(max(len(w) for w in wrapped)):
            parts = []
            for i, (cell_lines, w) in enumerate(zip(wrapped, widths)):
                s = cell_lines[n] if n < len(cell_lines) else Styled.of("")
                parts.append(Styled.of(" " * (w - len(s))) + s if i in right else _pad(s, w))
            out.append(_rstrip(Styled.of(_INDENT) + join(parts, "  ")))
        return out

    return lines(headers, "dim") + [line for r in rows for line in lines(r)]


def _rstrip(s: Styled) -> Styled:
    return s[:len(s.text.rstrip())]


def fanout_line(f: FanOut, home: str | None = None) -> str:
    """A fan-out site for the terminal: what matters first, as a cut line loses its end.

    ``L25 asyncio.gather UNBOUNDED over request.uris -> hydrate [BND101]``; a bounded site reads as
    in the other formats (``cells.fanout_text``).  A site outside the handler's file *home* starts
    with its ``path:line``.
    """
    if f.bounded:
        return fanout_text(f, home)
    text = f"{where(f.path, f.line, home)} {f.api} UNBOUNDED"
    source = f.source
    if f.request_field and f.request_field != source:
        # The analysis cuts long sources with "..."; the request field is then the clearer name.
        source = f.request_field if not source or source.endswith("...") else f"{source} (from {f.request_field})"
    if source:
        text += f" over {source}"
    if f.target:
        text += f" -> {f.target}"
    if f.via:
        text += f" (in {f.via})"
    return text + (f" [{f.code}]" if f.code else "")


def _items(h: Handler) -> list[tuple[int, str, str]]:
    """``(priority, label, text)`` of a handler's map entries in display order; 0 is the most important."""
    items = []
    for priority, label, text, entry in (
            *((0 if not f.bounded else 3, "fan-out", fanout_line(f, h.path), f) for f in h.fanouts),
            *((1 if f.limit is None else 4, "field", field_text(f, h.path), f) for f in h.fields),
            *((2, "site", site_text(s, h.path), s) for s in h.sites)):
        items.append((priority, label, text))
        # The evidence chain right under its entry, as the places it passes through.
        places = chain_places(entry.chain, h, entry.path or h.path, entry.line)
        if places:
            items.append((priority, "via", places))
    return items


def _title(h: Handler, width: int) -> list[Styled]:
    """``name  route  path:line`` in one line of *width*, else the name, then route and place, wrapped."""
    name = Styled.of(h.name, "title")
    route = Styled.of(route_text(h))
    where = Styled.of(f"{h.path}:{h.line}", "dim")
    one = join([name, route, where], "  ")
    if len(one) <= width:
        return [one]
    if len(join([name, route], "  ")) <= width:
        return [join([name, route], "  "), *wrap(where, width)]
    return [*wrap(name, width), *wrap(join([route, where], "  "), width)]


def handler_lines(h: Handler, width: int) -> list[Styled]:
    """The block of one handler: its title, then at most HANDLER_ENTRIES entries, each wrapped whole to *width*."""
    risk = Styled.of(f"{h.risk.upper():<6}", h.risk) + Styled.of("  ")
    out = [risk + line if i == 0 else Styled.of(" " * len(risk)) + line
           for i, line in enumerate(_title(h, width - len(risk)))]
    items = _items(h)
    entries = [i for i, it in enumerate(items) if it[1] != "via"]
    keep_entries = set(sorted(entries, key=lambda i: (items[i][0], i))[:HANDLER_ENTRIES])
    if len(entries) == HANDLER_ENTRIES + 1:
        keep_entries = set(entries)  # a "+ 1 more" line takes the room of the entry itself
    keep = set()
    for i, it in enumerate(items):  # a via line goes with its entry
        if (it[1] == "via" and i - 1 in keep_entries) or i in keep_entries:
            keep.add(i)
    shown = [it for i, it in enumerate(items) if i in keep]
    hidden = [it for i, it in enumerate(items) if i not in keep and it[1] != "via"]
    text_w = width - len(_INDENT) - _LABEL
    last_label = None
    for _, label, text in shown:
        lines = wrap(message(text), text_w)
        head = _pad(Styled.of(label if label != last_label else "", "label"), _LABEL)
        last_label = label
        out.append(Styled.of(_INDENT) + head + lines[0])
        out += [Styled.of(_INDENT + " " * _LABEL) + line for line in lines[1:]]
    if hidden:
        counts = [f"{n} {label}{'s' if n != 1 else ''}" for label in ("fan-out", "field", "site")
                  if (n := sum(1 for it in hidden if it[1] == label))]
        note = f"+ {len(hidden)} more: {', '.join(counts)}; --output-format html lists all"
        out += [Styled.of(_INDENT + " " * _LABEL) + line for line in wrap(Styled.of(note, "dim"), text_w)]
    return out


def report_lines(report: AuditReport, top: int | None, width: int) -> list[Styled]:
    """The whole report as styled lines of at most *width* columns."""
    from boundlint import __version__

    s = report.summary
    head = f"boundlint audit (boundlint {__version__}"
    head += f", {report.created.replace('T', ' ').replace('Z', ' UTC')})" if report.created else ")"
    out = wrap(Styled.of(head, "title"), width)
    rows = [("paths", ", ".join(report.paths))] if report.paths else []
    rows += [
        ("files", f"{s.files:,}"), ("lines", f"{s.lines:,}"), ("time", f"{s.seconds:.1f} s"),
        ("findings", f"{s.findings:,}" + _severities(s.by_severity)),
        ("handlers", f"{s.handlers:,} ({', '.join(f'{k} {v}' for k, v in s.handlers_by_framework.items()) or 'none'})"),
        ("handlers with unbounded fan-out", f"{s.unbounded_handlers:,}"),
    ]
    out += _key_values(rows, width)
    if s.by_code:
        out += [Styled.of(""), Styled.of("Findings per code", "title")]
        out += _columns(("family", "code", "rule", "count"),
                        [(FAMILIES.get(c[:4], ""), c, report.rule_names.get(c, ""), f"{n:,}") for c, n in s.by_code.items()],
                        width, flex=(2, 0), right=(3,))
        out += [Styled.of(""), Styled.of("Top files by findings", "title")]
        out += _columns(("file", "count"), [(p, f"{n:,}") for p, n in s.top_files], width, flex=(0,), right=(1,))
        out += [Styled.of(""), Styled.of("Top folders by findings", "title")]
        out += _columns(("folder", "count"), [(p, f"{n:,}") for p, n in s.top_folders], width, flex=(0,), right=(1,))
    out += [Styled.of(""), Styled.of("Endpoint exposure map (riskiest first)", "title")]
    handlers = report.handlers if not top else report.handlers[:top]
    for h in handlers:
        out.append(Styled.of(""))
        out += handler_lines(h, width)
    if not handlers:
        out.append(Styled.of("No request handlers recognised."))
    hidden = len(report.handlers) - len(handlers)
    if hidden:
        out += [Styled.of(""), Styled.of(f"... {hidden} more handler{'s' if hidden != 1 else ''} (--top 0 shows all)")]
    out += unreached_lines(report, width)
    return out


def _severities(counts: dict[str, int]) -> str:
    """`` (high 2, medium 5, low 1)`` of the summary's severity counts; "" when there are none."""
    shown = [f"{name} {n:,}" for name, n in counts.items() if n]
    return f" ({', '.join(shown)})" if shown else ""


def unreached_lines(report: AuditReport, width: int) -> list[Styled]:
    """The "not reached from a handler" section: each finding's severity, place and code, its message wrapped under."""
    if not report.unreached:
        return []
    n = len(report.unreached)
    out = [Styled.of(""), Styled.of(f"Not reached from a handler ({n:,} finding{'s' if n != 1 else ''}, riskiest first)",
                                    "title")]
    indent = _INDENT + " " * 8
    for item in report.unreached:
        head = Styled.of(f"{item.severity.upper():<6}", item.severity) + Styled.of("  ")
        place = join([Styled.of(f"{item.path}:{item.line}", "dim"), Styled.of(item.code, "rule")]
                     + ([Styled.of(f"(in {item.function})")] if item.function else []), "  ")
        lines = wrap(place, width - len(_INDENT) - len(head))
        out.append(Styled.of(_INDENT) + head + lines[0])
        out += [Styled.of(indent) + line for line in lines[1:]]
        out += [Styled.of(indent) + line for line in wrap(message(item.message), width - len(indent))]
    return out


def render_plain(report: AuditReport, top: int | None = None, width: int | None = None) -> str:
    """The terminal report without colour, *width* columns wide (None: see ``terminal_width``)."""
    return "".join(line.text + "\n" for line in report_lines(report, top, terminal_width(width)))


def print_report(report: AuditReport, console, top: int | None = None) -> None:
    """Print the report on a ``rich.console.Console``, laid out for its width, with colour when it has any."""
    from rich.text import Text

    for line in report_lines(report, top, terminal_width(console.width)):
        text = Text(no_wrap=True, overflow="ignore", end="\n")
        for part, style in line.runs():
            text.append(part, STYLES.get(style, "") if style else "")
        console.print(text, soft_wrap=True)


def render_terminal(report: AuditReport, top: int | None = None, color: bool = False, width: int | None = None) -> str:
    """The report for a terminal; *top* limits the endpoint map (None or 0: all), *width* as in ``terminal_width``.

    Without *color* (or without ``rich``) the text is plain.
    """
    if not color:
        return render_plain(report, top, width)
    try:
        from rich.console import Console
    except ImportError:
        return render_plain(report, top, width)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=terminal_width(width), highlight=False,
                      markup=False, emoji=False, soft_wrap=True)
    print_report(report, console, top)
    return buf.getvalue()
