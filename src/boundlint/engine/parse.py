"""Parsing one file safely: CPython's verdict first where LibCST's native parser could crash or mislead."""
from __future__ import annotations

import re


def parse_module(text: str):
    """``libcst.parse_module(text)`` without LibCST's check of each node as it is built.

    The native parser builds every node through its Python constructor, whose
    ``__post_init__`` validates the node (LibCST's own comment there says
    validation belongs elsewhere when parsing).  A tree the parser built from
    source is valid by construction, and the check costs about a tenth of the
    parse.  The hook is put back at once, also when the parse raises
    (``libcst.ParserSyntaxError`` and the rest propagate unchanged).  The
    caller, ``engine.check.check_source``, keeps the collector off meanwhile.
    """
    import libcst as cst

    base = cst.CSTNode
    validate = _validation(base)
    if validate is None:  # a LibCST that validates elsewhere
        return cst.parse_module(text)
    base.__post_init__ = _built_by_parser
    try:
        return cst.parse_module(text)
    finally:
        base.__post_init__ = validate


def _built_by_parser(self) -> None:
    """A node the parser builds needs no validation."""


_VALIDATION: list = []


def _validation(base: type):
    """LibCST's own ``__post_init__``, read once: a parse in another thread may have swapped it out."""
    if not _VALIDATION:
        _VALIDATION.append(base.__dict__.get("__post_init__"))
    return _VALIDATION[0]


def _compiles(text: str) -> bool:
    """True when CPython's own parser accepts *text* (about a tenth of LibCST's cost)."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


_MAX_NESTING = 200  # CPython's tokenizer rejects brackets nested deeper (MAXLEVEL)
_NOT_BRACKET = re.compile(r"[^()\[\]{}]+")
_STEP = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def _nesting_error(text: str) -> tuple[str, int, int] | None:
    """``(reason, line, column)`` when brackets nest deeper than CPython allows, else None.

    LibCST's native parser overflows the C stack on such input (the process
    dies with SIGSEGV), so it must not see it.  The bracket count includes
    strings and comments, so it is cheap and errs high; only then is CPython's
    parser asked, and its verdict decides.
    """
    from itertools import accumulate

    if text.count("(") + text.count("[") + text.count("{") <= _MAX_NESTING:
        return None
    running = list(accumulate(map(_STEP.__getitem__, _NOT_BRACKET.sub("", text))))
    lows = accumulate(running, min, initial=0)
    if max((r - low for r, low in zip(running, lows)), default=0) <= _MAX_NESTING:
        return None
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as err:
        return f"syntax error: {err.msg}", err.lineno or 1, err.offset or 1
    except (RecursionError, MemoryError):
        return "too deeply nested to parse", 1, 1
    except ValueError as err:  # NUL bytes
        return f"syntax error: {err}", 1, 1
    return None


_AT = re.compile(r"error at (\d+):(\d+): (.*)")


def _syntax_error(text: str, exc: Exception) -> tuple[str, int, int]:
    """``(reason, line, column)`` for a parse failure, preferring CPython's own message."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError) as err:
        msg = getattr(err, "msg", None) or str(err)
        if getattr(err, "lineno", None) is None and "\0" in text:  # NUL bytes: point at the first one
            nul = text.index("\0")
            return f"syntax error: {msg}", text.count("\n", 0, nul) + 1, nul - (text.rfind("\n", 0, nul) + 1) + 1
        return f"syntax error: {msg}", getattr(err, "lineno", None) or 1, getattr(err, "offset", None) or 1
    except (RecursionError, MemoryError):
        return "too deeply nested to parse", 1, 1
    # CPython accepts the file: the gap is LibCST's grammar, not the code (e.g. newer syntax).
    message = " ".join(getattr(exc, "message", str(exc)).split())
    match = _AT.search(message)
    if match:
        message, line, column = match.group(3), int(match.group(1)), int(match.group(2)) + 1
    else:
        line, column = getattr(exc, "raw_line", 1), getattr(exc, "raw_column", 0) + 1
    if len(message) > 100:
        message = message[:97] + "..."
    return f"syntax the parser (LibCST) does not support, though CPython accepts it: {message}", line, column


# ``(name): int = 1`` -- a parenthesized annotation target CPython accepts and LibCST's grammar does not.
_PAREN_TARGET = re.compile(r"^([ \t]*)\(([ \t]*[A-Za-z_][\w.]*[ \t]*)\)(?=[ \t]*:)", re.MULTILINE)


def _bridge_gaps(text: str):
    """A LibCST module for *text* that CPython accepts but LibCST's grammar does not, else None.

    Known gaps are rewritten in place: ``(name):`` becomes ``name  :``, so
    every line keeps its length and only the target name moves one column;
    the rules see the same structure without the redundant parentheses.
    """
    if not _PAREN_TARGET.search(text) or not _compiles(text):
        return None
    repaired = _PAREN_TARGET.sub(lambda m: f"{m.group(1)}{m.group(2)}  ", text)
    try:
        return parse_module(repaired)
    except Exception:  # another gap, or a real error the rewrite did not reach
        return None
