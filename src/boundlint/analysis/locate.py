"""Where a node is: the nodes enclosing it, and its position in the file, without a module-wide pass.

``Locator(module, text)`` answers both for one file.  A position is resolved
by generating the code of the innermost statement that holds the node (a line
of a body, not the whole top-level class it is in), inside the indentation of
the blocks around it, and placing it at the line where CPython's parser says
that statement starts.  The code so generated must equal the file's text
there; where it does not, or the statement cannot be paired with CPython's,
one position pass over the whole module answers instead.  On a large module
that pass costs more than the parse; a statement's own code costs next to
nothing.
"""
from __future__ import annotations

import re


class Locator:
    """The nodes enclosing a node of *module*, and its position; *text* is the source *module* was parsed
    from (or a rewrite of it with the same lines), None when unknown (every position then comes from one
    module-wide pass)."""

    def __init__(self, module, text: str | None) -> None:
        self.module = module
        self.text = text
        self.parents: dict[object, dict] = {}  # one parent map per reported top-level statement, and the module's
        self.statements: dict[int, tuple] = {}  # id(statement) -> (statement, positions, line shift), or ()
        self.full = None
        self._tree = self._starts = None

    def chain(self, node, top=None) -> list:
        """The nodes from a top-level statement down to *node*'s parent; [] for a top-level statement, or
        a node no top-level statement holds.  *top*: the top-level statement that should hold it (searched
        first, alone)."""
        from boundlint.analysis.facts.placement import chain_from, parents_in

        chain: list = []
        if top is not None and top is not node:
            if id(top) not in self.parents:
                self.parents[id(top)] = parents_in(top)
            chain = chain_from(self.parents[id(top)], node)
        if not chain:  # reported after the traversal (or on a top-level statement): look in the whole module
            if "module" not in self.parents:
                self.parents["module"] = parents_in(self.module)
            chain = chain_from(self.parents["module"], node)[1:]
        return chain

    def position(self, node, chain: list | None = None):
        """The ``CodeRange`` (1-based lines, 0-based columns) of *node*, whose enclosing nodes are *chain*
        (``chain``; found when None).  Raises KeyError for a node that is not in the module."""
        if chain is None:
            chain = self.chain(node)
        found = self._in_statement(node, chain) if self.text is not None else None
        if found is not None:
            return found
        if self.full is None:
            from libcst.metadata import MetadataWrapper, PositionProvider

            self.full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self.full[node]

    def _in_statement(self, node, chain: list):
        import libcst as cst
        from libcst.metadata import CodePosition, CodeRange

        if not chain and not any(s is node for s in self.module.body):
            return None  # not found under any top-level statement
        path = [*chain, node]
        above = [self.module, *chain]
        # The innermost statement of a body on the path (the path starts at one of the module's).
        at = next((i for i in range(len(path) - 1, -1, -1)
                   if type(above[i]) in (cst.Module, cst.IndentedBlock) and isinstance(path[i], cst.BaseStatement)), None)
        if at is None:
            return None
        statement = path[at]
        resolved = self.statements.get(id(statement))
        if resolved is None:
            resolved = self.statements[id(statement)] = self._resolve(path[:at + 1], above[:at + 1])
        if not resolved:
            return None
        pos = resolved[1].get(node)
        if pos is None:
            return None
        shift = resolved[2]
        return CodeRange(CodePosition(pos.start.line + shift, pos.start.column),
                         CodePosition(pos.end.line + shift, pos.end.column))

    def _resolve(self, path: list, above: list) -> tuple:
        """``(statement, positions, shift)`` for the last statement of *path*, or () when it cannot be
        placed in the text."""
        import libcst as cst

        statement = path[-1]
        twin = _twin(path, above, self._ast())
        if twin is None:
            return ()
        first = min([twin.lineno, *(d.lineno for d in getattr(twin, "decorator_list", ()))])
        begins = first - len(statement.leading_lines)  # the statement's code starts with its leading lines
        # The blocks (and a ``match``'s cases) around it indent each of its lines, as the module's codegen would.
        indent = [b.indent if b.indent is not None else self.module.default_indent
                  for b in above if type(b) in (cst.IndentedBlock, cst.Match)]
        try:
            code, positions = _generate(self.module, statement, indent)
        except Exception:  # noqa: BLE001 (LibCST's codegen state changed shape: the module-wide pass answers)
            return ()
        starts = self._line_starts()
        if not 1 <= begins <= len(starts) or not _same_text(self.text, starts[begins - 1], code):
            return ()
        return statement, positions, begins - 1

    def _ast(self):
        if self._tree is None:
            import ast

            try:
                self._tree = ast.parse(self.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._tree = False
        return self._tree

    def _line_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
        return self._starts


_NEWLINE = re.compile(r"\r\n?|\n")  # LibCST's line breaks (and CPython's)


def _generate(module, statement, indent: list[str]) -> tuple[str, dict]:
    """The code of *statement* inside blocks indented by *indent*, and the positions of its nodes there."""
    from libcst.metadata.position_provider import PositionProvidingCodegenState

    holder = _Recorded()
    state = PositionProvidingCodegenState(default_indent=module.default_indent,
                                          default_newline=module.default_newline, provider=holder,
                                          indent_tokens=list(indent))
    statement._codegen(state)
    return "".join(state.tokens), holder._computed


class _Recorded:
    """What LibCST's position-providing codegen state records into (its provider's ``_computed``)."""

    __slots__ = ("_computed",)

    def __init__(self) -> None:
        self._computed: dict = {}


def _same_text(text: str, offset: int, code: str) -> bool:
    """True when *code* is *text* from *offset* (a last line without its line break included)."""
    if text.startswith(code, offset):
        return True
    stripped = code.rstrip("\r\n")
    return len(code) - len(stripped) <= 2 and offset + len(stripped) == len(text) and text.startswith(stripped, offset)


# CPython's statement classes each LibCST compound statement may pair with.
_KINDS = {"FunctionDef": ("FunctionDef", "AsyncFunctionDef"), "ClassDef": ("ClassDef",), "If": ("If",),
          "For": ("For", "AsyncFor"), "While": ("While",), "With": ("With", "AsyncWith"), "Try": ("Try",),
          "TryStar": ("TryStar",), "Match": ("Match",)}
_COMPOUND = frozenset(k for kinds in _KINDS.values() for k in kinds)


def _twin(path: list, above: list, tree):
    """CPython's node for the last statement of *path* (LibCST nodes from a top-level statement down,
    *above* holding each one's parent), or None when the two trees do not pair there."""
    import libcst as cst

    if not tree:
        return None
    twins: dict[int, object] = {}  # id(LibCST node) -> its CPython node, or the statement list of a block owner
    statements = tree.body  # CPython's statements of the body being entered
    for node, parent in zip(path, above):
        kind = type(node)
        if type(parent) in (cst.Module, cst.IndentedBlock):
            body = parent.body
            index = next(i for i, s in enumerate(body) if s is node)
            at = sum(len(s.body) if type(s) is cst.SimpleStatementLine else 1 for s in body[:index])
            if statements is None or at >= len(statements):
                return None
            twin = statements[at]
            name = type(twin).__name__
            if (name not in _KINDS.get(kind.__name__, ())) if kind is not cst.SimpleStatementLine else name in _COMPOUND:
                return None
            twins[id(node)] = twin
        elif kind is cst.IndentedBlock:
            owner = twins.get(id(parent))
            statements = owner if isinstance(owner, list) else getattr(owner, "body", None)
        elif kind is cst.Else:
            twins[id(node)] = getattr(twins.get(id(parent)), "orelse", None)
        elif kind is cst.Finally:
            twins[id(node)] = getattr(twins.get(id(parent)), "finalbody", None)
        elif kind is cst.If:  # an elif: CPython's is the lone If of its parent's orelse
            orelse = getattr(twins.get(id(parent)), "orelse", None)
            if not orelse or len(orelse) != 1 or type(orelse[0]).__name__ != "If":
                return None
            twins[id(node)] = orelse[0]
        elif kind in (cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase):
            owned = getattr(twins.get(id(parent)), "cases" if kind is cst.MatchCase else "handlers", None)
            index = next((i for i, h in enumerate(getattr(parent, "cases" if kind is cst.MatchCase else "handlers", ()))
                          if h is node), None)
            if owned is None or index is None or index >= len(owned):
                return None
            twins[id(node)] = owned[index]
        else:
            return None
    return twins.get(id(path[-1]))
