"""Building a project's index: find its modules, summarise each (cached by content), link.

``index_for(path, cache_dir)`` returns the ``ProjectIndex`` of the project
*path* belongs to, built once per process and root.  ``prime(paths)``
builds the indexes of every root the given files belong to, before worker
processes fork, so workers share them.
"""
from __future__ import annotations

import os

from boundlint.hashes import blake2b
from boundlint.index.project import ModuleEntry, ProjectIndex, find_root, module_names
from boundlint.index.summary_cache import SummaryCache

_PROJECTS: dict[str, ProjectIndex] = {}
# Where module summaries are cached (``engine.set_index_cache``, from --cache-dir); None: not cached.
CACHE_DIR: str | None = None
# Source text that replaces a file's bytes (an editor's unsaved buffer, standard input), by absolute path.
OVERRIDES: dict[str, str] = {}
_MAX_FILE_BYTES = 2_000_000  # a generated file this large defines nothing other modules import by hand


def _project_files(root: str, recursive: bool) -> list[str]:
    """The modules of the project at *root* as last listed in this process (until ``reset``), for its digest."""
    found = _FILES.get((root, recursive))
    if found is None:
        found = _FILES[(root, recursive)] = _list_project_files(root, recursive)
    return found


_FILES: dict[tuple[str, bool], list[str]] = {}


def _list_project_files(root: str, recursive: bool) -> list[str]:
    if not recursive:
        try:
            return sorted(os.path.join(root, n) for n in os.listdir(root) if n.endswith(".py"))
        except OSError:
            return []
    from boundlint.files import discover

    try:
        return [f for f in discover([root], respect_gitignore=True, root=root) if f.endswith(".py")]
    except Exception:  # an unlistable folder: the index is what could be read
        return []


def _read_text(path: str) -> str | None:
    override = OVERRIDES.get(os.path.abspath(path))
    if override is not None:
        return override
    import stat

    try:  # a FIFO or device named *.py must never block the index: open without waiting, read regular files only
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE_BYTES:
                return None
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(_MAX_FILE_BYTES + 1)
        finally:
            os.close(fd)
    except OSError:
        return None
    if len(data) > _MAX_FILE_BYTES:
        return None
    try:
        from boundlint.source import decode_source

        return decode_source(data)
    except Exception:
        return None


def summary_of(text: str | None, name: str, is_package: bool, cache: SummaryCache | None = None) -> dict:
    """The summary of *text* as module *name*; an empty one for text ``ast`` cannot read. Never raises."""
    if text is None:
        return _empty()
    return _summary(text, name, is_package, cache, _text_source(text))


def _summary(text: str | None, name: str, is_package: bool, cache: SummaryCache | None, source: str | None) -> dict:
    """The summary of *text*, looked up in and stored to *cache* under *source* (see ``_source``)."""
    if text is None:
        return _empty()
    key = _key(source, name, is_package) if cache is not None and source is not None else None
    if key is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit
    import gc

    enabled = gc.isenabled()
    gc.disable()  # a module's tree and readers make many containers and next to no cycles: collecting costs ~10%
    try:
        import warnings

        from boundlint.index.summary import summarize

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            summary = summarize(text, name, is_package)
    except Exception:  # SyntaxError, RecursionError, MemoryError ...: one odd file never takes the index down
        summary = _empty()
    finally:
        if enabled:
            gc.enable()
    if key is not None:
        cache.put(key, summary)
    return summary


def _empty() -> dict:
    from boundlint.index.summary import empty

    return empty()


def build_index(root: str, recursive: bool, cache_dir: str | None = None, extra: tuple[str, ...] = ()) -> ProjectIndex:
    """The index of the project at *root* (its whole tree when *recursive*), plus the files *extra*.

    Modules whose summary is not cached are read in parallel (one process per
    core) when there are many of them.
    """
    from boundlint import filekeys

    with _no_collection():
        cache = SummaryCache(cache_dir, root)
        keys = filekeys.for_dir(cache_dir)
        todo = _modules(root, recursive, extra, keys)
        _fill([(cache, todo)], keys)
        index = _assemble(root, todo, cache, keys)
        cache.flush(prune=True)  # every module of the project was looked up
        keys.flush()
    return index


