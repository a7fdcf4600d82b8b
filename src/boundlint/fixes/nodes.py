"""Small LibCST edits the codemods share: a keyword added to a call, a subscript element appended,
the note on a line whose number is a default.  Each keeps the call's own layout (one line or one
argument per line, a trailing comma)."""
from __future__ import annotations

import libcst as cst

from boundlint.fixes.model import CHOOSE_NOTE

_NO_SPACE = cst.SimpleWhitespace("")
_EQUAL = cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE)


def expr(code: str) -> cst.BaseExpression:
    """The expression *code* parsed."""
    return cst.parse_expression(code)


def dotted(node: cst.BaseExpression | None) -> str:
    """``a.b.c`` for a name or attribute chain, else ""."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""


def short(node: cst.BaseExpression | None) -> str:
    """The last part of a name or attribute chain (``Field`` of ``pydantic.Field``), else ""."""
    return dotted(node).rsplit(".", 1)[-1]


def kwarg(call: cst.Call, name: str) -> cst.Arg | None:
    """The argument ``name=...`` of *call*, else None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def _appended(items: list, new, whitespace) -> list:
    """*items* (args or subscript elements, each with a ``comma``) with *new* last, in their layout:
    *whitespace* is what precedes the first item (a newline and indent for one item per line)."""
    if not items:
        return [new]
    last = items[-1]
    if isinstance(last.comma, cst.Comma):  # a trailing comma: the new item takes it, the old one a plain one
        # one item per line: the new line indented as the first item's, without the comment after `(`
        after = whitespace.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[]) \
            if isinstance(whitespace, cst.ParenthesizedWhitespace) else cst.SimpleWhitespace(" ")
        return [*items[:-1], last.with_changes(comma=cst.Comma(whitespace_after=after)), new.with_changes(comma=last.comma)]
    return [*items[:-1], last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), new]


def with_kwarg(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """*call* with ``name=value``: the value replaced when the keyword is there, else added last (a
    keyword may follow ``*args`` and ``**kwargs``)."""
    for index, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            args = list(call.args)
            args[index] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    new = cst.Arg(value=value, keyword=cst.Name(name), equal=_EQUAL)
    return call.with_changes(args=_appended(list(call.args), new, call.whitespace_before_args))


def with_element(sub: cst.Subscript, value: cst.BaseExpression) -> cst.Subscript:
    """The subscript ``X[a, b]`` with *value* appended: ``X[a, b, value]``."""
    new = cst.SubscriptElement(cst.Index(value))
    return sub.with_changes(slice=_appended(list(sub.slice), new, sub.lbracket.whitespace_after))


def annotated(inner: cst.BaseExpression, metadata: cst.BaseExpression, name: str) -> cst.Subscript:
    """``Annotated[inner, metadata]``, *name* being how the module names ``Annotated``."""
    return cst.Subscript(expr(name), [cst.SubscriptElement(cst.Index(inner), comma=cst.Comma(
        whitespace_after=cst.SimpleWhitespace(" "))), cst.SubscriptElement(cst.Index(metadata))])


def noted(line: cst.SimpleStatementLine, chosen: bool) -> cst.SimpleStatementLine:
    """*line* with ``CHOOSE_NOTE`` as its comment when the number was not *chosen* and it has none."""
    if chosen or line.trailing_whitespace.comment is not None:
        return line
    return line.with_changes(trailing_whitespace=cst.TrailingWhitespace(
        whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(CHOOSE_NOTE), newline=line.trailing_whitespace.newline))


def code(node: cst.CSTNode) -> str:
    """The source of *node* alone."""
    return cst.Module(body=[]).code_for_node(node)
