"""Content keys of files (``cache.content_key`` of their bytes), with a stat shortcut that stays exact.

A run asks for the key of every file it checks and of every module of their
projects; reading and hashing them all is most of a warm run.  ``FileKeys``
remembers, per absolute path, the key of the bytes it last read together with
the file's status before that read (size, mtime, ctime, inode, device), in
``<cache-dir>/<version>/files.marshal``.  A later lookup whose ``stat`` is the
same in every field returns the remembered key without opening the file.

Content stays the key: a record is only kept when the file's mtime and ctime
were already more than ``MARGIN_NS`` older than the clock when it was read.
Every change to a file after that read (a write, a truncate, ``os.utime``
putting the old mtime back, a rename over it) sets its ctime to the time of
the change, which is then later than the recorded one, so the record no
longer matches and the file is read again.  A file changed within the margin
of a read is simply read again next time.  ctime is set by the kernel and
cannot be set back from user space; on systems without a POSIX ctime
(Windows, where ``st_ctime`` is the creation time) the shortcut is off and
every file is read.  The margin also covers a network file system whose
clock differs from this machine's by less than it; a file whose times lie in
the future is never remembered.
"""
from __future__ import annotations

import os
import stat
import time

from boundlint import __version__, stores
from boundlint.cache import content_key

MARGIN_NS = 2_000_000_000  # more than any timestamp granularity (FAT: 2 s) and clock tick
MAX_RECORDS = 200_000
_USABLE = os.name == "posix"
_STORES: dict[str, "FileKeys"] = {}


SOURCE_CAP = 256 * 1024 * 1024  # bytes: a larger "source" is data or an attack, reported as unreadable (BND001)


def read_regular(path: str) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file *path* and its status taken before reading them.

    Raises OSError for anything else: a FIFO or device named ``*.py`` would
    block or never end, and a directory cannot be read (an unlistable one
    says why), so each is refused before it is opened for data.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            os.listdir(path)  # an unlistable directory says why (permission denied)
            raise IsADirectoryError(21, "is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "not a regular file")
        too_large = OSError(27, f"larger than {SOURCE_CAP // (1024 * 1024)} MB, the most a source may hold")
        if info.st_size > SOURCE_CAP:
            raise too_large
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(SOURCE_CAP + 1)  # a file that grows while it is read stops at the cap too
        if len(data) > SOURCE_CAP:
            raise too_large
        return data, info
    finally:
        os.close(fd)


def _status(info: os.stat_result) -> tuple[int, int, int, int, int]:
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev


class FileKeys:
    """Content keys by path, remembered in *store* (a file path; None: nothing is remembered).

    ``key(path)`` and ``read(path)`` raise OSError as ``read_regular`` does;
    ``flush()`` writes the records that changed (atomically, last writer
    wins; a store that cannot be read or written is ignored).
    """

    def __init__(self, store: str | None) -> None:
        self.store = store if _USABLE else None
        self._records: dict[str, tuple] | None = None
        self._seen: set[str] = set()
        self._dirty = False

    def _all(self) -> dict[str, tuple]:
        if self._records is None:
            self._records = {}
            if self.store is not None:
                self._records = stores.load(self.store)
        return self._records

    def key(self, path: str, limit: int | None = None) -> str | None:
        """The content key of the file *path*; None when it is larger than *limit* bytes (it is then not read)."""
        return self.lookup(path, limit)[1]

    def lookup(self, path: str, limit: int | None = None) -> tuple[bytes | None, str | None]:
        """``(bytes, key)`` like ``read``, but ``bytes`` is None when the key came from the store unread."""
        full = os.path.abspath(path)
        if self.store is not None or limit is not None:
            try:
                info = os.stat(full)
            except OSError:
                info = None
            if info is not None and stat.S_ISREG(info.st_mode):
                if limit is not None and info.st_size > limit:
                    return None, None
                record = self._all().get(full) if self.store is not None else None
                if type(record) is tuple and len(record) == 6 and record[:5] == _status(info):
                    self._seen.add(full)
                    return None, record[5]
        return self.read(path, limit)

    def read(self, path: str, limit: int | None = None) -> tuple[bytes | None, str | None]:
        """``(bytes, key)`` of the file *path*, read now; ``(None, None)`` when it is larger than *limit* bytes."""
        now = time.time_ns()
        data, info = read_regular(path)
        if limit is not None and len(data) > limit:
            return None, None
        key = content_key(data)
        if self.store is not None:
            full = os.path.abspath(path)
            records = self._all()
            old = records.get(full)
            if info.st_mtime_ns < now - MARGIN_NS and info.st_ctime_ns < now - MARGIN_NS:
                record = (*_status(info), key)
                if old != record:
                    records[full] = record
                    self._dirty = True
                self._seen.add(full)
            elif old is not None:  # changed lately: read again until it has settled
                del records[full]
                self._dirty = True
        return data, key

    def flush(self) -> None:
        """Write the records if any changed; past ``MAX_RECORDS``, keep only those this process used."""
        if self.store is None or not self._dirty or self._records is None:
            return
        stores.save(self.store, self._records, keep=self._seen, limit=MAX_RECORDS)
        self._dirty = False


def for_dir(cache_dir: str | None) -> FileKeys:
    """The process's ``FileKeys`` of the cache at *cache_dir* (None: one that remembers nothing)."""
    name = os.path.abspath(cache_dir) if cache_dir else ""
    found = _STORES.get(name)
    if found is None:
        store = os.path.join(name, __version__, "files.marshal") if name else None
        found = _STORES[name] = FileKeys(store)
    return found


def flush_all() -> None:
    """Write every store of this process that changed."""
    for keys in _STORES.values():
        keys.flush()
