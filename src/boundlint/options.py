"""What the command-line flags of ``check`` and ``audit`` share: their values (codes, patterns, numeric
ranges argparse cannot express), the configuration tree and the result cache they build, and the
usage error a bad one is."""
from __future__ import annotations

import argparse
import sys

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
    from boundlint.patterns import pattern_error

    patterns = tuple(p.strip() for p in value.split(",") if p.strip())
    why = pattern_error(patterns)
    if why:
        raise argparse.ArgumentTypeError(why)
    return patterns


class UsageError(Exception):
    """A bad flag, path or setting: reported in one line, exit status 2."""


def codes_arg(value: str) -> tuple[str, ...]:
    """``--select BND1,BND201``: the codes or prefixes, upper-cased; argparse.ArgumentTypeError for none."""
    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    if not codes:  # an empty --select "$CODES" must not silently turn every rule off
        raise argparse.ArgumentTypeError("expected one or more rule codes or prefixes, got nothing")
    return codes


def patterns_arg(value: str) -> tuple[str, ...]:
    """``--exclude a,b``: the comma-separated patterns (``exclude_patterns``)."""
    return exclude_patterns(value)


def config_tree(args):
    """The run's ``hierarchy.ConfigTree``: each file's config, with the command-line flags on top."""
    from boundlint.config import ConfigError, check_code
    from boundlint.hierarchy import OVERRIDES, ConfigTree

    for flag in ("select", "ignore", "extend_select", "extend_ignore"):
        for code in getattr(args, flag) or ():
            try:
                check_code(code, f"--{flag.replace('_', '-')}")
            except ConfigError as exc:
                raise UsageError(str(exc)) from None
    problem = number_problem(args)
    if problem is not None:
        raise UsageError(problem)
    try:
        return ConfigTree({k: getattr(args, k, None) for k in OVERRIDES}, args.config, args.isolated)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def result_cache(args):
    """The result cache for this run (each file's settings pick a ``variant``), or None with ``--no-cache``."""
    from boundlint import memo

    if args.no_cache:
        memo.use(None)  # nothing is read from or written to a cache directory
        return None
    from boundlint.cache import Cache, default_location, unusable
    from boundlint.config import Settings
    from boundlint.engine.run import set_index_cache

    why = unusable(default_location(args.cache_dir))
    if why is not None:  # a read-only project, a file in the way: the run is the same, only slower
        print(f"boundlint: warning: cannot use the cache {default_location(args.cache_dir)}: {why}; "
              "checking without it", file=sys.stderr)
        memo.use(None)
        return None
    set_index_cache(default_location(args.cache_dir))  # module summaries of the project index
    memo.use(default_location(args.cache_dir))  # gitignore matches and config lookups, by content
    return Cache(default_location(args.cache_dir), Settings().fingerprint())
