"""``--statistics``: the number of findings per code with the rule's name, most frequent first, and the total."""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

from boundlint.finding import Finding
from boundlint.report.color import PLAIN, Palette


def statistics_rows(findings: Iterable[Finding], names: Mapping[str, str]) -> list[dict[str, object]]:
    """``{code, name, count}`` per code found, by count (descending) then code."""
    counts = Counter(f.code for f in findings)
    return [{"code": c, "name": names.get(c, ""), "count": n}
            for c, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def format_statistics(findings: Iterable[Finding], names: Mapping[str, str], total_line: str = "",
                      palette: Palette = PLAIN) -> str:
    """``count  CODE  name`` lines (counts right-aligned), then *total_line* when given."""
    rows = statistics_rows(findings, names)
    width = max((len(str(r["count"])) for r in rows), default=1)
    out = [f"{r['count']:>{width}}  {palette.code(str(r['code']))}  {r['name']}" for r in rows]
    if total_line:
        out.append(total_line)
    return "".join(line + "\n" for line in out)


def format_statistics_json(findings: Iterable[Finding], names: Mapping[str, str], files: int) -> str:
    """``{"total": N, "files_checked": M, "statistics": [{code, name, count}, ...]}``, indented."""
    import json

    findings = list(findings)
    data = {"total": len(findings), "files_checked": files, "statistics": statistics_rows(findings, names)}
    return json.dumps(data, indent=2) + "\n"


def format_statistics_json_lines(findings: Iterable[Finding], names: Mapping[str, str], files: int) -> str:
    """One ``{code, name, count}`` object per line, then ``{"total": N, "files_checked": M}``."""
    import json

    findings = list(findings)
    lines = [json.dumps(r) for r in statistics_rows(findings, names)]
    lines.append(json.dumps({"total": len(findings), "files_checked": files}))
    return "".join(line + "\n" for line in lines)
