"""The one engine behind ``boundlint check``, the flake8 plugin, pre-commit and the audit.

``check_source`` runs every enabled rule over one file's text in a single
traversal and returns sorted findings (noqa applied).  ``check_files`` runs
many files in worker processes so that nothing a file does to the parser (a
native crash, a hang, a recursion overflow) can take the run down: a worker
that dies is replaced and the file it held is reported as BND001 or BND002.
The code under analysis is never imported or executed.

The names below are loaded on first use, so a run served from the cache
never imports the parser side of the engine.
"""
from __future__ import annotations

import importlib

_WHERE = {
    "check_bytes": "check", "check_file": "check", "check_source": "check", "enabled_rules": "check",
    "project_view": "check", "set_index_cache": "run", "check_files": "pool", "_Sink": "positions",
    "RECURSION_LIMIT": "result", "FileResult": "result", "check_files_cached": "run", "check_paths": "run",
}

__all__ = [
    "RECURSION_LIMIT", "FileResult", "check_bytes", "check_file", "check_files", "check_files_cached", "check_paths",
    "check_source", "enabled_rules", "project_view", "set_index_cache", "_Sink",
]


def __getattr__(name: str) -> object:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
