"""Logging helpers: a logger wrapper that drops repeats of the same message within a window."""
import logging
import threading
import time


class ThrottledLogger:
    """Emits a given (level, message template) at most once per ``interval_s``."""

    def __init__(self, logger: logging.Logger, interval_s: float) -> None:
        self._logger = logger
        self._interval = interval_s
        self._last: dict[tuple[int, str], float] = {}
        self._suppressed: dict[tuple[int, str], int] = {}
        self._lock = threading.Lock()

    def _log(self, level: int, msg: str, *args) -> None:
        key = (level, msg)
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self._interval:
                self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return
            self._last[key] = now
            dropped = self._suppressed.pop(key, 0)
        if dropped:
            msg = f"{msg} (%d similar messages suppressed)"
            args = (*args, dropped)
        self._logger.log(level, msg, *args)

    def info(self, msg: str, *args) -> None:
        self._log(logging.INFO, msg, *args)

    def warning(self, msg: str, *args) -> None:
        self._log(logging.WARNING, msg, *args)

    def error(self, msg: str, *args) -> None:
        self._log(logging.ERROR, msg, *args)


def throttled(logger: logging.Logger, interval_s: float = 30.0) -> ThrottledLogger:
    return ThrottledLogger(logger, interval_s)
