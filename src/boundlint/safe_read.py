"""Reading a file boundlint did not write as data: only a regular file, and only up to a size cap.

A FIFO named ``.gitignore`` blocks ``open()`` until a writer comes, and a
link to ``/dev/zero`` reads until memory runs out; neither is a file of
settings, patterns or findings.  ``read_regular`` opens without blocking,
asks the open file what it is, and reads at most its cap.
"""
from __future__ import annotations

import errno
import os
import stat

# Bytes read at most from a config file, an ignore file or a baseline (larger: an error, not a slow read).
CONFIG_CAP = 16 * 1024 * 1024
BASELINE_CAP = 256 * 1024 * 1024

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class NotAFile(OSError):
    """*path* is not a regular file, or is larger than the cap; ``strerror`` says which, in a few words."""


def kind_of(mode: int) -> str:
    """A few words for a file that is not regular: ``a FIFO``, ``a character device`` ..."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def why_not_a_file(path: str, missing: str) -> str:
    """Why *path*, which is no regular file, cannot be read: *missing* when nothing is there, else its kind."""
    try:
        return f"cannot read: not a regular file ({kind_of(os.stat(path).st_mode)})"
    except OSError:
        return missing


def read_regular(path: str, cap: int) -> bytes:
    """The bytes of the regular file *path*, at most *cap* of them.

    Raises NotAFile when *path* (after symlinks) is a FIFO, a device, a
    socket or a directory, or holds more than *cap* bytes; other OSErrors
    (missing, unreadable) as ``open`` raises them.  Never blocks on a FIFO.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFile(errno.EINVAL, f"not a regular file ({kind_of(mode)})", path)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                raise NotAFile(errno.EFBIG, f"larger than {cap // (1024 * 1024)} MB", path)
        return b"".join(chunks)
    finally:
        os.close(fd)
