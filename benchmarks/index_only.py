#!/usr/bin/env python3
"""Time boundlint's project index pass alone (no cache): what a cold run spends before checking.

usage: python benchmarks/index_only.py DIR
Builds the index of every project the ``*.py`` files under DIR belong to, as
``boundlint check`` does before its workers start, and exits 0.
"""
from __future__ import annotations

import sys
from pathlib import Path

from boundlint.index.build import prime


def main() -> int:
    files = sorted(str(p) for p in Path(sys.argv[1]).rglob("*.py"))
    prime(files)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
