"""Writing a report to ``--output-file``: all of it or nothing, whatever the file names in it."""
from __future__ import annotations

import os
import stat

from boundlint.stores import replace_atomically


def report_bytes(text: str) -> bytes:
    """*text* as UTF-8, with the undecodable bytes of file names (surrogate escapes) written back as they were."""
    return text.encode("utf-8", "surrogateescape")


def write_report(path: str, text: str) -> None:
    """Write *text* to the file *path* atomically: a temporary file beside it, then a rename.

    A reader never sees half a report, and a failed write leaves the old
    file (or none) in place.  *path* that is a device or a FIFO
    (``/dev/stdout``) is written directly; a symlink is followed to its
    target.  A new file gets the permissions the umask allows.  Raises
    OSError when it cannot be written.
    """
    data = report_bytes(text)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "wb") as fh:
            fh.write(data)
        return
    target = os.path.realpath(path)
    umask = os.umask(0)
    os.umask(umask)
    replace_atomically(target, data, stat.S_IMODE(mode) if mode is not None else 0o666 & ~umask)
