# Bounded: see runner.py; every failed attempt ends in backoff.wait() from backoff.py, which
# sleeps at least 2.5 s (5 s with jitter), doubling to 300 s, and is reset only after a successful
# login: the retry loop and its error line run at most once per pause.
"""Home-alarm event bridge daemon, with paced reconnects (trap dt12)."""
