"""Import roots inside a package: the folder of a launcher script run by its path.

Python puts the folder of the script it runs first on ``sys.path``.  A
Django project's ``manage.py`` sits in the folder of its apps, so
``label/core/utils/io.py`` next to ``label/manage.py`` is imported as
``core.utils.io`` as well as ``label.core.utils.io``, even when ``label`` is
itself a package.  ``launcher_names(path, root)`` gives those extra names;
the scripts that make a folder such a root are the ``launcher-scripts``
table's.
"""
from __future__ import annotations

import os
from functools import lru_cache

from boundlint.files import remembered


@lru_cache(maxsize=4096)
def _launches(directory: str) -> bool:
    from boundlint import tables  # here: a run served from the cache loads no table

    return any(os.path.isfile(os.path.join(directory, n)) for n in tables.table("launcher-scripts"))


def launcher_names(path: str, root: str) -> list[str]:
    """The dotted names the module at *path* (absolute) is imported by below each folder between
    it and *root* that holds a launcher script; [] when none does.  Only folders that are
    packages, or the file's own folder, are searched: a launcher's folder is the top of the
    package chain the module is found through."""
    stem = os.path.splitext(os.path.basename(path))[0]
    parts = [] if stem == "__init__" else [stem]
    directory = os.path.dirname(path)
    root = os.path.abspath(root)
    names: list[str] = []
    while directory.startswith(root + os.sep):
        if parts and _launches(directory) and all(p.isidentifier() for p in parts):
            names.append(".".join(parts))
        if not remembered("init", directory, lambda: os.path.isfile(os.path.join(directory, "__init__.py"))):
            break
        parts.insert(0, os.path.basename(directory))
        directory = os.path.dirname(directory)
    return names
