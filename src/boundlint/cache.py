"""Per-file result cache, keyed by content hash + path + effective settings + boundlint version + linked facts.

Layout (like ``.ruff_cache``): ``<cache-dir>/<version>/<settings fingerprint>/<xx>.json``,
256 shards chosen by the first byte of the entry key (the fingerprint
also covers boundlint's own code, see ``code_id``).  Each shard maps an
entry key to ``[last_used, lines, findings, consulted]``.  The entry key is the
file's content hash and its place (``entry_key``: the path as given and the
working directory): the same text in another place is another module (other
names, perhaps another project), and its evidence spells paths as the run that
stored it did, so a copied or moved file is checked again.  Shards
are written atomically (temporary file + ``os.replace``), so concurrent runs
(pre-commit starts several) never see a torn file: the last writer wins and
the loser's entries are just recomputed later.  A damaged shard is ignored and rebuilt.  Each shard
keeps at most ``max_entries // 256`` entries, evicting the least recently
used, and directories of other boundlint versions are removed.  An entry also
records the project questions its judgement asked and a digest of each answer:
it is served only while the project still answers them the same way.
"""
from __future__ import annotations

import json
import os
import re
import time

from boundlint import __version__
from boundlint.finding import Finding
from boundlint.hashes import blake2b

DEFAULT_DIR = ".boundlint_cache"
ENV_VAR = "BOUNDLINT_CACHE_DIR"
MAX_ENTRIES = 200_000
KEEP_VARIANTS = 8
_TOUCH_EVERY = 86_400  # seconds: how stale a hit's last-use stamp may get before it is renewed


def content_key(data: bytes) -> str:
    """Hex digest (32 chars) of a file's bytes."""
    return blake2b(data, digest_size=16).hexdigest()


def _encode(shard: dict) -> bytes:
    return json.dumps(shard, separators=(",", ":")).encode("utf-8")


_CODE = re.compile(r"BND\d{3}")
_BIG = 10 ** 9  # lines and columns at most: a larger number is no position in any file
_TEXT = 100_000  # characters of a message, hint or evidence line at most


def valid_entry(entry: object) -> bool:
    """True when *entry* is a result as ``Cache.put`` writes it, field by field.

    ``[stamp, lines, findings, consulted]``: each finding ``[line, column,
    code, message, end_line, end_column, hint, [evidence...], severity,
    severity_reason, fix]`` with positions in 1..10^9, a ``BNDnnn`` code, a known
    severity and strings of bounded length; ``consulted`` maps short,
    shallow JSON questions to digests.  Anything else (wrong types, huge
    numbers, deep nesting) is not a result.
    """
    if type(entry) is not list or len(entry) != 4:
        return False
    stamp, lines, raw, consulted = entry
    if not _int(stamp, 0, 2 ** 40) or not _int(lines, 0, _BIG) or type(raw) is not list or type(consulted) is not dict:
        return False
    for item in raw:
        if type(item) is not list or len(item) != 11:
            return False
        line, column, code, message, end_line, end_column, hint, evidence, severity, reason, fix = item
        if not (_int(line, 1, _BIG) and _int(column, 1, _BIG) and _int(end_line, 1, _BIG) and _int(end_column, 1, _BIG)):
            return False
        if type(code) is not str or not _CODE.fullmatch(code) or severity not in ("low", "medium", "high"):
            return False
        if not (_text(message) and _text(hint) and _text(reason) and _text(fix)) or type(evidence) is not list \
                or not all(_text(e) for e in evidence):
            return False
    for question, answer in consulted.items():
        # a question is decoded again (json.loads) to be re-asked: deep nesting would exhaust the stack there
        if type(question) is not str or len(question) > _TEXT or question.count("[") + question.count("{") > 32 \
                or not _text(answer):
            return False
    return True


