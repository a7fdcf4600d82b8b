"""``boundlint audit``'s command line: the same flag names, cache and paths as ``boundlint check``.

``add_parser(sub)`` adds the subcommand to the CLI's subparsers; ``main(args)``
runs it and returns the exit status.  The flags ``check`` also has keep
``check``'s names and meaning (``--output-format``, ``--output-file``,
``--cache-dir``, ``--no-cache``, ``--min-severity``, ``--baseline``,
``--timeout``); ``--format`` and ``--output`` stay as aliases.
"""
from __future__ import annotations

import argparse

from boundlint.audit import FORMATS


def add_parser(sub) -> None:
    """Add ``audit`` and its options (each with a help text) to the CLI's *sub* parsers."""
    from boundlint.options import codes_arg as _codes, patterns_arg as _patterns

    audit = sub.add_parser("audit", help="report a whole codebase: findings summary and endpoint exposure map")
    audit.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files and directories (default: .)")
    # Two flags, one destination, as in check: an error names the flag the user typed.
    audit.add_argument("--output-format", choices=FORMATS, default=None, dest="output_format",
                       help="how the report is printed (default: terminal)")
    audit.add_argument("--format", choices=FORMATS, default=None, dest="output_format", metavar="FORMAT",
                       help="alias of --output-format")
    audit.add_argument("--output-file", "-o", metavar="FILE", dest="output_file",
                       help="write the report to FILE instead of stdout")
    audit.add_argument("--output", metavar="FILE", dest="output_file", help="alias of --output-file")
    audit.add_argument("--fail-on", type=_codes, dest="fail_on", metavar="CODE|FAMILY",
                       help="exit 1 when a finding matches these codes or prefixes (e.g. BND1,BND203)")
    audit.add_argument("--top", type=int, default=None, metavar="N",
                       help="show the N riskiest handlers (0: all; default 30 in the terminal, all elsewhere)")
    audit.add_argument("--config", metavar="FILE",
                       help="read [tool.boundlint] from FILE for every file, instead of each file's nearest pyproject.toml")
    audit.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    audit.add_argument("--select", type=_codes, help="codes or prefixes to report (e.g. BND1,BND201)")
    audit.add_argument("--ignore", type=_codes, help="codes or prefixes not to report")
    audit.add_argument("--extend-select", type=_codes, dest="extend_select", help="codes or prefixes added to select")
    audit.add_argument("--extend-ignore", type=_codes, dest="extend_ignore", help="codes or prefixes added to ignore")
    audit.add_argument("--exclude", type=_patterns,
                       help="gitignore-style patterns of paths not to audit (replaces the config's)")
    audit.add_argument("--extend-exclude", type=_patterns, dest="extend_exclude", help="patterns added to exclude")
    audit.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                       dest="respect_gitignore", help="skip files that .gitignore ignores (default: on)")
    audit.add_argument("--baseline", metavar="FILE", help="leave out the findings recorded in FILE (see check)")
    audit.add_argument("--min-severity", choices=("low", "medium", "high"), default="low", dest="min_severity",
                       help="the lowest severity listed (default: low, every finding)")
    audit.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="per-file time limit; a file over it is reported (BND002) and skipped (default: 60)")
    audit.add_argument("--no-cache", action="store_true", dest="no_cache", help="do not read or write the result cache")
    audit.add_argument("--cache-dir", dest="cache_dir", default=None,
                       help="where results are cached, shared with check (default: $BOUNDLINT_CACHE_DIR, else "
                            ".boundlint_cache at the project root)")
    audit.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary on stderr")
    audit.add_argument("--verbose", "-v", action="store_true", help="tracebacks for internal errors")
    audit.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: all cores)")


def main(args) -> int:
    """Run ``boundlint audit`` for the parsed *args*; 0, or 1 when ``--fail-on`` matches.

    Raises ``cli.UsageError`` for a bad flag value, path, config or output file.
    """
    from boundlint.audit import AuditError, run_audit
    from boundlint.options import UsageError, config_tree as _tree, result_cache as _cache

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    for code in args.fail_on or ():
        if not code.startswith("BND"):
            raise UsageError(f"--fail-on: {code!r} is not a code or prefix such as BND1 or BND203")
    tree = _tree(args)
    cache = _cache(args)
    try:
        return run_audit(args, tree, cache)
    except AuditError as exc:
        raise UsageError(str(exc)) from None
