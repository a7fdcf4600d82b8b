"""Checking one document held in memory (standard input, an editor's buffer) as the file at PATH.

PATH decides everything a file's location decides: the configuration (found
from PATH's directory by the caller), whether ``exclude`` skips it, its
``per-file-ignores``, and the path the findings carry.  PATH need not exist.
The check runs in this process (``engine.check_source``), as the flake8
plugin's does: there is one document, so no worker pool.
"""
from __future__ import annotations

from typing import BinaryIO

from boundlint.config import Settings
from boundlint.patterns import PerFileIgnores
from boundlint.engine import FileResult, check_bytes, check_source


class DocumentError(Exception):
    """Standard input cannot be read; ``str()`` is the one-line reason."""


def check_document(source: str | bytes, path: str, settings: Settings, root: str, cache=None) -> FileResult | None:
    """Findings for *source* checked as the file *path*; None when ``exclude`` skips *path*.

    *source*: the file's bytes (decoded per PEP 263, as a file on disk is)
    or text already decoded (an editor buffer).  *root*: the directory the
    config's ``exclude`` and ``per-file-ignores`` patterns are relative to.
    *cache*: a ``boundlint.cache.Cache`` that serves and stores results of
    byte input by content, as for files on disk; text input is not cached.
    Findings are sorted, with noqa and per-file ignores applied.  Raises
    nothing for bad input (it becomes BND001).
    """
    from boundlint.files import excluded

    if excluded(path, settings.exclude + settings.extend_exclude, root):
        return None
    _register(source, path)
    if isinstance(source, str):
        lines = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
        result = FileResult(path, check_source(source, path, settings), lines)
    else:
        result = _cached(source, path, settings, cache)
    if settings.per_file_ignores:
        ignores = PerFileIgnores(settings.per_file_ignores, root)
        result.findings = [f for f in result.findings if not ignores.ignored(path, f.code)]
    return result


def _register(source: str | bytes, path: str) -> None:
    """Let the project index read *source* as the module at *path* (the buffer, not the file on disk)."""
    import os

    from boundlint.index import build

    if not path.endswith((".py", ".pyi")) or path == "-":
        return
    if isinstance(source, bytes):
        from boundlint.source import DecodeError, decode_source

        try:
            source = decode_source(source)
        except DecodeError:
            return
    full = os.path.abspath(path)
    if build.OVERRIDES.get(full) != source:
        build.OVERRIDES[full] = source
        build.refresh(full)


def _cached(data: bytes, path: str, settings: Settings, cache) -> FileResult:
    if cache is None:
        return check_bytes(data, path, settings)
    from boundlint.cache import content_key

    from boundlint.engine import project_view
    from boundlint.index.view import still_valid

    key = content_key(data)
    hit = cache.get(key, path)
    if hit is not None and hit[2] and not still_valid(project_view(path).index, hit[2]):
        hit = None  # another module of the project changed an answer this judgement relied on
    if hit is not None:
        return FileResult(path, hit[0], hit[1])
    result = check_bytes(data, path, settings)
    if not result.failed and not any(f.code == "BND002" for f in result.findings):  # retried next time
        cache.put(key, path, result.findings, result.lines, result.consulted)
        cache.flush()
    return result


def check_stdin(path: str, settings: Settings, root: str, cache=None,
                stream: BinaryIO | None = None) -> tuple[list[FileResult], dict[str, list[str]]]:
    """``([result], {path: lines})`` for standard input checked as the file *path*.

    *stream* defaults to ``sys.stdin.buffer``.  No result when ``exclude``
    skips *path*; the lines (for ``--show-source`` and baselines) only when
    there are findings.  Raises DocumentError when standard input cannot be read.
    """
    data = read_stdin(stream)
    result = check_document(data, path, settings, root, cache)
    if result is None:
        return [], {}
    return [result], ({path: _source_lines(data)} if result.findings else {})


def _source_lines(data: bytes) -> list[str]:
    from boundlint.source import DecodeError, decode_source

    try:
        return decode_source(data).splitlines()
    except DecodeError:
        return []


def read_stdin(stream=None) -> bytes:
    """All of standard input (*stream*, default ``sys.stdin.buffer``) as bytes; DocumentError when
    there is none or it cannot be read."""
    import sys

    if stream is None:
        stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise DocumentError("cannot read standard input: there is none")
    try:
        return stream.read()
    except OSError as exc:
        raise DocumentError(f"cannot read standard input: {exc.strerror or exc}") from None
