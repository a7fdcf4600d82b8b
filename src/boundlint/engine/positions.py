"""Turning rule reports into findings: each position resolved in the innermost statement that holds it."""
from __future__ import annotations

from boundlint.finding import Finding


def _positions_or_nothing(module, sink, path: str, text: str | None = None) -> list[Finding]:
    """``_positions`` after an error elsewhere: what was found so far, if positions still resolve."""
    try:
        return _positions(module, sink, path, text)
    except (Exception, RecursionError):
        return []


def _positions(module, sink, path: str, text: str | None = None) -> list[Finding]:
    """Turn reports into findings; positions are computed only when something was found.

    *text*: the source *module* was parsed from (or a rewrite of it with the
    same lines), which tells where each statement starts.
    """
    if not sink:
        return []
    ctx = getattr(sink, "ctx", None)
    tops = getattr(sink, "tops", {})
    if ctx is not None and ctx.module is module:
        where = ctx.locator()  # the enclosing chains the rules' evidence already asked for are reused
    else:
        from boundlint.analysis.locate import Locator

        where = Locator(module, text)
    out = []
    seen = set()
    for report in sink:
        chain = where.chain(report.node, tops.get(id(report)))
        pos = where.position(report.node, chain)
        key = (report.rule.code, pos.start.line, pos.start.column)
        if key in seen:
            continue
        seen.add(key)
        level = _severity(module, ctx, report, chain, path)
        out.append(Finding(path, pos.start.line, pos.start.column + 1, report.rule.code, report.message,
                           pos.end.line, pos.end.column + 1, report.hint or report.rule.hint, tuple(report.evidence),
                           level.level, level.why, report.fix))
    return out


def _severity(module, ctx, report, chain: list, path: str):
    """``analysis.severity.of_report`` with the chain of nodes enclosing the reported node."""
    from boundlint.analysis.severity import MEDIUM, Severity, of_report

    if ctx is None:
        return Severity(MEDIUM)
    return of_report(report, [module, *chain], ctx, path)


class _Sink(list):
    """The reports list handed to rules; remembers the top-level statement each report came from.

    The chain of nodes above a report is then searched in that statement
    alone, not in the whole module.  ``ctx`` is set once the traversal's
    Context exists.
    """

    ctx = None

    def __init__(self) -> None:
        super().__init__()
        self.tops: dict[int, object] = {}

    def append(self, report) -> None:
        super().append(report)
        ancestors = self.ctx.ancestors if self.ctx is not None else ()
        if len(ancestors) > 1:
            self.tops[id(report)] = ancestors[1]
        elif len(ancestors) == 1:
            self.tops[id(report)] = report.node
