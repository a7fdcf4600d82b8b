"""``boundlint check --fix | --unsafe-fixes | --diff | --fix-only``: fixes applied to files or stdin.

Each file with a fixable finding is fixed in passes (fix, check again, fix
what is left) until nothing more applies, at most ``MAX_PASSES``.  The new
text is written atomically (a temporary file beside it, then a rename, the
file's mode kept), and only when the file still holds the bytes the run
read: a file changed on disk meanwhile is left alone, with a warning.
``--diff`` writes nothing and prints a unified diff instead.
"""
from __future__ import annotations

import difflib
import os
import sys
from dataclasses import dataclass, field

from boundlint.fixes.apply import applicability, fix_text
from boundlint.fixes.model import SAFE, UNSAFE
from boundlint.stores import replace_atomically

MAX_PASSES = 10


@dataclass
class FileFix:
    """A file's fixing: ``text`` before and ``fixed`` after, ``count`` fixes applied, ``findings``
    (what the last check of ``fixed`` reported)."""

    path: str
    text: str
    fixed: str
    count: int = 0
    findings: list = field(default_factory=list)


def allowed(unsafe: bool) -> tuple[str, ...]:
    """The applicabilities applied: safe ones, and unsafe ones with *unsafe*."""
    return (SAFE, UNSAFE) if unsafe else (SAFE,)


def fix_source(text: str, path: str, findings: list, settings, root: str, unsafe: bool, keep=None) -> FileFix:
    """*text* (the file *path*) fixed in passes; *findings* are its findings; *keep* filters re-checked
    findings (per-file ignores).

    Fixes that overlap go in separate passes; between them the findings left are moved to the new
    text by the lines the fixes kept (a finding on a line a fix rewrote waits for the check).  The
    fixed text is then checked again as the file *path* with *settings* (``document.check_document``):
    a fix can make another finding appear (a model that caps some of its fields now reads as a
    request model), and those are fixed in turn, at most ``MAX_PASSES`` passes in all.
    """
    from boundlint.document import check_document

    done = FileFix(path, text, text, 0, list(findings))
    kinds = allowed(unsafe)
    current = list(findings)
    passes = 0
    while passes < MAX_PASSES:
        applied = False
        while passes < MAX_PASSES and any(applicability(f, settings) in kinds for f in current):
            out = fix_text(done.fixed, current, settings, unsafe, path)
            passes += 1
            if not out.fixed or out.text == done.fixed:
                break
            fixed = {id(f) for f in out.fixed}
            current = moved(done.fixed, out.text, [f for f in current if id(f) not in fixed])
            done.fixed, done.count, applied = out.text, done.count + len(out.fixed), True
        if not applied:
            break
        result = check_document(done.fixed, path, settings, root)
        current = done.findings = [f for f in (result.findings if result else []) if keep is None or keep(f)]
    return done


def moved(old: str, new: str, findings: list) -> list:
    """*findings* of the text *old* placed in *new*: those whose lines *new* kept, shifted to where they
    are now; the others are left out (the next check finds them again)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    blocks = [(i1, i2, j1) for tag, i1, i2, j1, _ in
              difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if tag == "equal"]
    out = []
    for f in findings:
        for i1, i2, j1 in blocks:
            if i1 <= f.line - 1 and f.end_line - 1 < i2:
                shift = j1 - i1
                out.append(f._replace(line=f.line + shift, end_line=f.end_line + shift))
                break
    return out


def unified_diff(done: FileFix) -> str:
    """The unified diff of *done* (``--- a/PATH`` / ``+++ b/PATH``, as ``git diff``)."""
    name = done.path.replace(os.sep, "/")
    lines = difflib.unified_diff(done.text.splitlines(keepends=True), done.fixed.splitlines(keepends=True),
                                 f"a/{name}", f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _read(path: str) -> tuple[bytes, str] | None:
    """The bytes of *path* and their UTF-8 text (a BOM kept out); None when unreadable or not UTF-8."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return data, text


def write_if_unchanged(path: str, before: bytes, text: str) -> str | None:
    """Write *text* (UTF-8, a BOM kept when *before* had one) to *path* atomically, when *path* still
    holds *before*; the reason it was not written, else None."""
    try:
        with open(path, "rb") as fh:
            now = fh.read()
        mode = os.stat(path).st_mode & 0o7777
    except OSError as exc:
        return f"cannot read it again: {exc.strerror or exc}"
    if now != before:
        return "it changed on disk during the run"
    try:
        replace_atomically(os.path.abspath(path), text.encode("utf-8"), mode)
    except OSError as exc:
        return f"cannot write it: {exc.strerror or exc}"
    return None


@dataclass
class Run:
    """What fixing files gave: ``findings`` (the run's findings, those of fixed files re-checked),
    ``fixed`` (fixes applied), ``files`` (files changed), ``diffs`` (with ``--diff``)."""

    findings: list
    fixed: int = 0
    files: int = 0
    diffs: list = field(default_factory=list)
    unsafe_left: int = 0  # findings left whose fix is unsafe, when unsafe fixes were not asked for


