"""The site of a finding in a parsed module: the nodes at its span and those enclosing them.

A codemod gets a ``Site`` and climbs from the nodes at the finding's span to
the statement, field or call it rewrites.  ``Module`` parses the text once
and indexes every node by its span (1-based lines, 1-based columns, as
findings give them).
"""
from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider


class Module:
    """*text* parsed, with the span and parent of each node of the top-level statements that hold one
    of the line ranges *spans* (``(line, end_line)`` pairs; None: every statement).  Positions come from
    a module of each such statement alone, moved to its first line: a large module costs a
    position pass over the statements the fixes touch, not over all of it.  Raises
    ``libcst.ParserSyntaxError`` on bad text."""

    def __init__(self, text: str, spans=None) -> None:
        self.text = text
        self.node = module = cst.parse_module(text)
        self.positions: dict = {}
        self.parents: dict = {}
        line = 1 + len(module.header)
        for stmt in module.body:
            size = module.code_for_node(stmt).count("\n")
            if spans is None or any(start <= line + size and end >= line for start, end in spans):
                self._resolve(stmt, line - 1)
            line += size
        self._by_span: dict[tuple[int, int, int, int], list[cst.CSTNode]] | None = None
        self._by_id: dict[int, cst.CSTNode] | None = None

    def _resolve(self, stmt: cst.CSTNode, shift: int) -> None:
        """Positions and parents of the nodes of the top-level *stmt*, whose code starts *shift* lines down."""
        from libcst.metadata import CodePosition, CodeRange

        alone = self.node.with_changes(body=[stmt], header=[], footer=[])
        wrapper = MetadataWrapper(alone, unsafe_skip_copy=True)
        found = wrapper.resolve_many([PositionProvider, ParentNodeProvider])
        for node, pos in found[PositionProvider].items():
            if node is not alone:
                self.positions[node] = CodeRange(CodePosition(pos.start.line + shift, pos.start.column),
                                                 CodePosition(pos.end.line + shift, pos.end.column))
        for node, parent in found[ParentNodeProvider].items():
            self.parents[node] = self.node if parent is alone else parent

    def at(self, line: int, column: int, end_line: int, end_column: int) -> list[cst.CSTNode]:
        """The nodes whose span is exactly this one (outermost first); [] when none."""
        if self._by_span is None:
            spans: dict[tuple[int, int, int, int], list[cst.CSTNode]] = {}
            for node, pos in self.positions.items():
                key = (pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1)
                spans.setdefault(key, []).append(node)
            for nodes in spans.values():
                nodes.sort(key=self.depth)
            self._by_span = spans
        return self._by_span.get((line, column, end_line, end_column), [])

    def spans(self, ids) -> tuple:
        """``((line, column), (end_line, end_column))`` of each node whose ``id`` is in *ids*."""
        if self._by_id is None:
            self._by_id = {id(node): node for node in self.positions}
        out = []
        for key in ids:
            node = self._by_id.get(key)
            if node is not None:
                pos = self.positions[node]
                out.append(((pos.start.line, pos.start.column), (pos.end.line, pos.end.column)))
        return tuple(out)

    def tops(self, ids) -> set[int]:
        """The ``id`` of each top-level statement holding a node whose ``id`` is in *ids*."""
        if self._by_id is None:
            self._by_id = {id(node): node for node in self.positions}
        out = set()
        for key in ids:
            node = self._by_id.get(key)
            while node is not None and self.parents.get(node) is not self.node:
                node = self.parents.get(node)
            if node is not None:
                out.add(id(node))
        return out

    def depth(self, node: cst.CSTNode) -> int:
        """How many nodes enclose *node* (the module's depth is 0)."""
        depth = 0
        while node in self.parents:
            node = self.parents[node]
            depth += 1
        return depth

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The node directly enclosing *node*; None for the module."""
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode):
        """The nodes enclosing *node*, innermost first, the module last."""
        while node in self.parents:
            node = self.parents[node]
            yield node

    def line_of(self, node: cst.CSTNode) -> int:
        """The 1-based line *node* starts on."""
        return self.positions[node].start.line


class Site:
    """Where a finding's fix applies: ``module`` (a ``Module``), ``nodes`` (those at the finding's span,
    outermost first), ``finding`` and ``numbers`` (``model.Numbers``); ``form`` is the part of the fix
    kind after ``:`` (``pydantic`` in ``request-field:pydantic``), "" when none."""

    def __init__(self, module: Module, finding, numbers) -> None:
        self.module = module
        self.finding = finding
        self.numbers = numbers
        self.nodes = module.at(finding.line, finding.column, finding.end_line, finding.end_column)
        self.form = finding.fix.partition(":")[2]

    def first(self, *types: type) -> cst.CSTNode | None:
        """The outermost node at the span of one of *types*, else the innermost enclosing one; None."""
        for node in self.nodes:
            if isinstance(node, types):
                return node
        for node in self.module.ancestors(self.nodes[-1]) if self.nodes else ():
            if isinstance(node, types):
                return node
        return None

    def enclosing(self, node: cst.CSTNode, *types: type) -> cst.CSTNode | None:
        """The innermost node enclosing *node* of one of *types*; None."""
        for above in self.module.ancestors(node):
            if isinstance(above, types):
                return above
        return None

    def statement(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost statement holding *node* in its own line or header (a ``SimpleStatementLine`` or
        a compound statement); None."""
        for above in (node, *self.module.ancestors(node)):
            if isinstance(above, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return above
        return None
