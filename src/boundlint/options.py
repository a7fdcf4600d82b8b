"""Checks of command-line values argparse cannot express: numeric ranges and gitignore patterns (issue 32)."""
from __future__ import annotations

import argparse

MAX_JOBS = 1024  # --jobs: more worker processes than this is no machine's core count
MAX_TOP = 1_000_000  # audit --top: handlers shown at most


def number_problem(args: argparse.Namespace) -> str | None:
    """One line saying which numeric option of *args* is out of its range (``--timeout``, ``--jobs``,
    ``--top``), or None.  nan and inf are out of every range."""
    from boundlint.config import MAX_TIMEOUT

    timeout = getattr(args, "timeout", None)
    if timeout is not None and not 0 < timeout <= MAX_TIMEOUT:
        return f"--timeout must be a positive number of seconds up to {MAX_TIMEOUT:g}, got {timeout}"
    jobs = getattr(args, "jobs", None)
    if jobs is not None and not 1 <= jobs <= MAX_JOBS:
        return f"--jobs must be from 1 to {MAX_JOBS}, got {jobs}"
    top = getattr(args, "top", None)
    if top is not None and not 0 <= top <= MAX_TOP:
        return f"--top must be from 0 (every handler) to {MAX_TOP}, got {top}"
    return None


def exclude_patterns(value: str) -> tuple[str, ...]:
    """``--exclude a,b``: the comma-separated patterns; argparse.ArgumentTypeError for one that cannot compile."""
    from boundlint.config import ConfigError
    from boundlint.patterns import config_check

    patterns = tuple(p.strip() for p in value.split(",") if p.strip())
    try:
        config_check(patterns, "")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).lstrip(": ")) from None
    return patterns
