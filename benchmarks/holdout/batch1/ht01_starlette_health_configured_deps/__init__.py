# Bounded: the health route gathers one probe per entry of settings.DEPENDENCIES, a fixed tuple of five services defined in settings.py.
"""Home-security backend: system health endpoint (trap ht01)."""