class _no_collection:
    """No cyclic garbage collection while an index is built (as it was before, after).

    Building makes many small dicts that live as long as the index, and no cyclic garbage;
    with collection on, each allocation-heavy step after the summaries are loaded (summarising
    a changed module, importing the readers for it) walks all of them again, several times.
    *freeze*: exempt what exists at the end from later collections too (``engine.run._settle``).
    """

    def __init__(self, freeze: bool = False) -> None:
        self.freeze = freeze

    def __enter__(self) -> None:
        import gc

        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        import gc

        if self.freeze:
            gc.freeze()
        if self.enabled:
            gc.enable()


def _assemble(root: str, todo: list, cache: SummaryCache, keys) -> ProjectIndex:
    """The index of *root*'s modules *todo*, their summaries taken from *cache* (read here if missing)."""
    index = ProjectIndex(root)
    for module in todo:
        path, names, is_package, source, _data = module
        summary = cache.get(_key(source, names[0], is_package)) if source is not None else _empty()
        if summary is None:  # the file changed while the index was built: what it holds now
            text, now = _text(path, source, keys)
            summary = _summary(text, names[0], is_package, cache, now)
        index.add(ModuleEntry(path, names, summary, is_package))
    return index


def _source(path: str, keys) -> tuple[str | None, bytes | None]:
    """What a module's summary is keyed by: ``b`` + the file's content key (``filekeys``), ``t`` + a hash of
    its override text; None for a file that cannot be read or is over the size limit (an empty summary).
    Second, the file's bytes when they had to be read for the key (None when the key was remembered)."""
    override = OVERRIDES.get(os.path.abspath(path))
    if override is not None:
        return _text_source(override), None
    try:
        data, key = keys.lookup(path, _MAX_FILE_BYTES)
    except OSError:
        return None, None
    return (None, None) if key is None else ("b" + key, data)


def _text_source(text: str) -> str:
    return "t" + blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _text(path: str, source: str | None, keys, data: bytes | None = None) -> tuple[str | None, str | None]:
    """``(text, source)`` of the module at *path* (the source of what was read; None: unreadable).

    *data*: the bytes already read for *source* this run, decoded instead of reading the file again.
    """
    override = OVERRIDES.get(os.path.abspath(path))
    if override is not None:
        return override, _text_source(override)
    if data is not None and source is not None and source.startswith("b"):
        key = source[1:]
    else:
        try:
            data, key = keys.read(path, _MAX_FILE_BYTES)
        except OSError:
            return None, None
    if data is None:
        return None, None
    try:
        from boundlint.source import decode_source

        return decode_source(data), "b" + key
    except Exception:
        return None, "b" + key


def _module(path: str, root: str, keys) -> tuple[str, list[str], bool, str | None, bytes | None] | None:
    """``(path, names, is_package, source, bytes)`` of one module of the project at *root* (``_source``), or None
    when it has no name."""
    names = module_names(path, root)
    if not names:
        return None
    return (path, names, os.path.basename(path) in ("__init__.py", "__init__.pyi"), *_source(path, keys))


def _modules(root: str, recursive: bool, extra: tuple[str, ...], keys) -> list[tuple]:
    """``_module`` of every module of the project at *root*, plus *extra*."""
    files = _list_project_files(root, recursive)  # listed afresh: a built index sees the tree as it is now
    _FILES[(root, recursive)] = list(files)
    seen = {os.path.abspath(f) for f in files}
    files += [f for f in extra if os.path.abspath(f) not in seen]
    return [found for found in map(lambda f: _module(f, root, keys), files) if found is not None]


