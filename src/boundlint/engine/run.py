"""A whole run: discover files, build the project indexes before workers fork, serve unchanged files from the cache."""
from __future__ import annotations

import os

from collections.abc import Iterable, Sequence

from boundlint.config import Settings
from boundlint.engine.result import FileResult


def check_files(*args, **kwargs) -> list[FileResult]:
    """``engine.pool.check_files``, imported when a file must be checked (a warm run never needs it)."""
    from boundlint.engine.pool import check_files as run

    return run(*args, **kwargs)


def preload_checker() -> None:
    """Import what checking a file needs (LibCST, every rule, fact and query module) in this process.

    Called while the index workers summarise, when this process would
    otherwise wait: the check workers fork after that and start with it,
    instead of each importing it again.  A module that fails to import is
    left to the worker, which reports it as it always did.
    """
    import importlib
    import pkgutil

    try:
        import libcst.metadata  # noqa: F401  (positions)

        import boundlint.engine.check  # noqa: F401
        from boundlint.rules.base import all_rules

        all_rules()
        for name in ("analysis", "facts", "verdicts", "index.queries"):
            package = importlib.import_module(f"boundlint.{name}")
            for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
                importlib.import_module(module.name)
    except Exception:  # noqa: BLE001 (a preload only saves time)
        pass


def set_index_cache(directory: str | None) -> None:
    """Cache module summaries under *directory* (None: build them afresh each process)."""
    from boundlint.index import build

    build.CACHE_DIR = directory


def check_paths(paths: Iterable[str], settings: Settings | None, jobs: int | None = None, progress=None,
                root: str | None = None, collectors: Sequence = (), cache=None, tree=None,
                facts=None) -> list[FileResult]:
    """Discover files under *paths* and check them; raises files.PathError for a missing path.

    *tree* (a ``hierarchy.ConfigTree``) gives each file its own config's
    settings and each directory its own exclude patterns; *settings* and
    *root* are then unused (raises ConfigError for a broken config it
    reaches).  Without it, *settings* apply to every file and *root* (the
    config file's directory) anchors ``exclude`` patterns and turns on
    ``respect_gitignore``.  *cache* (a ``boundlint.cache.Cache``) serves
    unchanged files; with *collectors* only together with *facts* (an
    ``audit.stored.FactsStore``), which keeps what they gathered.
    """
    from boundlint.files import Snapshot

    with Snapshot():  # the project walks of the digests and the index re-list no folder this walk listed
        return _check_paths(paths, settings, jobs, progress, root, collectors, cache, tree, facts)


def _check_paths(paths, settings, jobs, progress, root, collectors, cache, tree, facts=None) -> list[FileResult]:
    from boundlint.files import discover
    from boundlint.index import build

    per_file = None
    if tree is not None:
        files = tree.discover(paths)
        per_file = [tree.for_path(f).settings for f in files]
        settings = per_file[0] if per_file else Settings()
    elif root is None:
        files = discover(paths, settings.exclude + settings.extend_exclude)
    else:
        files = discover(paths, settings.exclude + settings.extend_exclude, root=root,
                         respect_gitignore=settings.respect_gitignore)
    if cache is not None and (not collectors or facts is not None):
        return check_files_cached(files, settings, cache, jobs, progress, per_file, collectors, facts)
    build.prime(files, build.CACHE_DIR, preload_checker)  # before workers fork, so they share the project indexes
    _settle()
    return check_files(files, settings, jobs, progress, collectors, per_file)


