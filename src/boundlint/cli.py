"""Command line: ``boundlint check | rule | audit``.

Exit status: 0 no findings, 1 findings, 2 usage or configuration error (a
one-line message on stderr, never a traceback).
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from boundlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A bad flag, path or setting: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's default exits 2 with usage; keep it to one line
        raise UsageError(message)


def _codes(value: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in value.split(",") if c.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="boundlint", description="Find overload hazards: unbounded fan-out, request size, log storms, connection churn.")
    parser.add_argument("--version", action="version", version=f"boundlint {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = sub.add_parser("check", help="check files and report findings")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument("--select", type=_codes, help="codes or prefixes to report (e.g. BND1,BND201)")
    check.add_argument("--ignore", type=_codes, help="codes or prefixes not to report")
    check.add_argument("--extend-select", type=_codes, dest="extend_select")
    check.add_argument("--extend-ignore", type=_codes, dest="extend_ignore")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--show-source", action="store_true", help="print the source line and a caret")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    check.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: all cores)")
    check.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")

    rule = sub.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", nargs="?")
    rule.add_argument("--all", action="store_true", help="list every rule")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``boundlint`` console script; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "check":
            return _check(args)
        if args.command == "rule":
            return _rule(args)
        build_parser().print_help()
        return EXIT_ERROR
    except UsageError as exc:
        print(f"boundlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


def _settings(args):
    from boundlint.config import Settings
    from boundlint.rules.base import all_rules

    known = list(all_rules())
    for flag in ("select", "ignore", "extend_select", "extend_ignore"):
        for code in getattr(args, flag) or ():
            if not any(k.startswith(code) for k in known):
                raise UsageError(f"--{flag.replace('_', '-')}: unknown rule code or prefix {code!r}")
    kwargs = {k: getattr(args, k) for k in ("select", "ignore", "extend_select", "extend_ignore") if getattr(args, k)}
    return Settings(**kwargs)


def _check(args) -> int:
    from boundlint.engine import check_paths
    from boundlint.files import PathError

    settings = _settings(args)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    try:
        results = check_paths(args.paths, settings, jobs=args.jobs)
    except PathError as exc:
        raise UsageError(str(exc)) from None
    findings = [f for r in results for f in r.findings]
    if args.format == "json":
        from boundlint.report.json import format_json

        sys.stdout.write(format_json(findings))
    else:
        from boundlint.report.text import format_text

        sources = None
        if args.show_source:
            sources = {}
            for path in {f.path for f in findings}:
                try:
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        sources[path] = fh.read().splitlines()
                except OSError:
                    pass
        sys.stdout.write(format_text(findings, args.show_source, sources))
        if not args.quiet:
            files = len(results)
            if findings:
                print(f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} in {files} file{'s' if files != 1 else ''} checked.")
            else:
                print(f"All clear: {files} file{'s' if files != 1 else ''} checked.")
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _rule(args) -> int:
    from boundlint.rules.base import all_rules

    rules = all_rules()
    if args.all or not args.code:
        for code, cls in rules.items():
            print(f"{code}  {cls.name}")
        return EXIT_CLEAN
    cls = rules.get(args.code.upper())
    if cls is None:
        raise UsageError(f"unknown rule {args.code!r}; `boundlint rule --all` lists them")
    sys.stdout.write(cls.doc())
    return EXIT_CLEAN