def _fill(projects: list[tuple[SummaryCache, list]], keys, meanwhile=None) -> None:
    """Summarise every module of each project's *todo* its cache lacks (reading only those), all projects in one
    batch, in parallel when there are many (*projects*: ``(cache, todo)`` pairs; *meanwhile*: see ``prime``)."""
    wanted: dict[tuple[int, str], tuple[SummaryCache, str, str, bool, str, bytes | None]] = {}
    for cache, todo in projects:
        for path, names, is_package, source, data in todo:
            if source is None:
                continue
            key = _key(source, names[0], is_package)
            if (id(cache), key) not in wanted and cache.get(key) is None:
                wanted[(id(cache), key)] = (cache, path, names[0], is_package, source, data)
    items, places = [], []
    for cache, path, name, is_package, source, data in wanted.values():
        text, now = _text(path, source, keys, data)
        if text is not None and now is not None:
            items.append((text, name, is_package))
            places.append((cache, now))
    for (_text_, name, is_package), (cache, source), summary in zip(items, places, _summarize_all(items, meanwhile)):
        cache.put(_key(source, name, is_package), summary)


_PARALLEL_FROM = 64  # modules to read before a process pool pays for itself


def _summarize_all(misses: list[tuple[str, str, bool]], meanwhile=None) -> list[dict]:
    """Summaries of ``(text, module, is_package)`` items, in order; in worker processes when there are many,
    while this process calls *meanwhile* (when given)."""
    cores = os.cpu_count() or 1
    if len(misses) < _PARALLEL_FROM or cores < 2:
        return [summary_of(*item) for item in misses]
    import multiprocessing

    if multiprocessing.current_process().daemon:  # a flake8 -j worker: it may not start processes of its own
        return [summary_of(*item) for item in misses]
    try:
        context = multiprocessing.get_context("fork")
        from boundlint.orphans import index_worker_start

        with context.Pool(cores, initializer=index_worker_start) as pool:  # forked while the parent collects nothing
            pending = pool.starmap_async(summary_of, misses, chunksize=max(1, len(misses) // (cores * 8)))
            if meanwhile is not None:
                meanwhile()
            return pending.get()
    except (OSError, ValueError):  # no fork here, or no process could start: read them in this process
        return [summary_of(*item) for item in misses]


def _key(source: str, name: str, is_package: bool) -> str:
    """The summary cache's key of a module *name* whose text is identified by *source* (``_source``)."""
    return blake2b(f"{name}\0{int(is_package)}\0{source}".encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def index_for(path: str, cache_dir: str | None = None) -> ProjectIndex:
    """The (memoised) index of the project holding *path*."""
    root, recursive = find_root(path)
    index = _PROJECTS.get(root)
    if index is None:
        index = _PROJECTS[root] = build_index(root, recursive, cache_dir, extra=(path,))
    elif index.entry_for(path) is None:
        names = module_names(path, root)
        if names:
            is_package = os.path.basename(path) in ("__init__.py", "__init__.pyi")
            index.add(ModuleEntry(path, names, summary_of(_read_text(path), names[0], is_package), is_package))
    return index


def prime(paths: list[str], cache_dir: str | None = None, meanwhile=None) -> None:
    """Build the index of every project the files *paths* belong to (before workers fork).

    The modules of all those projects are summarised in one batch, so the
    work is spread over every core however the files divide into projects.
    *meanwhile*: a callable run in this process while worker processes
    summarise (not called when the modules are few enough to read here).
    """
    with _no_collection(freeze=True):  # the indexes live until the run ends (workers fork after this)
        _prime(paths, cache_dir, meanwhile)


def _prime(paths: list[str], cache_dir: str | None, meanwhile=None) -> None:
    from boundlint import filekeys

    by_root: dict[str, list[str]] = {}
    recursive: dict[str, bool] = {}
    for path in paths:
        root, deep = find_root(path)
        by_root.setdefault(root, []).append(path)
        recursive[root] = deep
    keys = filekeys.for_dir(cache_dir)
    fresh = {root: _modules(root, recursive[root], tuple(members), keys)
             for root, members in by_root.items() if root not in _PROJECTS}
    caches = {root: SummaryCache(cache_dir, root) for root in fresh}
    _fill([(caches[root], todo) for root, todo in fresh.items()], keys, meanwhile)
    for root, todo in fresh.items():
        _PROJECTS[root] = _assemble(root, todo, caches[root], keys)
        caches[root].flush(prune=True)  # every module of the project was looked up
    keys.flush()
    for root, members in by_root.items():
        if root not in fresh:
            for path in members:
                index_for(path, cache_dir)


def refresh(path: str) -> None:
    """Re-read the module at *path* (its override text, else the file) in every index that holds it."""
    for index in _PROJECTS.values():
        entry = index.entry_for(path)
        if entry is not None:
            entry.summary = summary_of(_read_text(path), entry.names[0], entry.is_package)
            index._reverse = None


def project_digest(path: str, known: dict[str, str] | None = None,
                   unlisted: dict[str, tuple[str, ...]] | None = None) -> str:
    """A digest of the project holding *path* as its index would see it, memoised per run: its root's place
    and the packages around it, every module's path below the root and content, the files the run names
    that its listing lacks (*unlisted*, from ``unlisted_files``: they join the index too), and which of its
    folders are packages (an ``__init__.pyi`` is listed nowhere, but names modules).

    *known*: absolute path -> ``cache.content_key`` already computed this run.
    A cached result whose project digest is unchanged needs none of its
    questions asked again.
    """
    root, recursive = find_root(path)
    extra = (unlisted or {}).get(root, ())
    found = _DIGESTS.get((root, extra))
    if found is None:
        from boundlint.index.project import is_package

        known = known or {}
        h = blake2b(digest_size=16)
        # where the project is, and the packages around its root: its modules' names depend on both
        h.update(f"{os.path.abspath(root)}\0{_names_above(root)}\0".encode("utf-8", "surrogatepass"))
        prefix = root if root.endswith(os.sep) else root + os.sep
        folders = set()
        for file in sorted({*map(os.path.abspath, _project_files(root, recursive)), *extra}):
            key = known.get(file)
            if key is None:
                key = _bytes_key(file)
            # os.path.relpath, without its cost for the files below the root (all of them, but for races)
            rel = file[len(prefix):] if file.startswith(prefix) else os.path.relpath(file, root)
            h.update(f"{rel}\0{key}\0".encode("utf-8", "surrogatepass"))
            folders.add(os.path.dirname(file))
        for folder in sorted(folders):
            h.update(f"{folder}\0{int(is_package(folder))}\0".encode("utf-8", "surrogatepass"))
        found = _DIGESTS[(root, extra)] = h.hexdigest()
    return found


def unlisted_files(paths: list[str]) -> dict[str, tuple[str, ...]]:
    """Per project root, the absolute paths of the files of *paths* that its listing lacks (gitignored, or in
    a folder the walk skips, but named on the command line): ``project_digest``'s *unlisted*."""
    listed: dict[str, set[str]] = {}
    out: dict[str, set[str]] = {}
    for path in paths:
        root, recursive = find_root(path)
        own = listed.get(root)
        if own is None:
            own = listed[root] = set(map(os.path.abspath, _project_files(root, recursive)))
        full = os.path.abspath(path)
        if full not in own:
            out.setdefault(root, set()).add(full)
    return {root: tuple(sorted(files)) for root, files in out.items()}


_DIGESTS: dict[tuple[str, tuple[str, ...]], str] = {}


def _names_above(root: str) -> str:
    """What the folders from *root* upwards give its modules' names: the names ``module_names`` gives a
    module directly in *root* (the package chain it climbs, launcher folders)."""
    return "\0".join(module_names(os.path.join(os.path.abspath(root), "_"), root))


def _bytes_key(path: str) -> str:
    """``cache.content_key`` of the file's bytes (of its override text, if any); ``-`` when unreadable."""
    from boundlint import filekeys
    from boundlint.cache import content_key

    override = OVERRIDES.get(path)
    if override is not None:
        return content_key(override.encode("utf-8", "surrogatepass"))
    try:
        return filekeys.for_dir(CACHE_DIR).key(path)
    except OSError:
        return "-"


def reset() -> None:
    """Forget every built index and project digest (tests; a long-lived server after files change)."""
    from boundlint.index.project import _root_of

    _PROJECTS.clear()
    _DIGESTS.clear()
    _FILES.clear()
    _root_of.cache_clear()
