#!/usr/bin/env python3
"""Benchmark boundlint against its peers on the same files, interleaved and repeated.

usage: python benchmarks/bench.py [--small] [--repeat N] [--markdown FILE] [--only TEXT ...] [--baseline BOUNDLINT]

Builds the corpus (``benchmarks/corpus.py``) if missing, makes one virtualenv per
peer under ``benchmarks/.venvs/`` (ruff; flake8 + flake8-bugbear; flake8 +
flake8-async: separate, because flake8 runs every installed plugin), then times
each scenario ``--repeat`` times (default 3), interleaved so that machine noise
hits all of them alike, and prints the median wall time, the ratio to the
targets of issue 12, the peak memory of the largest process, and lines per
second per core.  Needs only the package index.

Each boundlint timed (and ``--baseline``) is first compiled to bytecode, as
``pip install`` does: an editable install run with ``PYTHONDONTWRITEBYTECODE``
set would otherwise compile every one of its modules from source in every run,
while LibCST and the peers run from their installed bytecode.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENVS = HERE / ".venvs"
CORES = os.cpu_count() or 1
PEERS = {
    "ruff": ["ruff"],
    "bugbear": ["flake8", "flake8-bugbear"],
    "async": ["flake8", "flake8-async"],
}


@dataclass
class Scenario:
    """One timed command; ``setup`` runs untimed before each repetition."""

    name: str
    argv: list[str]
    setup: Callable[[], None] | None = None
    walls: list[float] = field(default_factory=list)
    peak_mb: float = 0.0


def compile_bytecode(exe: str) -> None:
    """Compile the ``boundlint`` package that the console script *exe* runs to bytecode (as an install does)."""
    python = sys.executable
    try:
        with open(shutil.which(exe) or exe, "rb") as fh:
            first = fh.readline().decode("utf-8", "replace").strip()
        interpreter = first[2:].strip()
        if first.startswith("#!") and os.path.basename(interpreter).startswith("python"):
            python = interpreter  # the console script's own interpreter (a wrapper script: this one)
    except OSError:
        pass
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([python, "-c", "import boundlint, compileall, os; "
                    "compileall.compile_dir(os.path.dirname(boundlint.__file__), quiet=1)"],
                   env=env, check=True, stdout=subprocess.DEVNULL)


def venv_bin(name: str, exe: str) -> str:
    return str(VENVS / name / "bin" / exe)


def ensure_peers() -> None:
    for name, packages in PEERS.items():
        target = VENVS / name
        if (target / "bin" / "python").exists():
            continue
        subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
        subprocess.run([str(target / "bin" / "pip"), "install", "-q", *packages], check=True)


def ensure_corpus(small: bool) -> Path:
    corpus = HERE / ".corpus" / ("small" if small else "full")
    if not corpus.is_dir():
        flag = "--small-only" if small else "--subset"
        subprocess.run([sys.executable, str(HERE / "corpus.py"), flag], check=True)
    return corpus


def count_lines(root: Path) -> tuple[int, int]:
    files = lines = 0
    for path in root.rglob("*.py"):
        files += 1
        with open(path, "rb") as fh:
            lines += sum(1 for _ in fh)
    return files, lines


def spread(paths: list, n: int = 5) -> list:
    """*n* of *paths* (in their order) spread evenly over them: the files each few-file scenario checks."""
    return paths[:: max(1, len(paths) // n)][:n]


def run_timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of the largest process in the tree."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv[0]} exited {proc.returncode}: {err[-500:]}")
    return wall, usage.ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="use the fixed small subset")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--markdown", type=Path, help="also write the table as Markdown here")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="run only the scenarios whose name contains TEXT (repeatable); targets need their scenarios")
    ap.add_argument("--baseline", metavar="BOUNDLINT",
                    help="another boundlint executable (e.g. main's checkout) timed in the same interleaved run")
    args = ap.parse_args()

    corpus = ensure_corpus(args.small)
    ensure_peers()
    files, lines = count_lines(corpus)
    boundlint = shutil.which("boundlint", path=str(Path(sys.executable).parent)) or "boundlint"
    compile_bytecode(boundlint)
    if args.baseline:
        compile_bytecode(args.baseline)
    work = Path(tempfile.mkdtemp(prefix="boundlint-bench-"))
    cache_dir = work / "cache"
    touched = work / "touched"
    shutil.copytree(corpus, touched)
    touched_cache = work / "touched-cache"
    all_py = sorted(touched.rglob("*.py"))
    n_touch = max(1, len(all_py) // 100)
    one_percent = all_py[:: max(1, len(all_py) // n_touch)][:n_touch]
    five = [str(p) for p in spread(sorted(corpus.rglob("*.py")))]
    # Five changed files in a warm project: a copy warmed once, five of its files edited before each run.
    project = work / "project"
    shutil.copytree(corpus, project)
    project_cache = work / "project-cache"
    project_py = sorted(project.rglob("*.py"))
    five_changed = [str(p) for p in spread(project_py)]
    counter = [0]

    def warm_up() -> None:
        subprocess.run([boundlint, "check", "--exit-zero", "-q", "--cache-dir", str(cache_dir), str(corpus)],
                       stdout=subprocess.DEVNULL, check=True)

    def touch_one_percent() -> None:
        subprocess.run([boundlint, "check", "--exit-zero", "-q", "--cache-dir", str(touched_cache), str(touched)],
                       stdout=subprocess.DEVNULL, check=True)
        counter[0] += 1
        for path in one_percent:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n# touched {counter[0]}\n")

    def change_five() -> None:
        if counter[0] == 0 or not project_cache.exists():
            subprocess.run([boundlint, "check", "--exit-zero", "-q", "--cache-dir", str(project_cache), str(project)],
                           stdout=subprocess.DEVNULL, check=True)
        counter[0] += 1
        for path in five_changed:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n# changed {counter[0]}\n")

    check = [boundlint, "check", "--exit-zero", "-q"]
    scenarios = [
        Scenario("boundlint cold, 1 job", [*check, "--no-cache", "--jobs", "1", str(corpus)]),
        Scenario(f"boundlint cold, {CORES} jobs", [*check, "--no-cache", "--jobs", str(CORES), str(corpus)]),
        Scenario("boundlint warm (cache, nothing changed)", [*check, "--cache-dir", str(cache_dir), str(corpus)], warm_up),
        Scenario("boundlint after touching 1% of files", [*check, "--cache-dir", str(touched_cache), str(touched)], touch_one_percent),
        Scenario("boundlint on 5 files (pre-commit)", [*check, "--no-cache", *five]),
        Scenario("boundlint on 5 changed files, warm project", [*check, "--cache-dir", str(project_cache), *five_changed],
                 change_five),
        Scenario("index pass only, all cores", [sys.executable, str(HERE / "index_only.py"), str(corpus)]),
        Scenario("ruff check --select ASYNC,PERF,LOG", [venv_bin("ruff", "ruff"), "check", "--no-cache", "--exit-zero", "-q",
                                                        "--select", "ASYNC,PERF,LOG", str(corpus)]),
        Scenario(f"flake8 + bugbear --select B, {CORES} jobs", [venv_bin("bugbear", "flake8"), "--select", "B", "-j", str(CORES),
                                                                "--exit-zero", str(corpus)]),
        Scenario(f"flake8 + flake8-async --select ASYNC, {CORES} jobs", [venv_bin("async", "flake8"), "--select", "ASYNC", "-j",
                                                                         str(CORES), "--exit-zero", str(corpus)]),
        Scenario(f"LibCST parse only, {CORES} jobs", [sys.executable, str(HERE / "parse_only.py"), str(corpus), "--jobs", str(CORES)]),
        Scenario('python -c "import libcst"', [sys.executable, "-c", "import libcst"]),
    ]
    if args.baseline:
        # The same boundlint scenarios with the baseline executable (own caches, own warmed copies).
        base = _baseline_scenarios(args.baseline, corpus, work, check_for=lambda exe: [exe, "check", "--exit-zero", "-q"])
        scenarios = [s for pair in zip(scenarios[:6], base) for s in pair] + scenarios[6:]
    if args.only:
        scenarios = [sc for sc in scenarios if any(text in sc.name for text in args.only)]
    for rep in range(args.repeat):
        for sc in scenarios:
            if sc.setup is not None:
                sc.setup()
            wall, peak = run_timed(sc.argv)
            sc.walls.append(wall)
            sc.peak_mb = max(sc.peak_mb, peak)
            print(f"[{rep + 1}/{args.repeat}] {sc.name}: {wall:.2f} s", file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)

    med = {sc.name: statistics.median(sc.walls) for sc in scenarios}
    by = {sc.name: sc for sc in scenarios}
    if args.only or args.baseline:
        return _report_partial(scenarios, med)
    cold_all = med[f"boundlint cold, {CORES} jobs"]
    rows = []
    for sc in scenarios:
        m = med[sc.name]
        cores = 1 if "1 job" in sc.name or "import" in sc.name or "5 " in sc.name else CORES
        lps = f"{lines / m / cores:,.0f}" if "5 " not in sc.name and "import" not in sc.name else "-"
        rows.append((sc.name, f"{m:.2f}", f"{m / cold_all:.2f}", f"{sc.peak_mb:.0f}", lps))
    targets = [
        ("cold, all cores / flake8+bugbear, all cores", cold_all / med[f"flake8 + bugbear --select B, {CORES} jobs"], 1.0),
        ("cold, all cores / LibCST parse-only, all cores", cold_all / med[f"LibCST parse only, {CORES} jobs"], 1.3),
        ("warm / ruff cold", med["boundlint warm (cache, nothing changed)"] / med["ruff check --select ASYNC,PERF,LOG"], 1.0),
        ("5 changed files in a warm project / import libcst",
         med["boundlint on 5 changed files, warm project"] / med['python -c "import libcst"'], 1.5),
        ("5 files, no cache / import libcst", med["boundlint on 5 files (pre-commit)"] / med['python -c "import libcst"'], 1.5),
        ("index pass / cold, all cores", med["index pass only, all cores"] / cold_all, 0.15),
        ("peak memory per process (MB), cold all cores", by[f"boundlint cold, {CORES} jobs"].peak_mb, 250.0),
    ]
    out = [
        f"Corpus: {corpus.name} ({files:,} files, {lines:,} lines); machine: {platform.machine()}, {CORES} cores, "
        f"Python {platform.python_version()}; {time.strftime('%Y-%m-%d')}; median of {args.repeat}, interleaved.",
        "",
        "| scenario | median wall (s) | / boundlint cold all cores | peak MB | lines/s/core |",
        "| --- | ---: | ---: | ---: | ---: |",
        *[f"| {' | '.join(r)} |" for r in rows],
        "",
        "| target | measured | limit | met |",
        "| --- | ---: | ---: | --- |",
        *[f"| {name} | {value:.2f} | {limit:g} | {'yes' if value <= limit else 'no'} |" for name, value, limit in targets],
    ]
    text = "\n".join(out)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "latest.json").write_text(json.dumps({"medians": med, "lines": lines, "files": files}, indent=2))
    return 0


def _baseline_scenarios(exe: str, corpus: Path, work: Path, check_for) -> list[Scenario]:
    """The six boundlint scenarios run with *exe*, each on its own caches and copies (names end in ``[baseline]``)."""
    check = check_for(exe)
    cache_dir, touched, touched_cache = work / "b-cache", work / "b-touched", work / "b-touched-cache"
    project, project_cache = work / "b-project", work / "b-project-cache"
    shutil.copytree(corpus, touched)
    shutil.copytree(corpus, project)
    files = sorted(corpus.rglob("*.py"))
    all_py = sorted(touched.rglob("*.py"))
    n_touch = max(1, len(all_py) // 100)
    one_percent = all_py[:: max(1, len(all_py) // n_touch)][:n_touch]
    five = [str(p) for p in spread(files)]
    project_py = sorted(project.rglob("*.py"))
    five_changed = [str(p) for p in spread(project_py)]
    counter = [0]

    def run(cache: Path, target: Path) -> None:
        subprocess.run([*check, "--cache-dir", str(cache), str(target)], stdout=subprocess.DEVNULL, check=True)

    def touch() -> None:
        run(touched_cache, touched)
        counter[0] += 1
        for path in one_percent:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n# touched {counter[0]}\n")

    def change() -> None:
        if not project_cache.exists():
            run(project_cache, project)
        counter[0] += 1
        for path in five_changed:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n# changed {counter[0]}\n")

    tag = " [baseline]"
    return [
        Scenario("boundlint cold, 1 job" + tag, [*check, "--no-cache", "--jobs", "1", str(corpus)]),
        Scenario(f"boundlint cold, {CORES} jobs" + tag, [*check, "--no-cache", "--jobs", str(CORES), str(corpus)]),
        Scenario("boundlint warm (cache, nothing changed)" + tag, [*check, "--cache-dir", str(cache_dir), str(corpus)],
                 lambda: run(cache_dir, corpus)),
        Scenario("boundlint after touching 1% of files" + tag, [*check, "--cache-dir", str(touched_cache), str(touched)], touch),
        Scenario("boundlint on 5 files (pre-commit)" + tag, [*check, "--no-cache", *five]),
        Scenario("boundlint on 5 changed files, warm project" + tag,
                 [*check, "--cache-dir", str(project_cache), *five_changed], change),
    ]


def _report_partial(scenarios: list[Scenario], med: dict[str, float]) -> int:
    """The table of a run limited by ``--only`` or extended by ``--baseline``: medians, spread, and the ratios
    of issue 12 that its scenarios allow (for this build and for the baseline)."""
    rows = [f"| {sc.name} | {med[sc.name]:.3f} | {min(sc.walls):.3f} | {max(sc.walls):.3f} | {sc.peak_mb:.0f} |"
            for sc in scenarios]
    ratios = []
    for tag in ("", " [baseline]"):
        pairs = [("warm / ruff cold", "boundlint warm (cache, nothing changed)", "ruff check --select ASYNC,PERF,LOG"),
                 ("5 changed files in a warm project / import libcst", "boundlint on 5 changed files, warm project",
                  'python -c "import libcst"'),
                 ("5 files, no cache / import libcst", "boundlint on 5 files (pre-commit)", 'python -c "import libcst"')]
        for label, top, bottom in pairs:
            if top + tag in med and bottom in med:
                ratios.append(f"| {label}{tag} | {med[top + tag] / med[bottom]:.2f} |")
        cold, index = f"boundlint cold, {CORES} jobs" + tag, "index pass only, all cores"
        if cold in med and index in med and not tag:
            ratios.append(f"| index pass / cold, all cores | {med[index] / med[cold]:.2f} |")
    text = "\n".join(["| scenario | median wall (s) | min | max | peak MB |", "| --- | ---: | ---: | ---: | ---: |", *rows,
                      "", "| ratio | value |", "| --- | ---: |", *ratios])
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
