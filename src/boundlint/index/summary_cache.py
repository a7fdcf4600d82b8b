"""The cache of module summaries: one folder per project, pickled shards, pruned to what the project holds now.

A run that builds a project's index looks up the summary of every module of
that project, and of no other.  So the cache keeps each project in its own
folder (named by a hash of the project's root), and a run loads only the
projects it checks.  After such a run, a summary that no module of the
project asked for belongs to an old version of a file, or to a deleted one:
``flush(prune=True)`` drops it, so the folder does not grow with every edit.
The folder of a project that no run has checked for 30 days (moved, deleted,
a temporary checkout) is removed by the next pruning run of any project.
"""
from __future__ import annotations

import os
import re

from boundlint.hashes import blake2b


class SummaryCache:
    """Module summaries of the project at *root*, by content hash, module name and boundlint's code
    (256 pickled shards by the key's first two hex digits).

    Pickle, not JSON: a warm run loads the summaries of a whole project, and
    pickle reads and writes plain dicts several times faster.  The cache
    directory is the user's own, like the results cache beside it; with
    *cache_dir* None nothing is read or written.  Never raises for a missing,
    damaged or unwritable cache: a damaged shard reads as empty.
    """

    def __init__(self, cache_dir: str | None, root: str) -> None:
        self.dir = None
        if cache_dir:
            from boundlint import __version__
            from boundlint.cache import code_id

            project = blake2b(os.path.abspath(root).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
            self.dir = os.path.join(cache_dir, __version__, f"index-{code_id()}", project)
        self._shards: dict[str, dict] = {}
        self._dirty: set[str] = set()
        self._used: set[str] = set()  # keys looked up with an answer, or stored, since this object was made

    def _shard(self, name: str) -> dict:
        shard = self._shards.get(name)
        if shard is None:
            shard = {}
            if self.dir is not None:
                import pickle

                from boundlint import stores

                shard = stores.load(os.path.join(self.dir, f"{name}.pickle"), pickle.loads)  # damaged: rebuilt
            self._shards[name] = shard
        return shard

    def get(self, key: str) -> dict | None:
        """The summary stored under *key* (a hex digest), or None."""
        found = self._shard(key[:2]).get(key)
        if not isinstance(found, dict):
            return None
        self._used.add(key)
        return found

    def put(self, key: str, summary: dict) -> None:
        self._shard(key[:2])[key] = summary
        self._dirty.add(key[:2])
        self._used.add(key)

    def flush(self, prune: bool = False) -> None:
        """Write the changed shards atomically; a cache that cannot be written is skipped.

        *prune*: every module of the project was looked up since this object
        was made, so a summary none of them used is dropped, and a shard file
        none of them reached is deleted.
        """
        if self.dir is None or os.path.islink(self.dir):
            return  # never write or prune through a link: what it points at is not the cache's own
        if prune:
            for name, shard in self._shards.items():
                stale = [key for key in shard if key not in self._used]
                for key in stale:
                    del shard[key]
                if stale:
                    self._dirty.add(name)
        if self._dirty:
            self._write()
        if prune:
            self._delete_unreached()

    def _write(self) -> None:
        from boundlint import stores

        for name in sorted(self._dirty):
            target = os.path.join(self.dir, f"{name}.pickle")
            if self._shards[name]:
                stores.write(target, self._shards[name], _pickled)  # a shard that cannot be written is not cached
            else:
                _unlink(target)
        self._dirty.clear()

    def _delete_unreached(self) -> None:
        """Delete the shards no module of the project reached, the temporary files of runs that were killed
        while writing, and the folders of projects no run has pruned for ``_EXPIRE`` seconds."""
        import time

        from boundlint import stores

        if not os.path.isdir(self.dir):
            return
        now = time.time()
        try:
            names = os.listdir(self.dir)
            os.utime(self.dir)  # this project is in use: see _expire
        except OSError:
            return
        for name in names:
            path = os.path.join(self.dir, name)
            if _SHARD.fullmatch(name) and name[:2] not in self._shards:
                _unlink(path)
            elif name.startswith(".") and name.endswith(stores.TMP) and _older(path, now - _STALE_TMP):
                _unlink(path)
        self._expire(now)

    def _expire(self, now: float) -> None:
        import shutil

        parent = os.path.dirname(self.dir)
        try:
            names = os.listdir(parent)
        except OSError:
            return
        for name in names:
            path = os.path.join(parent, name)
            if (_PROJECT.fullmatch(name) and path != self.dir and not os.path.islink(path) and os.path.isdir(path)
                    and _older(path, now - _EXPIRE)):
                shutil.rmtree(path, ignore_errors=True)


_SHARD = re.compile(r"[0-9a-f]{2}\.pickle")
_PROJECT = re.compile(r"[0-9a-f]{16}")
_STALE_TMP = 3600  # seconds: a temporary shard this old belongs to no write still running
_EXPIRE = 30 * 86_400  # seconds: the summaries of a project no run has checked for this long are removed


def _pickled(shard: dict) -> bytes:
    import pickle

    return pickle.dumps(shard, protocol=pickle.HIGHEST_PROTOCOL)


def _older(path: str, than: float) -> bool:
    try:
        return os.stat(path, follow_symlinks=False).st_mtime < than
    except OSError:
        return False


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