def _int(value: object, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _text(value: object) -> bool:
    return type(value) is str and len(value) <= _TEXT


def entry_key(content: str, path: str) -> str:
    """The key of a file's result (32 hex chars): its *content* key (``content_key``), its *path* as given and
    the working directory, which together place the file and spell the paths its evidence cites."""
    try:
        cwd = os.getcwd()
    except OSError:  # the working directory was removed
        cwd = ""
    return blake2b(f"{content}\0{cwd}\0{path}".encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def code_id() -> str:
    """A digest of boundlint's own source files (names, sizes, mtimes), computed once per process.

    Part of the cache key so that a changed rule (an upgrade, or an editable
    install being worked on) never serves results computed by other code.
    """
    global _CODE_ID
    if _CODE_ID is None:
        package = os.path.dirname(os.path.realpath(__file__))
        found: list[tuple[str, int, int]] = []
        _sources(package, "", found)
        h = blake2b(digest_size=8)
        for rel, size, mtime in sorted(found):
            h.update(f"{rel}:{size}:{mtime};".encode())
        _CODE_ID = h.hexdigest()
    return _CODE_ID


_CODE_ID: str | None = None


def _sources(directory: str, prefix: str, found: list[tuple[str, int, int]]) -> None:
    """``(relative path, size, mtime_ns)`` of every ``*.py`` below *directory* (``/``-separated paths)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir():
                if entry.name != "__pycache__":  # compiled files only: no listing of it per run
                    _sources(entry.path, f"{prefix}{entry.name}/", found)
            elif entry.name.endswith(".py"):
                st = entry.stat()
                found.append((prefix + entry.name, st.st_size, st.st_mtime_ns))
        except OSError:
            continue


def unusable(location: str) -> str | None:
    """Why the cache directory *location* cannot be made or written (a few words), or None when it can.

    Makes the directory when missing and writes and removes a probe file in
    it: a read-only project, ``--cache-dir /proc/version`` or a full disk
    is found before the run, which then goes without a cache.
    """
    import tempfile

    if os.path.exists(location) and not os.path.isdir(location):
        return "it is not a directory"
    try:
        os.makedirs(location, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=location, prefix=".probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def default_dir(explicit: str | None = None):
    """``--cache-dir``, else ``$BOUNDLINT_CACHE_DIR``, else ``.boundlint_cache`` at the project root (a
    ``pathlib.Path``; see ``default_location``)."""
    from pathlib import Path

    return Path(default_location(explicit))


def default_location(explicit: str | None = None) -> str:
    """``default_dir`` as a string (no ``pathlib`` import on a warm run's start-up).

    Without *explicit* or ``$BOUNDLINT_CACHE_DIR``: ``.boundlint_cache`` in the project root, the nearest
    folder from the working directory up that holds a ``pyproject.toml`` or ``.git`` (as ruff keeps
    ``.ruff_cache`` beside the project's config), so a run from a subfolder shares the project's cache;
    ``.boundlint_cache`` in the working directory when no folder above does.
    """
    found = explicit or os.environ.get(ENV_VAR)
    if found:
        return found
    root = project_root()
    return DEFAULT_DIR if root is None else os.path.join(root, DEFAULT_DIR)


def project_root() -> str | None:
    """The nearest folder from the working directory up holding ``pyproject.toml`` or ``.git``: None when it
    is the working directory itself (or there is none), else its absolute path (immune to a later chdir)."""
    try:
        here = os.getcwd()
    except OSError:
        return None
    current, ups = here, 0  # ups: how many folders above the working directory
    while True:
        if os.path.exists(os.path.join(current, "pyproject.toml")) or os.path.exists(os.path.join(current, ".git")):
            return None if ups == 0 else current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current, ups = parent, ups + 1


class Cache:
    """Findings per content hash for one settings fingerprint.

    ``get(key, path)`` returns ``(findings, lines)`` or None; ``put`` records
    a result; ``flush()`` writes the shards that changed, of this cache and of
    every ``variant``.  Never raises for a missing, unreadable or damaged
    cache: it just misses.
    """

    def __init__(self, root, fingerprint: str, max_entries: int = MAX_ENTRIES) -> None:
        self.root = root  # a path (str or os.PathLike)
        self.fingerprint = fingerprint
        self.max_entries = max_entries
        self._where = os.path.join(os.fspath(root), __version__, f"{fingerprint}-{code_id()}")
        self.per_shard = max(16, max_entries // 256)
        self._shards: dict[str, dict[str, list]] = {}
        self._dirty: set[str] = set()
        self._now = int(time.time())
        self._family: dict[str, Cache] = {fingerprint: self}
        self._by_settings: dict[int, tuple[object, Cache]] = {}

    @property
    def dir(self):
        """The directory of this variant's shards (a ``pathlib.Path``)."""
        from pathlib import Path

        return Path(self._where)

    def variant(self, settings) -> "Cache":
        """The cache of results computed with *settings* (a file's own effective settings).

        Same root; this cache itself when the fingerprints match.  Variants
        used in one run are flushed together and never evict each other.
        """
        known = self._by_settings.get(id(settings))
        if known is not None and known[0] is settings:  # one fingerprint per settings object, not one per file
            return known[1]
        fingerprint = settings.fingerprint()
        hit = self._family.get(fingerprint)
        if hit is None:
            hit = Cache(self.root, fingerprint, self.max_entries)
            hit._family = self._family
            self._family[fingerprint] = hit
        self._by_settings[id(settings)] = (settings, hit)
        return hit

    def _shard(self, name: str) -> dict[str, list]:
        shard = self._shards.get(name)
        if shard is None:
            from boundlint import stores

            shard = stores.load(os.path.join(self._where, f"{name}.json"), json.loads)  # bytes: UTF-8 is detected
            self._shards[name] = shard
        return shard

    def get(self, key: str, path: str) -> tuple[list[Finding], int, dict] | None:
        """Cached ``(findings, lines, consulted)`` of the file *path* with content *key*; None on a miss.

        ``consulted`` maps each project question the judgement asked to the
        digest of its answer then; the caller re-asks them (``index.view.still_valid``).
        """
        key = entry_key(key, path)
        entry = self._shard(key[:2]).get(key)
        if not valid_entry(entry):  # damaged, edited or planted: a miss, never a changed finding
            return None
        _, lines, raw, consulted = entry
        findings = [Finding(path, *item[:7], tuple(item[7]), *item[8:11]) for item in raw]
        if self._now - entry[0] > _TOUCH_EVERY:  # a coarse last-use stamp: a warm run rewrites no shard
            entry[0] = self._now
            self._dirty.add(key[:2])
        return findings, int(lines), consulted

    def revalidate(self, key: str, path: str, consulted: dict) -> None:
        """Replace the project answers recorded with the result of *path* with content *key* (*consulted*,
        re-asked and unchanged)."""
        key = entry_key(key, path)
        entry = self._shard(key[:2]).get(key)
        if isinstance(entry, list) and len(entry) == 4:
            entry[3] = consulted
            self._dirty.add(key[:2])

    def put(self, key: str, path: str, findings: list[Finding], lines: int, consulted: dict | None = None) -> None:
        """Record the result of the file *path* with content *key*, with the project questions it *consulted*."""
        key = entry_key(key, path)
        raw = [[f.line, f.column, f.code, f.message, f.end_line, f.end_column, f.hint, list(f.evidence), f.severity,
                f.severity_reason, f.fix] for f in findings]
        self._shard(key[:2])[key] = [self._now, lines, raw, consulted or {}]
        self._dirty.add(key[:2])

    def flush(self) -> None:
        """Write changed shards (of every variant) atomically; evict least recently used entries past the cap."""
        for other in self._family.values():
            if other is not self:
                other._flush()
        self._flush()

    def _flush(self) -> None:
        if not self._dirty:
            return
        try:
            self._prepare()
        except OSError:
            return
        from boundlint import stores

        for name in sorted(self._dirty):
            shard = self._shards[name]
            if len(shard) > self.per_shard:
                keep = sorted(shard.items(), key=lambda kv: kv[1][0] if isinstance(kv[1], list) and kv[1] else 0)
                shard = dict(keep[-self.per_shard:])
            stores.write(os.path.join(self._where, f"{name}.json"), shard, _encode)
        self._dirty.clear()

    def _prepare(self) -> None:
        import shutil
        from pathlib import Path

        root = Path(self.root)
        new_root = not root.exists()
        self.dir.mkdir(parents=True, exist_ok=True)
        if new_root or not (root / "CACHEDIR.TAG").exists():
            (root / "CACHEDIR.TAG").write_text(
                "Signature: 8a477f597d28d172789f06886806bc55\n# boundlint result cache; safe to delete\n")
            (root / ".gitignore").write_text("*\n")
        for child in root.iterdir():
            if child.is_dir() and child.name != __version__:
                shutil.rmtree(child, ignore_errors=True)  # another version's results can never hit
        # Keep the newest few settings/code variants of this version.
        in_use = {c.dir for c in self._family.values()}
        variants = sorted((d for d in self.dir.parent.iterdir() if d.is_dir() and d not in in_use),
                          key=lambda d: d.stat().st_mtime)
        for old in variants[:-KEEP_VARIANTS]:
            shutil.rmtree(old, ignore_errors=True)
