"""How a run is split over worker processes, and how long each file may take.

Work is measured in bytes, not files: one 9 MB generated module is as much
work as a thousand ordinary ones, so the worker count and the chunks a worker
takes at a time follow the total size.  The largest files are handed out
first, so that a big file never starts last while the other workers idle.

The per-file time limit grows with the file: ``timeout + SECONDS_PER_MB × MB``
(1 MB = 10^6 bytes), and counts the CPU time the worker spent on the file
where the system says it (Linux), so that whether a file is checked or
skipped (BND002) never depends on machine load; a worker that hangs without
computing is stopped after ``WALL_FACTOR`` times the limit of wall-clock
time.  Elsewhere the limit counts wall-clock time.
"""
from __future__ import annotations

from typing import Sequence

# Seconds of time limit per MB of file, on top of ``timeout``.  Dense code full of
# findings costs about 20 CPU seconds per MB (LibCST's parse and position pass);
# a file is allowed three times that.
SECONDS_PER_MB = 60.0
# Wall-clock backstop, in multiples of a file's limit, for a worker that hangs without using CPU.
WALL_FACTOR = 4.0
# A file costs at least this many bytes' worth of work (reading, decoding, the prefilters).
MIN_WEIGHT = 4096
# Bytes of work that justify one more worker process (starting one costs about as much).
PER_WORKER = 32 * 1024
# Files per chunk at most, and chunks per worker aimed at (so the last chunks balance the load).
MAX_CHUNK_FILES = 32
CHUNKS_PER_WORKER = 8


def time_limit(timeout: float | None, size: int) -> float | None:
    """Seconds a file of *size* bytes may take: *timeout* + SECONDS_PER_MB per MB; None: no limit.

    *timeout* None or <= 0 means no limit.
    """
    if not timeout or timeout <= 0:
        return None
    return float(timeout) + SECONDS_PER_MB * max(0, size) / 1e6


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) process *pid* has used, or None where the system does not say (not Linux)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


def _ticks() -> float:
    import os

    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100.0


_TICKS = _ticks()


def describe_limit(limit: float) -> str:
    """A time limit for a message: ``1``, ``2.5``, ``60``, ``330``."""
    return f"{limit:.0f}" if limit >= 10 else f"{limit:.2g}"


def plan(sizes: Sequence[int], jobs: int | None, cores: int) -> tuple[int, list[list[int]]]:
    """``(workers, chunks)`` for files of *sizes* bytes; chunks are lists of indices into *sizes*.

    *jobs*: the requested worker count (None: choose from the total size, up
    to *cores*; a run of a few small files gets one worker).  The count never
    exceeds the number of files.  Chunks come largest first; a file bigger
    than a chunk's share is a chunk of its own.  Every index is in exactly
    one chunk.  Raises nothing.
    """
    total = len(sizes)
    if total == 0:
        return 0, []
    weights = [max(MIN_WEIGHT, size) for size in sizes]
    work = sum(weights)
    if jobs is None:
        jobs = min(max(1, cores), max(1, work // PER_WORKER))
    jobs = max(1, min(jobs, total))
    share = max(MIN_WEIGHT, work // (jobs * CHUNKS_PER_WORKER))
    order = sorted(range(total), key=lambda i: -weights[i])  # stable: equal sizes keep their order
    chunks: list[list[int]] = []
    current: list[int] = []
    weight = 0
    for index in order:
        if current and (weight + weights[index] > share or len(current) >= MAX_CHUNK_FILES):
            chunks.append(current)
            current, weight = [], 0
        current.append(index)
        weight += weights[index]
    chunks.append(current)
    return jobs, chunks
