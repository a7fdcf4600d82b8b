"""What every query shares."""
from __future__ import annotations

_DEPTH = 4  # how many calls down a query follows
