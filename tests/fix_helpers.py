"""Shared by the fix tests: checking a text, and fixing it in passes as ``check --fix --unsafe-fixes`` does."""
from __future__ import annotations

import os

from boundlint.config import OPT_IN, Settings, settings_from_table
from boundlint.engine import check_source

# The numbers the fixture pairs are written with (no note: the user chose them).
CHOSEN = settings_from_table({"fix-max-items": 100, "fix-concurrency": 8})._replace(extend_select=OPT_IN)


def check(text: str, path: str, settings: Settings = CHOSEN) -> list:
    """The findings of *text* checked as the file *path*."""
    return check_source(text, path, settings)


def fix_all(text: str, path: str, settings: Settings = CHOSEN, unsafe: bool = True):
    """``(fixed text, fixes applied)``: *text* fixed in passes, each re-checked (``fixes.command.fix_source``)."""
    from boundlint.fixes.command import fix_source

    done = fix_source(text, path, check(text, path, settings), settings, os.getcwd(), unsafe)
    return done.fixed, done.count
