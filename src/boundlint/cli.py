"""Command line: ``boundlint check | rule | audit``.

Exit status: 0 no findings, 1 findings, 2 usage or configuration error (a
one-line message on stderr, never a traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from boundlint import __version__
from boundlint.config import ConfigError
from boundlint.options import UsageError, codes_arg as _codes, config_tree as _tree, patterns_arg as _patterns
from boundlint.options import result_cache as _cache

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as argparse makes it, without importing shutil.

    argparse makes a formatter for every argument it adds and sizes it with
    ``shutil.get_terminal_size``; importing shutil (and the compression modules
    it pulls in) is a noticeable part of a warm run's start-up.
    """

    def __init__(self, prog: str, **kwargs) -> None:
        if kwargs.get("width") is None:
            kwargs["width"] = _terminal_columns() - 2  # what argparse computes
        super().__init__(prog, **kwargs)


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: $COLUMNS, else standard output's terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # argparse's default exits 2 with usage; keep it to one line
        raise UsageError(message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with *command*, only that subcommand's (the others only cost start-up time)."""
    parser = _Parser(prog="boundlint", description="Find overload hazards: unbounded fan-out, request size, log storms, connection churn.")
    parser.add_argument("--version", action="version", version=f"boundlint {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    for name, add in _COMMANDS.items():
        if command is None or name == command:
            add(sub)
    return parser


def _add_check_parser(sub) -> None:
    check = sub.add_parser("check", help="check files and report findings")
    check.add_argument("paths", nargs="*", metavar="PATH", help="files and directories (default: .); - reads standard input")
    check.add_argument("--stdin-filename", dest="stdin_filename", metavar="PATH",
                       help="the file standard input stands for: its config, per-file ignores and reported path")
    check.add_argument("--config", metavar="FILE",
                       help="read [tool.boundlint] from FILE for every file, instead of each file's nearest pyproject.toml")
    check.add_argument("--show-settings", action="store_true", dest="show_settings",
                       help="print the effective settings of each PATH and where each value comes from, then exit")
    check.add_argument("--show-files", action="store_true", dest="show_files",
                       help="print the files a run would check, one per line, then exit")
    check.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    check.add_argument("--select", type=_codes, help="codes or prefixes to report (e.g. BND1,BND201)")
    check.add_argument("--ignore", type=_codes, help="codes or prefixes not to report")
    check.add_argument("--extend-select", type=_codes, dest="extend_select", help="codes or prefixes added to select")
    check.add_argument("--extend-ignore", type=_codes, dest="extend_ignore", help="codes or prefixes added to ignore")
    check.add_argument("--exclude", type=_patterns, help="gitignore-style patterns of paths not to check (replaces the config's)")
    check.add_argument("--extend-exclude", type=_patterns, dest="extend_exclude", help="patterns added to exclude")
    check.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                       dest="respect_gitignore", help="skip files that .gitignore ignores (default: on)")
    _add_output_arguments(check)
    check.add_argument("--output-file", "-o", metavar="FILE", dest="output_file", help="write the report to FILE instead of stdout")
    check.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE")
    check.add_argument("--write-baseline", metavar="FILE", dest="write_baseline", help="record the current findings in FILE and exit 0")
    check.add_argument("--update-baseline", action="store_true", dest="update_baseline",
                       help="rewrite the --baseline FILE: prune entries that no longer match, add new findings; exit 0")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    check.add_argument("--verbose", "-v", action="store_true", help="say which config is used; tracebacks for internal errors")
    check.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: all cores)")
    check.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="per-file time limit; a file over it is reported (BND002) and skipped (default: 60)")
    check.add_argument("--min-severity", choices=("low", "medium", "high"), default=None, dest="min_severity",
                       help="the lowest severity reported (default: medium; low shows findings whose evidence is weak)")
    from boundlint.fixes.flags import add_arguments

    add_arguments(check)  # --fix, --unsafe-fixes, --fix-only, --diff
    check.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    check.add_argument("--cache-dir", dest="cache_dir", default=None,
                       help="where results are cached (default: $BOUNDLINT_CACHE_DIR, else .boundlint_cache at the project root)")


