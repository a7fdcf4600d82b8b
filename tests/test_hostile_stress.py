"""A short run of scripts/stress_cache.py (issue 32): concurrent checks while files change, warm == --no-cache.

The acceptance run is 200 rounds: ``.venv/bin/python scripts/stress_cache.py --rounds 200``.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "stress_cache.py"


def load():
    spec = importlib.util.spec_from_file_location("stress_cache", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_concurrent_edits_never_change_a_warm_result(tmp_path):
    said: list[str] = []
    assert load().run_rounds(2, seed=32, runs=2, root=str(tmp_path), say=said.append) == 0, said
    assert said[-1] == "2 rounds, 0 with a difference"
