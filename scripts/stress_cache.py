"""Stress the result cache: concurrent checks while files are edited and renamed; warm runs must equal --no-cache.

Each round starts ``--runs`` concurrent ``boundlint check`` processes on one
project (sharing its cache) while a thread rewrites, swaps (A -> B -> A) and
renames its modules.  Once the edits stop, a warm run and a ``--no-cache``
run must report the same findings; any difference is printed and counted.

    .venv/bin/python scripts/stress_cache.py --rounds 200      # the issue 32 acceptance run
    .venv/bin/python scripts/stress_cache.py --rounds 5 --seed 7

Exit status 0 when every round agreed, 1 otherwise.  ``tests/test_hostile_stress.py``
runs a few rounds of the same code.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

GATHER = "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"
CLEAN = "async def handler(ids):\n    return ids\n"
LOOP_LOG = ("import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef flush(samples):\n"
            "    for name, value in samples.items():\n        try:\n            send(name, value)\n"
            "        except OSError as exc:\n            log.error(\"send failed %s: %s\", name, exc)\n")
CHURN = ("import httpx\n\n\ndef fetch_all(urls):\n    out = []\n    for url in urls:\n"
         "        with httpx.Client() as client:\n            out.append(client.get(url))\n    return out\n")
CONTENTS = (GATHER, CLEAN, LOOP_LOG, CHURN)
NAMES = ("a.py", "b.py", "c.py", "pkg/d.py", "pkg/e.py")


def findings(root: str, *extra: str) -> list[tuple]:
    """The findings of ``boundlint check`` on *root* as sorted ``(path, line, column, code)``."""
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--output-format", "json", "--exit-zero",
                           *extra, "."], cwd=root, capture_output=True, timeout=600)
    if proc.returncode != 0 or b"internal error" in proc.stderr:
        raise RuntimeError(f"boundlint failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[-400:]}")
    return sorted((f["path"], f["line"], f["column"], f["code"]) for f in json.loads(proc.stdout))


def write(path: str, text: str) -> None:
    tmp = path + ".swap"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)  # as editors save: never a half-written file


def mutate(root: str, rng: random.Random, stop: threading.Event) -> None:
    """Edit, swap and rename modules of *root* until *stop* is set."""
    while not stop.is_set():
        name = rng.choice(NAMES)
        path = os.path.join(root, name)
        action = rng.random()
        try:
            if action < 0.5:
                write(path, rng.choice(CONTENTS))
            elif action < 0.8:  # A -> B -> A: the content ends as it began
                with open(path, encoding="utf-8") as fh:
                    before = fh.read()
                write(path, rng.choice(CONTENTS))
                time.sleep(rng.random() * 0.05)
                write(path, before)
            else:  # renamed away and back
                os.replace(path, path + ".moved")
                time.sleep(rng.random() * 0.05)
                os.replace(path + ".moved", path)
        except OSError:
            pass
        time.sleep(rng.random() * 0.03)


def one_round(root: str, rng: random.Random, runs: int) -> str | None:
    """A round on *root*; None when the warm run equals --no-cache, else the difference in words."""
    stop = threading.Event()
    editor = threading.Thread(target=mutate, args=(root, rng, stop), daemon=True)
    editor.start()
    procs = [subprocess.Popen([sys.executable, "-m", "boundlint", "check", "-q", "--exit-zero", "."], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(runs)]
    errors = [p.communicate(timeout=600)[1] for p in procs]
    stop.set()
    editor.join()
    for err in errors:
        if b"internal error" in err or b"Traceback" in err:
            return f"a concurrent run failed: {err.decode(errors='replace')[-300:]}"
    warm, cold = findings(root), findings(root, "--no-cache")
    if warm != cold:
        return f"warm {sorted(set(warm) - set(cold))} extra, {sorted(set(cold) - set(warm))} missing"
    return None


def run_rounds(rounds: int, seed: int = 0, runs: int = 3, root: str | None = None, say=print) -> int:
    """Run *rounds* rounds (in *root*, else a fresh temporary project); returns the number that disagreed."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="boundlint-stress-") as tmp:
        root = root or tmp
        os.makedirs(os.path.join(root, ".git"), exist_ok=True)
        os.makedirs(os.path.join(root, "pkg"), exist_ok=True)
        for name in NAMES:
            write(os.path.join(root, name), rng.choice(CONTENTS))
        bad = 0
        for number in range(1, rounds + 1):
            problem = one_round(root, rng, runs)
            if problem is not None:
                bad += 1
                say(f"round {number}: {problem}")
            elif number % 10 == 0:
                say(f"round {number}: warm == --no-cache")
        say(f"{rounds} rounds, {bad} with a difference")
        return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3, help="concurrent checks per round")
    args = parser.parse_args(argv)
    return 1 if run_rounds(args.rounds, args.seed, args.runs) else 0


if __name__ == "__main__":
    sys.exit(main())
