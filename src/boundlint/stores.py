"""Small dict stores in the cache directory, read and written whole with ``marshal``.

``filekeys`` (files.marshal) and ``memo`` (answers.marshal) keep one each.
A store that cannot be read is empty; one that cannot be written stays as it
was (the write is atomic: a temporary file renamed over it, last writer wins).
"""
from __future__ import annotations

import marshal
import os


STORE_CAP = 512 * 1024 * 1024  # bytes: a larger store is damaged (or not a store), so a miss


def load(store: str, decode=marshal.loads) -> dict:
    """The dict that *decode* (``marshal.loads``, ``json.loads``, ``pickle.loads``: bytes -> object) makes of the
    file *store*; empty when it is missing, unreadable, damaged in any way or not a dict."""
    import gc

    enabled = gc.isenabled()
    gc.disable()  # a load makes many small containers and no garbage: collecting meanwhile only costs time
    try:
        from boundlint.safe_read import read_regular

        # a FIFO or a link to /dev/zero in the cache must neither block nor fill memory: regular, capped
        loaded = decode(read_regular(store, STORE_CAP))  # marshal.load reads a file object piece by piece: far slower
    except Exception:  # noqa: BLE001 - any bytes at all (OverflowError, MemoryError, RecursionError...): a miss
        return {}
    finally:
        if enabled:
            gc.enable()
    return loaded if isinstance(loaded, dict) else {}


def save(store: str, data: dict, keep=None, limit: int = 0) -> None:
    """Write *data* (marshal-able values) to *store* atomically; nothing happens when it cannot be written.

    With *keep* (a set of keys), a *data* of more than *limit* entries is written as only the entries
    whose keys are in *keep*: a store grows while it is used and sheds what this process did not use.
    """
    if keep is not None and len(data) > limit:
        data = {k: v for k, v in data.items() if k in keep}
    write(store, data, marshal.dumps)


def write(store: str, data: object, encode) -> bool:
    """Write ``encode(data)`` (bytes) to the file *store* atomically (``replace_atomically``), making its
    folder; False, with nothing left behind, when it cannot be encoded or written.

    Concurrent writers never leave a torn file: the last one wins.
    """
    try:
        blob = encode(data)
        os.makedirs(os.path.dirname(store), exist_ok=True)
        replace_atomically(store, blob)
        return True
    except Exception:  # noqa: BLE001 - a full disk, a folder in its place, a value the encoder refuses
        return False


def replace_atomically(target: str, data: bytes, mode: int | None = None) -> None:
    """Put *data* in the file *target* all at once: a temporary file beside it (suffix ``TMP``), then
    ``os.replace``; the one atomic write of the project (stores, ``--output-file``, ``--fix``).

    *mode*: the permission bits the file gets (None: the temporary file's own, owner only).
    Raises OSError when it cannot be written; no temporary file is left behind then.
    """
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=f".{os.path.basename(target)}.", suffix=TMP)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


TMP = ".tmp"  # the suffix of a temporary file ``write`` has not yet renamed
