"""``boundlint check --output-format``: the format names, and the report text for one run.

Each format lives in its own module of this package and is imported only when used,
so a run pays for nothing but the formatter it prints with.
"""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping, Sequence

from boundlint.finding import Finding

OUTPUT_FORMATS = ("full", "concise", "grouped", "json", "json-lines", "sarif", "github", "gitlab")
ALIASES = {"text": "full"}  # the old `--format text`
TEXT_FORMATS = frozenset({"full", "concise", "grouped"})
STATISTICS_FORMATS = ("full", "concise", "grouped", "json", "json-lines")
_SOURCE_FORMATS = frozenset({"sarif", "gitlab"})  # snippets, fingerprints


def canonical(name: str) -> str:
    """The format's name in ``OUTPUT_FORMATS`` (``text`` -> ``full``)."""
    return ALIASES.get(name, name)


# A named tuple, not a dataclass: it is made on every run's start-up, and defining a dataclass costs more.
class ReportOptions(namedtuple("ReportOptions", "output_format show_source statistics quiet colour",
                               defaults=("full", False, False, False, False))):
    """How to print a run: a name from ``OUTPUT_FORMATS`` and the flags that shape it.

    ``colour`` is decided by the caller (``report.color.use_colour``), and only the
    text formats (full, concise, grouped, and statistics as text) use it.
    """

    __slots__ = ()

    def check(self) -> str | None:
        """A one-line complaint when the options cannot be combined, else None."""
        if self.output_format not in OUTPUT_FORMATS:
            return f"unknown output format {self.output_format!r} (choose from {', '.join(OUTPUT_FORMATS)})"
        if self.statistics and self.output_format not in STATISTICS_FORMATS:
            return (f"--statistics prints a table; it cannot be combined with --output-format {self.output_format} "
                    f"(use {', '.join(STATISTICS_FORMATS)})")
        return None

    def needs_sources(self) -> bool:
        """Whether ``render`` needs the findings' source lines (``sources``)."""
        if self.statistics:
            return False
        return self.output_format in _SOURCE_FORMATS or (self.show_source and self.output_format == "full")


def summary(found: int, files: int, hidden: int = 0) -> str:
    """``Found N findings in M files checked.`` / ``All clear: M files checked.``, with the
    number of baselined findings not shown when there are any."""
    checked = f"{files} file{'s' if files != 1 else ''} checked"
    extra = f"; {hidden} baselined finding{'s' if hidden != 1 else ''} not shown" if hidden else ""
    if found:
        return f"Found {found} finding{'s' if found != 1 else ''} in {checked}{extra}."
    return f"All clear: {checked}{extra}."


def render(findings: Sequence[Finding], options: ReportOptions, *, files: int, hidden: int = 0,
           sources: Mapping[str, Sequence[str]] | None = None, settings: object = None) -> str:
    """The whole report for *findings* of a run over *files* files (*hidden*: baselined ones
    not shown), as the text to write; ends with a newline unless empty.

    *sources* maps paths to lines for the formats that quote the source (see
    ``needs_sources``); *settings* (a ``config.Settings``, or the set of those that
    judged the files) names the enabled rules for SARIF's rule table.  Raises ValueError when ``options.check()`` complains.
    """
    problem = options.check()
    if problem:
        raise ValueError(problem)
    fmt = options.output_format
    from boundlint.report.color import Palette
    from boundlint.codes import CODES

    palette = Palette(options.colour and fmt in TEXT_FORMATS)
    if options.statistics:
        from boundlint.report import stats

        if fmt == "json":
            return stats.format_statistics_json(findings, CODES, files)
        if fmt == "json-lines":
            return stats.format_statistics_json_lines(findings, CODES, files)
        return stats.format_statistics(findings, CODES, summary(len(findings), files, hidden), palette)
    if fmt == "json":
        from boundlint.report.json import format_json

        return format_json(findings)
    if fmt == "json-lines":
        from boundlint.report.json_lines import format_json_lines

        return format_json_lines(findings)
    if fmt == "sarif":
        from boundlint.engine import enabled_rules
        from boundlint.report.sarif import format_sarif

        used = settings if isinstance(settings, (set, frozenset, list, tuple)) else [settings]
        selected = {cls.code: cls for each in used for cls in enabled_rules(each)}  # per-file configs: their union
        return format_sarif(findings, dict(sorted(selected.items())), sources=sources, settings=settings)
    if fmt == "github":
        from boundlint.report.github import format_github

        return format_github(findings, CODES)
    if fmt == "gitlab":
        from boundlint.report.gitlab import format_gitlab

        return format_gitlab(findings, sources)
    if fmt == "concise":
        from boundlint.report.concise import format_concise

        out = format_concise(findings, palette)
    elif fmt == "grouped":
        from boundlint.report.grouped import format_grouped

        out = format_grouped(findings, palette)
    else:
        from boundlint.report.text import format_text

        out = format_text(findings, options.show_source, sources if options.show_source else None, palette)
    if not options.quiet:
        out += summary(len(findings), files, hidden) + "\n"
    return out