def fix_files(findings: list, tree, unsafe: bool, write: bool) -> Run:
    """Fix the files of *findings* (each judged by its config in *tree*); write them when *write*, else
    collect their diffs.  A file that cannot be read as UTF-8 is left alone."""
    by_path: dict[str, list] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    kinds = allowed(unsafe)
    run = Run([])
    for path, found in by_path.items():
        resolved = tree.for_path(path)
        if not unsafe:
            run.unsafe_left += sum(applicability(f, resolved.settings) == UNSAFE for f in found)
        if not any(applicability(f, resolved.settings) in kinds for f in found) or path == "-":
            run.findings.extend(found)
            continue
        read = _read(path)
        if read is None:
            run.findings.extend(found)
            continue
        before, text = read
        bom = text.startswith("\ufeff")
        done = fix_source(text[1:] if bom else text, path, found, resolved.settings, resolved.root, unsafe,
                          lambda f: not tree.ignored(f.path, f.code))
        if not done.count:
            run.findings.extend(found)
            continue
        if not write:
            run.diffs.append(unified_diff(done))
            run.fixed += done.count
            run.files += 1
            run.findings.extend(found)
            continue
        problem = write_if_unchanged(path, before, ("\ufeff" if bom else "") + done.fixed)
        if problem:
            print(f"boundlint: warning: {path} not fixed: {problem}", file=sys.stderr)
            run.findings.extend(found)
            continue
        run.fixed += done.count
        run.files += 1
        run.findings.extend(done.findings)
    return run


def summary(run: Run, remaining: int | None, diff: bool = False) -> str:
    """The line said on stderr: ``Fixed 3 findings in 2 files (1 remaining).``; with *diff*, what
    ``--fix`` would fix."""
    plural = lambda n, word: f"{n} {word}{'' if n == 1 else 's'}"  # noqa: E731
    more = (f" {plural(run.unsafe_left, 'finding')} more {'has' if run.unsafe_left == 1 else 'have'} an unsafe fix "
            "(it changes behaviour): add --unsafe-fixes to apply it." if run.unsafe_left else "")
    if diff:
        return f"Would fix {plural(run.fixed, 'finding')} in {plural(run.files, 'file')}.{more}"
    left = f" ({remaining} remaining)" if remaining is not None else ""
    return f"Fixed {plural(run.fixed, 'finding')} in {plural(run.files, 'file')}{left}.{more}"


def fix_stdin(path: str, tree, unsafe: bool, diff: bool, stream=None) -> tuple[str, list, int]:
    """Standard input checked and fixed as the file *path*: ``(output, remaining findings, fixes)``,
    output being the fixed text (all of it, fixed or not) or, with *diff*, its unified diff.
    Raises ``document.DocumentError`` when standard input cannot be read or decoded."""
    from boundlint.document import DocumentError, check_document, read_stdin
    from boundlint.source import DecodeError, decode_source

    data = read_stdin(stream)
    try:
        text = decode_source(data)
    except DecodeError as exc:
        raise DocumentError(f"cannot fix standard input: {exc}") from None
    resolved = tree.for_path(path)
    result = check_document(text, path, resolved.settings, resolved.root)
    keep = (lambda f: not tree.ignored(f.path, f.code))
    findings = [f for f in (result.findings if result else []) if keep(f)]
    done = fix_source(text, path, findings, resolved.settings, resolved.root, unsafe, keep)
    if diff:
        return unified_diff(done), done.findings, done.count
    return done.fixed, done.findings, done.count


# -- the command line's part ----------------------------------------------------------------

def run_files(args, tree, findings: list):
    """``check --fix / --fix-only / --diff`` over the run's *findings*: the findings left to report
    (``--fix``), or the exit status (``--diff``: 1 when there is something to fix; ``--fix-only``: 0)."""
    from boundlint.output import write_stdout

    run = fix_files(findings, tree, args.unsafe_fixes, write=not args.diff)
    if args.diff:
        write_stdout("".join(run.diffs))
        if not args.quiet:
            print(summary(run, None, diff=True), file=sys.stderr)
        return 1 if run.fixed else 0
    if args.fix_only:
        if not args.quiet:
            print(summary(run, None), file=sys.stderr)
        return 0
    if not args.quiet and run.fixed:
        print(summary(run, len(run.findings)), file=sys.stderr)
    return run.findings


def run_stdin(args, tree, stdin: str, options, render) -> int:
    """``--fix`` / ``--fix-only`` / ``--diff`` on standard input as the file *stdin*: the fixed text (or
    the diff) on stdout, the findings left (``--fix``) on stderr, as *render* (the report's
    ``report.output.render``: the caller's, so fixes sit below the report) writes them; the exit
    status.  Raises ``document.DocumentError`` when standard input cannot be read."""
    from boundlint.output import write_stdout

    output, findings, count = fix_stdin(stdin, tree, args.unsafe_fixes, args.diff)
    write_stdout(output)
    if args.diff:
        return 1 if count else 0
    if args.fix_only:
        return 0
    if findings:
        sys.stderr.write(render(findings, options._replace(colour=False), files=1,
                                settings={tree.for_path(stdin).settings}))
    return 1 if findings and not args.exit_zero else 0