def _add_server_parser(sub) -> None:
    server = sub.add_parser("server", help="run the language server (LSP) over stdio for editors")
    server.add_argument("--stdio", action="store_true", help="accepted for clients that pass it; stdio is the only transport")


def _add_rule_parser(sub) -> None:
    rule = sub.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", nargs="?", help="a rule code, e.g. BND101")
    rule.add_argument("--all", action="store_true", help="list every rule")


def _add_tables_parser(sub) -> None:
    tables = sub.add_parser("tables", help="print the name tables the analysis uses, and where each entry came from")
    tables.add_argument("name", nargs="?", help="one table (default: all)")
    tables.add_argument("--config", metavar="FILE", help="read [tool.boundlint] from FILE instead of the nearest pyproject.toml")
    tables.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    tables.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``boundlint`` console script; returns the exit status."""
    verbose = False
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        # A subcommand named first needs no other subcommand's parser (--help, a typo: all are built).
        args = build_parser(argv[0] if argv and argv[0] in _COMMANDS else None).parse_args(argv)
        verbose = getattr(args, "verbose", False)
        try:
            os.getcwd()  # config discovery, relative paths and the cache all start from it
        except OSError:
            raise UsageError("the working directory no longer exists: run boundlint from an existing folder") from None
        if args.command == "check":
            return _check(args)
        if args.command == "rule":
            return _rule(args)
        if args.command == "tables":
            return _tables(args)
        if args.command == "server":
            return _server()
        if args.command == "audit":
            return _audit(args)
        build_parser().print_help()
        return EXIT_ERROR
    except (UsageError, ConfigError) as exc:  # a config is read when a file first needs it
        print(f"boundlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `boundlint check | head`: the reader left; say nothing more and keep Python from
        # complaining when it flushes stdout at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 141  # 128 + SIGPIPE, as a shell reports a pipe's writer killed by it
    except Exception as exc:  # a bug in boundlint: one line unless asked for the traceback
        if verbose:
            import traceback

            traceback.print_exc()
        print(f"boundlint: internal error: {type(exc).__name__}: {exc}"
              + ("" if verbose else " (run with --verbose for the traceback)"), file=sys.stderr)
        return EXIT_ERROR


def _run(args, tree, **kwargs) -> list:
    """``engine.check_paths`` over *args.paths* with *tree*; a bad path or config is a one-line UsageError.

    Says on stderr which configs judged the files (``--verbose``) and when
    there was no file to check (unless ``--quiet``).
    """
    from boundlint.engine import check_paths
    from boundlint.files import PathError

    try:
        results = check_paths(args.paths, None, jobs=args.jobs, tree=tree, **kwargs)
    except PathError as exc:
        raise UsageError(str(exc)) from None
    if args.verbose:
        from boundlint.files import LEFT_ROOTS

        for link, target in sorted(LEFT_ROOTS.items()):
            print(f"boundlint: skipped {link}: a symlink out of the checked paths (to {target})", file=sys.stderr)
        used = {tree.for_path(r.path).path for r in results} or {tree.for_path(".").path}
        for path in sorted(used, key=lambda p: p or ""):
            print(f"boundlint: config: {path or 'none (defaults)'}", file=sys.stderr)
    if (args.verbose or not results) and not args.quiet:  # a named file left out: say which config did it
        for path in args.paths:
            why = tree.excluded_by(path) if os.path.isfile(path) else None
            if why:
                print(f"boundlint: warning: {path} is not checked: it matches {why}", file=sys.stderr)
    if not results and not args.quiet:
        print("boundlint: warning: No Python files found under the given path(s)", file=sys.stderr)
    return results


def _sources(paths) -> dict[str, list[str]]:
    sources = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                sources[path] = fh.read().splitlines()
        except OSError:
            pass
    return sources


def _check(args) -> int:
    from boundlint.output import write_stdout

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    stdin = _stdin_path(args)
    tree = _tree(args)
    options = _report_options(args)
    if args.show_settings:
        from boundlint.hierarchy import describe

        for path in args.paths:
            if not os.path.lexists(path):
                raise UsageError(f"path does not exist: {path}")
        write_stdout("\n".join(describe(p, tree.for_path(p)) for p in args.paths))
        return EXIT_CLEAN
    if args.show_files:
        from boundlint.files import PathError

        try:
            files = tree.discover(args.paths)
        except PathError as exc:
            raise UsageError(str(exc)) from None
        write_stdout("".join(f"{f}\n" for f in files))
        return EXIT_CLEAN
    fixing = args.fix or args.fix_only or args.diff
    if fixing and (args.write_baseline or args.baseline) and (args.diff or args.fix_only):
        raise UsageError("--diff and --fix-only report nothing: they take no --baseline or --write-baseline")
    if fixing and stdin is not None:
        from boundlint.document import DocumentError
        from boundlint.fixes.command import run_stdin
        from boundlint.report.output import render

        try:
            return run_stdin(args, tree, stdin, options, render)
        except DocumentError as exc:
            raise UsageError(str(exc)) from None
    stdin_sources: dict[str, list[str]] = {}
    if stdin is not None:
        from boundlint.document import DocumentError, check_stdin

        resolved = tree.for_path(stdin)
        cache = _cache(args)
        try:
            results, stdin_sources = check_stdin(stdin, resolved.settings, resolved.root,
                                                 None if cache is None else cache.variant(resolved.settings))
        except DocumentError as exc:
            raise UsageError(str(exc)) from None
    else:
        results = _run(args, tree, cache=_cache(args))
    findings = [f for r in results for f in r.findings if not tree.ignored(f.path, f.code)]
    from boundlint import memo

    memo.flush()  # what per-file-ignores patterns answered, for the next run
    if fixing:
        from boundlint.fixes.command import run_files

        findings = run_files(args, tree, findings)  # the findings left, or the exit status of --diff / --fix-only
        if isinstance(findings, int):
            return findings
    sources = {}
    if findings and (options.needs_sources() or args.baseline or args.write_baseline):  # fingerprints read lines
        sources = stdin_sources or _sources({f.path for f in findings})
    if args.write_baseline:
        from boundlint.baseline import BaselineError, write_baseline

        try:
            count = write_baseline(args.write_baseline, findings, sources)
        except BaselineError as exc:
            raise UsageError(str(exc)) from None
        if not args.quiet:
            print(f"Wrote {count} finding{'s' if count != 1 else ''} to baseline {args.write_baseline}.", file=sys.stderr)
        return EXIT_CLEAN
    hidden = 0
    if args.update_baseline and not args.baseline:
        raise UsageError("--update-baseline rewrites the file --baseline names; give --baseline FILE")
    if args.baseline:
        from boundlint.baseline import BaselineError, apply_baseline

        try:
            kept = apply_baseline(args.baseline, findings, sources, update=args.update_baseline, quiet=args.quiet)
        except BaselineError as exc:
            raise UsageError(str(exc)) from None
        if kept is None:  # --update-baseline: the file now records this run's findings
            return EXIT_CLEAN
        hidden = len(findings) - len(kept)
        findings = kept
    from boundlint.report.output import render

    used = {tree.for_path(r.path).settings for r in results} or {tree.for_path(".").settings}
    checked = sum(1 for r in results if not os.path.isdir(r.path))  # a folder that could not be listed is no file
    report = render(findings, options, files=checked, hidden=hidden, sources=sources, settings=used)
    if args.output_file:
        from boundlint.outfile import write_report

        try:
            write_report(args.output_file, report)
        except OSError as exc:
            raise UsageError(f"--output-file: cannot write {args.output_file}: {exc.strerror or exc}") from None
    else:
        write_stdout(report)
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _stdin_path(args) -> str | None:
    """The path standard input stands for (``-`` when unnamed), or None when files are checked."""
    if not args.paths:
        args.paths = ["-"] if args.stdin_filename is not None else ["."]
    if "-" not in args.paths:
        if args.stdin_filename is not None:
            raise UsageError("--stdin-filename names the source read from standard input; give - as the path")
        return None
    if len(args.paths) > 1:
        raise UsageError("- (standard input) cannot be combined with other paths")
    if args.stdin_filename is not None and not args.stdin_filename.strip():
        raise UsageError("--stdin-filename: expected a path, got nothing")
    return args.stdin_filename or "-"


def _add_output_arguments(check) -> None:
    from boundlint.report.output import ALIASES, OUTPUT_FORMATS

    # Two flags, one destination: an error names the flag the user typed.
    check.add_argument("--output-format", choices=OUTPUT_FORMATS, default=None, dest="output_format",
                       help="how findings are printed (default: full)")
    check.add_argument("--format", choices=(*OUTPUT_FORMATS, *ALIASES), default=None, dest="output_format",
                       metavar="FORMAT", help="alias of --output-format (`text` is `full`)")
    check.add_argument("--show-source", action="store_true",
                       help="with the full format, print the source line and underline the flagged span")
    check.add_argument("--statistics", action="store_true",
                       help="print the number of findings per code and the total instead of each finding")


def _report_options(args):
    """The ``ReportOptions`` of a check run; colour only on a terminal (never into --output-file)."""
    from boundlint.report.color import use_colour
    from boundlint.report.output import ReportOptions, canonical

    options = ReportOptions(canonical(args.output_format or "full"), args.show_source, args.statistics, args.quiet,
                            colour=not args.output_file and use_colour(sys.stdout))
    problem = options.check()
    if problem:
        raise UsageError(problem)
    return options


def _tables(args) -> int:
    """``boundlint tables [NAME]``: the tables in effect for the current directory's configuration."""
    from boundlint import tables
    from boundlint.hierarchy import ConfigTree
    from boundlint.output import write_stdout

    if args.name is not None and args.name not in tables.TABLES:
        import difflib

        close = difflib.get_close_matches(args.name, tables.names(), n=1)
        raise UsageError(f"unknown table {args.name!r}" + (f"; did you mean {close[0]!r}?" if close else "")
                         + "; `boundlint tables` lists them")
    settings = ConfigTree({}, args.config, args.isolated).for_path(".").settings
    write_stdout(tables.render([args.name] if args.name else tables.names(), settings, args.format))
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
    from boundlint.output import write_stdout

    write_stdout(cls.doc())
    return EXIT_CLEAN


def _server() -> int:
    """``boundlint server``: the language server on stdin/stdout until the client ends it."""
    try:
        from boundlint.server import serve
    except ImportError as exc:  # pygls missing, or pygls 1.x (no pygls.lsp.server)
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        raise UsageError("the language server needs pygls 2 or newer: install the lsp extra, "
                         "pip install '.[lsp]' in the boundlint checkout (or pip install 'pygls>=2')") from None
    from boundlint.cache import default_dir
    from boundlint.engine import set_index_cache

    set_index_cache(str(default_dir()))  # the project index's module summaries, shared with `check`
    serve()
    return EXIT_CLEAN


# -- audit: boundlint.audit.command -----------------------------------------------------

def _add_audit_parser(sub) -> None:
    from boundlint.audit.command import add_parser

    add_parser(sub)


def _audit(args) -> int:
    from boundlint.audit.command import main as audit_main

    return audit_main(args)


# The subcommands, in the order `boundlint --help` lists them.
_COMMANDS = {"check": _add_check_parser, "server": _add_server_parser, "rule": _add_rule_parser,
             "tables": _add_tables_parser, "audit": _add_audit_parser}
