"""``boundlint audit``: a one-off report of a whole codebase with an endpoint exposure map.

The audit runs the same engine as ``boundlint check`` (same rules, same
single traversal, same worker processes) with one extra collector,
``AuditCollector``, whose facts say which functions handle requests, what
they call in the same module and where they fan out.  ``model.build_report``
joins those facts with the findings; the ``render_*`` modules format the
result.  Nothing is written except the ``--output`` file.
"""
from __future__ import annotations

import sys
import time

FORMATS = ("terminal", "markdown", "html", "json")


class AuditError(Exception):
    """A problem the command line reports in one line (bad path, unwritable output)."""


def collect(paths, settings, root=None, jobs=None, progress=None, tree=None, cache=None):
    """``(results, seconds)``: run the engine with the audit collector over *paths*.

    *tree* (a ``hierarchy.ConfigTree``) judges each file with its own
    config, and *settings* / *root* are then unused.  *cache* (a
    ``boundlint.cache.Cache``, the one ``check`` uses) serves unchanged files,
    with their collector facts from an ``audit.stored.FactsStore`` beside it.
    Raises ``files.PathError`` for a missing path, ``config.ConfigError`` for a
    broken config.
    """
    from boundlint.audit.collector import AuditCollector
    from boundlint.audit.stored import FactsStore
    from boundlint.engine import check_paths

    started = time.monotonic()
    if settings is not None:  # the audit lists every finding, whatever its severity
        settings = settings._replace(min_severity="low")
    facts = None if cache is None else FactsStore(cache.root, cache.fingerprint)
    results = check_paths(paths, settings, jobs=jobs, progress=progress, root=root, collectors=(AuditCollector,),
                          tree=tree, cache=cache, facts=facts)
    return results, time.monotonic() - started


def render(report, fmt: str, top: int | None = None, color: bool = False, width: int | None = None) -> str:
    """*report* as text in *fmt* (one of FORMATS); *top* limits the endpoint map (None or 0: all).

    *width* is the terminal format's line width in columns (None: the terminal's, see ``render_terminal``).
    """
    if fmt == "json":
        from boundlint.audit.render_json import render_json

        return render_json(report)
    if fmt == "markdown":
        from boundlint.audit.render_markdown import render_markdown

        return render_markdown(report, top)
    if fmt == "html":
        from boundlint.audit.render_html import render_html

        return render_html(report)
    from boundlint.audit.render_terminal import render_terminal

    return render_terminal(report, top, color, width)


def failing(report_findings, fail_on: tuple[str, ...]) -> bool:
    """True when a finding's code starts with one of the *fail_on* codes or prefixes."""
    return any(f.code.startswith(prefix) for f in report_findings for prefix in fail_on)


def run_audit(args, tree, cache=None) -> int:
    """The ``audit`` subcommand behind the CLI; returns the exit status (0, or 1 with ``--fail-on``).

    *tree* (a ``hierarchy.ConfigTree``) gives each file its own config's settings; *cache* is the
    result cache (None: ``--no-cache``).  Raises AuditError for a bad path, config, baseline or output.
    """
    from boundlint.audit.model import build_report
    from boundlint.audit.progress import Progress
    from boundlint.config import ConfigError
    from boundlint.files import PathError
    from boundlint.rules.base import all_rules

    progress = None
    if not args.quiet and sys.stderr.isatty():
        progress = Progress(sys.stderr)
    try:
        results, seconds = collect(args.paths, None, None, args.jobs, progress, tree=tree, cache=cache)
    except (PathError, ConfigError) as exc:
        raise AuditError(str(exc)) from None
    finally:
        if progress is not None:
            progress.close()
    if not results and not args.quiet:
        print("boundlint audit: warning: No Python files found under the given path(s)", file=sys.stderr)
    for r in results:
        r.findings = [f for f in r.findings if not tree.ignored(f.path, f.code)]
    if getattr(args, "baseline", None):
        _apply_baseline(args.baseline, results)
    # Paths as check prints them: relative to the working directory, as discovery spelled them.
    report = build_report(results, seconds, None, {c: cls.name for c, cls in all_rules().items()})
    report.paths = [str(p) for p in args.paths]
    report.created = created_now()
    fmt = args.output_format or "terminal"
    top = args.top
    if top is None and fmt == "terminal":
        top = 30
    if args.output_file:
        text = render(report, fmt, top, color=False)
        try:
            with open(args.output_file, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise AuditError(f"--output-file: cannot write {args.output_file}: {exc.strerror or exc}") from None
        if not args.quiet:
            print(f"boundlint audit: wrote {args.output_file}", file=sys.stderr)
    else:
        from boundlint.output import write_stdout

        text = render(report, fmt, top, color=sys.stdout.isatty())
        encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
        # characters the stream's encoding lacks (`…` on an ASCII pipe) become `?`
        write_stdout(text.encode(encoding, "replace").decode(encoding))
    fail_on = tuple(args.fail_on or ())
    if fail_on and failing((f for r in results for f in r.findings), fail_on):
        return 1
    return 0


def created_now() -> str:
    """The audit's time stamp: now in UTC as ``2026-12-01T14:21:43Z``, or ``SOURCE_DATE_EPOCH`` when set.

    ``SOURCE_DATE_EPOCH`` (seconds since 1970, the reproducible-builds convention) pins the date,
    e.g. to the commit's; a value that is not a valid time is ignored.
    """
    import datetime
    import os

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = datetime.datetime.now(datetime.timezone.utc)
    if epoch.isdigit():
        try:
            when = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
        except (OverflowError, OSError, ValueError):
            pass
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _apply_baseline(path: str, results) -> None:
    """Leave out of *results* the findings the baseline file *path* records (as ``check --baseline`` does)."""
    from boundlint.baseline import Baseline, BaselineError

    try:
        baseline = Baseline.load(path)
    except BaselineError as exc:
        raise AuditError(str(exc)) from None
    findings = [f for r in results for f in r.findings]
    kept = set(map(id, baseline.new_findings(findings)))
    for r in results:
        r.findings = [f for f in r.findings if id(f) in kept]
