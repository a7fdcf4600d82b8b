"""boundlint: find overload hazards (unbounded fan-out, request size, log storms, connection churn)."""

__version__ = "0.1.0"
