"""BND0xx: what boundlint could not check.  These are reported by the engine, not by a traversal."""
from __future__ import annotations

from boundlint.rules.base import Example, Rule


class UnparseableFile(Rule):
    """
    ## What it does
    Reports a file boundlint could not read, decode or parse, with the
    parser's message and position.  The rest of the run goes on.

    ## Why is this bad?
    A file that cannot be parsed cannot be checked: any hazard in it goes
    unseen.  Python itself would reject most such files; others use syntax
    newer than the parser knows, or crash or hang the parser.

    ## What counts as a limit
    Not applicable: this is a report about the input, not a hazard.
    """
    code, name = "BND001", "unparseable-file"
    message = "cannot check this file: {reason}"
    hint = "fix the syntax or encoding, or exclude the file in [tool.boundlint]"
    hints = {"directory": "make it readable, or exclude it in [tool.boundlint]"}  # a folder the walk cannot list
    invalid = (Example("syntax_error", """
        def broken(:  # error: BND001 col 12
        """),)


class InternalError(Rule):
    """
    ## What it does
    Reports that a rule failed on this file (a bug in boundlint) or that
    checking the file took longer than the per-file time limit.  The file's
    other rules and every other file are still checked.

    ## Why is this bad?
    Part of this file went unchecked.  Please report the file shape and
    the message at the project's issue tracker.

    ## What counts as a limit
    Not applicable.
    """
    code, name = "BND002", "internal-error"
    message = "{reason}"
    hint = "please report this with the file shape; meanwhile exclude the file or raise the time limit"