def check_files_cached(paths: Sequence[str], settings: Settings, cache, jobs: int | None = None,
                       progress=None, per_file: Sequence[Settings] | None = None, collectors: Sequence = (),
                       facts=None) -> list[FileResult]:
    """``check_files`` behind the result cache (a ``boundlint.cache.Cache``, or None for none).

    Each file's content key comes from ``filekeys`` (its bytes' hash, read
    again only when its status changed); hits are served from the cache of the
    file's own settings (``per_file``, else *settings*), misses are checked
    in workers and stored, unless the check itself failed (a time limit, a
    crash, BND002, an unreadable file), whether or not that code is
    selected.  Results are sorted by path.  With *collectors*, *facts* (an
    ``audit.stored.FactsStore``) keeps what they gathered, and a file is a hit
    only when its facts are stored too.
    """
    if cache is None:
        return check_files(paths, settings, jobs, progress, collectors, per_file=per_file)
    from boundlint import filekeys, memo
    from boundlint.index import build
    from boundlint.index.view import PROJECT

    each = dict(zip(paths, per_file)) if per_file is not None else {}
    results: list[FileResult] = []
    misses: list[str] = []
    keys: dict[str, str] = {}
    stamps = filekeys.for_dir(str(cache.root))
    for path in paths:
        try:
            keys[path] = stamps.key(path)  # a FIFO named *.py must not block the run
        except OSError:
            pass
    known = {os.path.abspath(p): k for p, k in keys.items()}  # the project digest reuses these hashes
    unlisted = None  # files named here (so in the index) that no listing has: found when a digest is first needed

    def digest_of(path: str) -> str:
        nonlocal unlisted
        if unlisted is None:
            unlisted = build.unlisted_files(list(paths))
        return build.project_digest(path, known, unlisted)

    for path in paths:
        key = keys.get(path)
        if key is None:
            misses.append(path)
            continue
        variant = cache.variant(each.get(path, settings))
        hit = variant.get(key, path)
        gathered = None
        if hit is not None and collectors:
            gathered = facts.variant(each.get(path, settings)).get(key, path)
            if gathered is None:
                hit = None
        if hit is not None and hit[2]:
            digest = digest_of(path)
            if hit[2].get(PROJECT) == digest:
                pass
            elif _still_valid(build.index_for(path, build.CACHE_DIR), hit[2]):
                # Valid for the project as it is now: record that, so the next run needs no index to know it.
                variant.revalidate(key, path, {**hit[2], PROJECT: digest})
            else:
                hit = None  # another module changed what this file's judgement asked of the project
        if hit is None:
            misses.append(path)
        else:
            results.append(FileResult(path, hit[0], hit[1], facts=gathered, consulted=hit[2]))
    done = len(results)
    if progress is not None and done:
        progress(done, len(paths))
    wrapped = None if progress is None else (lambda n, _total: progress(done + n, len(paths)))
    miss_settings = [each[p] for p in misses] if per_file is not None else None
    if misses:
        for path in misses:  # the project as the index is about to see it, not as it is after the checks
            digest_of(path)
        # before workers fork; a warm run with no miss builds no index
        build.prime(misses, build.CACHE_DIR, preload_checker)
        _settle()
    for result in check_files(misses, settings, jobs, wrapped, collectors, per_file=miss_settings) if misses else ():
        key = keys.get(result.path)
        # Stored only when the bytes checked are the bytes keyed before and still on disk after (A -> B -> A
        # while the worker read B must not store B's findings under A).
        if key is not None and result.read_key == key and not result.failed \
                and not any(f.code == "BND002" for f in result.findings) and _unchanged(stamps, result.path, key):
            consulted = result.consulted
            if consulted:  # the whole project's state: while it is unchanged, no answer needs asking again
                consulted = {**consulted, PROJECT: digest_of(result.path)}
            cache.variant(each.get(result.path, settings)).put(key, result.path, result.findings, result.lines,
                                                                 consulted)
            if collectors:
                facts.variant(each.get(result.path, settings)).put(key, result.path, result.facts)
        results.append(result)
    cache.flush()
    if facts is not None:
        facts.flush()
    filekeys.flush_all()
    memo.flush()
    results.sort(key=lambda r: r.path)
    return results


def _unchanged(stamps, path: str, key: str) -> bool:
    """True when the file *path* still has the content key *key* taken before its check: a file an editor
    rewrote meanwhile was checked in another state, and its result must not be stored under the old key."""
    try:
        return stamps.key(path) == key
    except OSError:
        return False


def _settle() -> None:
    """Exempt what exists now (the project indexes above all) from the cyclic garbage collector.

    The indexes live until the run ends and hold no garbage; without this every
    collection in this process and in each forked worker walks all of them again
    (and, in a worker, touches their pages, which copies them).  Objects made
    later are collected as usual; these are still freed when unreferenced.
    """
    import gc

    gc.freeze()


def _still_valid(index, consulted: dict) -> bool:
    from boundlint.index.view import still_valid  # the queries: imported only when a project changed

    return still_valid(index, consulted)
