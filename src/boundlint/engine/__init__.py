"""The one engine behind ``boundlint check``, the flake8 plugin, pre-commit and the audit.

``check_source`` runs every enabled rule over one file's text in a single
traversal and returns sorted findings (noqa applied).  ``check_files`` runs
many files in worker processes so that nothing a file does to the parser (a
native crash, a hang, a recursion overflow) can take the run down: a worker
that dies is replaced and the file it held is reported as BND001 or BND002.
The code under analysis is never imported or executed.
"""
from __future__ import annotations

from boundlint.engine.check import (
    check_bytes, check_file, check_source, enabled_rules, project_view, set_index_cache,
)
from boundlint.engine.pool import check_files
from boundlint.engine.positions import _Sink
from boundlint.engine.result import RECURSION_LIMIT, FileResult
from boundlint.engine.run import check_files_cached, check_paths

__all__ = [
    "RECURSION_LIMIT", "FileResult", "check_bytes", "check_file", "check_files", "check_files_cached", "check_paths",
    "check_source", "enabled_rules", "project_view", "set_index_cache", "_Sink",
]
