"""Exponential backoff between reconnect attempts."""
import random
import time

FIRST_DELAY_S = 5.0
MAX_DELAY_S = 300.0


class Backoff:
    def __init__(self, first_s: float = FIRST_DELAY_S, max_s: float = MAX_DELAY_S) -> None:
        self._first = first_s
        self._max = max_s
        self.delay = first_s

    def reset(self) -> None:
        self.delay = self._first

    def wait(self) -> None:
        """Sleep for the current delay (with jitter, never under half of it), then double it."""
        time.sleep(self.delay * random.uniform(0.5, 1.0))
        self.delay = min(self.delay * 2, self._max)
