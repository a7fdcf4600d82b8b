#!/usr/bin/env python3
"""Build the pinned real-world corpus that boundlint is run and benchmarked on.

The corpus list (default ``../shared/bench/corpus.txt``, one ``name==version`` per
line, ``#`` comments) names wheels on the package index.  Each is fetched with
``pip download --no-deps --only-binary=:all:`` for CPython 3.11 on manylinux and
every ``*.py`` / ``*.pyi`` member is unpacked into ``OUT/<name>-<version>/``.
Nothing is imported or executed.

usage: python benchmarks/corpus.py [--list FILE] [--out DIR] [--subset | --small-only]

``--subset`` also writes ``OUT/../small`` holding a fixed slice (the same files on
every machine: the packages in SMALL_PACKAGES) used by CI-sized tests and quick
benchmarks; ``--small-only`` downloads and writes just that slice.
Exit status: 0 built, 2 a wheel could not be downloaded or the list is missing.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_LIST = HERE.parent.parent / "shared" / "bench" / "corpus.txt"
DEFAULT_OUT = HERE / ".corpus" / "full"
# A fixed slice for CI and quick runs: a few packages that exercise every family.
SMALL_PACKAGES = ("anyio", "httpx", "starlette", "uvicorn", "redis")


def read_pins(path: Path) -> list[str]:
    """Return the ``name==version`` lines of *path*, comments and blanks dropped."""
    pins = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            pins.append(line)
    return pins


def download(pins: list[str], dest: Path) -> None:
    """Fetch the wheels for *pins* into *dest*; raises CalledProcessError on failure."""
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64", "--python-version", "3.11",
        "--implementation", "cp", "--abi", "cp311", "--abi", "abi3", "--abi", "none", "-q", "-d", str(dest), *pins,
    ]
    subprocess.run(cmd, check=True)


def unpack(wheel: Path, out: Path) -> int:
    """Unpack the Python sources of *wheel* into *out*; returns the file count."""
    count = 0
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            if not member.endswith((".py", ".pyi")) or ".." in Path(member).parts:
                continue
            target = out / member
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(member))
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", type=Path, default=DEFAULT_LIST)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--subset", action="store_true", help="also build the small fixed subset")
    ap.add_argument("--small-only", action="store_true", help="build only the small fixed subset")
    args = ap.parse_args(argv)
    if not args.list.is_file():
        print(f"corpus list not found: {args.list}", file=sys.stderr)
        return 2
    pins = read_pins(args.list)
    if args.small_only:
        pins = [p for p in pins if p.split("==")[0].lower() in SMALL_PACKAGES]
        args.out = args.out.parent / "small"
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            download(pins, Path(tmp))
        except subprocess.CalledProcessError as exc:
            print(f"pip download failed ({exc.returncode})", file=sys.stderr)
            return 2
        for wheel in sorted(Path(tmp).glob("*.whl")):
            name, version = wheel.name.split("-")[:2]
            dest = args.out / f"{name.lower()}-{version}"
            if dest.exists():
                shutil.rmtree(dest)
            n = unpack(wheel, dest)
            print(f"{dest.name}: {n} files")
    if args.subset:
        small = args.out.parent / "small"
        if small.exists():
            shutil.rmtree(small)
        for pkg in sorted(args.out.iterdir()):
            if pkg.name.split("-")[0] in SMALL_PACKAGES:
                shutil.copytree(pkg, small / pkg.name)
        print(f"subset: {small}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
