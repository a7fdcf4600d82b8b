"""Circuit breaker for the search cluster."""
import time

FAILURE_THRESHOLD = 3
COOLDOWN_S = 300.0


class SearchUnavailable(Exception):
    """Raised instead of calling the search cluster while it is known to be down."""


class CircuitBreaker:
    def __init__(self, threshold: int = FAILURE_THRESHOLD, cooldown_s: float = COOLDOWN_S) -> None:
        self._threshold = threshold
        self._cooldown = cooldown_s
        self._failures = 0
        self._opened_at: float | None = None

    def check(self) -> None:
        """Raise while the breaker is open; after the cool-down one trial call is let through."""
        if self._opened_at is not None and time.monotonic() - self._opened_at < self._cooldown:
            raise SearchUnavailable(f"circuit open after {self._failures} consecutive failures")

    def record_success(self) -> None:
        self._failures = 0
        self._opened_at = None

    def record_failure(self) -> None:
        """Count a failure; from the threshold on, open the breaker and raise."""
        self._failures += 1
        if self._failures >= self._threshold:
            self._opened_at = time.monotonic()
            raise SearchUnavailable(f"{self._failures} consecutive connection failures")
