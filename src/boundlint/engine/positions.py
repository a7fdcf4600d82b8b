"""Turning rule reports into findings: positions resolved in the reported statements only."""
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
    same lines), which tells where each top-level statement starts.
    """
    if not sink:
        return []
    positions = _Positions(module, getattr(sink, "tops", None), text)
    out = []
    seen = set()
    for report in sink:
        pos = positions.of(report)
        key = (report.rule.code, pos.start.line, pos.start.column)
        if key in seen:
            continue
        seen.add(key)
        level = _severity(module, sink, report, path)
        out.append(Finding(path, pos.start.line, pos.start.column + 1, report.rule.code, report.message,
                           pos.end.line, pos.end.column + 1, report.hint or report.rule.hint, tuple(report.evidence),
                           level.level, level.why))
    return out


def _severity(module, sink, report, path: str):
    """``verdicts.severity.of_report`` with the chain of nodes enclosing the reported node."""
    from boundlint.facts.placement import chain_from, parents_in
    from boundlint.verdicts.severity import MEDIUM, Severity, of_report

    ctx = getattr(sink, "ctx", None)
    if ctx is None:
        return Severity(MEDIUM)
    maps = ctx.cache.setdefault("parents", {})  # one parent map per reported statement, built once
    top = getattr(sink, "tops", {}).get(id(report))
    chain: list = []
    if top is not None and top is not report.node:
        if id(top) not in maps:
            maps[id(top)] = parents_in(top)
        chain = chain_from(maps[id(top)], report.node)
    if not chain:  # reported after the traversal (or on a top-level statement): look in the whole module
        if "module" not in maps:
            maps["module"] = parents_in(module)
        chain = chain_from(maps["module"], report.node)[1:]
    return of_report(report, [module, *chain], ctx, path)


class _Sink(list):
    """The reports list handed to rules; remembers the top-level statement each report came from.

    A report's position is then resolved in that statement alone, not by a
    position pass over the whole module (which costs several parses on a
    large file).  ``ctx`` is set once the traversal's Context exists.
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


class _Positions:
    """Positions of reported nodes, resolved in the top-level statements that hold reports.

    One position pass runs over a module made of just those statements; a
    node found there is shifted back to its line in the file.  A node the
    pass does not hold (a rule reported a node outside its statement) falls
    back to one module-wide pass.
    """

    def __init__(self, module, tops: dict | None, text: str | None = None) -> None:
        self.module = module
        self.text = text
        self.tops = tops or {}
        self.full = None
        self.batch = None  # (positions, [(line in batch, shift)]) once resolved

    def of(self, report):
        """The ``CodeRange`` (1-based lines, 0-based columns) of *report*'s node."""
        if self.tops and self.full is None:
            found = self._in_batch(report.node)
            if found is not None:
                return found
        return self._module_wide()[report.node]

    def _module_wide(self):
        if self.full is None:
            from libcst.metadata import MetadataWrapper, PositionProvider

            self.full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self.full

    def _in_batch(self, node):
        from bisect import bisect_right

        from libcst.metadata import CodePosition, CodeRange

        if self.batch is None:
            self.batch = self._resolve_batch()
        positions, starts, shifts = self.batch
        pos = positions.get(node)
        if pos is None:
            return None
        shift = shifts[bisect_right(starts, pos.start.line) - 1]
        return CodeRange(CodePosition(pos.start.line + shift, pos.start.column),
                         CodePosition(pos.end.line + shift, pos.end.column))

    def _resolve_batch(self):
        """Positions over the wanted statements alone, their first lines there, and the shift to the file's."""
        import re as _re

        from libcst.metadata import MetadataWrapper, PositionProvider

        newline = _re.compile(r"\r\n?|\n")
        wanted = {id(t) for t in self.tops.values()}
        chosen, starts, shifts = [], [], []
        line, batch_line = 1 + len(self.module.header), 1
        # Where each statement starts, from CPython's parser: else from generating the code of every
        # statement before the last one wanted, which costs as much as a parse on a large file.
        lines = _statement_lines(self.module, self.text) if self.text is not None else None
        for index, statement in enumerate(self.module.body):
            if not wanted:
                break
            if lines is not None:
                line = lines[index]
            count = None
            if id(statement) in wanted:
                wanted.discard(id(statement))
                count = len(newline.findall(self.module.code_for_node(statement)))
                chosen.append(statement)
                starts.append(batch_line)
                shifts.append(line - batch_line)
                batch_line += count
            if lines is None:
                line += count if count is not None else len(newline.findall(self.module.code_for_node(statement)))
        if not chosen:
            return {}, [1], [0]
        batch = self.module.with_changes(header=(), body=tuple(chosen), footer=(), has_trailing_newline=True)
        return MetadataWrapper(batch, unsafe_skip_copy=True).resolve(PositionProvider), starts, shifts


def _statement_lines(module, text: str) -> list[int] | None:
    """The line in *text* where each of *module*'s top-level statements starts, its leading blank and
    comment lines included; None when CPython's statements do not pair with LibCST's.

    A LibCST line of simple statements (``a = 1; b = 2``) holds one of CPython's per statement; a
    decorated definition starts at its first decorator.
    """
    import ast

    import libcst as cst

    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    firsts = [min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]) for s in body]
    out, at = [], 0
    for statement in module.body:
        if at >= len(firsts):
            return None
        out.append(firsts[at] - len(statement.leading_lines))
        at += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return out if at == len(firsts) else None
