"""The flake8 plugin (entry point ``BND``): a thin adapter over ``engine.check_source``.

flake8 owns rule selection (``--select``, ``--extend-select``, ``--ignore``,
``per-file-ignores``) and ``# noqa`` in plugin mode, so the adapter runs
every default rule with noqa left alone and hands flake8 0-based columns.
BND900 runs here too: where flake8 reads a malformed code as more than was
written (``# noqa: BND10l`` as ``BND10``), its report still shows the comment.
The family analysis options come from the ``[tool.boundlint]`` table of the
pyproject.toml nearest the checked file, which flake8 itself never reads; a
broken table is reported as BND001 on line 1 of each file.  The project
index (what other modules of the file's project say) is built once per flake8
process, from the summaries ``boundlint check`` cached when its cache exists.
"""
from __future__ import annotations

import os
from typing import Iterator

from boundlint import __version__


class Plugin:
    """flake8 AST-plugin protocol: ``run()`` yields ``(line, col0, "BNDnnn message", type)``."""

    name = "boundlint"
    version = __version__

    def __init__(self, tree: object, filename: str, lines: list[str]) -> None:
        # *tree* is requested only because flake8 requires it of AST plugins; LibCST parses the text.
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        """Yield each finding of the file for flake8 to filter and print."""
        from boundlint.config import ConfigError, analysis_settings
        from boundlint.engine import check_source
        from boundlint.index import build

        if build.CACHE_DIR is None:  # reuse the summaries `boundlint check` cached; never create a cache here
            from boundlint.cache import default_dir

            if default_dir().is_dir():
                build.CACHE_DIR = str(default_dir())

        path = self.filename if self.filename not in ("-", "stdin") else os.getcwd()
        try:
            settings = analysis_settings(path)
        except ConfigError as exc:  # a broken [tool.boundlint]: one line per file, never a traceback
            from boundlint.rules.meta import UnparseableFile

            yield 1, 0, f"{UnparseableFile.code} {UnparseableFile.message.format(reason=exc)}", type(self)
            return
        for f in check_source("".join(self.lines), self.filename, settings, apply_noqa=False):
            yield f.line, f.column - 1, f"{f.code} {f.message}", type(self)
