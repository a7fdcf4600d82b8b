"""A one-line progress bar on stderr: files done, rate, ETA.

Only used when stderr is a terminal and ``--quiet`` is not given; it redraws
at most ten times a second and erases itself on ``close()``.
"""
from __future__ import annotations

import time


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds + 0.5))
    minutes, sec = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{sec:02d}" if hours else f"{minutes}:{sec:02d}"


class Progress:
    """Callable ``(done, total)`` for ``check_files(progress=...)``; writes to *stream*."""

    def __init__(self, stream, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False

    def line(self, done: int, total: int, now: float) -> str:
        """The bar text for *done* of *total* files at time *now*."""
        elapsed = max(now - self.started, 1e-6)
        rate = done / elapsed
        filled = int(self.width * done / total) if total else self.width
        eta = (total - done) / rate if rate > 0 else 0
        bar = "#" * filled + "-" * (self.width - filled)
        return f"auditing [{bar}] {done}/{total} files  {rate:,.0f} files/s  ETA {_clock(eta)}"

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        self.stream.write("\r" + self.line(done, total, now) + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Erase the bar."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
